#!/usr/bin/env bash
# RAPtor's own levels, the judge of the raptor-2018 presets (issue 51):
# builds RAPtor (RAPTOR_SRC: a clone of raptor-library/raptor, checked out
# here at the study's commit c00e9d6) and tools/raptor_levels.cpp, runs it
# on the recorded cases under mpirun, and writes per case, rank count, run
# and level RAPtor's rows, nonzeros, active ranks, and the messages and
# bytes of A's and P's communication packages into
# - tests/data/raptor/raptor_levels.csv: RAPtor as it is, RUNS runs a case;
# - tests/data/raptor/raptor_levels_sorted.csv: RAPtor with
#   tools/raptor_sorted_sends.patch (a package's sends by destination rank),
#   one run a case.
#
#   scripts/raptor_levels.sh RAPTOR_SRC [RUNS]
#
# RAPtor orders a package's sends by message arrival (ParComm::init_par_comm)
# and P^T (A P) adds the partial sums it receives in that order, so the last
# bits of the coarse operators, and the entries its 1e-16 drop tolerance
# keeps, can change from run to run (RUNS, default 3). With the sends sorted
# the sums are in rank order and every run is the same. Needs cmake, mpicxx,
# liblapack-dev and libblas-dev; about 3 minutes to build each library, 5 to
# run on 2 cores. CI cannot fetch RAPtor: the tests read the tables.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 RAPTOR_SRC [RUNS]" >&2; exit 2; }
cd "$(dirname "$0")/.."
SRC=$(realpath "$1")
RUNS=${2:-3}
git -C "$SRC" checkout --quiet c00e9d6
COMMIT=$(git -C "$SRC" rev-parse --short=12 HEAD)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d)
trap 'git -C "$SRC" worktree remove --force "$WORK/sorted" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT

# The library alone (examples/benchmark_commpkg.cpp does not compile with
# Open MPI), then the driver: `build SRC EXE`.
build() {
  mkdir -p "$1/build"
  (cd "$1/build" && cmake .. -DWITH_MPI=ON >/dev/null && make -j"$(nproc)" raptor >/dev/null)
  mpicxx -O2 -std=c++11 -DUSING_MPI -I "$1/raptor" -I "$1/external" \
    tools/raptor_levels.cpp -o "$2" "$1/build/lib/libraptor.a" -llapack -lblas
}
build "$SRC" "$WORK/raptor_levels"
git -C "$SRC" worktree add --quiet --detach "$WORK/sorted" c00e9d6
git -C "$WORK/sorted" apply "$PWD/tools/raptor_sorted_sends.patch"
build "$WORK/sorted" "$WORK/raptor_levels_sorted"
cargo build --release --quiet --bin amgcomm
AMGCOMM=$PWD/target/release/amgcomm

# A generated matrix as a PETSc binary matrix (MatView's format, what
# RAPtor's readParMatrix reads; explicit zeros kept).
petsc() {
  "$AMGCOMM" generate "$1" --n "$2" --output "$WORK/$3" >/dev/null
}

# case kind n args ranks
CASES=(
  "beam4-vars3 beam 4 --vars_3 16"
  "beam4-vars3 beam 4 --vars_3 128"
  "lap27-theta025 poisson3d-27 40 --theta_0.25 24"
  "aniso2d-matops aniso2d 256 --matops 128"
)

# `record EXE RUNS NAME WHAT`: the table NAME.csv, each written whole at
# the end (a failed run leaves the recorded one as it was).
record() {
  local exe=$1 runs=$2 out=$WORK/$3.csv dest=tests/data/raptor/$3.csv
  {
    echo "# RAPtor $COMMIT (raptor-library/raptor, 2018-06-07)$4 through tools/raptor_levels.cpp,"
    echo "# recorded by scripts/raptor_levels.sh on $(date -u +%Y-%m-%d): mpirun --oversubscribe -n RANKS"
    echo "# raptor_levels CASE.petsc ARGS on amgcomm generate KIND --n N --output CASE.petsc, RAPtor's even row blocks."
    echo "# Messages and bytes: sums over the ranks of the sends of A's and P's packages (8 bytes a value)."
    echo "case,kind,n,args,ranks,run,level,rows,nnz,active,a_msgs,a_bytes,p_msgs,p_bytes"
  } > "$out"
  for c in "${CASES[@]}"; do
    read -r name kind n args ranks <<<"$c"
    [ -f "$WORK/$name.petsc" ] || petsc "$kind" "$n" "$name.petsc"
    for run in $(seq "$runs"); do
      # shellcheck disable=SC2086
      mpirun --oversubscribe -n "$ranks" "$exe" "$WORK/$name.petsc" ${args//_/ } |
        awk -v c="$name,$kind,$n,${args//_/ },$ranks,$run" '!/^#/ && $1 ~ /^[0-9]+$/ {
          p = ($7 == "-") ? "," : $7 "," $8
          print c "," $1 "," $2 "," $3 "," $4 "," $5 "," $6 "," p }' >> "$out"
    done
    echo "$3: $name on $ranks ranks, $runs runs" >&2
  done
  mkdir -p "$(dirname "$dest")"
  mv "$out" "$dest"
  echo "wrote $dest" >&2
}
record "$WORK/raptor_levels" "$RUNS" raptor_levels ""
record "$WORK/raptor_levels_sorted" 1 raptor_levels_sorted " with tools/raptor_sorted_sends.patch"

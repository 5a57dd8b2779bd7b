#!/usr/bin/env bash
# RAPtor's own levels, the judge of the raptor-2018 presets (issue 51):
# builds RAPtor (RAPTOR_SRC: a clone of raptor-library/raptor, checked out
# here at the study's commit c00e9d6) and tools/raptor_levels.cpp, runs it
# on the recorded cases under mpirun, and writes
# tests/data/raptor/raptor_levels.csv: per case, rank count, run and level,
# RAPtor's rows, nonzeros, active ranks, and the messages and bytes of A's
# and P's communication packages.
#
#   scripts/raptor_levels.sh RAPTOR_SRC [RUNS]
#
# RUNS (default 3) runs of each case: RAPtor orders a package's sends by
# message arrival, so the last bits of its sums, and the entries its 1e-16
# drop tolerance keeps, can change from run to run. Needs cmake, mpicxx,
# liblapack-dev and libblas-dev; about 3 minutes to build, 4 to run on 2
# cores. CI cannot fetch RAPtor: the tests read the table.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 RAPTOR_SRC [RUNS]" >&2; exit 2; }
cd "$(dirname "$0")/.."
SRC=$(realpath "$1")
RUNS=${2:-3}
git -C "$SRC" checkout --quiet c00e9d6
COMMIT=$(git -C "$SRC" rev-parse --short=12 HEAD)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The library alone (examples/benchmark_commpkg.cpp does not compile with
# Open MPI), then the driver.
mkdir -p "$SRC/build"
(cd "$SRC/build" && cmake .. -DWITH_MPI=ON >/dev/null && make -j"$(nproc)" raptor >/dev/null)
mpicxx -O2 -std=c++11 -DUSING_MPI -I "$SRC/raptor" -I "$SRC/external" \
  tools/raptor_levels.cpp -o "$WORK/raptor_levels" "$SRC/build/lib/libraptor.a" -llapack -lblas
cargo build --release --quiet --bin amgcomm
AMGCOMM=$PWD/target/release/amgcomm

# A generated matrix as a PETSc binary matrix (MatView's format, what
# RAPtor's readParMatrix reads; explicit zeros kept).
petsc() {
  "$AMGCOMM" generate "$1" --n "$2" --output "$WORK/$3" >/dev/null
}

# Written whole at the end: a failed run leaves the recorded table as it was.
OUT=$WORK/raptor_levels.csv
DEST=tests/data/raptor/raptor_levels.csv
{
  echo "# RAPtor $COMMIT (raptor-library/raptor, 2018-06-07) through tools/raptor_levels.cpp,"
  echo "# recorded by scripts/raptor_levels.sh on $(date -u +%Y-%m-%d): mpirun --oversubscribe -n RANKS"
  echo "# raptor_levels CASE.petsc ARGS on amgcomm generate KIND --n N --output CASE.petsc, RAPtor's even row blocks."
  echo "# Messages and bytes: sums over the ranks of the sends of A's and P's packages (8 bytes a value)."
  echo "case,kind,n,args,ranks,run,level,rows,nnz,active,a_msgs,a_bytes,p_msgs,p_bytes"
} > "$OUT"
# case kind n args ranks
CASES=(
  "beam4-vars3 beam 4 --vars_3 16"
  "beam4-vars3 beam 4 --vars_3 128"
  "lap27-theta025 poisson3d-27 40 --theta_0.25 24"
  "aniso2d-matops aniso2d 256 --matops 128"
)
for c in "${CASES[@]}"; do
  read -r name kind n args ranks <<<"$c"
  [ -f "$WORK/$name.petsc" ] || petsc "$kind" "$n" "$name.petsc"
  for run in $(seq "$RUNS"); do
    # shellcheck disable=SC2086
    mpirun --oversubscribe -n "$ranks" "$WORK/raptor_levels" "$WORK/$name.petsc" ${args//_/ } |
      awk -v c="$name,$kind,$n,${args//_/ },$ranks,$run" '!/^#/ && $1 ~ /^[0-9]+$/ {
        p = ($7 == "-") ? "," : $7 "," $8
        print c "," $1 "," $2 "," $3 "," $4 "," $5 "," $6 "," p }' >> "$OUT"
  done
  echo "$name on $ranks ranks: $RUNS runs" >&2
done
mkdir -p "$(dirname "$DEST")"
mv "$OUT" "$DEST"
echo "wrote $DEST" >&2

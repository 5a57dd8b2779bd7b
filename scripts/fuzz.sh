#!/usr/bin/env bash
# Fuzz every reader in turn: scripts/fuzz.sh [SECONDS] [TARGET...]
#
# Each target of fuzz/ (cargo fuzz, libFuzzer) runs SECONDS (default 180)
# from a seed corpus laid out here from the test fixtures and from files
# amgcomm writes, under a memory bound (-rss_limit_mb=2048, -malloc_limit_mb
# 2048; the readers are told they have 1 GB, AMGCOMM_MEMORY_LIMIT) and a
# time bound per input (-timeout=10). Prints per target the
# executions, the coverage (libFuzzer's cov and ft) and what it found; exits
# 1 if any target found a crash, a leak, an out-of-memory or a timeout (the
# input is kept under fuzz/artifacts/TARGET/).
#
# Needs a nightly toolchain (rustup toolchain install nightly) and
# cargo-fuzz (cargo install cargo-fuzz); the normal build needs neither.
# FUZZ_JOBS=2 runs two targets at once.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-180}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(matrix_file petsc_binary hypre_ij levels_folder measured machine_file partition_file pattern_file bench_table)
fi
command -v cargo-fuzz >/dev/null || { echo "fuzz.sh: cargo install cargo-fuzz first" >&2; exit 2; }
rustup toolchain list | grep -q nightly || { echo "fuzz.sh: rustup toolchain install nightly first" >&2; exit 2; }

cargo build --release -q
bin=$PWD/target/release/amgcomm
(cd fuzz && cargo +nightly fuzz build -O >/dev/null 2>&1) || (cd fuzz && cargo +nightly fuzz build -O)

# Seeds: the fixtures, and what amgcomm writes for small problems.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seeds=$work/seeds
sep() { printf '\377'; }
mkdir -p "$seeds"/{matrix_file,petsc_binary,hypre_ij,levels_folder,measured,machine_file,partition_file,pattern_file,bench_table}
cp tests/data/reference/*.mtx "$seeds/matrix_file/"
"$bin" generate poisson2d --n 4 -o "$seeds/matrix_file/p4.mtx" >/dev/null
"$bin" generate elasticity3d --n 2 -o "$seeds/matrix_file/e2.mtx.gz" >/dev/null
cp tests/data/petsc/levels/A2.petsc "$seeds/matrix_file/"
cp tests/data/petsc/levels/*.petsc "$seeds/petsc_binary/"
for level in A A0 A1 P0; do
  files=(tests/data/hypre/"$level".0000?)
  { for k in "${!files[@]}"; do [ "$k" -gt 0 ] && sep; cat "${files[$k]}"; done; } > "$seeds/hypre_ij/$level"
done
"$bin" hierarchy gen:poisson2d:12 --save-levels "$work/lv" >/dev/null
{ for f in A0.mtx P0.mtx C0.txt A1.mtx P1.mtx C1.txt A2.mtx; do [ "$f" != A0.mtx ] && sep; cat "$work/lv/$f" 2>/dev/null || true; done; } > "$seeds/levels_folder/poisson2d_12"
cat > "$seeds/measured/raptor.out" <<'EOF'
Level 0
A*x
Max Num Msgs: 3
Total Bytes = 1024
Num Active Processes: 4
Comm Time: 1.5e-05
A*P:
Max Num Msgs: 5
Total Bytes = 4096
Comm Time: 3.0e-05
EOF
cat > "$seeds/measured/replay.json" <<'EOF'
{"format": "amgcomm-measured", "version": 1, "machine": "loopback", "ranks": 8, "nodes": 2, "ppn": 4,
 "levels": [{"level": 0, "spmv": {"seconds": 3.04e-5, "max_msgs": 2, "messages": 14, "bytes": 97104}}]}
EOF
cat > "$seeds/measured/caliper.json" <<'EOF'
{"data": [[3, 0, 2e-5], [3, 1, 3e-5], [4, 0, 1e-5]], "columns": ["path", "mpi.rank", "sum#time.duration"],
 "column_metadata": [{"is_value": false}, {"is_value": false}, {"is_value": true}],
 "nodes": [{"label": "main", "column": "path"}, {"label": "HYPRE_BoomerAMGSolve", "column": "path", "parent": 0},
           {"label": "MG level 0", "column": "path", "parent": 1}, {"label": "MPI_Isend", "column": "path", "parent": 2},
           {"label": "MPI_Waitall", "column": "path", "parent": 2}], "mpi.world.size": "2"}
EOF
{ echo "------ PETSc Performance Summary: ------"; echo "./app on a  named vm with 4 processors, by root"
  grep -v '^#' tests/data/petsc/mg_log.csv | awk -F, '{printf "%s Level %s %s 1.0 %s 1.0 0.00e+00 0.0 %s %s 0.0e+00  0  0  0  0  0\n", $1, $2, $3, $4, $5, $6}'; } > "$seeds/measured/petsc.log"
for m in bluewaters lassen frontier elcapitan; do "$bin" machine show "$m" --json > "$seeds/machine_file/$m.json"; done
"$bin" partition gen:poisson2d:10 --parts 4 -o "$work/p.part" >/dev/null
{ printf '\144\000\003'; cat "$work/p.part"; } > "$seeds/partition_file/p100_4"
"$bin" analyze gen:poisson2d:10 --nodes 1 --ppn 4 --save-patterns "$work/pats" --out "$work/rep" >/dev/null
cp "$work"/pats/*.amgpat "$seeds/pattern_file/"
cp tests/data/presets/*.csv "$seeds/bench_table/"
cp -r tests/data/fuzz/. "$seeds/" 2>/dev/null || true

# Each reader checks what it will allocate against the memory available
# (src/memory.rs); a bound below libFuzzer's makes any allocation beyond
# what a reader announced a finding.
export AMGCOMM_MEMORY_LIMIT=$((1024 * 1024 * 1024))

run() {
  local t=$1 log=$work/$1.log corpus=$work/corpus/$1
  mkdir -p "$corpus" "fuzz/artifacts/$t"
  (cd fuzz && cargo +nightly fuzz run -O "$t" "$corpus" "$seeds/$t" -- \
      -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 \
      -max_len=65536 -print_final_stats=1 >"$log" 2>&1) && rc=0 || rc=$?
  local execs cov ft found
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
  found=$(grep -oE 'ERROR: libFuzzer: [a-z-]+|deadly signal|panicked at [^ ]*' "$log" | head -1 || true)
  if [ "$rc" -eq 0 ]; then found="nothing"; else found="${found:-exit $rc} (see fuzz/artifacts/$t/)"; fi
  printf '%-15s %6ss %12s executions  cov %6s  ft %6s  found: %s\n' "$t" "$seconds" "$execs" "$cov" "$ft" "$found"
  [ "$rc" -eq 0 ]
}

printf '%-15s %7s %23s  %10s  %9s  %s\n' target time executions coverage features found
status=0
jobs=${FUZZ_JOBS:-1}
if [ "$jobs" -gt 1 ]; then
  for t in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || status=1; done
    run "$t" &
  done
  while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || status=1; done
else
  for t in "${targets[@]}"; do run "$t" || status=1; done
fi
exit $status

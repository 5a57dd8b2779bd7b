#!/usr/bin/env bash
# Memory per process of a distributed analysis (issue 20, part 4): a
# hypre dump of an N^3 Laplacian on R ranks (tools/hypre_dump_levels.c),
# analysed by one process (amgcomm analyze --levels-from DIR) and by K
# processes (mpirun -n K amgcomm analyze ...), side by side in one run:
# wall time, each process's peak resident memory (/usr/bin/time), and
# whether the K-process report's levels and totals equal the serial one's.
#
#   scripts/bench_distributed.sh [N] [R]     # default 100 (1M rows), 32 ranks
#
# Needs the mpi feature's packages (docs/mpi.md) and
# libhypre-dev. The mpi build goes to target/mpi, beside the default one.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100}
R=${2:-32}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
CARGO_TARGET_DIR=target/mpi cargo build --release --quiet --features mpi --bin amgcomm
BIN=target/mpi/release/amgcomm
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
DUMP=bench-data/hypre-$N-$R
if [ ! -f "$DUMP/A0.00000" ]; then
  mpicc tools/hypre_dump_levels.c -I/usr/include/hypre -lHYPRE -lm -o "$TMP/hypre_dump_levels"
  mkdir -p "$DUMP"
  mpirun --oversubscribe -n "$R" "$TMP/hypre_dump_levels" "$DUMP" "$N" > /dev/null
fi
# R ranks as nodes x 2.
MACHINE=(--nodes $((R / 2)) --ppn 2)
echo "distributed analysis, $(nproc) cores, $(date -u +%Y-%m-%d): $N^3 Laplacian dumped by hypre on $R ranks ($(du -sh "$DUMP" | cut -f1) of rank files)"
printf "%-10s %8s %14s %14s %10s %s\n" processes "wall s" "max peak MB" "sum peak MB" "max/serial" "report"

/usr/bin/time -f "%M %e" "$BIN" analyze --levels-from "$DUMP" "${MACHINE[@]}" \
  --out "$TMP/serial" --json "$TMP/serial.json" > /dev/null 2> "$TMP/err"
read -r serial_kb serial_s < <(tail -1 "$TMP/err")
printf "%-10s %8s %14.0f %14.0f %10s %s\n" 1 "$serial_s" "$((serial_kb / 1024))" "$((serial_kb / 1024))" 1.00 -

for K in 2 4 8; do
  start=$(date +%s.%N)
  mpirun --oversubscribe -n "$K" /usr/bin/time -f "%M" "$BIN" analyze --levels-from "$DUMP" "${MACHINE[@]}" \
    --out "$TMP/k$K" --json "$TMP/k$K.json" > /dev/null 2> "$TMP/err"
  end=$(date +%s.%N)
  peaks=$(grep -E '^[0-9]+$' "$TMP/err")
  max=$(echo "$peaks" | sort -n | tail -1)
  sum=$(echo "$peaks" | awk '{s += $1} END {print s}')
  same=$(python3 -c "
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
print('same' if a['levels'] == b['levels'] and a['totals'] == b['totals'] else 'DIFFERS')" "$TMP/serial.json" "$TMP/k$K.json")
  printf "%-10s %8.2f %14.0f %14.0f %10.2f %s\n" "$K" "$(echo "$end - $start" | bc)" "$((max / 1024))" "$((sum / 1024))" \
    "$(echo "$max / $serial_kb" | bc -l)" "$same"
done

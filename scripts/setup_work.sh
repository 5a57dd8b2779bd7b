#!/usr/bin/env bash
# The work of BoomerAMG's setup on P ranks, counted in instructions, for
# hypre and for `--preset hypre` (issue 50, point 4): what the P-rank
# hierarchy asks beside the one-rank one, free of the cores' count and of
# the caches that oversubscribed ranks share.
#
# hypre: `tools/hypre_levels lap:N` under `mpirun -n P --oversubscribe
# valgrind --tool=callgrind --toggle-collect=HYPRE_BoomerAMGSetup`, the
# instructions of HYPRE_BoomerAMGSetup summed over the ranks (waits inside
# MPI included: on 32 ranks of the 100^3 Laplacian 0.35 G of 39.5 G) and
# the routines that take most. amgcomm: `hierarchy gen:poisson3d:N
# --ranks P` under callgrind on one thread, less the same with
# `--max-levels 1` (the generator, the ranks' blocks of level 0 and the
# printing): the setup's levels.
#
#   scripts/setup_work.sh [N] [P ...]
# Default: N 100, P 1 and 32. Each rank under valgrind takes about 400
# MB: 64 ranks of N 100 need more than 24 GB. About 10 minutes for the
# default on 2 cores. Needs valgrind, mpicc, mpirun and libhypre-dev.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100}
shift $(( $# > 0 ? 1 : 0 ))
RANKS=("$@")
[ ${#RANKS[@]} -gt 0 ] || RANKS=(1 32)
for tool in valgrind callgrind_annotate mpicc mpirun; do
    command -v $tool >/dev/null || { echo "scripts/setup_work.sh needs $tool (apt-get install valgrind openmpi-bin libopenmpi-dev libhypre-dev)" >&2; exit 2; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cargo build --release --quiet --bin amgcomm
BIN=target/release/amgcomm
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mpicc -O2 tools/hypre_levels.c -I/usr/include/hypre -lHYPRE -lm -o "$TMP/hypre_levels"
# Instructions of one callgrind file, by routine (name, count), largest
# first.
routines() {
    callgrind_annotate --inclusive=no --threshold=100 "$1" 2>/dev/null |
        sed -n 's/^ *\([0-9,]*\) ([ 0-9.]*%) *[^:]*:\([^ []*\).*/\2 \1/p' | tr -d ','
}
total() {
    callgrind_annotate --inclusive=no "$1" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ','
}
ours() {
    RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$TMP/a.$1" \
        "$BIN" hierarchy "gen:poisson3d:$N" --preset hypre "${@:2}" >/dev/null 2>&1
    total "$TMP/a.$1"
}
echo "setup instructions, ${N}^3 Laplacian, $(date -u +%Y-%m-%d), hypre $(dpkg-query -W -f='${Version}' libhypre-dev 2>/dev/null || echo '?')"
base=$(ours base --ranks 1 --max-levels 1)
echo "| ranks | hypre (G) | its largest routines (G) | amgcomm (G) |"
echo "|---|---|---|---|"
for p in "${RANKS[@]}"; do
    mpirun -n "$p" --oversubscribe valgrind --tool=callgrind --toggle-collect=HYPRE_BoomerAMGSetup \
        --callgrind-out-file="$TMP/h.$p.%q{OMPI_COMM_WORLD_RANK}" "$TMP/hypre_levels" "lap:$N" >/dev/null 2>&1
    h=0
    : > "$TMP/r.$p"
    for f in "$TMP"/h."$p".*; do
        h=$((h + $(total "$f")))
        routines "$f" >> "$TMP/r.$p"
    done
    top=$(awk '{sub(/'"'"'.*/, "", $1); s[$1] += $2} END {for (k in s) printf "%.2f %s\n", s[k] / 1e9, k}' "$TMP/r.$p" |
        sort -rn | head -4 | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1}')
    a=$(ours "$p" --ranks "$p")
    awk -v p="$p" -v h="$h" -v top="$top" -v a="$a" -v b="$base" \
        'BEGIN { printf "| %d | %.2f | %s | %.2f |\n", p, h / 1e9, top, (a - b) / 1e9 }'
done

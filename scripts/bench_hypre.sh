#!/usr/bin/env bash
# BoomerAMG setup benchmark (issues 39, 50): `amgcomm hierarchy --preset
# hypre --ranks RANKS` against HYPRE_BoomerAMGSetup (tools/hypre_levels.c,
# hypre's defaults) on RANKS MPI ranks of the same cores, alternating so
# both see the same load. Input is excluded on both sides: amgcomm's
# "hierarchy set up in" line, the program's setup_seconds (the slowest
# rank). Also checks that both build the same levels (rows and nonzeros)
# on those ranks.
#
#   scripts/bench_hypre.sh [N] [ROUNDS] [RANKS] [KIND]
# KIND lap (default): the 7-point Laplacian N^3 (N default 100), built in
# place on both sides; elast: 3D elasticity, `amgcomm generate
# elasticity3d --n N` (N 65: 849,420 rows), 3 functions, read by both from
# one Matrix Market file (input excluded on both sides as before); perm:
# the same 7-point Laplacian with its rows and columns renumbered at
# random (`amgcomm generate poisson3d --n N --permute 1`), read by both
# from one file: a matrix whose rows are not in grid order, as an
# application's often are not.
# Needs mpicc, mpirun and libhypre-dev (apt-get install openmpi-bin
# libopenmpi-dev libhypre-dev).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100}
ROUNDS=${2:-5}
RANKS=${3:-2}
KIND=${4:-lap}
case "$KIND" in lap|elast|perm) ;; *) echo "usage: scripts/bench_hypre.sh [N] [ROUNDS] [RANKS] [lap|elast|perm]" >&2; exit 2 ;; esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cargo build --release --quiet --bin amgcomm
BIN=target/release/amgcomm
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mpicc -O2 tools/hypre_levels.c -I/usr/include/hypre -lHYPRE -lm -o "$TMP/hypre_levels"
case "$KIND" in
  lap) ours=("gen:poisson3d:$N"); theirs=("lap:$N") ;;
  elast)
    "$BIN" generate elasticity3d --n "$N" -o "$TMP/e.mtx" >/dev/null
    ours=("$TMP/e.mtx" --num-functions 3); theirs=("$TMP/e.mtx" 3) ;;
  perm)
    "$BIN" generate poisson3d --n "$N" --permute 1 -o "$TMP/p.mtx" >/dev/null
    ours=("$TMP/p.mtx"); theirs=("$TMP/p.mtx") ;;
esac
echo "${ours[0]/$TMP\//} ($KIND $N), $(nproc) cores, $(date -u +%Y-%m-%d), hypre on $RANKS ranks"

"$BIN" hierarchy "${ours[@]}" --preset hypre --ranks "$RANKS" --json "$TMP/a.json" >/dev/null
python3 -c "import json,sys; [print(i, l['rows'], l['nnz']) for i, l in enumerate(json.load(open(sys.argv[1]))['levels'])]" "$TMP/a.json" > "$TMP/a.txt"
mpirun -n "$RANKS" --oversubscribe "$TMP/hypre_levels" "${theirs[@]}" | grep -v setup_seconds > "$TMP/h.txt"
if cmp -s "$TMP/a.txt" "$TMP/h.txt"; then echo "levels: identical to hypre on $RANKS ranks"; else echo "levels differ:"; diff "$TMP/a.txt" "$TMP/h.txt" || true; fi

a=(); h=()
for r in $(seq "$ROUNDS"); do
  a+=("$("$BIN" hierarchy "${ours[@]}" --preset hypre --ranks "$RANKS" | sed -n 's/.*hierarchy set up in \([0-9.]*\) s/\1/p')")
  h+=("$(mpirun -n "$RANKS" --oversubscribe "$TMP/hypre_levels" "${theirs[@]}" | sed -n 's/setup_seconds //p')")
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
ma=$(median "${a[@]}"); mh=$(median "${h[@]}")
echo "amgcomm setup (s): ${a[*]}"
echo "hypre setup (s):   ${h[*]}"
awk -v a="$ma" -v h="$mh" 'BEGIN { printf "medians %.3f s and %.3f s, amgcomm / hypre = %.2f\n", a, h, a / h }'

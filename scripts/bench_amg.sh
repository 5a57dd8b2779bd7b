#!/usr/bin/env bash
# AMG setup benchmark (issue 3): `amgcomm hierarchy --preset pyamg` against
# PyAMG's `ruge_stuben_solver` (same defaults) on the same Matrix Market
# file, runs alternating so that both see the same machine load. Setup time
# excludes reading the file on both sides; peak memory is /usr/bin/time's
# maximum resident set of the whole process.
#
#   scripts/bench_amg.sh [N] [ROUNDS]     # elasticity3d --n N, default 40
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-40}
ROUNDS=${2:-3}
DATA=bench-data
FILE=$DATA/elasticity3d_$N.mtx
mkdir -p "$DATA"
cargo build --release --quiet --bin amgcomm
BIN=target/release/amgcomm
[ -f "$FILE" ] || "$BIN" generate elasticity3d --n "$N" -o "$FILE"
echo "file: $FILE, $(nproc) cores, $(date -u +%Y-%m-%d)"

if ! python3 -c "import pyamg, scipy" 2>/dev/null; then
  echo "PyAMG not installed (pip install pyamg scipy): amgcomm alone"
  "$BIN" hierarchy "$FILE" --preset pyamg
  exit 0
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cat > "$TMP/pyamg_setup.py" <<'PY'
import os, sys, time, scipy.io, pyamg
A = scipy.io.mmread(sys.argv[1]).tocsr()
# PyAMG's C++ kernels print warnings on zero denominators: silence fd 1.
saved = os.dup(1); os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
t = time.perf_counter()
ml = pyamg.ruge_stuben_solver(A, max_coarse=10, max_levels=30)
dt = time.perf_counter() - t
os.dup2(saved, 1)
print(f"{dt:.3f} {len(ml.levels)} {sum(l.A.nnz for l in ml.levels) / A.nnz:.6f}")
PY

peak() { awk '/Maximum resident/ {printf "%.2f", $6 / 1048576}' "$1"; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
am=(); py=(); am_mem=(); py_mem=()
for r in $(seq "$ROUNDS"); do
  /usr/bin/time -v "$BIN" hierarchy "$FILE" --preset pyamg > "$TMP/am.out" 2> "$TMP/am.time"
  am+=("$(sed -n 's/.*set up in \([0-9.]*\) s.*/\1/p' "$TMP/am.out")"); am_mem+=("$(peak "$TMP/am.time")")
  /usr/bin/time -v python3 "$TMP/pyamg_setup.py" "$FILE" > "$TMP/py.out" 2> "$TMP/py.time"
  py+=("$(awk '{print $1}' "$TMP/py.out")"); py_mem+=("$(peak "$TMP/py.time")")
done
oc_am=$(sed -n 's/operator complexity \([0-9.]*\),.*/\1/p' "$TMP/am.out")
oc_py=$(awk '{printf "%.3f", $3}' "$TMP/py.out")
t_am=$(median "${am[@]}"); t_py=$(median "${py[@]}")
printf '%-40s %8.2f s   peak %s GiB   operator complexity %s\n' "amgcomm hierarchy --preset pyamg" "$t_am" "$(median "${am_mem[@]}")" "$oc_am"
printf '%-40s %8.2f s   peak %s GiB   operator complexity %s\n' "PyAMG ruge_stuben_solver" "$t_py" "$(median "${py_mem[@]}")" "$oc_py"
awk -v a="$t_am" -v p="$t_py" 'BEGIN {printf "amgcomm setup is %.2fx faster than PyAMG\n", p / a}'

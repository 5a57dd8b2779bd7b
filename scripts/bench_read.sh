#!/usr/bin/env bash
# Read benchmark (issue 2): time reading one large Matrix Market file into
# memory with amgcomm, with sprs::io::read_matrix_market, and (when Python
# with SciPy is available) with scipy.io.mmread (C++ fast_matrix_market).
# Runs alternate between readers so that all see the same machine load;
# each figure is the median of ROUNDS rounds (each round: median of RUNS).
#
#   scripts/bench_read.sh [N] [ROUNDS]     # elasticity3d --n N, default 40
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-40}
ROUNDS=${2:-5}
RUNS=3
DATA=bench-data
FILE=$DATA/elasticity3d_$N.mtx
mkdir -p "$DATA"

cargo build --release --quiet --bin amgcomm --example read_bench
BIN=target/release
if [ ! -f "$FILE" ]; then
  "$BIN/amgcomm" generate elasticity3d --n "$N" -o "$FILE"
fi
size_mb=$(( $(stat -c %s "$FILE") / 1000000 ))
echo "file: $FILE ($size_mb MB), $(nproc) cores, $(date -u +%Y-%m-%d)"

have_scipy=0
if python3 -c "import scipy.io" 2>/dev/null; then have_scipy=1; fi

scipy_read() {
  python3 - "$FILE" "$RUNS" <<'PY'
import sys, time, statistics, scipy, scipy.io
path, runs = sys.argv[1], int(sys.argv[2])
ts, tc = [], []
for _ in range(runs):
    t = time.perf_counter(); a = scipy.io.mmread(path); ts.append(time.perf_counter() - t)
    t = time.perf_counter(); a.tocsr(); tc.append(time.perf_counter() - t)
print(f"{statistics.median(ts):.4f} {statistics.median(ts) + statistics.median(tc):.4f} {scipy.__version__}")
PY
}

"$BIN/examples/read_bench" "$FILE" 1 >/dev/null   # warm the page cache
am=(); sc=(); sc_csr=()
for r in $(seq "$ROUNDS"); do
  am+=("$("$BIN/examples/read_bench" "$FILE" "$RUNS" | awk '/^amgcomm/ {print $2}')")
  if [ $have_scipy = 1 ]; then
    read -r t tcsr ver < <(scipy_read)
    sc+=("$t"); sc_csr+=("$tcsr")
  fi
done
sp=$("$BIN/examples/read_bench" "$FILE" 1 --sprs | awk '/^sprs/ {print $2}')

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {print a / b}'; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
t_am=$(median "${am[@]}")
printf '%-44s %8.3f s\n' "amgcomm read (CSR)" "$t_am"
printf '%-44s %8.3f s   amgcomm is %.1fx faster\n' "sprs::io::read_matrix_market + to_csr" "$sp" "$(ratio "$sp" "$t_am")"
if [ $have_scipy = 1 ]; then
  t_sc=$(median "${sc[@]}"); t_scc=$(median "${sc_csr[@]}")
  printf '%-44s %8.3f s   amgcomm is %.2fx faster\n' "scipy $ver io.mmread (COO)" "$t_sc" "$(ratio "$t_sc" "$t_am")"
  printf '%-44s %8.3f s   amgcomm is %.2fx faster\n' "scipy $ver io.mmread + tocsr" "$t_scc" "$(ratio "$t_scc" "$t_am")"
else
  echo "scipy: not installed (pip install scipy), skipped"
fi

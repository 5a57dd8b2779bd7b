#!/bin/sh
# The Python package against the command line on the same work, side by
# side in one run (this machine is shared and noisy: read the ratios):
#  1. peak memory (max RSS) of analyze on a 7-point Laplacian of N^3 rows
#     (N=130: 2.2M rows, 15.3M nonzeros) handed over as a SciPy matrix,
#     against `amgcomm analyze gen:poisson3d:N` (the same matrix, the same
#     hierarchy and analysis);
#  2. time and memory of analyze(ml) on PyAMG's own hierarchy of an M^3
#     Laplacian (M=60) against `amgcomm analyze --levels-from` on the same
#     levels saved as Matrix Market.
# Usage: scripts/bench_python.sh [N] [M] [PYTHON]; PYTHON has amgcomm,
# pyamg and scipy installed (python3 -m pip install ./python pyamg).
set -eu
n=${1:-130}
m=${2:-60}
py=${3:-python3}
bin=target/release/amgcomm
cargo build --release -q
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rss() { awk '/Maximum resident/ { print $6 }' "$1"; }
secs() { awk '/Elapsed \(wall/ { print $8 }' "$1"; }

# 1. A 15M-nonzero matrix: SciPy in, against the generator.
cat > "$work/big.py" <<PY
import resource, sys, time
import numpy as np, scipy.sparse as sp
import amgcomm
n = $n
# The 7-point Laplacian in CSR directly (PyAMG's gallery peaks at 3x).
import pyamg
A = pyamg.gallery.poisson((n, n, n), format="csr")
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.time()
a = amgcomm.analyze(A, nodes=64)
print("python analyze seconds", round(time.time() - t, 2), "peak KiB before analyze", before, file=sys.stderr)
PY
/usr/bin/time -v "$py" "$work/big.py" 2> "$work/py1.txt" >/dev/null
/usr/bin/time -v "$bin" analyze "gen:poisson3d:$n" --nodes 64 --out "$work/r1" 2> "$work/cli1.txt" >/dev/null
p1=$(rss "$work/py1.txt"); c1=$(rss "$work/cli1.txt")
echo "1. poisson3d $n ($(($n*$n*$n)) rows): python peak ${p1} KiB, cli peak ${c1} KiB, ratio $(echo "scale=2; $p1/$c1" | bc)"
grep "python analyze" "$work/py1.txt"
echo "   cli wall $(secs "$work/cli1.txt"), python wall $(secs "$work/py1.txt") (includes building A in PyAMG)"

# 2. PyAMG's hierarchy: analyze(ml) against --levels-from.
cat > "$work/ml.py" <<PY
import sys, time
import numpy as np, pyamg, scipy.io
import amgcomm
A = pyamg.gallery.poisson(($m, $m, $m), format="csr")
ml = pyamg.ruge_stuben_solver(A)
if sys.argv[1] == "save":
    for k, lvl in enumerate(ml.levels):
        scipy.io.mmwrite(f"$work/levels/A{k}.mtx", lvl.A)
        if k + 1 < len(ml.levels):
            scipy.io.mmwrite(f"$work/levels/P{k}.mtx", lvl.P)
            np.savetxt(f"$work/levels/C{k}.txt", np.flatnonzero(lvl.splitting == 1), fmt="%d")
else:
    t = time.time()
    amgcomm.analyze(ml, nodes=16)
    print("analyze(ml) seconds", round(time.time() - t, 3), file=sys.stderr)
PY
mkdir "$work/levels"
"$py" "$work/ml.py" save
for round in 1 2 3; do
  /usr/bin/time -v "$py" "$work/ml.py" run 2> "$work/py2.$round.txt"
  /usr/bin/time -v "$bin" analyze --levels-from "$work/levels" --nodes 16 --timings --out "$work/r2" 2> "$work/cli2.$round.txt" >/dev/null
  echo "2. round $round: $(grep 'analyze(ml)' "$work/py2.$round.txt"), python peak $(rss "$work/py2.$round.txt") KiB; cli --levels-from wall $(secs "$work/cli2.$round.txt") (reads $(ls "$work/levels" | wc -l) files), peak $(rss "$work/cli2.$round.txt") KiB"
done

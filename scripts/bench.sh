#!/usr/bin/env bash
# Paper-scale benchmark (issue 8): one line per figure.
#   1. amgcomm analyze end to end against PyAMG's ruge_stuben_solver setup
#      alone (when PyAMG is installed), time and peak memory, n=40 and n=65;
#   2. scaling with nonzeros: analyze at --n 20 30 40 50 65, fit t ~ nnz^k
#      and peak ~ nnz^k;
#   3. scaling with ranks: n=40 at 64, 512 and 4096 nodes (ppn 16),
#      extraction + model time;
#   4. both cores: read, hierarchy and extraction with RAYON_NUM_THREADS=1
#      against 2;
#   5. pattern files at paper scale (n=65, 8192 ranks): analyze
#      --save-patterns's writing stage, and reading every file back;
#   6. memory estimates (what amgcomm refuses on, issue 16) beside measured
#      peaks: info, hierarchy and analyze on three stencils, analyze at
#      64 and 4096 nodes; an estimate must not fall below the peak;
#   7. the EuroMPI'18 experiment (issue 19): analyze gen:beam:5 --nodes 512
#      --ppn 16 --partition mfem --preset raptor-2018 end to end, three
#      runs (target: 30 s, 6 GB), and its mesh partition in parts;
#   8. the solve (issue 29): the paper command without and with
#      --cycle V --iterations 20, alternating, three runs each; the median
#      walls and their ratio (target: at most 1.10).
# Runs are sequential so that they do not compete; peak memory is
# /usr/bin/time's maximum resident set.
#
#   scripts/bench.sh [quick]      # quick: n up to 40, no n=65 PyAMG run
#   scripts/bench.sh threads      # part 4 only
#   scripts/bench.sh ranks        # part 3 only
#   scripts/bench.sh patterns     # part 5 only
#   scripts/bench.sh memory       # part 6 only
#   scripts/bench.sh paper        # part 7 only
#   scripts/bench.sh cycle        # part 8 only
set -euo pipefail
cd "$(dirname "$0")/.."
QUICK=${1:-}
cargo build --release --quiet --bin amgcomm --example read_bench --example pattern_bench --example memory_estimate --example mfem_bench
BIN=target/release/amgcomm
DATA=bench-data
mkdir -p "$DATA"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "amgcomm benchmark, $(nproc) cores, $(date -u +%Y-%m-%d)"

peak() { awk '/Maximum resident/ {printf "%.3f", $6 / 1048576}' "$1"; }
wall() { awk '/Elapsed \(wall clock\)/ {n = split($NF, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; printf "%.2f", s}' "$1"; }
# Seconds of one --timings stage of the last analyze run (report JSON).
stage() { python3 -c "import json, sys; print('%.3f' % json.load(open(sys.argv[1]))['timings'][sys.argv[2]])" "$TMP/r.json" "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
# Median of the numbers on stdin.
med() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# analyze N NODES [threads]: wall, peak and stages in $TMP/err, $TMP/time.
analyze() {
  RAYON_NUM_THREADS=${3:-2} /usr/bin/time -v "$BIN" analyze "gen:elasticity3d:$1" --nodes "$2" --ppn 16 \
    --preset pyamg --timings --json "$TMP/r.json" --out "$TMP/out" > /dev/null 2> "$TMP/err"
  cp "$TMP/err" "$TMP/time"
}
nnz() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['matrix']['nnz'])" "$TMP/r.json" 2>/dev/null \
  || sed -n 's/.*"nnz": \([0-9]*\).*/\1/p' "$TMP/r.json" | head -1; }

if [ "$QUICK" = memory ]; then
# 6. Estimates against peaks (MB): estimate / peak >= 1 is safe.
kb() { /usr/bin/time -f %M "$@" 2>&1 > /dev/null | tail -1; }
printf "%-10s %-24s %6s %10s %10s %6s\n" command input nodes "peak MB" "est. MB" ratio
for spec in gen:poisson3d:150 gen:elasticity3d:40 gen:poisson3d-27:100; do
  for nodes in 64 4096; do
    read -r gen setup run < <(target/release/examples/memory_estimate "$spec" $((nodes * 16)))
    for cmd in info hierarchy analyze; do
      [ "$cmd" != analyze ] && [ "$nodes" != 64 ] && continue
      case $cmd in
        info) est=$gen; peak=$(kb "$BIN" info "$spec") ;;
        hierarchy) est=$setup; peak=$(kb "$BIN" hierarchy "$spec") ;;
        analyze) est=$run; peak=$(kb "$BIN" analyze "$spec" --nodes "$nodes" --out "$TMP/out") ;;
      esac
      printf "%-10s %-24s %6s %10.0f %10.0f %6.2f\n" "$cmd" "$spec" "$nodes" \
        "$(echo "$peak / 1024" | bc -l)" "$(echo "$est / 1048576" | bc -l)" "$(echo "$est / 1024 / $peak" | bc -l)"
    done
  done
done
exit 0
fi

if [ "$QUICK" = paper ]; then
# 7. The paper's experiment, three runs; then its mesh partition alone.
for round in 1 2 3; do
  /usr/bin/time -v "$BIN" analyze gen:beam:5 --nodes 512 --ppn 16 --partition mfem --preset raptor-2018 \
    --timings --json "$TMP/r.json" --out "$TMP/out" > /dev/null 2> "$TMP/time"
  echo "paper command: $(wall "$TMP/time") s, peak $(peak "$TMP/time") GiB; $(grep '^timings' "$TMP/time")"
done
target/release/examples/mfem_bench 5 8192
exit 0
fi

if [ "$QUICK" = cycle ]; then
# 8. The cycle's cost at paper scale: runs side by side, alternating.
paper() {
  /usr/bin/time -v "$BIN" analyze gen:beam:5 --nodes 512 --ppn 16 --partition mfem --preset raptor-2018 \
    --timings --json "$TMP/r.json" --out "$TMP/out" "$@" > /dev/null 2> "$TMP/time"
  wall "$TMP/time"
}
: > "$TMP/plain"; : > "$TMP/cycle"
for round in 1 2 3; do
  p=$(paper); c=$(paper --cycle V --iterations 20)
  echo "round $round: paper command $p s, with --cycle V --iterations 20 $c s (peak $(peak "$TMP/time") GiB)"
  echo "$p" >> "$TMP/plain"; echo "$c" >> "$TMP/cycle"
done
p=$(med < "$TMP/plain"); c=$(med < "$TMP/cycle")
echo "median: $p s without, $c s with the cycle: ratio $(ratio "$c" "$p")"
exit 0
fi

if [ "$QUICK" = patterns ]; then
# 5. Pattern files: three rounds, each writing then reading the folder.
for round in 1 2 3; do
  "$BIN" analyze gen:elasticity3d:65 --nodes 512 --ppn 16 --preset pyamg --timings \
    --json "$TMP/r.json" --out "$TMP/out" --save-patterns "$TMP/patterns" > /dev/null 2>&1
  echo "n=65, 512 x 16: patterns written in $(stage patterns) s; $(target/release/examples/pattern_bench "$TMP/patterns")"
done
exit 0
fi

if [ "$QUICK" != threads ] && [ "$QUICK" != ranks ]; then
# 1. Against PyAMG.
if python3 -c "import pyamg, scipy" 2>/dev/null; then
  sizes="40"; [ -z "$QUICK" ] && sizes="40 65"
  for n in $sizes; do
    f="$DATA/elasticity3d_$n.mtx"
    [ -f "$f" ] || "$BIN" generate elasticity3d --n "$n" -o "$f" > /dev/null
    /usr/bin/time -v python3 - "$f" > "$TMP/py.out" 2> "$TMP/py.time" <<'PY'
import os, sys, time, scipy.io, pyamg
A = scipy.io.mmread(sys.argv[1]).tocsr()
saved = os.dup(1); os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
t = time.perf_counter(); pyamg.ruge_stuben_solver(A, max_coarse=10, max_levels=30); dt = time.perf_counter() - t
os.dup2(saved, 1); print(f"{dt:.2f}")
PY
    analyze "$n" 512
    t_am=$(wall "$TMP/time"); t_py=$(cat "$TMP/py.out")
    echo "n=$n analyze end to end (pyamg preset, 512 x 16): $t_am s, peak $(peak "$TMP/time") GiB; PyAMG setup alone: $t_py s, peak $(peak "$TMP/py.time") GiB; amgcomm/PyAMG time $(ratio "$t_am" "$t_py")"
  done
else
  echo "PyAMG not installed (pip install pyamg scipy): PyAMG comparison skipped"
fi

# 2. Scaling with nonzeros.
sizes="20 30 40 50 65"; [ -n "$QUICK" ] && sizes="10 20 30 40"
: > "$TMP/fit"
for n in $sizes; do
  analyze "$n" 512
  echo "$(nnz) $(wall "$TMP/time") $(peak "$TMP/time")" >> "$TMP/fit"
  echo "n=$n: nnz $(nnz), $(wall "$TMP/time") s, peak $(peak "$TMP/time") GiB"
done
awk '{x = log($1); for (k = 2; k <= 3; k++) { y[k] = log($k); sx[k] += x; sy[k] += y[k]; sxx[k] += x * x; sxy[k] += x * y[k] } n++}
     END {for (k = 2; k <= 3; k++) { b = (n * sxy[k] - sx[k] * sy[k]) / (n * sxx[k] - sx[k] * sx[k]); printf "%s ~ nnz^%.2f\n", k == 2 ? "time" : "peak memory", b } }' "$TMP/fit"

fi

if [ "$QUICK" != threads ]; then
# 3. Scaling with ranks (n=40): extraction + model, medians of five
# rounds that alternate the node counts (one run varies by 50% on this
# shared VM, with half its time stolen at busy hours).
for round in 1 2 3 4 5; do
  for nodes in 64 512 4096; do
    analyze 40 "$nodes"
    awk -v a="$(stage extraction)" -v b="$(stage model)" 'BEGIN {printf "%.3f\n", a + b}' >> "$TMP/ranks$nodes"
  done
done
base=$(med < "$TMP/ranks64")
for nodes in 64 512 4096; do
  t=$(med < "$TMP/ranks$nodes")
  echo "n=40 on $nodes nodes x 16: extraction + model $t s, median of 5 ($(ratio "$t" "$base")x the 64-node time; runs: $(tr '\n' ' ' < "$TMP/ranks$nodes"))"
done

fi

[ "$QUICK" = ranks ] && exit 0
# 4. One thread against two.
f="$DATA/elasticity3d_40.mtx"
[ -f "$f" ] || "$BIN" generate elasticity3d --n 40 -o "$f" > /dev/null
r1=$(RAYON_NUM_THREADS=1 target/release/examples/read_bench "$f" 3 | awk '{print $2}')
r2=$(RAYON_NUM_THREADS=2 target/release/examples/read_bench "$f" 3 | awk '{print $2}')
echo "read n=40: 1 thread $r1 s, 2 threads $r2 s, speedup $(ratio "$r1" "$r2")"
# Three alternating rounds, medians: single runs on a shared VM vary by 30%.
: > "$TMP/t1"; : > "$TMP/t2"
for round in 1 2 3; do
  for t in 1 2; do
    analyze 40 512 "$t"
    echo "$(stage hierarchy) $(stage hierarchy.rap) $(stage extraction)" >> "$TMP/t$t"
  done
done
h1=$(awk '{print $1}' "$TMP/t1" | med); p1=$(awk '{print $2}' "$TMP/t1" | med); e1=$(awk '{print $3}' "$TMP/t1" | med)
h2=$(awk '{print $1}' "$TMP/t2" | med); p2=$(awk '{print $2}' "$TMP/t2" | med); e2=$(awk '{print $3}' "$TMP/t2" | med)
echo "hierarchy n=40: 1 thread $h1 s, 2 threads $h2 s, speedup $(ratio "$h1" "$h2")"
echo "RAP (Galerkin products) n=40: 1 thread $p1 s, 2 threads $p2 s, speedup $(ratio "$p1" "$p2")"
echo "extraction n=40 (8192 ranks): 1 thread $e1 s, 2 threads $e2 s, speedup $(ratio "$e1" "$e2")"

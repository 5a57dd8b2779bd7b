#!/usr/bin/env bash
# Where the hypre preset's setup waits (issue 50): for each rank count P,
# one thread's user time of `amgcomm hierarchy SPEC --preset hypre
# --ranks P`, and its instructions, L1 misses and last-level read misses
# counted by valgrind's cachegrind with its caches set to this machine's
# (L1d and last level as lscpu gives them); then the source lines whose
# last-level read misses grow most from the first P to the last. One
# thread (RAYON_NUM_THREADS=1), so that counts and times belong together.
#
#   scripts/bench_misses.sh [SPEC] [P ...]
# Default: gen:poisson3d:100 on 1 and 64 ranks (about 4 minutes on 2
# cores: the valgrind runs go side by side). Needs valgrind (apt-get
# install valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
SPEC=${1:-gen:poisson3d:100}
shift $(( $# > 0 ? 1 : 0 ))
RANKS=("$@")
[ ${#RANKS[@]} -gt 0 ] || RANKS=(1 64)
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 2; }
cargo build --release --quiet --bin amgcomm
BIN=$PWD/target/release/amgcomm
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Cache sizes in bytes from lscpu (per instance: the L1d line gives the
# total over the cores), ways and line size from sysfs.
bytes() { awk '{v=$1; u=$2; if (u ~ /^K/) v*=1024; else if (u ~ /^M/) v*=1048576; else if (u ~ /^G/) v*=1073741824; n=$3; gsub(/[^0-9]/,"",n); if (n == "") n=1; printf "%d\n", v / n}'; }
L1=$(lscpu | sed -n 's/^L1d cache: *//p' | sed 's/(\([0-9]*\) instances*)/\1/' | bytes)
LL=$(lscpu | sed -n 's/^L3 cache: *//p' | sed 's/(\([0-9]*\) instances*)/\1/' | bytes)
ways() { cat "/sys/devices/system/cpu/cpu0/cache/index$1/ways_of_associativity" 2>/dev/null || echo 8; }
LINE=$(cat /sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size 2>/dev/null || echo 64)
# cachegrind's own guess where lscpu names no size.
CACHES=()
[ "${L1:-0}" -gt 0 ] && CACHES+=(--D1="$L1,$(ways 0),$LINE")
[ "${LL:-0}" -gt 0 ] && CACHES+=(--LL="$LL,$(ways 3),$LINE")
echo "$SPEC, $(nproc) cores, $(date -u +%Y-%m-%d), $(git rev-parse --short HEAD); cachegrind ${CACHES[*]:-with its own cache sizes}"

for p in "${RANKS[@]}"; do
  /usr/bin/time -f "%U" -o "$TMP/user_$p" env RAYON_NUM_THREADS=1 "$BIN" hierarchy "$SPEC" --preset hypre --ranks "$p" >/dev/null
done
for p in "${RANKS[@]}"; do
  RAYON_NUM_THREADS=1 valgrind --tool=cachegrind --cache-sim=yes "${CACHES[@]}" \
    --cachegrind-out-file="$TMP/cg_$p" "$BIN" hierarchy "$SPEC" --preset hypre --ranks "$p" \
    >/dev/null 2>"$TMP/log_$p" &
done
wait

python3 - "$TMP" "${RANKS[@]}" <<'EOF'
import collections, os, sys
tmp, ranks = sys.argv[1], sys.argv[2:]

def load(path):
    """Totals and per (file, line) counts of a cachegrind output file."""
    events, per = None, {}
    fl = None
    for line in open(path):
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("fl="):
            fl = line[3:].strip()
        elif line[:1].isdigit() and fl is not None:
            f = line.split()
            key = (fl, int(f[0]))
            v = [int(x) for x in f[1:]] + [0] * (len(events) - len(f) + 1)
            old = per.get(key)
            per[key] = v if old is None else [a + b for a, b in zip(old, v)]
    col = {e: i for i, e in enumerate(events)}
    total = [sum(v[i] for v in per.values()) for i in range(len(events))]
    return col, total, per

runs = {p: load(os.path.join(tmp, "cg_" + p)) for p in ranks}
print("| ranks | user time, 1 thread | instructions | L1 misses | last-level read misses |")
print("|---|---|---|---|---|")
for p in ranks:
    col, total, _ = runs[p]
    user = open(os.path.join(tmp, "user_" + p)).read().split()[-1]
    l1 = total[col["D1mr"]] + total[col["D1mw"]]
    print(f"| {p} | {user} s | {total[col['Ir']] / 1e9:.1f} G | {l1 / 1e6:.0f} M | {total[col['DLmr']] / 1e6:.1f} M |")
if len(ranks) > 1:
    (ca, _, a), (cb, _, b) = runs[ranks[0]], runs[ranks[-1]]
    k = ca["DLmr"]
    grow = sorted(set(a) | set(b), key=lambda x: -((b[x][k] if x in b else 0) - (a[x][k] if x in a else 0)))
    print(f"\nlast-level read misses, {ranks[0]} -> {ranks[-1]} ranks, the lines that grow most:")
    for x in grow[:15]:
        fa, fb = (a[x][k] if x in a else 0), (b[x][k] if x in b else 0)
        name = x[0].split("/src/")[-1]
        print(f"  {fa / 1e6:6.2f} M -> {fb / 1e6:6.2f} M  {name}:{x[1]}")
EOF

#!/usr/bin/env bash
# The reliability battery of issue 16, run as a new user would: each case
# with its exit status, wall time, peak memory and what amgcomm printed on
# stderr. tests/reliability.rs asserts the same rules; this prints them.
#
#   scripts/reliability.sh
#   AMGCOMM_MPI=1 scripts/reliability.sh   # the mpi feature's cases too
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "${AMGCOMM_MPI:-}" = 1 ]; then
  cargo build --release --quiet --features mpi --bin amgcomm
else
  cargo build --release --quiet --bin amgcomm
fi
BIN=$PWD/target/release/amgcomm
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
"$BIN" generate poisson2d --n 30 -o m.mtx > /dev/null

# case NAME CMD...: one line per case.
case_() {
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o time.txt "$@" > out.txt 2> err.txt
  local rc=$?
  read -r secs kb < <(tail -1 time.txt)
  printf '%-34s exit %-3s %5.2f s %6.0f MB | %s\n' "$name" "$rc" "$secs" "$(echo "$kb / 1024" | bc -l)" \
    "$(grep -v '^Command exited' err.txt | tr '\n' ' ' | cut -c1-400)"
}
sum() { find "$@" -type f | sort | xargs md5sum | md5sum | cut -c1-8; }

case_ "analyze --theta 2"          "$BIN" analyze gen:elasticity3d:60 --theta 2
case_ "analyze --max-levels 0"     "$BIN" analyze gen:elasticity3d:60 --max-levels 0
case_ "generate --young 0"         "$BIN" generate elasticity3d --n 60 --young 0 -o y.mtx
case_ "info --spy x.jpg"           "$BIN" info gen:elasticity3d:60 --spy x.jpg
case_ "--json /nonexistent/r.json" "$BIN" analyze gen:elasticity3d:60 --json /nonexistent/r.json
case_ "--nodes 10000000"           "$BIN" analyze m.mtx --nodes 10000000
case_ "--poisson-ratio -0.2"       "$BIN" generate elasticity3d --n 8 --poisson-ratio -0.2 -o aux.mtx
before=$(sum m.mtx)
case_ "analyze m.mtx --json m.mtx" "$BIN" analyze m.mtx --json m.mtx
case_ "partition m.mtx -o m.mtx"   "$BIN" partition m.mtx --parts 4 -o m.mtx
echo "  m.mtx unchanged: $([ "$before" = "$(sum m.mtx)" ] && echo yes || echo NO)"
"$BIN" hierarchy m.mtx --save-levels lv --max-coarse 2 > /dev/null
deep=$(ls lv | wc -l)
case_ "--save-levels into a used DIR" "$BIN" hierarchy m.mtx --save-levels lv --max-levels 2
echo "  files in lv: $deep before, $(ls lv | wc -l) after: $(ls lv | tr '\n' ' ')"
"$BIN" analyze --levels-from lv --nodes 1 --json two.json > /dev/null
echo "  --levels-from lv reads $(python3 -c "import json; print(len(json.load(open('two.json'))['levels']))") levels"
"$BIN" analyze m.mtx --nodes 1 --dot dot --max-coarse 2 > /dev/null
deep=$(ls dot | wc -l)
case_ "--dot into a used DIR"      "$BIN" analyze m.mtx --nodes 1 --dot dot --max-levels 2
echo "  files in dot: $deep before, $(ls dot | wc -l) after"
case_ "info gen:poisson2d:60000"   "$BIN" info gen:poisson2d:60000
python3 - <<'EOF'
import gzip
line = b"%" + b"x" * 1023 + b"\n"
with gzip.open("comments.mtx.gz", "wb", compresslevel=9) as f:
    f.write(b"%%MatrixMarket matrix coordinate real general\n")
    for _ in range(1500):
        f.write(line * 1024)
EOF
echo "  comments.mtx.gz: $(du -h comments.mtx.gz | cut -f1) holding 1.5 GB of comment lines"
case_ ".mtx.gz with 1.5 GB comments" "$BIN" info comments.mtx.gz
"$BIN" machine show bluewaters --json > bw.json
python3 -c "import json; m = json.load(open('bw.json')); m['params']['gamma'] = 1e308; json.dump(m, open('gamma.json', 'w'))"
python3 -c "import json; m = json.load(open('bw.json')); m['params']['network']['rend']['alpha'] = 1e308; json.dump(m, open('alpha.json', 'w'))"
case_ "machine file gamma 1e308"   "$BIN" analyze m.mtx --machine gamma.json --out r
case_ "machine file alpha 1e308"   "$BIN" analyze m.mtx --machine alpha.json --out r
echo "  report folder made: $([ -e r ] && echo yes || echo no)"
case_ "cat m.mtx | info -"         bash -c "cat m.mtx | '$BIN' info - --json"
case_ "cat m.mtx | info /dev/stdin" bash -c "cat m.mtx | '$BIN' info /dev/stdin --json"
case_ "raptor preset on poisson3d:16" "$BIN" hierarchy gen:poisson3d:16 --preset raptor-elasticity
python3 - <<'EOF'
n = 60
with open("neg.mtx", "w") as f:
    f.write(f"%%MatrixMarket matrix coordinate real symmetric\n{n} {n} {2 * n - 1}\n")
    for i in range(1, n + 1):
        f.write(f"{i} {i} -2\n")
        if i < n:
            f.write(f"{i + 1} {i} 1\n")
EOF
case_ "negative diagonal"          "$BIN" hierarchy neg.mtx
# Rows named as the input numbers them (issue 30): row 2 stores a zero
# diagonal, row 3 of the other file nothing at all.
printf '%%%%MatrixMarket matrix coordinate real general\n4 4 3\n1 1 2\n2 2 0\n4 4 1\n' > zero.mtx
case_ "zero diagonal in row 2 (1-based)" "$BIN" hierarchy zero.mtx
printf '%%%%MatrixMarket matrix coordinate real general\n4 4 3\n1 1 2\n2 2 1\n4 4 1\n' > hole.mtx
case_ "empty row 3 (1-based)"        "$BIN" hierarchy hole.mtx
case_ "setup that stops at level 0" "$BIN" hierarchy gen:poisson2d:22 --num-functions 4
case_ "--levels-from DIR --theta"  "$BIN" analyze --levels-from lv --theta 0.5
case_ "--spy /nonexistent/x.png"   "$BIN" info m.mtx --spy /nonexistent/x.png
case_ "--json naming a folder"     "$BIN" analyze gen:elasticity3d:60 --json /tmp
case_ "--out unwritable"           "$BIN" analyze gen:elasticity3d:60 --out /proc/x/y
case_ "info /bin/ls"               "$BIN" info /bin/ls
mkdir mine && echo keep > mine/notes.txt
case_ "--out a folder of the user's" "$BIN" analyze m.mtx --out mine
# Ctrl-C while the patterns folder is being built.
"$BIN" analyze gen:poisson3d:10 --nodes 64 --out rep --save-patterns pats > /dev/null
before=$(sum rep pats)
"$BIN" analyze gen:elasticity3d:30 --nodes 64 --out rep --save-patterns pats > /dev/null 2> err.txt &
pid=$!
while kill -0 $pid 2> /dev/null && ! ls -d .pats.amgcomm-$pid > /dev/null 2>&1; do sleep 0.001; done
kill -INT $pid 2> /dev/null
wait $pid
echo "Ctrl-C while writing --save-patterns exit $? | $(cat err.txt) | outputs unchanged: $([ "$before" = "$(sum rep pats)" ] && echo yes || echo NO), temporary files left: $(ls -A | grep -c amgcomm-)"
# Issue 20's readers against hostile headers (issue 30): hypre IJ rank
# files and PETSc binary, sizes past 32/64 bits, negative, more than the
# file or the memory holds, truncated after the header.
printf '0 3999999999 0 3999999999\n0 0 1.0\n' > huge.00000
case_ "hypre IJ announcing 4e9 rows"  "$BIN" info huge
printf '0 -5 0 3\n' > neg.00000
case_ "hypre IJ negative range"       "$BIN" info neg
printf '0 9223372036854775807 0 3\n' > i64.00000
case_ "hypre IJ index past 32 bits"   "$BIN" info i64
printf '0 99999999999999999999 0 3\n' > p64.00000
case_ "hypre IJ index past 64 bits"   "$BIN" info p64
printf '0 3 0 3\n' > hdr.00000
case_ "hypre IJ header only (4 empty rows)" "$BIN" info hdr
mkdir -p hlv && cp huge.00000 hlv/A0.00000 && printf '0 3999999999 0 0\n0 0 1.0\n' > hlv/P0.00000 && printf '0 0 0 0\n0 0 1.0\n' > hlv/A1.00000
case_ "hypre levels announcing 4e9 rows" "$BIN" analyze --levels-from hlv --nodes 1 --ppn 2 --partition contiguous
python3 - <<'PY'
import struct
w = lambda name, fmt, *v: open(name, 'wb').write(struct.pack(fmt, 1211216, *v))
# A 64-bit PetscInt file writes its class id 64 bits wide too.
w('big.petsc', '>iiii', 2000000000, 2000000000, 5)
w('neg.petsc', '>iiii', -5, 3, 1)
w('cut.petsc', '>iiii', 3, 3, 2)
w('wide.petsc', '>qqqq', 2**62, 2**62, 2**62)
PY
case_ "PETSc announcing 2e9 rows"     "$BIN" info big.petsc
case_ "PETSc negative rows"           "$BIN" info neg.petsc
case_ "PETSc truncated after header"  "$BIN" info cut.petsc
case_ "PETSc 64-bit sizes of 2^62"    "$BIN" info wide.petsc

# The measured side (issue 18). Built without the mpi feature, it says
# how to get it; with it (AMGCOMM_MPI=1 and mpirun on PATH), the cases
# under mpirun.
if [ "${AMGCOMM_MPI:-}" = 1 ] && command -v mpirun > /dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  "$BIN" analyze gen:poisson3d:8 --nodes 2 --ppn 2 --out rp --save-patterns p4 > /dev/null
  case_ "replay with 3 ranks, saved 4"  mpirun -n 3 --oversubscribe "$BIN" replay p4 --iterations 5 --out m.json
  case_ "replay --out inside patterns"  mpirun -n 4 --oversubscribe "$BIN" replay p4 --iterations 5 --out p4/m.json
  case_ "replay of an empty folder"     mpirun -n 2 --oversubscribe "$BIN" replay mine --iterations 5 --out m.json
  case_ "calibrate on one rank"         mpirun -n 1 "$BIN" calibrate --out c.json
  case_ "calibrate --quick on 2 ranks"  mpirun -n 2 --oversubscribe "$BIN" calibrate --quick --out c.json
else
  case_ "calibrate without the feature" "$BIN" calibrate --out c.json
  case_ "replay without the feature"   "$BIN" replay pats --iterations 5 --out m.json
fi

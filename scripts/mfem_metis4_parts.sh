#!/usr/bin/env bash
# The partition MFEM 3.3.2 computes with METIS 4.0.3 (MFEM's default METIS
# in 2018: config/defaults.mk, MFEM_USE_METIS_5 = NO) for the EuroMPI'18
# beam, as a partition file of gen:beam:R's rows (issue 51; docs/papers.md):
# MFEM's beam-hex.mesh refined SEQ times in serial, its elements in MFEM's
# refinement order partitioned over RANKS parts (tools/mfem_element_parts.cpp),
# then each node of the R-times refined beam to the lowest part among the
# SEQ-level elements around it (ParMesh's group master), three rows a node.
#
#   scripts/mfem_metis4_parts.sh MFEM_SRC METIS4_SRC R SEQ RANKS OUT
#
# MFEM_SRC: a clone of mfem/mfem (checked out here at v3.3.2); METIS4_SRC:
# METIS 4.0.3's sources with a CMakeLists.txt (a public mirror such as
# CIBC-Internal/metis-4.0.3). About 4 minutes to build on 2 cores. Then
#   amgcomm analyze gen:beam:R --nodes N --ppn P --partition OUT ...
set -euo pipefail
[ $# -eq 6 ] || { echo "usage: $0 MFEM_SRC METIS4_SRC R SEQ RANKS OUT" >&2; exit 2; }
MFEM=$(realpath "$1"); METIS=$(realpath "$2"); R=$3; SEQ=$4; RANKS=$5; OUT=$6
cd "$(dirname "$0")/.."
git -C "$MFEM" checkout --quiet v3.3.2
mkdir -p "$METIS/build"
(cd "$METIS/build" && cmake .. -DCMAKE_BUILD_TYPE=Release >/dev/null && make -j"$(nproc)" >/dev/null)
(cd "$MFEM" && make config MFEM_USE_MPI=NO MFEM_USE_METIS=YES MFEM_USE_METIS_5=NO \
  METIS_DIR="$METIS" METIS_OPT="-I$METIS/Lib" METIS_LIB="-L$METIS/build -lmetis" \
  MFEM_CXXFLAGS=-O2 >/dev/null && make -j"$(nproc)" lib >/dev/null)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
g++ -O2 -I "$MFEM" tools/mfem_element_parts.cpp -o "$WORK/parts" "$MFEM/libmfem.a" \
  -L "$METIS/build" -lmetis -lrt
"$WORK/parts" "$MFEM/data/beam-hex.mesh" "$SEQ" "$RANKS" > "$WORK/parts.txt"
python3 - "$WORK/parts.txt" "$SEQ" "$R" "$OUT" <<'PY'
import sys
src, seq, R, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
base = (8, 1, 1)  # beam-hex.mesh: 8 x 1 x 1 unit cubes
ne = [b << seq for b in base]
h = 1.0 / (1 << seq)
parts = {}
for line in open(src):
    _, x, y, z, p = line.split()
    parts[(int(float(x) / h), int(float(y) / h), int(float(z) / h))] = int(p)
assert len(parts) == ne[0] * ne[1] * ne[2], "elements do not tile the beam"
shift = R - seq
nn = [(b << R) + 1 for b in base]

def around(c, n):
    # The SEQ-level elements along one dimension around fine node c.
    q = c >> shift
    on_face = c & ((1 << shift) - 1) == 0
    lo = q - 1 if (on_face and q > 0) else min(q, n - 1)
    return range(lo, min(q, n - 1) + 1)

with open(out, "w") as f:
    f.write(f"% MFEM 3.3.2 + METIS 4.0.3: beam-hex refined {seq} times over {max(parts.values()) + 1} parts, rows of gen:beam:{R}\n")
    for z in range(nn[2]):
        for y in range(nn[1]):
            for x in range(nn[0]):
                o = min(parts[(ex, ey, ez)] for ez in around(z, ne[2])
                        for ey in around(y, ne[1]) for ex in around(x, ne[0]))
                f.write(f"{o}\n{o}\n{o}\n")
PY
echo "wrote $OUT" >&2

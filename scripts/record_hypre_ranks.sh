#!/usr/bin/env bash
# Records BoomerAMG's levels on several rank counts and partitions
# (issue 50) into tests/data/hypre/boomeramg_ranks.csv, which
# tests/hypre_preset.rs holds `--preset hypre` to: tools/hypre_levels.c with
# hypre's defaults (Debian 12's libhypre-dev 2.26), the rows in
# increasing column order, each rank its contiguous block (hypre's
# even blocks, amgcomm's contiguous) or the rows a partition file gives
# it (written by `amgcomm partition`, seed 0), renumbered rank by rank.
#
#   scripts/record_hypre_ranks.sh [OUT]
# Needs mpicc, mpirun and libhypre-dev (apt-get install openmpi-bin
# libopenmpi-dev libhypre-dev). About 2 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-tests/data/hypre/boomeramg_ranks.csv}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cargo build --release --quiet --bin amgcomm
BIN=$PWD/target/release/amgcomm
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mpicc -O2 tools/hypre_levels.c -I/usr/include/hypre -lHYPRE -lm -o "$TMP/hypre_levels"
version=$(dpkg-query -W -f '${Version}' libhypre-dev 2>/dev/null || echo unknown)

# The matrix hypre reads for an amgcomm spec: lap:N is built in place,
# the others are written by amgcomm generate.
matrix() {
  case "$1" in
    gen:poisson3d:*) echo "lap:${1##*:}" ;;
    gen:*)
      local kind=${1#gen:}
      local f="$TMP/${kind//:/_}.mtx"
      [ -f "$f" ] || "$BIN" generate "${kind%%:*}" --n "${kind##*:}" -o "$f" >/dev/null
      echo "$f" ;;
  esac
}

{
  echo "# BoomerAMG's levels with its defaults on several ranks (hypre 2.26.0, Debian 12's libhypre-dev $version),"
  echo "# written by scripts/record_hypre_ranks.sh on $(date -u +%Y-%m-%d): tools/hypre_levels.c under mpirun -n RANKS,"
  echo "# rows in increasing column order; partition contiguous: n / RANKS rows a rank, the first n % RANKS one more;"
  echo "# otherwise the file amgcomm partition --method PARTITION --parts RANKS writes, rows renumbered rank by rank."
  echo "matrix,num_functions,ranks,partition,level,rows,nnz"
} > "$OUT"

record() { # SPEC NUM_FUNCTIONS PARTITION RANKS...
  local spec=$1 nf=$2 part=$3
  shift 3
  local m
  m=$(matrix "$spec")
  for p in "$@"; do
    local args=("$m" "$nf")
    if [ "$part" != contiguous ]; then
      "$BIN" partition "$spec" --method "$part" --parts "$p" -o "$TMP/part" >/dev/null
      args+=("$TMP/part")
    fi
    mpirun -n "$p" --oversubscribe "$TMP/hypre_levels" "${args[@]}" |
      awk -v s="$spec" -v nf="$nf" -v p="$p" -v part="$part" \
        '$1 != "setup_seconds" { print s "," nf "," p "," part "," $1 "," $2 "," $3 }' >> "$OUT"
    echo "$spec nf $nf $part on $p ranks" >&2
  done
}

record gen:poisson3d:20 1 contiguous 2 3 4 8 16 64
record gen:poisson3d:30 1 contiguous 2 4 8 16
record gen:poisson3d-27:16 1 contiguous 4 13
record gen:elasticity3d:8 3 contiguous 2 4 8 16 64
record gen:elasticity3d:12 3 contiguous 8 16
record gen:poisson3d:20 1 metis 4 13
record gen:poisson3d:20 1 random 8
record gen:elasticity3d:8 3 metis 13
# MFEM's beam, refined 3 times: hexahedra in the refinement's order, not
# a grid's, and two materials.
record gen:beam:3 3 contiguous 2 4 8 16 64
echo "wrote $OUT" >&2

# hypre's CLJP (coarsen type 0), which its setup switches to after a level
# that kept three quarters of its rows: tests/data/hypre/boomeramg_cljp.csv.
OUT=$(dirname "$OUT")/boomeramg_cljp.csv
{
  echo "# BoomerAMG's levels with coarsen type 0 (CLJP), its other defaults, on several ranks"
  echo "# (hypre 2.26.0, Debian 12's libhypre-dev $version), written by scripts/record_hypre_ranks.sh"
  echo "# on $(date -u +%Y-%m-%d): HYPRE_LEVELS_COARSEN_TYPE=0 tools/hypre_levels.c under mpirun -n RANKS."
  echo "matrix,num_functions,ranks,partition,level,rows,nnz"
} > "$OUT"
export HYPRE_LEVELS_COARSEN_TYPE=0
record gen:poisson3d:16 1 contiguous 1 3 8
record gen:elasticity3d:8 3 contiguous 4
echo "wrote $OUT" >&2

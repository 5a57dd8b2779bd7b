#!/usr/bin/env bash
# Setup time and peak memory of `--preset hypre` on P ranks (issue 50)
# beside the one-rank build of an earlier commit, alternating runs so both
# see the same load: `amgcomm hierarchy SPEC --ranks P` of this checkout
# against `amgcomm hierarchy SPEC` of REV (before issue 50 the hypre preset
# built the one-rank hierarchy whatever the ranks). Setup time is the
# "hierarchy set up in" line (input excluded); peak memory /usr/bin/time's
# maximum resident set.
#
#   scripts/bench_ranks.sh [ROUNDS] [REV] [SPEC:RANKS ...]
# Default: 3 rounds, REV 23aa889, gen:poisson3d:100 on 1, 2, 4, 8, 16, 32,
# 64 and 1024 ranks (issue 50's point 4 on every rank count it names) and
# gen:elasticity3d:65 on 8192. REV is built once in a temporary
# worktree (a few minutes). SPEC perm:N is the N^3 Laplacian with its rows
# renumbered at random (`generate poisson3d --n N --permute 1`), written
# once and read by both binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
REV=${2:-23aa889}
shift $(( $# > 2 ? 2 : $# ))
CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || CASES=(gen:poisson3d:100:1 gen:poisson3d:100:2 gen:poisson3d:100:4 gen:poisson3d:100:8 gen:poisson3d:100:16 gen:poisson3d:100:32 gen:poisson3d:100:64 gen:poisson3d:100:1024 gen:elasticity3d:65:8192)
cargo build --release --quiet --bin amgcomm
NEW=$PWD/target/release/amgcomm
OLD_DIR=$(mktemp -d)
trap 'git worktree remove --force "$OLD_DIR/src" >/dev/null 2>&1 || true; rm -rf "$OLD_DIR"' EXIT
git worktree add --quiet --detach "$OLD_DIR/src" "$REV"
(cd "$OLD_DIR/src" && CARGO_TARGET_DIR="$OLD_DIR/target" cargo build --release --quiet --bin amgcomm)
OLD=$OLD_DIR/target/release/amgcomm
echo "$(nproc) cores, $(date -u +%Y-%m-%d), $ROUNDS rounds; $REV one rank against $(git rev-parse --short HEAD) on P ranks"

# One run: "seconds peak_MB" of BIN hierarchy ARGS.
run() {
  local out
  out=$( { /usr/bin/time -f "peak %M" "$@" >"$OLD_DIR/out.txt"; } 2>&1 )
  local s m
  s=$(sed -n 's/.*hierarchy set up in \([0-9.]*\) s/\1/p' "$OLD_DIR/out.txt")
  m=$(echo "$out" | sed -n 's/.*peak \([0-9]*\).*/\1/p')
  echo "$s $((m / 1024))"
}
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

printf '| input | ranks | earlier commit, 1 rank: setup, peak | this one, P ranks: setup, peak | ratio |\n|---|---|---|---|---|\n'
for c in "${CASES[@]}"; do
  spec=${c%:*}
  name=$spec
  p=${c##*:}
  if [[ $spec == perm:* ]]; then
    f="$OLD_DIR/${spec/:/_}.mtx"
    [ -f "$f" ] || "$NEW" generate poisson3d --n "${spec#perm:}" --permute 1 -o "$f" >/dev/null
    spec=$f
  fi
  ot=(); om=(); nt=(); nm=()
  for r in $(seq "$ROUNDS"); do
    read -r t m < <(run "$OLD" hierarchy "$spec")
    ot+=("$t"); om+=("$m")
    read -r t m < <(run "$NEW" hierarchy "$spec" --ranks "$p")
    nt+=("$t"); nm+=("$m")
  done
  a=$(median "${ot[@]}"); b=$(median "${nt[@]}")
  awk -v s="$name" -v p="$p" -v a="$a" -v b="$b" -v am="$(median "${om[@]}")" -v bm="$(median "${nm[@]}")" \
    'BEGIN { printf "| %s | %s | %.2f s, %d MB | %.2f s, %d MB | %.2f |\n", s, p, a, am, b, bm, b / a }'
done

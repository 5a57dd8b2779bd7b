#!/bin/sh
# What BenchPress's SpMV programs call in their timed strategies (issue
# 52): the calls of cuda_aware_spmv, copy_to_cpu_spmv, copy_nap_spmv and
# dup_nap_spmv in the committed POWER9 binaries spmv/mpi_sparse_mat_comm_only
# (the program of spmv/tests/comm_only_32.3285030.out, the table Lassen's
# device work is fitted to) and spmv/mpi_sparse_mat, and whether their
# main functions make the same calls. Needs a BenchPress git directory
# (fetch bienz2/BenchPress) and Debian's binutils-powerpc64le-linux-gnu;
# reads programs only, no output of a run.
#
#   scripts/benchpress_comm_only_calls.sh BENCHPRESS_GIT_DIR [COMMIT]
set -eu
[ $# -ge 1 ] || { echo "usage: scripts/benchpress_comm_only_calls.sh BENCHPRESS_GIT_DIR [COMMIT]" >&2; exit 2; }
git_dir=$1
rev=${2:-ac2ede182bbd0cd8feb54f14d5a8a686b8a8e5a0}
od=powerpc64le-linux-gnu-objdump
command -v $od > /dev/null || { echo "needs $od: apt-get install binutils-powerpc64le-linux-gnu" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for b in mpi_sparse_mat_comm_only mpi_sparse_mat; do
    git --git-dir="$git_dir" show "$rev:spmv/$b" > "$tmp/$b"
done
# The callees of one function of a binary, in order, addresses dropped.
calls() {
    sym=$($od -t "$tmp/$1" | awk '$NF ~ /^_Z[0-9]+'"$2"'/ {print $NF; exit}')
    [ -n "$sym" ] || sym=$2
    $od -d --no-show-raw-insn "$tmp/$1" --disassemble="$sym" | c++filt |
        sed -n 's/.*\tbl *[0-9a-f]* <\(.*\)>$/\1/p' | sed 's/^[0-9a-f]*\.plt_call\.//; s/+0x[0-9a-f]*$//'
}
echo "bienz2/BenchPress@$rev, spmv/: calls of each timed strategy"
for f in cuda_aware_spmv copy_to_cpu_spmv copy_nap_spmv dup_nap_spmv; do
    for b in mpi_sparse_mat_comm_only mpi_sparse_mat; do
        echo "$f in $b: $(calls $b $f | sed 's/(.*//' | tr '\n' ' ')"
    done
done
if [ "$(calls mpi_sparse_mat_comm_only main)" = "$(calls mpi_sparse_mat main)" ]; then
    echo "main: the same calls in both"
else
    echo "main: the calls differ"
fi

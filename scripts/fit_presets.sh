#!/bin/sh
# Refit the measured parameters of the presets lassen, summit and frontier
# from BenchPress's published outputs (REF/{lassen,summit,tioga}/: the
# files of bienz2/BenchPress@ac2ede1 benchmarks/lassen/spectrum/ and
# benchmarks/summit/, and of 42bd708 (branch amd) benchmarks/tioga/; REF
# is the folder given), write each preset file (machines/presets/NAME.json, compiled
# in) and the table of medians the tests refit from
# (tests/data/presets/NAME.csv). Run from the repository's root; rebuild
# afterwards. Running it twice changes nothing: the fit is a fixed point.
# With a second argument, a clone of MPI Advance's microbenchmark outputs
# (git clone -b microbenchmarks https://github.com/mpi-advance/locality_aware),
# it also refits elcapitan (Tuolumne) and perlmutter (Delta) from its
# benchmark_tests/.
set -eu
[ $# -ge 1 ] || { echo "usage: scripts/fit_presets.sh REF [LOCALITY_AWARE]" >&2; exit 2; }
ref=$1
la=${2:-}
# Fit preset $1 from the runs in folder $2, writing its file and table.
fit() {
    ./target/release/amgcomm machine fit "$1" "$2" \
        --write-table "tests/data/presets/$1.csv" > "machines/presets/$1.json.new"
    mv "machines/presets/$1.json.new" "machines/presets/$1.json"
}
# After a rebuild, each of the presets given refits to itself from its table.
fixed() {
    cargo build --release -q
    for p in "$@"; do
        ./target/release/amgcomm machine fit "$p" "tests/data/presets/$p.csv" | cmp -s - "machines/presets/$p.json" ||
            { echo "fit_presets: $p does not refit to itself from its table" >&2; exit 1; }
    done
}
cargo build --release -q
fit lassen "$ref/lassen"
fit summit "$ref/summit"
fit frontier "$ref/tioga"
fixed lassen summit frontier
echo "presets refitted: machines/presets/{lassen,summit,frontier}.json"
[ -n "$la" ] || exit 0
fit elcapitan "$la/benchmark_tests/tuolumne"
fit perlmutter "$la/benchmark_tests/delta"
fixed elcapitan perlmutter
echo "presets refitted: machines/presets/{elcapitan,perlmutter}.json"

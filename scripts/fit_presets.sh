#!/bin/sh
# Refit the measured parameters of the presets lassen, summit and frontier
# from BenchPress's published outputs (../shared/reference/{lassen,summit,
# tioga}/), write each preset file (machines/presets/NAME.json, compiled
# in) and the table of medians the tests refit from
# (tests/data/presets/NAME.csv). Run from the repository's root; rebuild
# afterwards. Running it twice changes nothing: the fit is a fixed point.
# With a second argument, a clone of MPI Advance's microbenchmark outputs
# (git clone -b microbenchmarks https://github.com/mpi-advance/locality_aware),
# it also refits elcapitan (Tuolumne) and perlmutter (Delta) from its
# benchmark_tests/.
set -eu
ref=${1:-../shared/reference}
la=${2:-}
cargo build --release -q
for p in lassen summit frontier; do
    d=$p
    [ "$p" = frontier ] && d=tioga
    ./target/release/amgcomm machine fit "$p" "$ref/$d" \
        --write-table "tests/data/presets/$p.csv" > "machines/presets/$p.json.new"
    mv "machines/presets/$p.json.new" "machines/presets/$p.json"
done
cargo build --release -q
for p in lassen summit frontier; do
    ./target/release/amgcomm machine fit "$p" "tests/data/presets/$p.csv" | cmp -s - "machines/presets/$p.json" ||
        { echo "fit_presets: $p does not refit to itself from its table" >&2; exit 1; }
done
echo "presets refitted: machines/presets/{lassen,summit,frontier}.json"
[ -n "$la" ] || exit 0
for p in elcapitan perlmutter; do
    d=tuolumne
    [ "$p" = perlmutter ] && d=delta
    ./target/release/amgcomm machine fit "$p" "$la/benchmark_tests/$d" \
        --write-table "tests/data/presets/$p.csv" > "machines/presets/$p.json.new"
    mv "machines/presets/$p.json.new" "machines/presets/$p.json"
done
cargo build --release -q
for p in elcapitan perlmutter; do
    ./target/release/amgcomm machine fit "$p" "tests/data/presets/$p.csv" | cmp -s - "machines/presets/$p.json" ||
        { echo "fit_presets: $p does not refit to itself from its table" >&2; exit 1; }
done
echo "presets refitted: machines/presets/{elcapitan,perlmutter}.json"

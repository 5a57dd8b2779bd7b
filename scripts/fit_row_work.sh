#!/bin/sh
# Refit Blue Waters' row work (params.row_work: the local work of an
# exchange of matrix rows, terms rowcopy, rowpack, recvserial) from RAPtor's
# benchmark_matops logs (REF/raptor/aniso_{128,512}.out: bienz2/
# BlueWatersModel@4ecec3e, bw_output/amg_models/; REF is the folder given):
# analyse gen:aniso2d:3200 as the logs ran it with every row-work parameter
# set to 1 (so each term's column is its feature), write the table
# tests/data/presets/bluewaters_row_work.csv, and print the fit that
# `cargo test bluewaters_refits_from_its_table` checks against the preset
# (src/machine/params.rs, BW_ROW_WORK). Run from the repository's root.
set -eu
[ $# -ge 1 ] || { echo "usage: scripts/fit_row_work.sh REF (a folder holding raptor/aniso_128.out and aniso_512.out)" >&2; exit 2; }
ref=$1
cargo build --release -q
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
./target/release/amgcomm machine show bluewaters --json |
    python3 -c 'import json,sys; d=json.load(sys.stdin); d["params"]["row_work"]={"copy_per_nonzero":1.0,"per_element":1.0,"per_received":1.0}; json.dump(d,sys.stdout)' > "$tmp/unit.json"
./target/release/amgcomm scale gen:aniso2d:3200 --preset raptor-matops-2018 --machine "$tmp/unit.json" \
    --nodes 8,32 --ops spmv,aa --model nodeaware+queue+contention+recvserial \
    --measured "$ref/raptor" --out "$tmp/scale" > /dev/null
python3 - "$tmp/scale" > tests/data/presets/bluewaters_row_work.csv <<'PY'
import json, sys
d = sys.argv[1]
print("# amgcomm's own table (not a verbatim file): per level of RAPtor's benchmark_matops on Blue Waters, the aa exchange's")
print("# modeled network seconds (nodeaware+queue+contention, EuroMPI'18 Table 1) and the row-work features amgcomm counts")
print("# (most local nonzeros of a rank, most (value, index) elements a rank packs plus unpacks summed over steps,")
print("# most messages a rank receives summed over steps), beside the measured 'Comm Time' of 'A Communication' (standard)")
print("# and 'A TAP Communication' (node-aware-3) in aniso_128.out and aniso_512.out")
print("# (bienz2/BlueWatersModel@4ecec3e bw_output/amg_models/, June 11 2018). Written by scripts/fit_row_work.sh.")
print("ranks,strategy,level,network_s,local_nonzeros,elements,received,measured_s")
for n, ranks, st in [("nodes_8", 128, "standard"), ("nodes_8_node-aware-3", 128, "node-aware-3"),
                     ("nodes_32", 512, "standard"), ("nodes_32_node-aware-3", 512, "node-aware-3")]:
    r = json.load(open(f"{d}/{n}/report.json"))
    for L in r["levels"]:
        a = L["ops"]["aa"]; c = a["cost"]; meas = (a.get("measured") or {}).get("seconds")
        if meas is None:
            continue
        net = c["max_rate"] + c["queue_search"] + c["contention"]
        print(f"{ranks},{st},{L['level']},{net!r},{int(c['rowcopy'])},{c['rowpack']!r},{int(c['recvserial'])},{meas!r}")
PY
cargo test --release -q --lib bluewaters_refits_from_its_table -- --nocapture 2>&1 | grep '^fit'

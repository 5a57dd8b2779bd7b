#!/bin/sh
# Refit Lassen's device work (gpus.work: aware_call, round, error) from the
# per-level SpMV communication table of BenchPress
# (REF/lassen/spmv_comm_only_32_ppn12_ppn20.csv: a table of BenchPress's
# spmv/tests/comm_only_32.3285030.out, its runs at 12 and 20 ranks per
# node, columns ppn, level, t_cuda_aware, t_copy_to_cpu, t_node_aware,
# t_dup_devptr_node_aware; REF is the folder given). That job ran
# spmv/mpi_sparse_mat_comm_only, whose timed strategies make MPI calls
# and nothing else (its disassembly: init_comm and finalize_comm, or
# nap_communicate; no kernel, no cudaMemcpyAsync, no stream
# synchronisation; scripts/benchpress_comm_only_calls.sh prints them), so
# each strategy is set beside its message steps
# alone: amgcomm's modeled seconds without memcpy, kernel, devicempi and
# hostround.
# Analyse gen:aniso2d:2000 on 32 Lassen nodes at 3 and 5 ranks per GPU
# under the four device strategies with the device work set to 1 (so
# the devicempi and hostround columns are their features), write
# tests/data/presets/lassen_device_work.csv and print the fit that
# `cargo test lassen_refits_from_its_table` checks against
# machines/presets/lassen.json. Run from the repository's root.
set -eu
[ $# -ge 1 ] || { echo "usage: scripts/fit_device_work.sh REF (a folder holding lassen/spmv_comm_only_32_ppn12_ppn20.csv)" >&2; exit 2; }
ref=$1
cargo build --release -q
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
./target/release/amgcomm machine show lassen --json |
    python3 -c 'import json,sys; d=json.load(sys.stdin); d["gpus"]["work"]={"kernel":1.0,"aware_call":1.0,"round":1.0,"error":0}; json.dump(d,sys.stdout)' > "$tmp/unit.json"
for k in 3 5; do
    ./target/release/amgcomm scale gen:aniso2d:2000 --preset raptor-matops-2018 --machine "$tmp/unit.json" \
        --nodes 32 --ranks-per-gpu $k --ops spmv --out "$tmp/lu$k" > /dev/null
done
python3 - "$tmp" "$ref/lassen/spmv_comm_only_32_ppn12_ppn20.csv" > tests/data/presets/lassen_device_work.csv <<'PY'
import csv, json, sys
d, table = sys.argv[1], sys.argv[2]
t = [x for x in csv.DictReader(l for l in open(table) if not l.startswith('#'))]
names = ['gpu-aware', 'staged', 'staged-node-aware', 'split']
folders = ['nodes_32', 'nodes_32_staged', 'nodes_32_staged-node-aware', 'nodes_32_split']
cols = ['t_cuda_aware', 't_copy_to_cpu', 't_node_aware', 't_dup_devptr_node_aware']
print("# amgcomm's own table (not a verbatim file): per level of BenchPress's SpMV communication on Lassen (32 nodes x 4 V100,")
print("# Spectrum MPI, MPS on), each device strategy's modeled seconds of its messages alone (no memcpy, kernel, devicempi or")
print("# hostround: the job ran spmv/mpi_sparse_mat_comm_only, whose timed strategies only call MPI) and the features the work")
print("# terms multiply (kernels: none in that program; CUDA-aware exchanges; rounds through the host), beside the measured")
print("# seconds per call of spmv_comm_only_32_ppn12_ppn20.csv (bienz2/BenchPress@ac2ede1")
print("# spmv/tests/comm_only_32.3285030.out, runs at 12 and 20 ranks per node). amgcomm's hierarchy: gen:aniso2d:2000")
print("# --preset raptor-matops-2018. Written by scripts/fit_device_work.sh; read with the row-work table's reader")
print("# (features: kernel count, CUDA-aware calls, host rounds).")
print("ranks,strategy,level,network_s,local_nonzeros,elements,received,measured_s")
for ppn, k in [(12, 3), (20, 5)]:
    reports = [json.load(open(f"{d}/lu{k}/{f}/report.json")) for f in folders]
    for level in range(12):
        row = [x for x in t if int(x['ppn']) == ppn and int(x['level']) == level][0]
        for s in range(4):
            c = reports[s]['levels'][level]['ops']['spmv']['cost']
            base = c['total'] - sum(c.get(k, 0) for k in ('memcpy', 'kernel', 'devicempi', 'hostround'))
            print(f"{ppn * 32},{names[s]},{level},{base!r},0,{round(c.get('devicempi', 0))},{round(c.get('hostround', 0))},{float(row[cols[s]])!r}")
PY
cargo test --release -q --lib lassen_refits_from_its_table -- --nocapture 2>&1 | grep '^fit'

#!/bin/sh
# A real Caliper profile of hypre (issue 53): build Caliper and hypre 2.26
# --with-caliper from their sources, run tools/hypre_dump_levels.c's PCG
# solve (BoomerAMG as its preconditioner, a 12^3 Laplacian on 4 ranks of
# uneven blocks) under Caliper's MPI profiling with message counts, and
# record what CI reads:
#   tests/data/caliper/hypre_pcg.csv   per phase, MG level, MPI call and
#                                      rank: seconds, messages sent and
#                                      received (amgcomm's own table)
#   tests/data/caliper/levels/         that run's levels, hypre's rank files
#
#   scripts/caliper_hypre.sh CALIPER_SRC HYPRE_SRC [WORK]
# CALIPER_SRC: a clone of LLNL/Caliper; HYPRE_SRC: a clone of
# hypre-space/hypre at v2.26.0. WORK (default: a temporary folder) gets
# the builds. Needs cmake, mpicc and mpirun. About 12 minutes on 2 cores.
set -eu
[ $# -ge 2 ] || { echo "usage: scripts/caliper_hypre.sh CALIPER_SRC HYPRE_SRC [WORK]" >&2; exit 2; }
cali_src=$(cd "$1" && pwd)
hypre_src=$(cd "$2" && pwd)
work=${3:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

C=$work/caliper
H=$work/hypre
if [ ! -f "$C/lib/libcaliper.so" ]; then
    mkdir -p "$work/caliper-build"
    (cd "$work/caliper-build" && cmake "$cali_src" -DWITH_MPI=On -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_INSTALL_PREFIX="$C" > cmake.log && make -j"$(nproc)" install > make.log)
fi
if [ ! -f "$H/lib/libHYPRE.a" ]; then
    (cd "$hypre_src/src" && ./configure --with-caliper --with-caliper-include="$C/include" \
        --with-caliper-lib="-L$C/lib -Wl,-rpath,$C/lib -lcaliper" --prefix="$H" > "$work/configure.log" &&
        make -j"$(nproc)" install > "$work/make_hypre.log")
fi
mpicc -O2 "$repo/tools/hypre_dump_levels.c" -I"$H/include" -I"$C/include" -L"$H/lib" -Wl,-rpath,"$H/lib" \
    -lHYPRE -L"$C/lib" -Wl,-rpath,"$C/lib" -lcaliper -lm -o "$work/hypre_dump_levels"
run=$work/run
rm -rf "$run"
mkdir -p "$run/levels"
config="hatchet-region-profile(output=prof.json,output.format=json-split,profile.mpi,mpi.message.count,mpi.message.size)"
(cd "$run" && CALI_CONFIG=$config mpirun --oversubscribe -n 4 "$work/hypre_dump_levels" levels 12 solve > stdout.txt)
iters=$(sed -n 's/.*PCG with BoomerAMG: \([0-9]*\) iterations.*/\1/p' "$run/stdout.txt")
out=$repo/tests/data/caliper
rm -rf "$out/levels"
mkdir -p "$out/levels"
cp "$run"/levels/A[0-9]*.0000* "$run"/levels/P[0-9]*.0000* "$out/levels/"
cali_version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("cali.caliper.version", "?"))' "$run/prof.json")
{
    echo "# A Caliper profile hypre wrote: hypre 2.26.0 (hypre-space/hypre $(git -C "$hypre_src" rev-parse --short HEAD)) built"
    echo "# --with-caliper, Caliper $cali_version (LLNL/Caliper $(git -C "$cali_src" rev-parse --short HEAD)), $(mpirun --version | head -1)."
    echo "# Run: CALI_CONFIG=\"$config\""
    echo "#   mpirun --oversubscribe -n 4 tools/hypre_dump_levels levels 12 solve   ($(date -u +%Y-%m-%d), scripts/caliper_hypre.sh)"
    echo "# PCG with BoomerAMG as its preconditioner: $iters iterations, $((iters + 1)) V-cycles; the levels of that run in levels/."
    echo "# amgcomm's own table: per region holding an MPI call (its path from the root, as hypre and Caliper nest it) and"
    echo "# rank, the call's exclusive seconds and the messages it sent and received (Caliper's time, Msgs sent, Msgs recvd);"
    echo "# phase (setup below hypre_BoomerAMGSetup, solve below hypre_BoomerAMGSolve) and MG level are the path's."
    echo "# cycles: $((iters + 1))"
    python3 - "$run/prof.json" <<'PY'
import json, sys
from collections import defaultdict
prof = json.load(open(sys.argv[1]))
ix = {c: i for i, c in enumerate(prof["columns"])}
nodes = prof["nodes"]
place = []
paths = []
for n in nodes:
    level, phase = place[n["parent"]] if n.get("parent") is not None else (None, None)
    paths.append((paths[n["parent"]] + "/" if n.get("parent") is not None else "") + n["label"])
    lab = n["label"]
    if lab.startswith("MG level "):
        level = int(lab[len("MG level "):])
    if "Setup" in lab:
        phase = "setup"
    elif phase is None and ("Solve" in lab or "Cycle" in lab):
        phase = "solve"
    place.append((level, phase))
acc = defaultdict(lambda: [0.0, 0, 0])
for row in prof["data"]:
    node = row[ix["path"]]
    if node is None:
        continue
    level, phase = place[node]
    lab = nodes[node]["label"]
    if level is None or phase is None or not lab.startswith("MPI_"):
        continue
    a = acc[(phase, level, paths[node], row[ix["mpi.rank"]])]
    a[0] += row[ix["time"]] or 0.0
    a[1] += row[ix["Msgs sent"]] or 0
    a[2] += row[ix["Msgs recvd"]] or 0
print("phase,level,region,rank,seconds,sent,received")
for (phase, level, region, rank), (s, sent, recvd) in sorted(acc.items(), key=lambda kv: (kv[0][0] != "setup",) + kv[0][1:]):
    print(f"{phase},{level},{region},{rank},{s:.6e},{sent},{recvd}")
PY
} > "$out/hypre_pcg.csv"
echo "wrote $out/hypre_pcg.csv and $out/levels/ ($iters PCG iterations)" >&2

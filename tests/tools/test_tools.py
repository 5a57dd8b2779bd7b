"""amgcomm's profiles in the tools HPC users measure with: Thicket and
Hatchet read `profile.json` (Caliper's json-split format), Extra-P reads
`scale`'s `extrap.jsonl`. Run by .ci/run in a virtual environment of its
own (Extra-P 4.2.5 needs numpy below 2):

    python -m venv v && v/bin/pip install llnl-thicket extrap==4.2.5 "numpy<2" pytest
    AMGCOMM_BIN=target/release/amgcomm v/bin/python -m pytest tests/tools
"""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import hatchet as ht
import pytest
import thicket as th

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("AMGCOMM_BIN", ROOT / "target" / "release" / "amgcomm"))
NODES = [2, 4, 8, 16, 32]


def cli(*args):
    r = subprocess.run([str(BIN), *map(str, args)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """The issue's sweep: aniso2d on 2 to 32 Blue Waters nodes, RAPtor's
    matops preset, standard and node-aware-3 (scale's default pair)."""
    out = tmp_path_factory.mktemp("scale") / "study"
    cli("scale", "gen:aniso2d:400", "--preset", "raptor-matops-2018",
        "--nodes", ",".join(map(str, NODES)), "--out", out)
    return out


def runs(study):
    return sorted(study.glob("nodes_*/profile.json"))


def expected(run):
    """report.json's figures per (level, op) of one run."""
    r = json.loads((run.parent / "report.json").read_text())
    out = {}
    for l in r["levels"]:
        for op, o in l["ops"].items():
            out[(f"MG level {l['level']}", op)] = o
    return r, out


def test_thicket_reads_every_run_of_a_sweep(study):
    files = runs(study)
    assert len(files) == 2 * len(NODES)
    tk = th.Thicket.from_caliper([str(f) for f in files], disable_tqdm=True)

    # One metadata row per run; groupby splits them by strategy.
    assert len(tk.metadata) == len(files)
    assert sorted(tk.metadata["node_count"]) == sorted(NODES * 2)
    groups = tk.groupby("strategy")
    assert sorted(groups) == ["node-aware-3", "standard"]
    assert all(len(g.profile) == len(NODES) for g in groups.values())

    # The tree: amgcomm -> MG level L -> one node per operation charged.
    root = tk.graph.roots
    assert [r.frame["name"] for r in root] == ["amgcomm"]
    levels = root[0].children
    _, want = expected(files[0])
    names = {(l.frame["name"], o.frame["name"]) for l in levels for o in l.children}
    assert names == set(want)

    # Each run's metrics are its report.json's.
    df = tk.dataframe.reset_index()
    for f in files:
        r, want = expected(f)
        meta = tk.metadata[
            (tk.metadata["node_count"] == r["machine"]["nodes"])
            & (tk.metadata["strategy"] == r["strategy"])
        ]
        assert len(meta) == 1
        rows = df[df["profile"] == meta.index[0]]
        checked = 0
        for _, row in rows.iterrows():
            node = row["node"]
            if node.parents and node.parents[0].parents:
                o = want[(node.parents[0].frame["name"], node.frame["name"])]
                assert row["time"] == pytest.approx(o["cost"]["total"], rel=1e-12)
                assert row["time (inc)"] == row["time"]
                assert row["messages"] == o["messages"]["total"]
                assert row["bytes"] == o["bytes"]["total"]
                for term, seconds in o["cost"].items():
                    if term != "total":
                        assert row[term] == pytest.approx(seconds, rel=1e-12, abs=0)
                checked += 1
        assert checked == len(want)
        total = sum(o["cost"]["total"] for o in want.values())
        top = rows[rows["name"] == "amgcomm"]
        assert top["time (inc)"].iloc[0] == pytest.approx(total, rel=1e-12)


def test_hatchet_reads_one_profile(study):
    f = runs(study)[0]
    gf = ht.GraphFrame.from_caliper(str(f))
    _, want = expected(f)
    df = gf.dataframe
    ops = df[df["name"].isin({op for _, op in want})]
    assert len(ops) == len(want)
    assert ops["time"].sum() == pytest.approx(sum(o["cost"]["total"] for o in want.values()))
    assert "amgcomm" in gf.tree(metric_column="time (inc)")


def test_compare_writes_a_profile_per_variant(tmp_path):
    out = tmp_path / "cmp"
    cli("compare", "gen:poisson2d:60", "--nodes", "4",
        "--variants", "strategy=standard;strategy=node-aware-2", "--out", out)
    files = sorted(out.glob("profile_*.json"))
    assert [f.name for f in files] == ["profile_1.json", "profile_2.json"]
    tk = th.Thicket.from_caliper([str(f) for f in files], disable_tqdm=True)
    assert sorted(tk.metadata["variant"]) == ["strategy=node-aware-2", "strategy=standard"]
    spmv = json.loads((out / "compare.json").read_text())["variants"]
    df = tk.dataframe.reset_index()
    for k, f in enumerate(files):
        pid = tk.metadata.index[tk.metadata["variant"] == spmv[k]["name"]][0]
        got = df[(df["profile"] == pid) & (df["name"] == "spmv")]["time"].sum()
        assert got == pytest.approx(spmv[k]["spmv_total"], rel=1e-12)


def test_extrap_fits_a_model_per_call_path(study):
    extrap = os.environ.get("EXTRAP_BIN") or shutil.which("extrap")
    assert extrap, "Extra-P's command line (pip install extrap==4.2.5)"
    lines = [json.loads(l) for l in (study / "extrap.jsonl").read_text().splitlines()]
    assert sorted({l["params"]["p"] for l in lines}) == [16 * n for n in NODES]
    paths = {l["callpath"] for l in lines}
    r = subprocess.run([extrap, "--json", str(study / "extrap.jsonl"), "--disable-progress"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    # Extra-P prints per call path each metric's points and its model.
    fitted = {}
    callpath = metric = None
    for line in r.stdout.splitlines():
        if m := re.match(r"Callpath: (.*)", line):
            callpath = m.group(1)
        elif m := re.match(r"\s+Metric: (.*)", line):
            metric = m.group(1)
        elif m := re.match(r"\s+Model: (.*)", line):
            fitted[(callpath, metric)] = m.group(1)
    for p in paths:
        for s in ["standard", "node-aware-3"]:
            model = fitted[(p, f"time [{s}]")]
            assert model != "None" and re.search(r"\d", model), (p, s, model)
    assert {(l["callpath"], l["metric"]) for l in lines} <= set(fitted)

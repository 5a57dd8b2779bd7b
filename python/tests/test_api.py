"""The Python API against its peers: the command line on the same
request, PyAMG's own hierarchies, and the error kinds the API promises."""

import _thread
import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pyamg
import pytest
import scipy.io
import scipy.sparse as sp

import amgcomm

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("AMGCOMM_BIN", ROOT / "target" / "release" / "amgcomm"))


def cli(*args):
    """The command line, which must succeed."""
    r = subprocess.run([str(BIN), *map(str, args)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r


def report(folder):
    import json

    with open(Path(folder) / "report.json", encoding="utf-8") as f:
        return json.load(f)


def matrices():
    """A few matrices PyAMG users meet: 2D and 3D Poisson, anisotropic
    diffusion, and linear elasticity."""
    yield "poisson2d", pyamg.gallery.poisson((40, 40), format="csr")
    yield "poisson3d", pyamg.gallery.poisson((14, 14, 14), format="csr")
    stencil = pyamg.gallery.diffusion_stencil_2d(epsilon=0.01, theta=np.pi / 6, type="FD")
    yield "aniso", pyamg.gallery.stencil_grid(stencil, (36, 36), format="csr")
    yield "elasticity", pyamg.gallery.linear_elasticity((16, 16), format="csr")[0]


def save_levels(ml, folder):
    """PyAMG's levels as the folder --levels-from reads: A{l}.mtx, P{l}.mtx
    and the coarse points C{l}.txt."""
    folder.mkdir()
    for k, lvl in enumerate(ml.levels):
        scipy.io.mmwrite(folder / f"A{k}.mtx", lvl.A)
        if k + 1 < len(ml.levels):
            scipy.io.mmwrite(folder / f"P{k}.mtx", lvl.P)
            np.savetxt(folder / f"C{k}.txt", np.flatnonzero(lvl.splitting == 1), fmt="%d")


@pytest.mark.parametrize("name,A", list(matrices()))
def test_analyze_ml_equals_the_cli_on_the_saved_levels(tmp_path, name, A):
    ml = pyamg.ruge_stuben_solver(A)
    ours = amgcomm.analyze(ml, nodes=4, ppn=4).report
    save_levels(ml, tmp_path / "levels")
    cli("analyze", "--levels-from", tmp_path / "levels", "--nodes", 4, "--ppn", 4, "--out", tmp_path / "r")
    theirs = report(tmp_path / "r")
    # Number for number; only the input's name differs.
    for key in ("levels", "totals", "machine", "partition", "model", "strategy"):
        assert ours[key] == theirs[key], key
    assert [lvl["rows"] for lvl in ours["levels"]] == [lvl.A.shape[0] for lvl in ml.levels]


@pytest.mark.parametrize("name,A", list(matrices())[:2])
def test_analyze_a_matrix_equals_the_cli_on_its_file(tmp_path, name, A):
    ours = amgcomm.analyze(A, preset="pyamg", nodes=2, strategy="node-aware-3", advice=True).report
    scipy.io.mmwrite(tmp_path / "A.mtx", A)
    cli("analyze", tmp_path / "A.mtx", "--preset", "pyamg", "--nodes", 2, "--strategy", "node-aware-3",
        "--advice", "--out", tmp_path / "r")
    theirs = report(tmp_path / "r")
    for key in ("levels", "totals", "hierarchy", "advice"):
        if key == "hierarchy":
            ours[key].pop("source"), theirs[key].pop("source")
        assert ours[key] == theirs[key], key


@pytest.mark.parametrize("name,A", list(matrices()))
def test_the_pyamg_preset_builds_pyamgs_hierarchy(name, A):
    ml = pyamg.ruge_stuben_solver(A)
    h = amgcomm.hierarchy(A, preset="pyamg")
    assert len(h.levels) == len(ml.levels)
    for ours, theirs in zip(h.levels, ml.levels):
        for a, b in ((ours.A, theirs.A), (ours.P, getattr(theirs, "P", None))):
            if b is None or a is None:
                continue
            assert a.shape == b.shape and a.nnz == sp.csr_matrix(b).nnz
            assert abs(a - b).max() <= 1e-12 * max(1.0, abs(b).max())


def test_the_setup_seconds_are_the_command_lines(tmp_path):
    """``Hierarchy.setup_seconds`` has the keys and shape of ``hierarchy
    --timings --json``'s ``setup_seconds``, for the same levels."""
    h = amgcomm.hierarchy("gen:poisson3d:12", preset="hypre", ranks=3)
    out = tmp_path / "h.json"
    cli("hierarchy", "gen:poisson3d:12", "--preset", "hypre", "--ranks", 3, "--timings", "--json", out)
    theirs = json.loads(out.read_text())
    rows = [lvl["rows"] for lvl in theirs["levels"]]
    assert [lvl.A.shape[0] for lvl in h.levels] == rows
    t = h.setup_seconds
    assert list(t) == list(theirs["setup_seconds"])
    assert len(t["levels"]) == len(rows)
    for step, total in t.items():
        if step != "levels":
            assert total == pytest.approx(sum(lvl[step] for lvl in t["levels"]), rel=1e-9, abs=1e-12)
    assert t["interpolation"] > 0 and t["gather"] > 0
    with pytest.raises(TypeError, match="timings"):
        amgcomm.hierarchy("gen:poisson3d:12", timings=True)


def test_errors_are_amgcomms_one_line(tmp_path):
    with pytest.raises(FileNotFoundError):
        amgcomm.analyze(tmp_path / "missing.mtx")
    with pytest.raises(amgcomm.Error, match="strategy must be one of .*, got 'sideways'"):
        amgcomm.analyze("gen:poisson2d:8", strategy="sideways")
    with pytest.raises(amgcomm.Error, match="no such file"):
        amgcomm.analyze("gen:poisson2d:8", machine="nowhere.json")
    assert issubclass(amgcomm.Error, ValueError)
    with pytest.raises(amgcomm.Error, match="AMG needs a square matrix, this one is 2 x 3"):
        amgcomm.analyze(sp.csr_matrix(np.ones((2, 3))), nodes=1)
    bad = sp.csr_matrix(np.eye(3))
    bad.data[1] = np.nan
    with pytest.raises(amgcomm.Error, match="row 1, column 1 .* not a finite number"):
        amgcomm.analyze(bad, nodes=1)
    with pytest.raises(amgcomm.Error, match="reads real matrices"):
        amgcomm.analyze(sp.csr_matrix(np.eye(3) * 1j), nodes=1)
    with pytest.raises(TypeError):
        amgcomm.analyze([1, 2, 3])


def test_duplicate_and_unsorted_entries_are_summed_as_a_files_are(tmp_path):
    A = pyamg.gallery.poisson((20, 20), format="csr")
    coo = A.tocoo()
    # Every entry split in two halves, rows' entries in reverse order.
    rows = np.concatenate([coo.row, coo.row])[::-1]
    cols = np.concatenate([coo.col, coo.col])[::-1]
    vals = np.concatenate([coo.data / 2, coo.data / 2])[::-1]
    order = np.argsort(rows, kind="stable")
    indptr = np.searchsorted(rows[order], np.arange(A.shape[0] + 1))
    messy = sp.csr_matrix((vals[order], cols[order], indptr), shape=A.shape)
    assert not messy.has_canonical_format
    a = amgcomm.analyze(messy, preset="pyamg", nodes=1).report
    b = amgcomm.analyze(A, preset="pyamg", nodes=1).report
    assert a["levels"] == b["levels"]


def test_the_gil_is_released_and_ctrl_c_interrupts_within_a_second():
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    stages = []
    amgcomm.analyze("gen:poisson3d:40", nodes=8, progress=stages.append)
    stop.set()
    t.join()
    assert len(ticks) > 50, "another Python thread ran while amgcomm worked"
    assert any("setting up level" in s for s in stages) and "writing the report" in stages
    # Ctrl-C half a second into a long run (Python's own handler, which a
    # shell that started it in the background may have left ignored).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        amgcomm.analyze("gen:poisson3d:150", nodes=64, advice=True)
    assert time.monotonic() - start < 1.5
    # The work stops too, at its next step, not at the end of the run.
    while amgcomm._amgcomm._workers() and time.monotonic() - start < 30:
        time.sleep(0.05)
    assert amgcomm._amgcomm._workers() == 0


def test_compare_scale_machines_and_save(tmp_path):
    A = pyamg.gallery.poisson((30, 30), format="csr")
    c = amgcomm.compare(A, variants=[{"strategy": "standard"}, {"strategy": "node-aware-3"}], nodes=4)
    assert [v["name"] for v in c.report["variants"]] == ["strategy=standard", "strategy=node-aware-3"]
    assert set(c.to_pandas()["variant"]) == {"strategy=standard", "strategy=node-aware-3"}
    s = amgcomm.scale("gen:poisson2d:60", nodes=[2, 4])
    df = s.to_pandas()
    # A coarsest level on one rank sends nothing: 0, not missing.
    assert sorted(set(df["nodes"])) == [2, 4] and (df["modeled"] >= 0).all() and (df["modeled"] > 0).any()
    names = [m["name"] for m in amgcomm.machines()]
    listed = subprocess.run([str(BIN), "machine", "list", "--json"], capture_output=True, text=True)
    import json

    assert names == [m["name"] for m in json.loads(listed.stdout)]
    ec = amgcomm.machine("elcapitan")
    assert ec["gpus"]["memory"] == "shared" and any(p["parameter"] == "dates" for p in ec["provenance"])
    a = amgcomm.analyze(A, nodes=2)
    out = a.save(tmp_path / "r")
    assert report(out) == a.report and (out / "levels.csv").exists()
    a.save(tmp_path / "r")  # a report folder is replaced whole
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    with pytest.raises(amgcomm.Error, match="not an amgcomm report folder"):
        a.save(tmp_path / "mine")
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep"
    df = a.to_pandas()
    assert {"level", "op", "messages", "bytes", "total"} <= set(df.columns)
    assert df["total"].sum() == pytest.approx(sum(o["cost"]["total"] for lvl in a.report["levels"] for o in lvl["ops"].values()))
    assert "<table>" in a._repr_html_()


def test_csr_csc_coo_and_arrays_are_one_matrix():
    A = pyamg.gallery.poisson((24, 24), format="csr")
    want = amgcomm.analyze(A, nodes=1).report["levels"]
    for m in (A.tocsc(), A.tocoo(), sp.csr_array(A), sp.coo_array(A), A.astype(np.float32).astype(np.float64)):
        assert amgcomm.analyze(m, nodes=1).report["levels"] == want, type(m)


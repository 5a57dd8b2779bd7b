"""report.html rendered by headless Chromium (Debian's chromium; .ci/run
installs it): the totals the page shows are report.json's, every chart is
drawn with a size, and the page fetched nothing beyond itself, at a
desktop and a phone width. Set SCREENSHOTS=DIR to keep the screenshots."""

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from browser import Browser

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("AMGCOMM_BIN", ROOT / "target" / "release" / "amgcomm"))
WIDTHS = [(1200, 900, False), (390, 844, True)]


def cli(*args):
    r = subprocess.run([str(BIN), *map(str, args)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return r


@pytest.fixture(scope="module")
def browser():
    b = Browser()
    yield b
    b.close()


def seconds(t):
    """amgcomm's report::seconds."""
    if t == 0:
        return "0"
    if t < 1e-3:
        return f"{t * 1e6:.1f} us"
    if t < 1:
        return f"{t * 1e3:.2f} ms"
    return f"{t:.2f} s"


RENDERED = """(() => {
  const cell = td => ({text: td.innerText.trim(), v: td.getAttribute('data-v')});
  const rows = id => Array.from(document.querySelectorAll('#' + id + ' tbody tr'))
      .map(tr => Array.from(tr.cells).map(cell));
  const heads = id => Array.from(document.querySelectorAll('#' + id + ' thead th')).map(th => th.innerText.trim());
  const charts = Array.from(document.querySelectorAll('figure.chart svg')).map(svg => {
    const r = svg.getBoundingClientRect(), s = getComputedStyle(svg);
    return {id: svg.parentElement.id, w: r.width, h: r.height, shown: s.display !== 'none' && s.visibility === 'visible',
            texts: svg.querySelectorAll('text').length};
  });
  return {totals: rows('totals'), heads: heads('totals'), charts: charts,
          external: document.querySelectorAll('script[src], link[href], img[src], iframe, object, embed').length,
          width: document.documentElement.scrollWidth, body: document.body.innerText.length,
          provenance: document.querySelectorAll('#provenance tbody tr').length,
          advice: document.querySelectorAll('ul.advice li').length,
          cycle: document.querySelectorAll('#cycle tbody tr').length};
})()"""


def render(browser, page, width, height, mobile, shot):
    url = page.resolve().as_uri()
    s = browser.open(url, width, height, mobile)
    got = browser.eval(s, RENDERED)
    fetched = browser.requests()
    assert fetched and all(u == url for u in fetched), fetched
    assert got["external"] == 0
    # Nothing wider than the screen but the tables' own scrolling boxes.
    assert got["width"] <= width + 1, got["width"]
    if os.environ.get("SCREENSHOTS"):
        browser.screenshot(s, Path(os.environ["SCREENSHOTS"]) / f"{shot}_{width}.png")
    return got


def charts_are_drawn(got, folder):
    svgs = sorted(p.stem for p in folder.glob("*.svg"))
    assert sorted(c["id"].removeprefix("chart-") for c in got["charts"]) == svgs
    for c in got["charts"]:
        assert c["shown"] and c["w"] > 100 and c["h"] > 50 and c["texts"] > 5, c


def test_the_shipped_example_page(browser, tmp_path):
    out = tmp_path / "elasticity"
    cli("analyze", "matrices/elasticity3d_10.mtx.gz", "--nodes", "8", "--ppn", "16",
        "--preset", "raptor-elasticity", "--advice", "--iterations", "20",
        "--ops", "spmv,spgemm,ptap,interp,restrict", "--out", out)
    report = json.loads((out / "report.json").read_text())
    for width, height, mobile in WIDTHS:
        got = render(browser, out / "report.html", width, height, mobile, "analyze")
        # The totals shown are report.json's, term by term, to the digit.
        assert [r[0]["text"] for r in got["totals"]] == list(report["totals"])
        for row in got["totals"]:
            cost = report["totals"][row[0]["text"]]
            for head, c in zip(got["heads"][1:], row[1:]):
                assert float(c["v"]) == cost[head], (head, c)
                assert c["text"] == seconds(cost[head]), (head, c)
        charts_are_drawn(got, out)
        # The advice, the cycle per level and Blue Waters' sources are shown.
        assert got["advice"] == len(report["advice"]) or (got["advice"] == 1 and not report["advice"])
        assert got["cycle"] == len(report["levels"])
        assert got["provenance"] >= 5


def test_compare_and_scale_pages(browser, tmp_path):
    cmp = tmp_path / "cmp"
    cli("compare", "gen:poisson2d:60", "--nodes", "4",
        "--variants", "strategy=standard;strategy=node-aware-2", "--out", cmp)
    sweep = tmp_path / "sweep"
    cli("scale", "gen:poisson2d:80", "--nodes", "1,2,4", "--out", sweep)
    compared = json.loads((cmp / "compare.json").read_text())
    for width, height, mobile in WIDTHS:
        got = render(browser, cmp / "report.html", width, height, mobile, "compare")
        assert [r[0]["text"] for r in got["totals"]] == [v["name"] for v in compared["variants"]]
        for row, v in zip(got["totals"], compared["variants"]):
            assert float(row[1]["v"]) == v["spmv_total"]
            assert row[1]["text"] == seconds(v["spmv_total"])
        charts_are_drawn(got, cmp)
        got = render(browser, sweep / "report.html", width, height, mobile, "scale")
        charts_are_drawn(got, sweep)
        assert got["body"] > 500

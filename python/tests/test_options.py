"""Python in Python's terms: every option of the command line in the
signatures, docstrings and stubs; unknown keywords and bad values raised
as Python raises them; the version; the notebook view."""

import importlib.util
import inspect
import os
import subprocess
from pathlib import Path

import pytest

import amgcomm
from amgcomm import _amgcomm, _options

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("AMGCOMM_BIN", ROOT / "target" / "release" / "amgcomm"))
COMMANDS = ["analyze", "compare", "scale", "hierarchy"]


def help_flags(command):
    """The long flags `amgcomm COMMAND --help` lists: the command line's
    own text, an independent path to the same definitions."""
    r = subprocess.run([str(BIN), command, "--help"], capture_output=True, text=True, check=True)
    out = set()
    for line in r.stdout.splitlines():
        word = line.strip().split(" ")[0].rstrip(",")
        if word.startswith("--"):
            out.add(word[2:].replace("-", "_"))
    return out


@pytest.mark.parametrize("command", COMMANDS)
def test_every_flag_is_a_keyword_with_its_type_default_and_meaning(command):
    f = getattr(amgcomm, command)
    sig = inspect.signature(f)
    own = {"help", "version", "out"} | _options._OWN[command]
    want = help_flags(command) - own
    assert len(want) > 5
    keywords = {n for n, p in sig.parameters.items() if p.kind == p.KEYWORD_ONLY}
    assert want <= keywords, want - keywords
    for o in _options.specs(command):
        assert f"{o['name']} : {_options.type_text(o)}" in f.__doc__
        if o["help"]:
            assert _options.python_words(o["help"])[:40] in f.__doc__
    # The defaults are the command line's, typed.
    if command == "analyze":
        assert sig.parameters["preset"].default == "hypre"
        assert sig.parameters["metis_objective"].default == "cut"
        assert sig.parameters["nodes"].default is None
        assert " --" not in f.__doc__ and "(--" not in f.__doc__


def test_the_stubs_are_the_ones_the_definitions_give():
    spec = importlib.util.spec_from_file_location("generate_stubs", ROOT / "python" / "generate_stubs.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    committed = (ROOT / "python" / "amgcomm" / "__init__.pyi").read_text(encoding="utf-8")
    assert committed == gen.text(), "run python3 python/generate_stubs.py"
    for o in _options.specs("analyze"):
        assert f"    {o['name']}: " in committed
    compile(committed, "__init__.pyi", "exec")


def test_an_unknown_keyword_is_a_type_error_naming_the_nearest():
    with pytest.raises(TypeError, match=r"analyze\(\) got an unexpected keyword argument 'nodse'; did you mean 'nodes'\?"):
        amgcomm.analyze("gen:poisson2d:8", nodse=4)
    with pytest.raises(TypeError, match=r"hierarchy\(\) .* 'rank'; did you mean 'ranks'\?"):
        amgcomm.hierarchy("gen:poisson2d:8", rank=4)
    with pytest.raises(TypeError, match=r"scale\(\) got an unexpected keyword argument 'zzz'$"):
        amgcomm.scale("gen:poisson2d:8", [1, 2], zzz=1)


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(nodes=-1), "nodes must be a positive integer, got -1"),
        (dict(nodes="four"), "nodes must be a positive integer, got 'four'"),
        (dict(nodes=True), "nodes must be a positive integer, got True"),
        (dict(nodes=0), "nodes must be a positive integer, got 0"),
        (dict(seed=-3), "seed must be a non-negative integer, got -3"),
        (dict(theta="high"), "theta must be a number, got 'high'"),
        (dict(strategy="sideways"), "strategy must be one of 'standard', .*, got 'sideways'"),
        (dict(ops=["spmv", "bogus"]), "ops must be one of 'spmv', .*, got 'bogus'"),
        (dict(advice="yes"), "advice must be True or False, got 'yes'"),
        # Checked by the request, said in Python's words.
        (dict(theta=2.0), r"^theta must lie in \[0, 1\], got 2$"),
        (dict(ranks_per_gpu=2), "^'ranks_per_gpu': machine bluewaters has no GPUs"),
        (dict(max_levels=0), "^max_levels must be a positive integer, got 0$"),
    ],
)
def test_a_bad_value_is_a_value_error_in_pythons_words(options, message):
    with pytest.raises(ValueError, match=message) as e:
        amgcomm.analyze("gen:poisson2d:8", **options)
    assert isinstance(e.value, amgcomm.Error)
    assert "--" not in str(e.value)


def test_hierarchy_and_scale_check_their_own_values():
    with pytest.raises(ValueError, match="ranks must be a positive integer, got 0"):
        amgcomm.hierarchy("gen:poisson2d:8", ranks=0)
    with pytest.raises(ValueError, match=r"nodes must be a list of positive integers, got \[2, -1\]"):
        amgcomm.scale("gen:poisson2d:8", [2, -1])
    with pytest.raises(ValueError, match="variants must be a list of dicts"):
        amgcomm.compare("gen:poisson2d:8", "strategy=standard")
    # Good values run: the hierarchy hypre builds on 4 ranks.
    h = amgcomm.hierarchy("gen:poisson3d:10", ranks=4)
    assert h.levels[0].A.shape == (1000, 1000) and len(h.levels) > 2


def test_the_version_is_the_command_lines():
    r = subprocess.run([str(BIN), "--version"], capture_output=True, text=True, check=True)
    assert r.stdout.split() == ["amgcomm", amgcomm.__version__]
    assert amgcomm.__version__ == _amgcomm.version()


def test_a_notebook_shows_the_level_table_and_the_spmv_chart():
    a = amgcomm.analyze("gen:poisson3d:12", nodes=2)
    html = a._repr_html_()
    assert "<table>" in html and html.count("<tr>") == 1 + len(a.to_pandas())
    assert "<svg" in html and "</svg>" in html and "<?xml" not in html
    assert "spmv" in html

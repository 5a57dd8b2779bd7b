"""amgcomm from Python: where the communication time of each level of an
AMG hierarchy goes on a machine, and what would cut it.

The functions take what the command line takes, as keyword arguments
named after its flags (``nodes=16`` for ``--nodes 16``), each in their
signature with its type, default and meaning, and, besides a path or a
``"gen:KIND:N"`` spec, a SciPy sparse matrix or a PyAMG
``MultilevelSolver``. They run the command line's own pipeline in this
process, with the GIL released.
"""

from __future__ import annotations

import errno
import inspect
import json
import os
import shutil
import tempfile
import weakref
from pathlib import Path
from typing import Any, Callable, Iterable

from . import _amgcomm, _options

#: The version of amgcomm this package runs.
__version__: str = _amgcomm.version()

__all__ = [
    "__version__",
    "Analysis",
    "Compared",
    "Error",
    "Hierarchy",
    "Scaled",
    "analyze",
    "compare",
    "hierarchy",
    "machine",
    "machines",
    "scale",
]

#: amgcomm's one-line message (a ``ValueError``): the command line's
#: message for the same request, without ``amgcomm: ``.
Error = _amgcomm.Error

# A held input still needs the flags' INPUT: a generator the held input
# replaces before anything is read.
_PLACEHOLDER = "gen:poisson2d:4"


def _parts(name: str, m) -> tuple:
    """A SciPy sparse matrix as CSR parts, without a copy when it is
    CSR of float64 already."""
    import numpy as np

    csr = m.tocsr()
    if not np.issubdtype(csr.dtype, np.number) or np.issubdtype(csr.dtype, np.complexfloating):
        raise Error(f"{name}: values of type {csr.dtype}; amgcomm reads real matrices")
    data = np.asarray(csr.data, dtype=np.float64)
    return (tuple(csr.shape), csr.indptr, csr.indices, data)


def _is_multilevel(source) -> bool:
    levels = getattr(source, "levels", None)
    return isinstance(levels, (list, tuple)) and len(levels) > 0 and hasattr(levels[0], "A")


def _input(source, command: str, name: str | None) -> tuple[list[str], dict]:
    """The flags naming ``source`` and the held input, if any."""
    import scipy.sparse as sp

    if sp.issparse(source):
        held = (name or "matrix", _parts(name or "matrix", source))
        return [_PLACEHOLDER], {"matrix": held}
    if _is_multilevel(source):
        if command != "analyze":
            raise Error(f"{command} builds its own hierarchy: give it a matrix (ml.levels[0].A)")
        label = name or "pyamg"
        levels = []
        for k, lvl in enumerate(source.levels):
            p = getattr(lvl, "P", None)
            split = getattr(lvl, "splitting", None)
            if split is not None:
                import numpy as np

                split = np.asarray(split, dtype=np.int64)
            levels.append(
                (
                    _parts(f"{label} A{k}", lvl.A),
                    None if p is None or k + 1 == len(source.levels) else _parts(f"{label} P{k}", p),
                    split,
                )
            )
        return [_PLACEHOLDER], {"levels": (label, levels)}
    if isinstance(source, (str, os.PathLike)):
        spec = os.fspath(source)
        if spec.startswith("gen:") or spec == "-":
            return [spec], {}
        path = Path(spec)
        if not path.exists() and not Path(spec + ".00000").exists():
            raise FileNotFoundError(errno.ENOENT, "no such file", spec)
        if path.is_dir():
            return ["--levels-from", spec], {}
        return [spec], {}
    raise TypeError(
        "source: a SciPy sparse matrix, a PyAMG MultilevelSolver, a path or a 'gen:KIND:N' spec"
    )


class _Report:
    """A report folder written by amgcomm in a private temporary folder,
    removed with this object."""

    _file = "report.json"

    def __init__(self, folder: str):
        self._dir = Path(folder)
        self._finalizer = weakref.finalize(self, shutil.rmtree, str(self._dir.parent), True)
        with open(self._dir / self._file, encoding="utf-8") as f:
            #: The report, equal to the JSON file the command line writes.
            self.report: dict = json.load(f)

    def save(self, folder: str | os.PathLike) -> Path:
        """Writes the report folder the command line writes (charts
        included) as ``folder``, whole: a folder already there is
        replaced only when it holds an amgcomm report."""
        dest = Path(folder)
        if dest.exists():
            ours = ("report.json", "compare.json", "scale.json")
            if not dest.is_dir() or not any((dest / f).exists() for f in ours):
                raise Error(f"{dest}: exists and is not an amgcomm report folder; choose another")
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".amgcomm-", dir=dest.parent))
        shutil.copytree(self._dir, tmp / "new")
        if dest.exists():
            old = tmp / "old"
            os.replace(dest, old)
        os.replace(tmp / "new", dest)
        shutil.rmtree(tmp, ignore_errors=True)
        return dest


def _pandas():
    try:
        import pandas
    except ImportError as e:
        raise ImportError(
            'to_pandas needs pandas: python3 -m pip install "./python[pandas]" (or pip install pandas)'
        ) from e
    return pandas


def _op_rows(levels: Iterable[dict], extra: dict | None = None) -> list[dict]:
    """One row per level and operation of a report's levels."""
    rows = []
    for lvl in levels:
        for op, o in lvl.get("ops", {}).items():
            row = dict(extra or {})
            row.update(
                level=lvl["level"],
                op=op,
                rows=lvl.get("rows"),
                nnz=lvl.get("nnz"),
                active=lvl.get("active_processes"),
                messages=o["messages"]["total"],
                max_sent=o["messages"]["max_sent"],
                max_recv=o["messages"]["max_recv"],
                inter_node_messages=o["messages"]["inter_node"],
                bytes=o["bytes"]["total"],
                inter_node_bytes=o["bytes"]["inter_node"],
            )
            cost = dict(o.get("cost", {}))
            total = cost.pop("total", None)
            row.update(cost)
            row["total"] = total
            rows.append(row)
    return rows


class Analysis(_Report):
    """One analysis (``amgcomm analyze``): ``report``, ``to_pandas()``,
    ``save(folder)``."""

    def to_pandas(self):
        """One row per level and operation: sizes, messages, bytes, each
        cost term (seconds) and the total."""
        return _pandas().DataFrame(_op_rows(self.report["levels"]))

    def _repr_html_(self) -> str:
        head = "<tr><th>level</th><th>op</th><th>rows</th><th>messages</th><th>bytes</th><th>modeled (us)</th></tr>"
        body = "".join(
            f"<tr><td>{r['level']}</td><td>{r['op']}</td><td>{r['rows']:,}</td><td>{r['messages']:,}</td>"
            f"<td>{r['bytes']:,}</td><td>{(r['total'] or 0) * 1e6:.1f}</td></tr>"
            for r in _op_rows(self.report["levels"])
        )
        m = self.report.get("matrix", {}).get("name", "")
        chart = self._dir / "spmv.svg"
        svg = chart.read_text(encoding="utf-8") if chart.exists() else ""
        if svg.startswith("<?xml"):
            svg = svg[svg.index("?>") + 2 :]
        return f"<p>amgcomm: {m}</p><table>{head}{body}</table>{svg}"


class Compared(_Report):
    """``amgcomm compare``: ``report`` (compare.json), ``to_pandas()``,
    ``save(folder)``."""

    _file = "compare.json"

    def to_pandas(self):
        """One row per variant, level and operation with its modeled
        seconds."""
        rows = []
        for v in self.report["variants"]:
            for lvl in v["levels"]:
                for op, o in lvl.items():
                    if isinstance(o, dict):
                        rows.append(dict(variant=v["name"], level=lvl["level"], rows=lvl["rows"], op=op, **o))
        return _pandas().DataFrame(rows)


class Scaled(_Report):
    """``amgcomm scale``: ``report`` (scale.json), ``to_pandas()``,
    ``save(folder)``."""

    _file = "scale.json"

    def to_pandas(self):
        """One row per node count, strategy, level and operation with its
        modeled seconds."""
        rows = []
        for point in self.report["points"]:
            for strategy, levels in point["strategies"]:
                for lvl in levels:
                    for o in lvl["ops"]:
                        rows.append(
                            dict(
                                nodes=point["nodes"],
                                ranks=point["ranks"],
                                strategy=strategy,
                                level=lvl["level"],
                                rows=lvl["rows"],
                                active=lvl["active_processes"],
                                op=o["op"],
                                max_recv=o["max_recv"],
                                modeled=o["modeled"],
                            )
                        )
        return _pandas().DataFrame(rows)


def _call(f, *args, **kwargs):
    """``f``, its ``Error`` in Python's words (keywords, not flags)."""
    try:
        return f(*args, **kwargs)
    except Error as e:
        raise Error(_options.python_words(str(e))) from None


def _run(command: str, source, flags: list[str], progress, name, cls):
    inputs, held = _input(source, command, name)
    out = tempfile.mkdtemp(prefix="amgcomm-")
    argv = [command, *inputs, *flags, "--out", os.path.join(out, "report")]
    try:
        folder = _call(_amgcomm.run, argv, progress=progress, **held)
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)
        raise
    return cls(folder)


def analyze(source, *, progress: Callable[[str], Any] | None = None, name: str | None = None, **options) -> Analysis:
    flags = _options.flags("analyze", options)
    return _run("analyze", source, flags, progress, name, Analysis)


def compare(
    source,
    variants: list[dict],
    *,
    progress: Callable[[str], Any] | None = None,
    name: str | None = None,
    **options,
) -> Compared:
    flags = _options.flags("compare", options)
    if not isinstance(variants, (list, tuple)) or not all(isinstance(v, dict) for v in variants):
        raise Error(f"variants must be a list of dicts, got {variants!r}")
    spec = ";".join(",".join(f"{k.replace('_', '-')}={v}" for k, v in v.items()) for v in variants)
    return _run("compare", source, ["--variants", spec, *flags], progress, name, Compared)


def scale(
    source,
    nodes: list[int],
    *,
    progress: Callable[[str], Any] | None = None,
    name: str | None = None,
    **options,
) -> Scaled:
    flags = _options.flags("scale", options)
    counts = list(nodes) if isinstance(nodes, (list, tuple, range)) else [nodes]
    if not counts or any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in counts):
        raise Error(f"nodes must be a list of positive integers, got {nodes!r}")
    argv = ["--nodes", ",".join(str(n) for n in counts), *flags]
    return _run("scale", source, argv, progress, name, Scaled)


class Level:
    """One level: ``A`` and ``P`` (``None`` on the coarsest), SciPy CSR."""

    def __init__(self, A, P):
        self.A = A
        self.P = P

    def __repr__(self) -> str:
        return f"Level(A={self.A.shape[0]} rows, {self.A.nnz} nonzeros)"


class Hierarchy:
    """The levels amgcomm builds, finest first (``.levels``), and the
    setup's wall seconds (``.setup_seconds``: each step summed over the
    levels, and ``"levels"``, each level's steps), as ``amgcomm hierarchy
    --timings`` gives them."""

    def __init__(self, levels: list[Level], setup_seconds: dict | None = None):
        self.levels = levels
        self.setup_seconds = setup_seconds or {}

    def __repr__(self) -> str:
        return f"Hierarchy({len(self.levels)} levels: {[lvl.A.shape[0] for lvl in self.levels]})"


def hierarchy(A, *, progress: Callable[[str], Any] | None = None, name: str | None = None, **options) -> Hierarchy:
    import scipy.sparse as sp

    if _is_multilevel(A):
        raise TypeError("hierarchy builds one: give it a matrix")
    flags = _options.flags("hierarchy", options)
    inputs, held = _input(A, "hierarchy", name)
    got, seconds = _call(_amgcomm.hierarchy, ["hierarchy", *inputs, *flags], progress=progress, **held)

    def csr(parts):
        if parts is None:
            return None
        shape, indptr, indices, data = parts
        return sp.csr_matrix((data, indices, indptr), shape=shape)

    return Hierarchy([Level(csr(a), csr(p)) for a, p in got], json.loads(seconds))


def machines() -> list[dict]:
    """Every preset as ``amgcomm machine list --json`` gives it."""
    return json.loads(_amgcomm.machines())


def machine(name: str) -> dict:
    """A preset (or machine file) with every parameter and its
    provenance, as ``amgcomm machine show NAME --json`` prints it."""
    return json.loads(_amgcomm.machine(name))


_DOCS = {
    "analyze": """``amgcomm analyze`` on ``source``: a PyAMG ``MultilevelSolver``
(its levels' ``A`` and ``P`` are the hierarchy, ``splitting`` the coarse
points), a SciPy sparse matrix (amgcomm builds the hierarchy with
``preset`` and the AMG options), a path, or ``"gen:KIND:N"``. Returns an
``Analysis``: ``report``, ``to_pandas()``, ``save(folder)``.""",
    "compare": """``amgcomm compare``: one hierarchy, several variants of the
layout; ``variants`` is a list of dicts with keys ``partition``,
``strategy``, ``placement``, ``coarse_partition``. Returns ``Compared``.""",
    "scale": """``amgcomm scale`` over the node counts ``nodes`` (a list of
positive integers). Returns ``Scaled``.""",
    "hierarchy": """The hierarchy amgcomm builds from ``A`` (a SciPy matrix, a
path or ``"gen:KIND:N"``), as SciPy CSR matrices: ``preset`` and the AMG
options, on ``ranks`` (or the machine given) when the setup depends on
them.""",
}


def _describe(f, command: str, leading: list[inspect.Parameter]) -> None:
    """``f``'s signature and docstring: every option of ``command`` as the
    command line defines it."""
    f.__signature__ = _options.signature(command, leading)
    entries = "\n".join(_options.doc_text(o) for o in _options.specs(command))
    tail = (
        "progress : Callable[[str], Any] | None, default None\n    Receives each stage as it starts.\n"
        "name : str | None, default None\n    Names a matrix held in memory in the report."
    )
    f.__doc__ = f"{_DOCS[command]}\n\nParameters\n----------\n{entries}\n{tail}\n"


_P = inspect.Parameter
_describe(analyze, "analyze", [_P("source", _P.POSITIONAL_OR_KEYWORD)])
_describe(compare, "compare", [_P("source", _P.POSITIONAL_OR_KEYWORD), _P("variants", _P.POSITIONAL_OR_KEYWORD)])
_describe(scale, "scale", [_P("source", _P.POSITIONAL_OR_KEYWORD), _P("nodes", _P.POSITIONAL_OR_KEYWORD)])
_describe(hierarchy, "hierarchy", [_P("A", _P.POSITIONAL_OR_KEYWORD)])

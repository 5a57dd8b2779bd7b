"""Writes amgcomm/__init__.pyi, the package's type stubs, from the command
line's own definitions of every option (``_amgcomm.options``): run it
after changing a flag (``python3 python/generate_stubs.py``);
``tests/test_options.py`` fails while the committed stubs differ from
what it writes.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

# The installed package (with its compiled part), not the source beside.
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]

import amgcomm  # noqa: E402
from amgcomm import _options  # noqa: E402

HEAD = '''"""Type stubs of amgcomm (written by python/generate_stubs.py from the
command line's definitions; do not edit)."""

import os
from pathlib import Path
from typing import Any, Callable, Literal, Sequence

import scipy.sparse

__version__: str

class Error(ValueError):
    """amgcomm's one-line message, in Python's words."""

class _Report:
    report: dict
    def save(self, folder: str | os.PathLike[str]) -> Path: ...

class Analysis(_Report):
    def to_pandas(self) -> Any: ...
    def _repr_html_(self) -> str: ...

class Compared(_Report):
    def to_pandas(self) -> Any: ...

class Scaled(_Report):
    def to_pandas(self) -> Any: ...

class Level:
    A: scipy.sparse.csr_matrix
    P: scipy.sparse.csr_matrix | None

class Hierarchy:
    levels: list[Level]
    setup_seconds: dict[str, Any]

def machines() -> list[dict]: ...
def machine(name: str) -> dict: ...
'''

LEADING = {
    "analyze": ["source: Any"],
    "compare": ["source: Any", "variants: list[dict]"],
    "scale": ["source: Any", "nodes: Sequence[int]"],
    "hierarchy": ["A: Any"],
}
RETURNS = {"analyze": "Analysis", "compare": "Compared", "scale": "Scaled", "hierarchy": "Hierarchy"}


def stub(command: str) -> str:
    f = getattr(amgcomm, command)
    params = list(LEADING[command]) + ["*"]
    for o in _options.specs(command):
        params.append(f"{o['name']}: {_options.type_text(o)} = {_options._default(o)!r}")
    params += ["progress: Callable[[str], Any] | None = None", "name: str | None = None"]
    body = ",\n".join(f"    {p}" for p in params)
    doc = inspect.cleandoc(f.__doc__).replace('"""', "'''")
    doc = "\n".join(("    " + l) if l else "" for l in doc.splitlines())
    return f'def {command}(\n{body},\n) -> {RETURNS[command]}:\n    """\n{doc}\n    """\n'


def text() -> str:
    return HEAD + "".join("\n" + stub(c) for c in ("analyze", "compare", "scale", "hierarchy"))


if __name__ == "__main__":
    out = Path(__file__).parent / "amgcomm" / "__init__.pyi"
    out.write_text(text(), encoding="utf-8")
    print(f"wrote {out}", file=sys.stderr)

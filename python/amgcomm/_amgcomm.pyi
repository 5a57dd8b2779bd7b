"""Type stubs of the Rust extension (python/src/lib.rs)."""

from typing import Any, Callable, Optional, Sequence

import numpy as np

Parts = tuple[tuple[int, int], np.ndarray, np.ndarray, np.ndarray]

class Error(ValueError):
    """amgcomm's one-line message."""

def run(
    argv: Sequence[str],
    matrix: Optional[tuple[str, Parts]] = None,
    levels: Optional[tuple[str, Sequence[tuple[Parts, Optional[Parts], Optional[np.ndarray]]]]] = None,
    progress: Optional[Callable[[str], Any]] = None,
) -> str: ...
def hierarchy(
    argv: Sequence[str],
    matrix: Optional[tuple[str, Parts]] = None,
    progress: Optional[Callable[[str], Any]] = None,
) -> tuple[list[tuple[Parts, Optional[Parts]]], str]: ...
def machines() -> str: ...
def options(command: str) -> str: ...
def version() -> str: ...
def machine(name: str) -> str: ...
def _workers() -> int: ...

"""The command line's options as Python keyword arguments.

Each function's options, their types, defaults and help come from the
command line's own definitions (``_amgcomm.options``), so the signatures,
docstrings and stubs (``generate_stubs.py``) cannot drift from them. Values
are checked here, in Python's words, before anything runs.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import json
import numbers
import os
import re
from typing import Any

from . import _amgcomm

Error = _amgcomm.Error

#: The options each function sets itself rather than by keyword.
_OWN = {
    "analyze": set(),
    "compare": {"variants"},
    "scale": {"nodes"},
    # hierarchy() returns the levels and the setup's seconds; the files
    # and the table the command writes are the command line's
    # (``Hierarchy`` holds them as SciPy matrices and a dict).
    "hierarchy": {"json", "save_levels", "timings"},
}


@functools.cache
def specs(command: str) -> tuple[dict, ...]:
    """The keyword options of ``command``, in the order of its help (read
    once: every call of a function checks its keywords against them)."""
    own = _OWN[command]
    return tuple(o for o in json.loads(_amgcomm.options(command)) if o["name"] not in own)


def _default(o: dict) -> Any:
    """The command line's default as a Python value (None: none given)."""
    d = o["default"]
    if o["kind"] == "bool":
        return False
    if d is None:
        return None
    conv = {"int": int, "float": float}.get(o["kind"], str)
    try:
        if o["many"]:
            return [conv(x) for x in d.split(",")]
        return conv(d)
    except ValueError:
        return d


def type_text(o: dict) -> str:
    """The annotation of an option, as the stubs write it."""
    k = o["kind"]
    if k == "bool":
        return "bool"
    if k == "choice":
        one = "Literal[" + ", ".join(repr(c) for c in o["choices"]) + "]"
    else:
        one = {"int": "int", "float": "float", "path": "str | os.PathLike[str]", "str": "str"}[k]
    if o["many"]:
        return f"{one} | Sequence[{one}] | None"
    return f"{one} | None"


def doc_text(o: dict) -> str:
    """One option's entry in a docstring (numpydoc's layout)."""
    default = _default(o)
    head = f"{o['name']} : {type_text(o)}, default {default!r}"
    return f"{head}\n    {python_words(o['help'])}" if o["help"] else head


def signature(command: str, leading: list[inspect.Parameter]) -> inspect.Signature:
    """``leading`` parameters, then every option as a keyword, then
    ``progress`` and ``name``."""
    params = list(leading)
    for o in specs(command):
        params.append(inspect.Parameter(o["name"], inspect.Parameter.KEYWORD_ONLY, default=_default(o)))
    for extra in ("progress", "name"):
        params.append(inspect.Parameter(extra, inspect.Parameter.KEYWORD_ONLY, default=None))
    return inspect.Signature(params)


def _bad(name: str, what: str, value: Any) -> Error:
    return Error(f"{name} must be {what}, got {value!r}")


def _one(o: dict, v: Any) -> str:
    """One value as the command line's text, or Error in Python's words."""
    name, k = o["name"], o["kind"]
    if k == "int":
        least = o["min"]
        what = {None: "an integer", 0: "a non-negative integer"}.get(least, "a positive integer")
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or (least is not None and v < least):
            raise _bad(name, what, v)
        return str(int(v))
    if k == "float":
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise _bad(name, "a number", v)
        return repr(float(v))
    if k == "choice":
        if not isinstance(v, str) or v not in o["choices"]:
            raise _bad(name, "one of " + ", ".join(repr(c) for c in o["choices"]), v)
        return v
    if k == "path":
        if not isinstance(v, (str, os.PathLike)):
            raise _bad(name, "a path", v)
        return os.fspath(v)
    if not isinstance(v, (str, numbers.Real)) or isinstance(v, bool):
        raise _bad(name, "a string", v)
    return str(v)


def flags(command: str, options: dict[str, Any]) -> list[str]:
    """``options`` as the command line's flags, checked: an unknown
    keyword is a TypeError naming the nearest option (and the function,
    named as the command), a bad value an ``Error`` (a ValueError)."""
    known = {o["name"]: o for o in specs(command)}
    out: list[str] = []
    for key, value in options.items():
        o = known.get(key)
        if o is None:
            near = difflib.get_close_matches(key, list(known), n=1)
            hint = f"; did you mean '{near[0]}'?" if near else ""
            raise TypeError(f"{command}() got an unexpected keyword argument '{key}'{hint}")
        if value is None:
            continue
        if o["kind"] == "bool":
            if not isinstance(value, bool):
                raise _bad(key, "True or False", value)
            if value:
                out.append(o["flag"])
            continue
        if o["many"] and isinstance(value, (list, tuple)):
            if not value:
                continue
            text = ",".join(_one(o, v) for v in value)
        elif o["many"] and o["kind"] == "choice" and isinstance(value, str):
            text = ",".join(_one(o, v.strip()) for v in value.split(","))
        else:
            text = _one(o, value)
        out += [o["flag"], text]
    return out


_FLAG = re.compile(r"'?--([a-z][a-z0-9-]*)(?: <[A-Z_.]+>)?'?")


def python_words(message: str) -> str:
    """A command line message with its flags as keyword names."""
    text = _FLAG.sub(lambda m: "'" + m.group(1).replace("-", "_") + "'", message)
    # "'theta': theta must ..." says the name once.
    text = re.sub(r"^'(\w+)': (?=\1\b)", "", text)
    return text.replace("INPUT", "source")

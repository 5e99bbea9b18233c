"""Compile the methods `@dataclass` writes once per Python, not once per run.

The standard library's `dataclasses` writes the source of each class's `__init__`, `__repr__`,
`__eq__`, `__hash__` (and, frozen, `__setattr__` and `__delattr__`) and compiles it with `exec`
when the class is created. cpsc defines 120 dataclasses (AST, IR and analysis nodes), so that
compiling was 75 ms of the 185 ms every run spent importing the compiler, a fifth of building
`hello.fl`.

`install()` gives the `dataclasses` module an `exec` of its own (a global of the module is found
before the builtin) that compiles each source once and keeps the code in the user's cache. The
cache is keyed by the exact source text and by the Python version (code objects are specific to
it), and the code is run as `exec` would run the source, so the classes are the same; any
trouble reading or writing the cache only means compiling as before.
"""

from __future__ import annotations

import atexit
import builtins
import dataclasses
import marshal
import os
import sys
from pathlib import Path
from types import CodeType
from typing import Any

_compiled: dict[str, CodeType] = {}
_added = False


def _cache_file() -> Path:
    from cpsc.support.cache import cache_dir

    return cache_dir() / f"dataclass-methods.{sys.implementation.cache_tag}.marshal"


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    global _added
    if isinstance(source, str):
        code = _compiled.get(source)
        if code is None:
            # dont_inherit: compiled as `exec` in `dataclasses` would (no `__future__` flags of ours)
            code = _compiled[source] = compile(source, "<string>", "exec", dont_inherit=True)
            _added = True
        source = code
    builtins.exec(source, globals, locals)


def _load() -> None:
    try:
        with open(_cache_file(), "rb") as f:
            cached = marshal.loads(f.read())  # reading it whole: `load` from the file is 8x slower
    except (OSError, EOFError, ValueError, TypeError):
        return
    if isinstance(cached, dict):
        _compiled.update(cached)


def _save() -> None:
    if not _added:
        return
    path = _cache_file()
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as f:
            marshal.dump(_compiled, f)
        os.replace(temporary, path)  # atomic: runs at once never see half a file
    except (OSError, ValueError):
        temporary.unlink(missing_ok=True)


def install() -> None:
    """Cache the methods of every dataclass created from now on in this process."""
    if getattr(dataclasses, "exec", None) is _exec:
        return
    _load()
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    atexit.register(_save)

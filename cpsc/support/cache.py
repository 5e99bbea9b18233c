"""The user's cache folder for what cpsc computes once and reuses: the compiled C runtime, the
parser's tables, the checked prelude. Everything in it can be rebuilt, so a home folder that
cannot be written (a read-only container, a locked-down CI user) falls back to a folder in the
system's temporary directory instead of failing the build."""

from __future__ import annotations

import copyreg
import dataclasses
import fnmatch
import functools
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any


@functools.cache
def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    for path in (Path(base) / "cpsc", Path(tempfile.gettempdir()) / f"cpsc-cache-{os.getuid()}"):
        try:
            path.mkdir(parents=True, exist_ok=True)
            if os.access(path, os.W_OK):
                return path
        except OSError:
            continue
    return Path(tempfile.mkdtemp(prefix="cpsc-cache-"))


def trim_folder(folder: Path, kept: int, pattern: str = "*") -> None:
    """Remove the oldest files of `folder` whose names match `pattern` (by modification time)
    past the `kept` newest."""
    try:
        entries = [entry for entry in os.scandir(folder) if fnmatch.fnmatch(entry.name, pattern)]
        if len(entries) <= kept:
            return
        entries.sort(key=lambda entry: entry.stat().st_mtime, reverse=True)
        for entry in entries[kept:]:
            os.unlink(entry.path)
    except OSError:  # another build removed or wrote one meanwhile: the next one trims
        pass


# Versions kept of what cpsc caches once per version of itself (the checked prelude, the parse
# tables, the runtime): a new version of cpsc writes its own, and the old ones would otherwise
# stay forever (about 3 MB each for the prelude).
KEPT_VERSIONS = 6


def store_version(path: Path, data: bytes, pattern: str) -> None:
    """Write `data` to `path` atomically (a concurrent build never reads half a file), then
    remove the oldest files matching `pattern` (the other versions of the same thing) past
    `KEPT_VERSIONS`. On a full disk nothing is written: the next build makes it again."""
    try:
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as out:
            out.write(data)
        os.replace(out.name, path)
    except OSError:
        return
    trim_folder(path.parent, KEPT_VERSIONS, pattern)


def source_text(module: ModuleType) -> bytes:
    """The source of `module`, for the digests that key cached results: compiled by mypyc
    (`cpsc.support.native`), a module's file is its extension, which stays the same when its code
    changes."""
    file = Path(module.__file__ or "")
    if file.suffix != ".py":
        package = file.name.startswith("__init__.")
        file = file.with_name("__init__.py" if package else module.__name__.rpartition(".")[2] + ".py")
    return file.read_bytes()


def pickle_by_constructor(classes: Iterable[type]) -> None:
    """Store these dataclasses, in the cached files, as their constructor and its arguments:
    compiled by mypyc, a frozen dataclass refuses pickle's default (which makes the object,
    then sets each field)."""
    for cls in classes:
        copyreg.pickle(cls, _by_constructor)


def _by_constructor(node: Any) -> tuple[type, tuple[Any, ...]]:
    return type(node), tuple(getattr(node, f.name) for f in dataclasses.fields(node) if f.init)

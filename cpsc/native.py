"""The compiled compiler: cpsc's stages are compiled to C with mypyc when it is installed
(`setup.py` lists the modules), and run 1.5-2x faster than under the interpreter.

The compiled modules are one shared library, `cpsc__mypyc`, beside the `cpsc` package, and one
small extension per module next to its source, which Python's import finds before the source.
In a checkout that is a hazard: an edited module would go on running as it was compiled. So the
build writes a manifest of the sources it compiled (size, mtime and SHA-256 of each), and
`select()`, called by `cpsc/__init__.py` before anything else is imported, checks it:

- every source as compiled (size and mtime the same, or else the same hash): the compiled
  modules run; the shared library is loaded from beside the package, which an editable install
  does not put on `sys.path`;
- any source changed, or `CPSC_PURE=1` in the environment: every compiled module is imported
  from its source instead (all or none: compiled and interpreted classes of one IR don't mix);
- no manifest (a plain source install): nothing to do.

`mode()` says which it was, for `--time-passes` and the benchmarks.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

LIBRARY = "cpsc__mypyc"
MANIFEST = "native-manifest.json"

_PACKAGE = Path(__file__).parent
_mode = "interpreted"


def mode() -> str:
    """"compiled", "interpreted" (no compiled modules) or "interpreted (stale: <file>)"."""
    return _mode


def file_facts(path: Path) -> dict[str, object]:
    """What the manifest records of a source: checked cheaply (size, mtime) before the hash."""
    stat = path.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def _changed(root: Path, recorded: dict[str, dict[str, object]]) -> str | None:
    """The first compiled source that is not as it was compiled, if any."""
    for name, facts in recorded.items():
        path = root / name
        try:
            stat = path.stat()
            if stat.st_size == facts["size"] and stat.st_mtime_ns == facts["mtime_ns"]:
                continue
            if hashlib.sha256(path.read_bytes()).hexdigest() == facts["sha256"]:
                continue
        except OSError:
            pass
        return name
    return None


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the compiled modules' sources, ahead of their extensions."""

    def __init__(self, root: Path, modules: dict[str, Path]) -> None:
        self.root = root
        self.modules = modules

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        source = self.modules.get(fullname)
        if source is None:
            return None
        locations = [str(source.parent)] if source.name == "__init__.py" else None
        return importlib.util.spec_from_file_location(fullname, source, submodule_search_locations=locations)


def _module_name(relative: str) -> str:
    parts = relative.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _load_library(root: Path) -> None:
    if LIBRARY in sys.modules:
        return
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = root / (LIBRARY + suffix)
        if path.exists():
            spec = importlib.util.spec_from_file_location(LIBRARY, path)
            assert spec is not None and spec.loader is not None
            library = importlib.util.module_from_spec(spec)
            sys.modules[LIBRARY] = library
            spec.loader.exec_module(library)
            return


def select() -> None:
    """Run the compiled modules if they are those of the sources, else the sources (see above)."""
    global _mode
    root = _PACKAGE.parent
    try:
        recorded: dict[str, dict[str, object]] = json.loads((_PACKAGE / MANIFEST).read_text())
    except (OSError, ValueError):
        return
    stale = "CPSC_PURE=1" if os.environ.get("CPSC_PURE") else _changed(root, recorded)
    if stale is None:
        _load_library(root)
        _mode = "compiled"
        return
    _mode = f"interpreted (stale: {stale})"
    modules = {_module_name(name): root / name for name in recorded}
    sys.meta_path.insert(0, _SourceFinder(root, modules))

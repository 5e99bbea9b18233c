"""The compiled compiler: cpsc's stages are compiled to C with mypyc when it is installed
(`setup.py` lists the modules), and run 1.5-3x faster than under the interpreter.

The compiled modules are one shared library, `cpsc__mypyc`, beside the `cpsc` package, and one
small extension per module next to its source, which Python's import finds before the source.
In a checkout that is a hazard: an edited module would go on running as it was compiled. So the
build writes a manifest of the sources it compiled (size, mtime and SHA-256 of each), and
`select()`, called by `cpsc/__init__.py` before anything else is imported, checks it:

- every source as compiled (size and mtime the same, or else the same hash), or an installed
  copy (no `setup.py` beside the package: pip installed sources and extensions together): the
  compiled modules run; the shared library is loaded from beside the package, which an editable
  install does not put on `sys.path`;
- any source changed, no manifest, or `CPSC_PURE=1` in the environment: every module is
  imported from its source instead (all or none: compiled and interpreted classes of one IR
  don't mix);
- no shared library (a plain source install, or `CPSC_PURE=1 pip install`): nothing to do.

`mode()` says which it was (`benchmarks/scale.py` prints it).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

# `hashlib` is imported only when a source's size or time changed: every run passes through here.

LIBRARY = "cpsc__mypyc"
MANIFEST = "native-manifest.txt"

_PACKAGE = Path(__file__).parent.parent  # cpsc/, this file being cpsc/support/native.py
_mode = "interpreted"


def mode() -> str:
    """`compiled`, `interpreted` (no compiled modules) or `interpreted (stale: <why>)`."""
    return _mode


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def file_facts(path: Path) -> dict[str, object]:
    """What the manifest records of a source: checked cheaply (size, mtime) before the hash."""
    stat = path.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": _sha256(path)}


def read_manifest(path: Path) -> dict[str, dict[str, object]]:
    """The manifest (`write_manifest`'s lines: source, size, mtime, hash)."""
    recorded: dict[str, dict[str, object]] = {}
    for line in path.read_text().splitlines():
        name, size, mtime_ns, sha256 = line.split()
        recorded[name] = {"size": int(size), "mtime_ns": int(mtime_ns), "sha256": sha256}
    return recorded


def write_manifest(path: Path, sources: list[str]) -> None:
    """Records each source's facts: a line each, parsed without `json` (a few ms at start-up)."""
    lines = []
    for source in sources:
        facts = file_facts(Path(source))
        lines.append(f"{source} {facts['size']} {facts['mtime_ns']} {facts['sha256']}\n")
    path.write_text("".join(lines))


def _changed(root: Path, recorded: dict[str, dict[str, object]]) -> str | None:
    """The first compiled source that is not as it was compiled, if any."""
    for name, facts in recorded.items():
        path = root / name
        try:
            stat = path.stat()
            if stat.st_size == facts["size"] and stat.st_mtime_ns == facts["mtime_ns"]:
                continue
            if _sha256(path) == facts["sha256"]:
                continue
        except OSError:
            pass
        return name
    return None


class _SourceFinder:
    """Finds every module of `cpsc` in its source, ahead of any extension (a meta path finder)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("cpsc."):
            return None
        base = self.root.joinpath(*fullname.split("."))
        package = base / "__init__.py"
        if package.exists():
            return importlib.util.spec_from_file_location(fullname, package, submodule_search_locations=[str(base)])
        module = base.with_suffix(".py")
        return importlib.util.spec_from_file_location(fullname, module) if module.exists() else None


def _library(root: Path) -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = root / (LIBRARY + suffix)
        if path.exists():
            return path
    return None


def _load_library(path: Path) -> None:
    if LIBRARY in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(LIBRARY, path)
    assert spec is not None and spec.loader is not None
    library = importlib.util.module_from_spec(spec)
    sys.modules[LIBRARY] = library
    spec.loader.exec_module(library)


def _stale(root: Path) -> str | None:
    """Why the compiled modules must not run, if they must not."""
    if os.environ.get("CPSC_PURE"):
        return "CPSC_PURE=1"
    if not (root / "setup.py").exists():  # installed (pip install .): built from these sources
        return None
    try:
        recorded = read_manifest(root / "cpsc" / MANIFEST)
    except (OSError, ValueError):
        return f"no readable cpsc/{MANIFEST}"
    return _changed(root, recorded)


def select() -> None:
    """Run the compiled modules if they are those of the sources, else the sources (see above)."""
    global _mode
    root = _PACKAGE.parent
    library = _library(root)
    if library is None:
        return
    stale = _stale(root)
    if stale is None:
        _load_library(library)
        _mode = "compiled"
        return
    _mode = f"interpreted (stale: {stale})"
    sys.meta_path.insert(0, _SourceFinder(root))

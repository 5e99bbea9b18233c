"""Parsed files kept on disk, so that a rebuild parses only the files that changed.

A file's entry is keyed by its name, its text and a digest of the parser (the grammar and the
code that builds the AST), so an edited file, or another cpsc, never finds a stale one. An
entry starts with the SHA-256 of the rest: a damaged or truncated file is detected, dropped
and parsed again, never trusted. The oldest entries go when there are more than `KEPT_ENTRIES`.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import pickle
import tempfile
from collections.abc import Callable
from pathlib import Path

from cpsc.support.cache import cache_dir, pickle_by_constructor, source_text, trim_folder
from cpsc.support.files import package_file
from cpsc.syntax import ast, desugar, diagnostics, lalr, lexical, module_ast, parser, recursive_values, rules, units
from cpsc.syntax.parser import Parsed
from cpsc.syntax.rules import base, declarations, expressions, parts, patterns
from cpsc.syntax.rules import modules as module_rules

# the modules whose code decides what parsing a text gives
_SHAPERS = (ast, module_ast, diagnostics, lexical, desugar, units, recursive_values, lalr, parser, rules, base,
            parts, patterns, expressions, declarations, module_rules)

pickle_by_constructor(value for module in _SHAPERS for value in vars(module).values()
                      if isinstance(value, type) and dataclasses.is_dataclass(value)
                      and value.__module__ == module.__name__)

_CHECK = 32  # the bytes of the SHA-256 each entry starts with
KEPT_ENTRIES = 5000  # the newest; the oldest go


@dataclasses.dataclass
class ParseCounts:
    """What the cache did in a build, for `--time-passes`."""

    hits: int = 0
    misses: int = 0

    def __str__(self) -> str:
        return f"cache parse: {self.hits} files from the cache, {self.misses} parsed"


@functools.cache
def _digest() -> bytes:
    sources = [package_file("syntax/grammar.lark").encode()] + [source_text(module) for module in _SHAPERS]
    return hashlib.sha256(b"\0".join(sources)).digest()


def entry_path(text: str, file: str) -> Path:
    key = hashlib.sha256(_digest() + os.path.abspath(file).encode() + b"\0" + text.encode("latin-1", "replace"))
    return cache_dir() / "units" / f"{key.hexdigest()[:40]}.parsed"


def cached_parse(text: str, file: str, parse: Callable[[str, str], Parsed], counts: ParseCounts) -> Parsed:
    """`parse(text, file)`, from the cache when it holds it (else stored there)."""
    path = entry_path(text, file)
    found = _load(path, file)
    if found is not None:
        counts.hits += 1
        return found
    counts.misses += 1
    parsed = parse(text, file)
    _store(path, parsed)
    return parsed


def _load(path: Path, file: str) -> Parsed | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    payload = data[_CHECK:]
    if hashlib.sha256(payload).digest() != data[:_CHECK]:
        return None  # damaged: parsed again, and stored anew
    try:
        parsed = pickle.loads(payload)
    except Exception:  # noqa: BLE001 - written by another cpsc whose classes differ
        return None
    return parsed if isinstance(parsed, Parsed) and parsed.file == file else None


def _store(path: Path, parsed: Parsed) -> None:
    try:
        payload = pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL)
        path.parent.mkdir(exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as out:
            out.write(hashlib.sha256(payload).digest() + payload)
        os.replace(out.name, path)  # atomic: a concurrent build never reads half a file
        trim_folder(path.parent, KEPT_ENTRIES)
    except (OSError, RecursionError, pickle.PicklingError):  # a full disk, a text nested too deep
        pass

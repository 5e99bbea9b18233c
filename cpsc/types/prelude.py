"""The prelude (`lang/prelude.fl`), parsed and type-checked once, not on every build.

It is kept in memory for the life of the process (the REPL, the tests) and on disk in the
user's cache folder, since each `cpsc build` is a new process. The file's name carries a digest
of the prelude, the grammar and the compiler sources that shape what is stored, so a change to
any of them makes a new one; a cache that cannot be read is simply rebuilt.

Inference keys what it learns by `id(node)`, which means nothing in another process: the cache
stores (node, fact) pairs and the loader keys them again by the new nodes' ids.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import pickle
import tempfile
from pathlib import Path

from cpsc.cache import cache_dir, pickle_by_constructor, source_text
from cpsc.lang_files import lang_file
from cpsc.semantics import builtins
from cpsc.semantics.builtins import PRIMITIVE_TYPES
from cpsc.syntax import ast, diagnostics, modules, parser
from cpsc.syntax.parser import parse_module
from cpsc.syntax.printf import PRINTF_MEMBERS
from cpsc.types import datatypes, infer, types
from cpsc.types.infer import CheckedPrelude, Typing, check_prelude

PRELUDE_FILE = "<prelude>"

# The modules whose code decides what a checked prelude contains.
_SHAPERS = (ast, builtins, diagnostics, modules, parser, datatypes, infer, types)


pickle_by_constructor(value for module in _SHAPERS for value in vars(module).values()
                      if isinstance(value, type) and dataclasses.is_dataclass(value)
                      and value.__module__ == module.__name__)


@functools.cache
def checked_prelude() -> CheckedPrelude:
    path = cache_dir() / f"prelude-{_digest()}.pickle"
    try:
        return _load(path.read_bytes())
    except Exception:  # noqa: BLE001 - missing, stale or damaged: check the prelude again
        pass
    checked = check_prelude(parse_module(prelude_text(), PRELUDE_FILE))
    try:
        _store(path, checked)
    except OSError:  # a full disk: the next build checks the prelude again
        pass
    return checked


@functools.cache
def prelude_modules() -> dict[str, frozenset[str]]:
    """The prelude's modules and their members (its definitions and the primitives named
    `M.x`), for `open M` in programs."""
    members: dict[str, set[str]] = {}
    names = [n for d in checked_prelude().module.declarations if isinstance(d, ast.LetDecl)
             for b in d.bindings for n in ast.pattern_names(b.pattern)]
    for name in names + list(PRIMITIVE_TYPES):
        module, dot, member = name.partition(".")
        if dot and module[:1].isupper():
            members.setdefault(module, set()).add(member)
    members["Printf"] = set(PRINTF_MEMBERS)  # functions of the syntax (`cpsc.syntax.printf`)
    return {module: frozenset(ms) for module, ms in members.items()}


def prelude_text() -> str:
    return lang_file("prelude.fl")


def _digest() -> str:
    sources = [prelude_text().encode(), lang_file("grammar.lark").encode()]
    sources += [source_text(module) for module in _SHAPERS]
    return hashlib.sha256(b"\0".join(sources)).hexdigest()[:16]


def _nodes(module: ast.Module) -> dict[int, object]:
    """Every node of the module by id (without recursion)."""
    found: dict[int, object] = {}
    stack: list[object] = list(module.declarations)
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(node)
        elif hasattr(node, "__dataclass_fields__") and id(node) not in found:
            found[id(node)] = node
            stack.extend(getattr(node, name) for name in node.__dataclass_fields__ if name not in ("span", "ty"))
    return found


def _store(path: Path, checked: CheckedPrelude) -> None:
    nodes = _nodes(checked.module)
    typing = checked.typing
    node_types = [(nodes[k], t) for k, t in typing.types.items() if k in nodes]
    node_instances = [(nodes[k], v) for k, v in typing.instances.items() if k in nodes]
    node_schemes = [(nodes[k], s) for k, s in typing.schemes.items() if k in nodes]
    roots: list[types.Type] = [t for _, t in node_types]
    roots += [s.type for s in checked.env.values()] + [s.type for _, s in node_schemes]
    roots += [t for _, (scheme, instance) in node_instances for t in (scheme.type, *instance)]
    # The variables listed once here, a load renumbers them without walking every type
    portable = (checked.module, checked.env, node_types, node_instances, node_schemes,
                [(nodes[k], r) for k, r in typing.constructors.items() if k in nodes],
                [(nodes[k], r) for k, r in typing.fields.items() if k in nodes], checked.declarations,
                types.type_variables(roots))
    with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as out:
        pickle.dump(portable, out, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(out.name, path)  # atomic: a concurrent build never reads half a file


def _load(data: bytes) -> CheckedPrelude:
    module, env, node_types, node_instances, node_schemes, constructors, fields, declarations, variables = \
        pickle.loads(data)
    typing = Typing({id(n): t for n, t in node_types}, {id(n): i for n, i in node_instances},
                    {id(n): s for n, s in node_schemes}, {id(n): r for n, r in constructors},
                    {id(n): r for n, r in fields})
    types.renumber(variables)
    return CheckedPrelude(module, typing, env, declarations)


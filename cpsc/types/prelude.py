"""The prelude, parsed and type-checked once, not on every build. Its text is the standard
library's files (`cpsc/stdlib/*.fl`) joined in the order `cpsc/stdlib/order.txt` lists.

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
import pickle

import cpsc.elaborate
from cpsc.elaborate import modules, parse_module
from cpsc.formats import format_printf, printf, scanf
from cpsc.formats.format_printf import FORMAT_MEMBERS
from cpsc.formats.printf import PRINTF_MEMBERS
from cpsc.formats.scanf import SCANF_MEMBERS
from cpsc.semantics import builtins
from cpsc.semantics.builtins import PRIMITIVE_TYPES
from cpsc.support.cache import cache_dir, pickle_by_constructor, source_text, store_version
from cpsc.support.files import package_file
from cpsc.syntax import ast, desugar, diagnostics, lexical, module_ast, parser, recursive_values, rules, units
from cpsc.syntax.rules import base, declarations, expressions, parts, patterns
from cpsc.syntax.rules import modules as module_rules
from cpsc.syntax.units import PRELUDE_FILE
from cpsc.types import datatypes, infer, inferred, labels, types, unify
from cpsc.types.infer import CheckedPrelude, check_prelude
from cpsc.types.inferred import Typing

# The modules whose code decides what a checked prelude contains.
_SHAPERS = (ast, builtins, diagnostics, module_ast, lexical, desugar, units, recursive_values, base, parts, patterns,
            expressions, declarations, module_rules, rules, parser, cpsc.elaborate, modules, format_printf, printf,
            scanf, datatypes, unify, inferred, labels, infer, types)


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
    scope = modules.Scope()
    for name, members in _SYNTAX_MODULES.items():  # what the prelude's own formats are given to
        scope.modules[name] = modules.Env(path=name, values={member: f"{name}.{member}" for member in members})
    data = _portable(check_prelude(parse_module(prelude_text(), PRELUDE_FILE, scope), scope))
    store_version(path, data, "prelude-*.pickle")
    # As it is loaded, not as checked: what inference keyed by nodes that are gone (temporary
    # nodes, whose ids new nodes may take) is left out, as from the cache
    return _load(data)


def prelude_modules() -> modules.Scope:
    """The scope a program starts in: the prelude's modules (their definitions, functors and
    module types, and the primitives named `M.x`), for `M.x`, `open M` and `F (M)`. A new
    one each time: parsing a program adds its own modules to it."""
    return modules.Scope({}, {}, {}, dict(_library_modules()), dict(checked_prelude().modules.module_types))


@functools.cache
def _library_modules() -> dict[str, modules.ModuleValue]:
    members: dict[str, set[str]] = {}
    for name in PRIMITIVE_TYPES:
        module, dot, member = name.partition(".")
        if dot and module[:1].isupper():
            members.setdefault(module, set()).add(member)
    for name, syntax in _SYNTAX_MODULES.items():
        members[name] = set(syntax)
    found: dict[str, modules.ModuleValue] = {}
    for name, value in checked_prelude().modules.modules.items():
        found[name] = dataclasses.replace(value, library=True, values=dict(value.values), types=dict(value.types)) \
            if isinstance(value, modules.Env) else value
    for name, names in members.items():
        env = found.setdefault(name, modules.Env(path=name, library=True))
        assert isinstance(env, modules.Env)
        env.values.update((member, f"{name}.{member}") for member in names if member not in env.values)
    for qualified in inferred.LIBRARY_TYPES:  # the types the type checker gives the library (`Int.t`)
        name, _, member = qualified.partition(".")
        library = found.get(name)
        if isinstance(library, modules.Env):
            library.types.setdefault(member, qualified)
    return found


# the modules whose functions given a literal format are syntax, rewritten by `cpsc.formats`
_SYNTAX_MODULES = {"Printf": PRINTF_MEMBERS, "Scanf": SCANF_MEMBERS, "Format": FORMAT_MEMBERS}

# the prelude's declaration that flushes Format's standard formatters at exit
FORMAT_AT_EXIT = "fl_format_at_exit"


@functools.cache
def prelude_text() -> str:
    return "".join(package_file(f"stdlib/{name}") for name in stdlib_files())


def stdlib_files() -> list[str]:
    """The standard library's files, in the order they are read."""
    listed = (line.strip() for line in package_file("stdlib/order.txt").splitlines())
    return [line for line in listed if line and not line.startswith("#")]


def prelude_path() -> str:
    """A file holding the prelude's text (in the cache folder), for a debugger to show: the
    prelude's lines are those of the joined text."""
    text = prelude_text()
    path = cache_dir() / f"prelude-{hashlib.sha256(text.encode()).hexdigest()[:16]}.fl"
    if not path.exists():
        store_version(path, text.encode(), "prelude-*.fl")
        if not path.exists():  # a full disk
            return PRELUDE_FILE
    return str(path)


def _digest() -> str:
    sources = [prelude_text().encode(), package_file("syntax/grammar.lark").encode()]
    sources += [source_text(module) for module in _SHAPERS]
    return hashlib.sha256(b"\0".join(sources)).hexdigest()[:16]


def _nodes(module: ast.Module, positional: dict[int, ast.Expr]) -> dict[int, object]:
    """Every node of the module by id (without recursion), with the positional forms of its
    labelled applications (`Typing.positional`) and their nodes; not those of applications
    that are gone, whose forms would outlive nothing that keeps them."""
    found: dict[int, object] = {}
    stack: list[object] = list(module.declarations)
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(node)
        elif hasattr(node, "__dataclass_fields__") and id(node) not in found:
            found[id(node)] = node
            stack.extend(getattr(node, name) for name in node.__dataclass_fields__ if name not in ("span", "ty"))
            if id(node) in positional:
                stack.append(positional[id(node)])
    return found


def _portable(checked: CheckedPrelude) -> bytes:
    """The checked prelude as the cache keeps it: its nodes' entries only."""
    typing = checked.typing
    # (the positional forms of labelled applications are nodes of their own, typed too)
    nodes = _nodes(checked.module, typing.positional)
    node_types = [(nodes[k], t) for k, t in typing.types.items() if k in nodes]
    node_instances = [(nodes[k], v) for k, v in typing.instances.items() if k in nodes]
    node_schemes = [(nodes[k], s) for k, s in typing.schemes.items() if k in nodes]
    roots: list[types.Type] = [t for _, t in node_types]
    roots += [s.type for s in checked.env.values()] + [s.type for _, s in node_schemes]
    roots += [t for _, (scheme, instance) in node_instances for t in (scheme.type, *instance)]
    # The variables listed once here, a load renumbers them without walking every type
    portable = (checked.module, checked.env, checked.modules, node_types, node_instances, node_schemes,
                [(nodes[k], r) for k, r in typing.constructors.items() if k in nodes],
                [(nodes[k], r) for k, r in typing.fields.items() if k in nodes], typing.abstract,
                [(nodes[k], e) for k, e in typing.positional.items() if k in nodes], checked.declarations, types.type_variables(roots))
    return pickle.dumps(portable, protocol=pickle.HIGHEST_PROTOCOL)


def _load(data: bytes) -> CheckedPrelude:
    module, env, scope, node_types, node_instances, node_schemes, constructors, fields, abstract, positional, \
        declarations, variables = pickle.loads(data)
    typing = Typing({id(n): t for n, t in node_types}, {id(n): i for n, i in node_instances},
                    {id(n): s for n, s in node_schemes}, {id(n): r for n, r in constructors},
                    {id(n): r for n, r in fields}, abstract, {id(n): e for n, e in positional})
    typing.hashed_apart = datatypes.hashed_apart(abstract)
    types.renumber(variables)
    return CheckedPrelude(module, typing, env, declarations, scope)


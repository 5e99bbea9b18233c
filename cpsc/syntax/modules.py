"""Top-level modules, flattened: `module M = struct let x = ... end` declares `M.x`.

Inside the module its members are named unqualified; after it, only as `M.x`. The parser calls
`flatten_module` as it reduces the module, so later stages see ordinary declarations with
dotted names.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from typing import Any

from cpsc.syntax import ast
from cpsc.syntax.diagnostics import Span
from cpsc.syntax.printf import PRINTERS, printf_expression


@dataclass(frozen=True)
class OpenDecl:
    """`open M` at top level (gone once `open_modules` has renamed what follows it)."""

    module: str
    span: Span


def module_members(module: str, declarations: list[Any]) -> set[str]:
    """The value names a (flattened) module defines, unqualified."""
    prefix = module + "."
    return {name[len(prefix):] for d in declarations if isinstance(d, ast.LetDecl)
            for b in d.bindings for name in ast.pattern_names(b.pattern) if name.startswith(prefix)}


def open_in(module: str, members: frozenset[str], expr: ast.Expr) -> ast.Expr:
    """`let open M in e` / `M.(e)`: e's free uses of M's members, qualified."""
    return _Renamer(module, set(members)).expr(expr, frozenset())  # type: ignore[no-any-return]


def open_modules(declarations: list[Any], modules: dict[str, frozenset[str]]) -> list[ast.Declaration]:
    """Resolve top-level `open M`: in the declarations after it, uses of M's members are
    qualified, until a top-level definition of the same name hides the member."""
    opened: list[tuple[str, set[str]]] = []
    out: list[ast.Declaration] = []
    for decl in declarations:
        if isinstance(decl, OpenDecl):
            opened.append((decl.module, set(modules[decl.module])))
            continue
        if isinstance(decl, ast.LetDecl) and opened:
            own = {n for b in decl.bindings for n in ast.pattern_names(b.pattern)}
            for position in range(len(opened) - 1, -1, -1):  # the last opened module wins
                module, members = opened[position]
                visible = members.difference(*(ms for _, ms in opened[position + 1:]))
                if decl.is_rec:
                    visible = visible - own
                bindings = tuple(replace(b, value=_Renamer(module, visible).expr(b.value, frozenset()))
                                 for b in decl.bindings)
                decl = replace(decl, bindings=bindings)
            for _, members in opened:
                members -= own
        out.append(decl)
    return out


def flatten_module(name: str, declarations: list[ast.Declaration]) -> list[ast.Declaration]:
    members: set[str] = set()
    out: list[ast.Declaration] = []
    for decl in declarations:
        if isinstance(decl, (ast.ExceptionDecl, ast.TypeDecl)):
            out.append(replace(decl, module=name))
            continue
        if not isinstance(decl, ast.LetDecl):
            out.append(decl)
            continue
        own = {n for b in decl.bindings for n in ast.pattern_names(b.pattern)}
        visible = members | own if decl.is_rec else members
        bindings = tuple(ast.Binding(_qualify_pattern(b.pattern, name, own),
                                     _Renamer(name, visible).expr(b.value, frozenset()), b.span)
                         for b in decl.bindings)
        out.append(ast.LetDecl(decl.is_rec, bindings, decl.span))
        members |= own
    return out


def _qualify_pattern(pattern: ast.Pattern, module: str, names: set[str]) -> ast.Pattern:
    if isinstance(pattern, ast.PVar) and pattern.name in names:
        return ast.PVar(f"{module}.{pattern.name}", pattern.span)
    if isinstance(pattern, ast.PTuple):
        return ast.PTuple(tuple(_qualify_pattern(i, module, names) for i in pattern.items), pattern.span)
    if isinstance(pattern, ast.PAnnot):
        return ast.PAnnot(_qualify_pattern(pattern.pattern, module, names), pattern.annotation, pattern.span)
    return pattern


class _Renamer:
    """Renames the free uses of the module's members; a local binding of the same name hides
    the member in its scope."""

    def __init__(self, module: str, members: set[str]) -> None:
        self.module = module
        self.members = members

    def expr(self, e: Any, bound: frozenset[str]) -> Any:
        if isinstance(e, ast.Var):
            if e.name in self.members and e.name not in bound:
                return ast.Var(f"{self.module}.{e.name}", e.span)
            return e
        if isinstance(e, ast.App):  # `printf "..."` after `open Printf`: as `Printf.printf "..."`
            function, argument = self.expr(e.function, bound), self.expr(e.argument, bound)
            if isinstance(function, ast.Var) and function.name in PRINTERS and e.function is not function:
                return printf_expression(function, argument, e.span)
            return replace(e, function=function, argument=argument)
        if isinstance(e, ast.Fun):
            return replace(e, body=self.expr(e.body, bound | set(ast.pattern_names(e.param))))
        if isinstance(e, ast.Let):
            names = {n for b in e.bindings for n in ast.pattern_names(b.pattern)}
            inner = bound | names
            values = tuple(replace(b, value=self.expr(b.value, inner if e.is_rec else bound)) for b in e.bindings)
            return replace(e, bindings=values, body=self.expr(e.body, inner))
        if isinstance(e, ast.Case):
            inner = bound | set(ast.pattern_names(e.pattern))
            guard = None if e.guard is None else self.expr(e.guard, inner)
            return replace(e, guard=guard, body=self.expr(e.body, inner))
        if isinstance(e, ast.For):
            return replace(e, start=self.expr(e.start, bound), stop=self.expr(e.stop, bound),
                           body=self.expr(e.body, bound | {e.var}))
        if isinstance(e, tuple):
            return tuple(self.expr(i, bound) for i in e)
        if hasattr(e, "__dataclass_fields__") and not _is_pattern_or_type(e):
            changes = {f: self.expr(getattr(e, f), bound) for f in _child_fields(e)}
            return replace(e, **changes) if changes else e
        return e


def _child_fields(node: Any) -> Iterator[str]:
    for f in fields(node):
        if f.name not in ("span", "ty", "tree", "name", "kind", "value", "var", "up", "is_rec"):
            yield f.name
        elif f.name == "value" and not isinstance(node, ast.Const):
            yield f.name


def _is_pattern_or_type(node: Any) -> bool:
    return isinstance(node, (ast.PVar, ast.PWild, ast.PUnit, ast.PTuple, ast.PAnnot, ast.PConst, ast.PConstruct,
                             ast.POr, ast.PAlias, ast.PRecord, ast.TyName, ast.TyVar, ast.TyArrow, ast.TyTuple))

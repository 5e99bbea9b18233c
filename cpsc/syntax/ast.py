"""The abstract syntax of FL. Every node carries the source span it was parsed from.

After monomorphisation every expression and pattern node carries its ground type in `ty`
(`None` before). Operators are ordinary names: `a + b` is `App(App(Var("+"), a), b)`. `&&` and `||` become `If`
(they short-circuit). Later stages recognise saturated applications of primitives.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union

from cpsc.syntax.diagnostics import Span

# ------------------------------------------------------------------ type expressions


@dataclass(frozen=True)
class TyName:
    """A type constructor applied to arguments: `int`, `int list`, `(int, string) assoc`."""

    name: str
    args: tuple[TypeExpr, ...]
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class TyVar:
    name: str
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class TyArrow:
    param: TypeExpr
    result: TypeExpr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class TyTuple:
    items: tuple[TypeExpr, ...]
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


TypeExpr = Union[TyName, TyVar, TyArrow, TyTuple]

# ------------------------------------------------------------------ patterns


@dataclass(frozen=True)
class PVar:
    name: str
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class PWild:
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class PUnit:
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class PTuple:
    items: tuple[Pattern, ...]
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class PAnnot:
    pattern: Pattern
    annotation: TypeExpr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


Pattern = Union[PVar, PWild, PUnit, PTuple, PAnnot]

# ------------------------------------------------------------------ expressions


@dataclass(frozen=True)
class Const:
    """A literal; `kind` is one of int, float, bool, char, string, unit."""

    value: object
    kind: str
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Var:
    name: str
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class App:
    function: Expr
    argument: Expr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Fun:
    param: Pattern
    body: Expr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Binding:
    pattern: Pattern
    value: Expr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Let:
    is_rec: bool
    bindings: tuple[Binding, ...]
    body: Expr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class If:
    condition: Expr
    then_branch: Expr
    else_branch: Expr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Seq:
    first: Expr
    second: Expr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Tuple:
    items: tuple[Expr, ...]
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Annot:
    expr: Expr
    annotation: TypeExpr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


Expr = Union[Const, Var, App, Fun, Let, If, Seq, Tuple, Annot]

# ------------------------------------------------------------------ programs


@dataclass(frozen=True)
class LetDecl:
    """A top-level `let` (or `let rec`) declaration; a top-level expression is `let _ = e`."""

    is_rec: bool
    bindings: tuple[Binding, ...]
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Module:
    declarations: tuple[LetDecl, ...]
    files: tuple[str, ...] = field(default=())


def pattern_names(pattern: Pattern) -> list[str]:
    """The variables a pattern binds, left to right."""
    if isinstance(pattern, PVar):
        return [pattern.name]
    if isinstance(pattern, PTuple):
        return [name for item in pattern.items for name in pattern_names(item)]
    if isinstance(pattern, PAnnot):
        return pattern_names(pattern.pattern)
    return []


def fun_params(expr: Expr) -> tuple[list[Pattern], Expr]:
    """Split `fun p1 -> fun p2 -> body` into its parameter patterns and body."""
    params: list[Pattern] = []
    while isinstance(expr, Fun):
        params.append(expr.param)
        expr = expr.body
    return params, expr


def deepest_span(module: Module) -> Span | None:
    """The span of the most deeply nested node of a program (found without recursion), for the
    diagnostic of a program nested beyond what the compiler can hold."""
    deepest: tuple[int, Span | None] = (-1, None)
    stack: list[tuple[object, int]] = [(d, 0) for d in module.declarations]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, tuple):
            stack.extend((item, depth) for item in node)
            continue
        span = getattr(node, "span", None)
        if not isinstance(span, Span):
            continue
        if depth > deepest[0]:
            deepest = (depth, span)
        for name in node.__dataclass_fields__:  # type: ignore[attr-defined]
            if name not in ("span", "ty"):
                stack.append((getattr(node, name), depth + 1))
    return deepest[1]

"""What the grammar's rules hand each other before a node is made: a top-level item, a path, a
parameter, a labelled argument, a type's parameters."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from lark import Token

from cpsc.syntax import ast
from cpsc.syntax import module_ast as m
from cpsc.syntax.desugar import bound_forcing, fun_forcing, rewritten
from cpsc.syntax.diagnostics import CompileError, Span

Field = tuple[str, ast.Expr]  # a record field as written: its name and value
FieldPattern = tuple[str, ast.Pattern]


STDLIB_PREFIX = "Stdlib."

# A user-defined index operator's value: `( .%() )` is named `%()` (a name with no `.`, which
# would read as a module path, and none a program can write otherwise); `( .%()<- )` is `%()<-`.
INDEX_SET = "<-"
_INDEX_CLOSINGS = {")": "()", "]": "[]", "}": "{}"}


def index_operator(dotop: str, closing: str, multi: bool = False) -> str:
    """The name of the index operator `dotop` (`.%`) with the brackets `closing` ends; `multi`:
    of several indices, given as an array (`.%{;..}`, used as `a.%{i; j}`)."""
    brackets = _INDEX_CLOSINGS[closing]
    return dotop[1:] + (brackets[0] + ";.." + brackets[1] if multi else brackets)


def is_index_operator(name: str) -> bool:
    unset = name.removesuffix(INDEX_SET).replace(";..", "")
    return unset[-2:] in _INDEX_CLOSINGS.values()


def written_name(name: str) -> str:
    """A value's name as OCaml writes it in messages (`.%()` for an index operator)."""
    return "." + name if is_index_operator(name) else name


def without_stdlib(name: str) -> str:
    """`Stdlib.x` is the prelude's `x` (`Stdlib.List.map`: `List.map`), and so is
    `Pervasives.x` (OCaml 4.13's deprecated name for it)."""
    return name.removeprefix("Stdlib.").removeprefix("Pervasives.")


def unqualified_constructor(name: str) -> str:
    """`M.C` as the type checker knows it: `M.C` for a module's constructor, `C` for the
    prelude's (`Stdlib.None`)."""
    return without_stdlib(name)


@dataclass(frozen=True)
class Alternatives:
    """The pattern of a case with `exception p` alternatives: its values' and its exceptions'."""

    values: tuple[ast.Pattern, ...]
    exceptions: tuple[ast.Pattern, ...]
    span: Span


def alternatives_pattern(patterns: tuple[ast.Pattern, ...]) -> ast.Pattern:
    """p1 | ... | pn."""
    result = patterns[0]
    for pattern in patterns[1:]:
        first, last = result.span, pattern.span
        result = ast.POr(result, pattern, Span(first.file, first.line, first.col, last.end_line, last.end_col))
    return result


class TopLevelItem:
    """A top-level declaration or expression, and whether `;;` follows it."""

    def __init__(self, declarations: list[Any], separated: bool, span: Span | None, expression: bool = False) -> None:
        self.declarations = declarations
        self.separated = separated
        self.span = span
        self.expression = expression


def curried(parameters: list[m.FunctorParameter], result: Any, make: Callable[[m.FunctorParameter, Any, Span], Any],
             span: Span) -> Any:
    """`functor (X) (Y) -> r` (or its type) as `functor (X) -> functor (Y) -> r`."""
    for parameter in parameters[::-1]:
        result = make(parameter, result, span)
    return result


class Path:
    """A module path as written (`M`, `A.B`)."""

    def __init__(self, name: str, span: Span) -> None:
        self.name = name
        self.span = span


class ModuleAnnot:
    def __init__(self, module_type: m.ModuleType) -> None:
        self.type = module_type


class AbstractType:
    def __init__(self, definition: ast.TypeDef) -> None:
        self.definition = definition
        self.name = definition.name


class TypeParams:
    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names


class ReturnAnnot:
    def __init__(self, type_expr: ast.TypeExpr, span: Span, local_types: frozenset[str] = frozenset(),
                 polymorphic: bool = False) -> None:
        self.type = type_expr
        self.span = span
        self.local_types = local_types
        self.polymorphic = polymorphic


def plain_exception(declaration: ast.ExceptionDecl | list[ast.Declaration], where: str) -> ast.ExceptionDecl:
    """An exception declaration where one with an inline record (its record type declared with
    it: `exception_record`) is not supported."""
    if isinstance(declaration, list):
        raise CompileError(declaration[-1].span, f"an exception with an inline record in {where} is not supported in FL")
    return declaration


class InlineRecord:
    """`C of { fields }` in a variant (`type_variant` gives its record a type of its own)."""

    def __init__(self, name: str, fields: tuple[ast.FieldDecl, ...], span: Span) -> None:
        self.name, self.fields, self.span = name, fields, span


class LocalTypes:
    """`(type a b)` among a function's parameters."""

    def __init__(self, names: frozenset[str], span: Span) -> None:
        self.names = names
        self.span = span


def label_of(token: Token) -> str:
    """A label's name as the AST keeps it, from `~x:`, `?x:`, `~x` or `?x`: `~x`, `?x`."""
    return str(token).rstrip(":")


@dataclasses.dataclass(frozen=True)
class Labelled:
    """A `~x:e` or `?x:e` argument (label `~x`, `?x`), until `apply` makes it a labelled `ast.App`."""

    label: str
    value: ast.Expr
    span: Span


@dataclasses.dataclass(frozen=True)
class Parameter:
    """A labelled (`~x`) or optional (`?x`) parameter: its pattern and an optional one's default."""

    label: str
    pattern: ast.Pattern
    default: ast.Expr | None
    span: Span

    def function(self, body: ast.Expr, span: Span) -> ast.Fun:
        """`fun ~x:p -> body`; `fun ?x:(p = e) -> body` takes an option, bound to p as
        `match x with Some v -> v | None -> e` (e evaluated only when x is left out)."""
        if self.default is None:
            return fun_forcing(self.pattern, body, span, self.label)
        given = "*opt*" + self.label[1:]
        matched = ast.Match(ast.Var(given, self.span), (
            ast.Case(ast.PConstruct("Some", (ast.PVar(given, self.span),), self.span), None,
                     ast.Var(given, self.span), self.span),
            ast.Case(ast.PConstruct("None", (), self.span), None, self.default, self.span)), self.span)
        binding = bound_forcing(ast.Binding(self.pattern, matched, self.span))
        # (the option is named where the pattern is: OCaml places a warning of the parameter there)
        return ast.Fun(ast.PVar(given, self.pattern.span), ast.Let(False, (binding,), body, span), span,
                       label=self.label)


def type_nodes(texpr: ast.TypeExpr) -> Iterator[ast.TypeExpr]:
    stack = [texpr]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.TyArrow):
            stack.extend((node.param, node.result))
        elif isinstance(node, ast.TyTuple):
            stack.extend(node.items)
        elif isinstance(node, ast.TyName):
            stack.extend(node.args)


class TypeNamesRenamer:
    """Makes the type constructors `names` (locally abstract types) type variables `'a`."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names

    def node(self, value: Any) -> Any:
        return rewritten(value, self.rename) if self.names else value

    def rename(self, node: Any) -> Any:
        if isinstance(node, ast.TyName) and not node.args and node.name in self.names:
            return ast.TyVar("'" + node.name, node.span)
        return node


def curried_function(params: list[Any], body: ast.Expr, span: Span) -> ast.Expr:
    """`fun p1 ... pn -> body`; a `(type a)` among the parameters makes `a` a type variable in
    the parameters after it and in the body (FL's locally abstract types: `'a`, inferred like
    any other, so that what OCaml accepts FL accepts)."""
    for index, param in enumerate(params):
        if isinstance(param, LocalTypes):
            renamer = TypeNamesRenamer(param.names)
            rest = [renamer.node(p) if not isinstance(p, LocalTypes) else p for p in params[index + 1:]]
            return curried_function(params[:index] + rest, renamer.node(body), span)
    for param in params[::-1]:
        if isinstance(param, Parameter):
            body = param.function(body, span)
        else:
            body = fun_forcing(param, body, span)
    return body


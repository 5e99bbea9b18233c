"""Evaluation order: ocamlopt's, with its exceptions made explicit.

FL evaluates as ocamlopt does (docs/reference.md, "Evaluation order"). The rule the later
stages follow everywhere (`cpsc.to_cps` and the reference interpreter, `cpsc.mono.interp`):
the arguments of an application right to left, then the function; the components of a tuple,
a constructor, an array and a record (in the record's declaration order, after the base of
`{ r with ... }`) right to left; an assignment's value before its place.

ocamlopt departs from that rule in a few places, each found by comparing order-revealing
programs with it (`tests/mono/test_order.py`). They are rewritten here, after monomorphisation,
into the rule's terms, so that no later stage knows of them:

- `x |> f` and `f @@ x` are the application `f x` (x first, f last), as ocamlopt's
  `%revapply` and `%apply` are;
- `compare a b` at a type ocamlopt compares inline (int, char, bool, unit, the constant
  constructors of a variant, float, Int32/Int64/Nativeint) evaluates a, then b; so do
  `String.get`, `Bytes.get` and `Bytes.set` (`s.[i]`: s, then i), whose bounds checks
  ocamlopt emits inline:

      compare (f ()) (g ())    =>    let %order1 = f () in compare %order1 (g ())

- `match e1, e2 with ...`, a tuple written as the scrutinee (not a `let`'s, and not a match
  with `exception` cases, whose scrutinee is a `try`), evaluates its components left to right.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cpsc.syntax import ast
from cpsc.syntax.diagnostics import Span
from cpsc.types.datatypes import DataTypes
from cpsc.types.types import TCon

# The library's functions applied as ocamlopt applies its primitives of the same names
REVERSE_APPLICATION, APPLICATION, LEFT_TO_RIGHT = "|>", "@@", "left to right"
_LIBRARY_FUNCTIONS = {"|>": (REVERSE_APPLICATION, 2), "@@": (APPLICATION, 2),
                      "Bytes.get": (LEFT_TO_RIGHT, 2), "Bytes.set": (LEFT_TO_RIGHT, 3)}
_PRIMITIVES = {"String.get": 2}
# ocamlopt's `compare` is inline (Pcompare_ints, _floats, _bints) at these types
_INLINE_COMPARED = frozenset({"int", "char", "bool", "unit", "float", "Int32.t", "Int64.t", "Nativeint.t"})


def library_function(name: str) -> tuple[str, int] | None:
    """How the library's function `name` is applied, and at how many arguments, if not as others."""
    return _LIBRARY_FUNCTIONS.get(name)


def primitive(name: str, compared: TCon | None, datatypes: DataTypes) -> tuple[str, int] | None:
    """How the primitive `name` (`compare` at the type `compared`) is applied, if not as others."""
    if name == "compare" and compared is not None and _inline_compared(compared, datatypes):
        return LEFT_TO_RIGHT, 2
    if name in _PRIMITIVES:
        return LEFT_TO_RIGHT, _PRIMITIVES[name]
    return None


def _inline_compared(t: TCon, datatypes: DataTypes) -> bool:
    if t.name.partition("/")[0] in _INLINE_COMPARED:  # (`Int64.t/abstract12`: Int64.t, as the library seals it)
        return True
    datatype = datatypes.types.get(t.name)
    constructors = datatype.constructors if datatype is not None else ()
    return bool(constructors) and all(constructor.constant for constructor in constructors)


class Sequencer:
    """Makes the exceptions explicit in monomorphic code, with fresh names `%orderN`."""

    def __init__(self) -> None:
        self.count = 0

    def application(self, app: ast.App, how: tuple[str, int]) -> ast.Expr:
        """`head a1 ... an` whose head is applied as `how` says."""
        head, arguments = ast.applied(app)
        kind, arity = how
        if len(arguments) != arity:
            return app
        if kind == REVERSE_APPLICATION:
            return ast.App(arguments[1], arguments[0], app.span, app.ty)
        if kind == APPLICATION:
            return ast.App(arguments[0], arguments[1], app.span, app.ty)
        return self.left_to_right(arguments, lambda atoms: _applied(head, atoms, app), app.span)

    def scrutinee(self, match: ast.Match) -> ast.Expr:
        """`match e1, ..., en with ...` with e1 ... en evaluated left to right."""
        tuple_ = match.scrutinee
        if not isinstance(tuple_, ast.Tuple):
            return match
        return self.left_to_right(tuple_.items, lambda atoms: ast.Match(
            ast.Tuple(tuple(atoms), tuple_.span, tuple_.ty), match.cases, match.span, match.ty, match.tree,
            match.reraise, match.quiet, match.of_let), match.span)

    def left_to_right(self, items: Sequence[ast.Expr], build: Callable[[list[ast.Expr]], ast.Expr], span: Span) -> ast.Expr:
        """`build(items)` with the items evaluated left to right: each but the last that may
        have an effect is bound first (the last is then the first evaluated of those left)."""
        effectful = [i for i, item in enumerate(items) if not isinstance(item, (ast.Var, ast.Const))]
        if len(effectful) < 2:
            return build(list(items))
        atoms = list(items)
        lets: list[ast.Binding] = []
        for i in effectful[:-1]:
            self.count += 1
            name = f"%order{self.count}"
            lets.append(ast.Binding(ast.PVar(name, items[i].span, items[i].ty), items[i], items[i].span))
            atoms[i] = ast.Var(name, items[i].span, items[i].ty)
        result = build(atoms)
        for binding in reversed(lets):
            result = ast.Let(False, (binding,), result, span, ty=result.ty)
        return result


def _applied(head: ast.Expr, arguments: Sequence[ast.Expr], app: ast.App) -> ast.Expr:
    """`head` applied to `arguments` as `app` was (each application keeps its type)."""
    spine: list[ast.App] = ast.application_spine(app)[1]
    result = head
    for application, argument in zip(spine, arguments):
        result = ast.App(result, argument, application.span, application.ty)
    return result


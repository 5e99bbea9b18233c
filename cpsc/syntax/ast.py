"""The abstract syntax of FL. Every node carries the source span it was parsed from.

After monomorphisation every expression and pattern node carries its ground type in `ty`
(`None` before). Operators are ordinary names: `a + b` is `App(App(Var("+"), a), b)`. `&&` and `||` become `If`
(they short-circuit). Later stages recognise saturated applications of primitives.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Union

from cpsc.syntax.diagnostics import Span

# ------------------------------------------------------------------ type expressions


@dataclass(frozen=True, slots=True)
class TyName:
    """A type constructor applied to arguments: `int`, `int list`, `(int, string) assoc`."""

    name: str
    args: tuple[TypeExpr, ...]
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class TyVar:
    name: str
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class TyArrow:
    param: TypeExpr
    result: TypeExpr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)
    label: str = ""  # "~x" for `x:t -> u`, "?x" for `?x:t -> u`


@dataclass(frozen=True, slots=True)
class TyTuple:
    items: tuple[TypeExpr, ...]
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


TypeExpr = Union[TyName, TyVar, TyArrow, TyTuple]

# ------------------------------------------------------------------ patterns


@dataclass(slots=True, unsafe_hash=True)  # not frozen, its own __init__: see cpsc.cps.ir
class PVar:
    name: str
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)

    def __init__(self, name: str, span: Span, ty: Any = None) -> None:
        self.name = name
        self.span = span
        self.ty = ty


@dataclass(frozen=True, slots=True)
class PWild:
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class PUnit:
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class PTuple:
    items: tuple[Pattern, ...]
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class PAnnot:
    pattern: Pattern
    annotation: TypeExpr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


# The integer types other than int, by the suffix of their literals (`5l`, `5L`, `5n`)
SIZED_INTEGERS = {"l": "int32", "L": "int64", "n": "nativeint"}
INTEGER_SUFFIXES = {name: suffix for suffix, name in SIZED_INTEGERS.items()}


@dataclass(frozen=True, slots=True)
class PConst:
    """A constant pattern; `kind` is one of int, char, string, bool, or one of
    `SIZED_INTEGERS` (`5L`)."""

    value: Any  # not `object`: mypyc then fails at import (KeyError: 'object')
    kind: str
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class PConstruct:
    """`C`, `C p` or `C (p1, ..., pn)`: `args` holds the argument patterns once inference has
    split a tuple pattern over a constructor of several arguments (the parser gives one)."""

    name: str
    args: tuple[Pattern, ...]
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class POr:
    left: Pattern
    right: Pattern
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class PAlias:
    pattern: Pattern
    name: str
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class PRecord:
    """`{ x = p; y; _ }`: the named fields only (a field left out matches anything)."""

    fields: tuple[tuple[str, Pattern], ...]
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


Pattern = Union[PVar, PWild, PUnit, PTuple, PAnnot, PConst, PConstruct, POr, PAlias, PRecord]

# ------------------------------------------------------------------ expressions


@dataclass(slots=True, unsafe_hash=True)  # not frozen, its own __init__: see cpsc.cps.ir
class Const:
    """A literal; `kind` is one of int, float, bool, char, string, unit."""

    value: Any  # not `object`: mypyc then fails at import (KeyError: 'object')
    kind: str
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)

    def __init__(self, value: Any, kind: str, span: Span, ty: Any = None) -> None:
        self.value = value
        self.kind = kind
        self.span = span
        self.ty = ty


@dataclass(slots=True, unsafe_hash=True)  # not frozen, its own __init__: see cpsc.cps.ir
class Var:
    name: str
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)
    # A comparison's operand type, `Bytes.t` kept, when its values may hold bytes: OCaml compares
    # bytes as strings, not as the char array FL makes them (set by monomorphisation).
    compared: Any = field(default=None, compare=False, repr=False)

    def __init__(self, name: str, span: Span, ty: Any = None, compared: Any = None) -> None:
        self.name = name
        self.span = span
        self.ty = ty
        self.compared = compared


@dataclass(slots=True, unsafe_hash=True)  # not frozen, its own __init__: see cpsc.cps.ir
class App:
    """`function argument`; `label` is the argument's: "" (none), "~x" or "?x" (`~x:e`,
    `?x:e`). The type checker puts labelled applications in positional order
    (`Typing.positional`): no later stage sees a label."""

    function: Expr
    argument: Expr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)
    label: str = ""

    def __init__(self, function: Expr, argument: Expr, span: Span, ty: Any = None, label: str = "") -> None:
        self.function = function
        self.argument = argument
        self.span = span
        self.ty = ty
        self.label = label


@dataclass(slots=True, unsafe_hash=True)  # not frozen, its own __init__: see cpsc.cps.ir
class Fun:
    """`fun param -> body`; `label` is the parameter's: "", "~x" or "?x" (an optional
    parameter's pattern has an option type; its default is the parser's `match`)."""

    param: Pattern
    body: Expr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)
    label: str = ""

    def __init__(self, param: Pattern, body: Expr, span: Span, ty: Any = None, label: str = "") -> None:
        self.param = param
        self.body = body
        self.span = span
        self.ty = ty
        self.label = label


@dataclass(frozen=True, slots=True)
class Binding:
    pattern: Pattern
    value: Expr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Let:
    is_rec: bool
    bindings: tuple[Binding, ...]
    body: Expr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class If:
    condition: Expr
    then_branch: Expr
    else_branch: Expr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Seq:
    first: Expr
    second: Expr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Tuple:
    items: tuple[Expr, ...]
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Annot:
    """`(e : t)`; a `sealing` one is a signature's view of a module's value (`cpsc.elaborate.modules`):
    e has t with the abstract types the signature made (`sealing`, their names) as their
    definitions, the whole has t."""

    expr: Expr
    annotation: TypeExpr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)
    sealing: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Construct:
    """A constructor applied to its arguments (`[]`, `x :: xs` and `[a; b]` included). The
    parser gives at most one argument; inference splits a tuple over a constructor of several."""

    name: str
    args: tuple[Expr, ...]
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Case:
    pattern: Pattern
    guard: Expr | None
    body: Expr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Match:
    """`match e with cases`; after monomorphisation `tree` is its decision tree
    (`cpsc.mono.decision`), which the CPS conversion follows."""

    scrutinee: Expr
    cases: tuple[Case, ...]
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)
    tree: Any = field(default=None, compare=False, repr=False)
    # A try's handler: a value no case matches is raised again (no Match_failure, no warning)
    reraise: bool = False
    # made by the parser (a lazy pattern's forcing): no warning of its own
    quiet: bool = False
    # a `let`'s (`let p = e`): e is evaluated as any expression, even a tuple written as the
    # scrutinee of a `match` is not (`cpsc.mono.order`)
    of_let: bool = False


@dataclass(frozen=True, slots=True)
class Try:
    """`try body with cases`: `handler` matches the exception, bound to `EXCEPTION_VAR`."""

    body: Expr
    handler: Match
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


EXCEPTION_VAR = "%exn"  # a name no program can write


@dataclass(frozen=True, slots=True)
class LetException:
    """`let exception E of t in body`. Each evaluation makes an exception of its own (OCaml's
    are generative): a function declaring one and called twice raises two exceptions that do
    not match each other. The parser names the constructor uniquely (`E'local3_7`, `shown` as
    E) and renames body's `E`s; after monomorphisation `declaration.name` is its key."""

    declaration: ExceptionDecl
    body: Expr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


def local_exception_identity(key: str) -> str:
    """The name, bound in `let exception`'s body, of the identity its evaluation made."""
    return "%exception " + key


@dataclass(frozen=True, slots=True)
class Record:
    """`{ x = e; ... }`, or `{ base with x = e; ... }` when `base` is given."""

    fields: tuple[tuple[str, Expr], ...]
    base: Expr | None
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class GetField:
    record: Expr
    name: str
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class SetField:
    """`r.x <- e` (a mutable field)."""

    record: Expr
    name: str
    value: Expr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class ArrayLit:
    items: tuple[Expr, ...]
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class While:
    condition: Expr
    body: Expr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class For:
    var: str
    start: Expr
    stop: Expr
    up: bool
    body: Expr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class LocalOpen:
    """`let open M in e`, `M.(e)`: gone once the module language is elaborated (`cpsc.elaborate.modules`)."""

    path: str
    body: Expr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class LetModule:
    """`let module M = e in body` (`module` is a `cpsc.syntax.module_ast.ModuleExpr`): gone once
    the module language is elaborated."""

    name: str
    module: Any
    body: Expr
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)


Expr = Union[Const, Var, App, Fun, Let, If, Seq, Tuple, Annot, Construct, Match, Record, GetField, SetField,
             ArrayLit, While, For, Try, LetException, LocalOpen, LetModule]

# ------------------------------------------------------------------ programs


@dataclass(frozen=True, slots=True)
class LetDecl:
    """A top-level `let` (or `let rec`) declaration; a top-level expression is `let _ = e`."""

    is_rec: bool
    bindings: tuple[Binding, ...]
    span: Span
    ty: Any = field(default=None, compare=False, repr=False)
    # `external f : t = "p" ...`: the primitives' names (what the toplevel says of it)
    primitives: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ConstructorDecl:
    name: str
    args: tuple[TypeExpr, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class FieldDecl:
    name: str
    mutable: bool
    type: TypeExpr
    span: Span


@dataclass(frozen=True, slots=True)
class TypeDef:
    """One type of a `type ... and ...` declaration: a variant (`constructors`), a record
    (`fields`) or an abbreviation (`abbreviation`)."""

    name: str
    params: tuple[str, ...]
    span: Span
    constructors: tuple[ConstructorDecl, ...] = ()
    fields: tuple[FieldDecl, ...] = ()
    abbreviation: TypeExpr | None = None
    # `type t = private ...`: shown so; FL keeps no type private (the reference says why)
    private: bool = False


@dataclass(frozen=True, slots=True)
class TypeDecl:
    """`type ... and ...`, declared in `module` (top level: None)."""

    definitions: tuple[TypeDef, ...]
    span: Span
    module: str | None = None


@dataclass(frozen=True, slots=True)
class ExceptionDecl:
    """`exception E [of t1 * ... * tn]`, declared in `module` (top level: None). A local one
    (`let exception E in e`) is declared before the top-level declaration it is in, under a
    name of its own (`E'local1`), and `shown` as E."""

    name: str
    args: tuple[TypeExpr, ...]
    span: Span
    module: str | None = None
    shown: str = ""
    # the module path OCaml's native code prints it under, when it is not `module`'s: a
    # functor's body (`F(X)`); None for an anonymous structure's or a local module's (bare)
    printed_path: str | None = ""


@dataclass(frozen=True, slots=True)
class SignatureCheck:
    """Left by a signature ascription (`cpsc.elaborate.modules`): the type checker checks that
    `value` (a flat name) has a type at least as general as `type`, the signature's for `name`."""

    value: str
    name: str
    type: TypeExpr
    span: Span
    declared: Span | None = None  # where the signature declares it (`val name : type`)


@dataclass(frozen=True, slots=True)
class AbstractType:
    """Left by a signature ascription: `name` is the abstract type the signature makes of the
    module's type `definition` (in terms of `params`). Outside the module nothing but `name`
    is equal to it; after type checking it is its definition again (`Typing.abstract`).
    `application` is how OCaml names it when a functor's application to a module path made it
    (`F(A).t`: the toplevel shows `type t = F(A).t`)."""

    name: str
    params: tuple[str, ...]
    definition: TypeExpr
    span: Span
    application: str | None = None


@dataclass(frozen=True, slots=True)
class ValueSpec:
    """A value known only by its type (`val name : type` of a functor's parameter, in the
    declarations that check the functor's body: never run)."""

    name: str
    type: TypeExpr
    span: Span


@dataclass(frozen=True, slots=True)
class CheckOnly:
    """Declarations that are type-checked and then dropped: a functor's body, elaborated once
    with its parameters as their signatures describe them (`cpsc.elaborate.modules`), so that an
    error in it is reported even where no application reaches it, as OCaml reports it.
    `functor` is the functor's flat name (`M.F`)."""

    declarations: tuple[Declaration, ...]
    span: Span
    functor: str = ""


Declaration = Union[LetDecl, TypeDecl, ExceptionDecl, SignatureCheck, AbstractType, ValueSpec, CheckOnly]


@dataclass(frozen=True, slots=True)
class Module:
    declarations: tuple[Declaration, ...]
    files: tuple[str, ...] = field(default=())


@dataclass(frozen=True, slots=True)
class Program:
    """A monomorphised program: one expression of type unit, and the data types it uses
    (a `cpsc.types.datatypes.DataTypes`), which fix the representation of its values."""

    body: Expr
    datatypes: Any
    warnings: tuple[Any, ...] = ()  # `CompileError`s to print as warnings


def application_spine(expr: App) -> tuple[Expr, list[App]]:
    """`f a1 ... an`: f and the applications, innermost first (without recursion)."""
    applications = [expr]
    head = expr.function
    while isinstance(head, App):
        applications.append(head)
        head = head.function
    applications.reverse()
    return head, applications


def applied(expr: Expr) -> tuple[Expr, list[Expr]]:
    """`f a1 ... an`: f and its arguments, left to right (`expr` itself and none if it is no
    application)."""
    if not isinstance(expr, App):
        return expr, []
    head, applications = application_spine(expr)
    return head, [application.argument for application in applications]


def pattern_names(pattern: Pattern) -> list[str]:
    """The variables a pattern binds, left to right (an or-pattern's once). Without recursion:
    a list pattern nests as deep as it is long."""
    names: list[str] = []
    work: list[Pattern | str] = [pattern]  # a string: a name to give once what precedes it is done
    while work:
        p = work.pop()
        if isinstance(p, str):
            names.append(p)
        elif isinstance(p, PVar):
            names.append(p.name)
        elif isinstance(p, PTuple):
            work.extend(reversed(p.items))
        elif isinstance(p, PConstruct):
            work.extend(reversed(p.args))
        elif isinstance(p, PRecord):
            work.extend(item for _, item in reversed(p.fields))
        elif isinstance(p, PAnnot):
            work.append(p.pattern)
        elif isinstance(p, PAlias):
            work.extend((p.name, p.pattern))
        elif isinstance(p, POr):
            work.append(p.left)
    return names


def is_irrefutable(pattern: Pattern) -> bool:
    """Variables, `_`, `()` and tuples of them: patterns a `let` or `fun` binds directly (a
    `fun` with another pattern matches its argument; a `let`, see `bound_by_match`)."""
    if isinstance(pattern, (PVar, PWild, PUnit)):
        return True
    if isinstance(pattern, PTuple):
        return all(is_irrefutable(i) for i in pattern.items)
    if isinstance(pattern, PAnnot):
        return is_irrefutable(pattern.pattern)
    return False


def mentioned_names(exprs: list[Expr]) -> set[str]:
    """Every variable name used in `exprs`, bound inside them or not (an over-approximation of
    their free variables)."""
    return {var.name for var in variables(exprs)}


def variables(exprs: list[Expr]) -> Iterator[Var]:
    """Every variable node in `exprs` (walked with a stack: nesting may be deep)."""
    stack: list[Any] = list(exprs)
    while stack:
        node = stack.pop()
        if isinstance(node, Var):
            yield node
        elif isinstance(node, tuple):
            stack.extend(node)
        elif is_dataclass(node) and not isinstance(node, Span):
            stack.extend(getattr(node, f.name) for f in fields(node) if f.name != "ty")


def unannotated(expr: Expr) -> Expr:
    while isinstance(expr, Annot):
        expr = expr.expr
    return expr


def split_recursive_values(bindings: tuple[Binding, ...]) -> tuple[tuple[Binding, ...], tuple[Binding, ...]]:
    """A `let rec` group as its functions and the values after them: `let rec f x = ... and
    g = [f]` is `let rec f x = ...` then `let g = [f]`, when neither a function nor a value
    uses a value of the group. Otherwise (a value defined through itself, which FL does not
    build) no values: the type checker rejects the group as OCaml rejects what it cannot build."""
    functions = tuple(b for b in bindings if isinstance(unannotated(b.value), Fun))
    values = tuple(b for b in bindings if not isinstance(unannotated(b.value), Fun))
    value_names = {name for b in values for name in pattern_names(b.pattern)}
    group = value_names | {name for b in functions for name in pattern_names(b.pattern)}
    if not values or value_names & mentioned_names([b.value for b in bindings]) \
            or not all(_constructive(b.value, group) for b in values):
        return bindings, ()
    return functions, values


def _constructive(expr: Expr, group: set[str]) -> bool:
    """OCaml's rule for a `let rec` value: it uses the group's names only as parts of data
    it builds (`[f; g]`, `Some f`), never calling them (`g 1`), nor being one of them (`v = f`,
    which OCaml refuses). Each node is looked at once."""
    if isinstance(unannotated(expr), Var) and unannotated(expr).name in group:  # type: ignore[union-attr]
        return False
    stack: list[Expr] = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, (Var, Fun, Const)):
            continue
        if isinstance(e, (Tuple, Construct)):
            stack.extend(e.items if isinstance(e, Tuple) else e.args)
        elif isinstance(e, Record) and e.base is None:
            stack.extend(value for _, value in e.fields)
        elif isinstance(e, Annot):
            stack.append(e.expr)
        elif group & mentioned_names([e]):
            return False
    return True


def bound_by_match(binding: Binding) -> Binding:
    """`let p = e` for any pattern: when `p` is not one a `let` binds directly (a record, a
    constructor, an or-pattern, an alias...), `let (x1, ..., xn) = match e with p -> (x1, ..., xn)`
    for the names x1..xn it binds (`let x1 = ...` for one, `let () = ...` for none). The match
    fails as OCaml's `let` does (Match_failure, located at the pattern)."""
    pattern = binding.pattern
    if is_irrefutable(pattern):
        return binding
    span = pattern.span
    names = pattern_names(pattern)
    result: Expr
    target: Pattern
    if not names:
        result, target = Const(None, "unit", span), PUnit(span)
    elif len(names) == 1:
        result, target = Var(names[0], span), PVar(names[0], span)
    else:
        result = Tuple(tuple(Var(name, span) for name in names), span)
        target = PTuple(tuple(PVar(name, span) for name in names), span)
    value = Match(binding.value, (Case(pattern, None, result, span),), span, of_let=True)
    return Binding(target, value, binding.span)


def tuple_components(binding: Binding) -> tuple[Binding, ...]:
    """`let x, y = a, b` as `let x = a and y = b` when a and b are values (nothing to evaluate,
    so no order to keep), so that each is as polymorphic as OCaml makes it
    (`let pf, n = Printf.printf, 0`)."""
    pattern, value = binding.pattern, binding.value
    if not (isinstance(pattern, PTuple) and isinstance(value, Tuple) and len(pattern.items) == len(value.items)
            and all(isinstance(p, PVar) for p in pattern.items)
            and all(isinstance(v, (Var, Const, Fun)) for v in value.items)):
        return (binding,)
    return tuple(Binding(p, v, binding.span) for p, v in zip(pattern.items, value.items))


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

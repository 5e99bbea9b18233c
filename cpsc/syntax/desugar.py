"""Constructs rewritten into plain FL as they are parsed, so that no later stage knows of them:
`match ... with exception` (`match_with_exceptions`), lazy patterns (`forcing_case`,
`fun_forcing`, `bound_forcing`, `recursive_lazy`), a local exception's constructors renamed
(`ConstructorRenamer`); and `rewritten`, the bottom-up rewrite of an AST they use."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from cpsc.syntax import ast
from cpsc.syntax.diagnostics import CompileError, Span


def annotation_on_value(binding: ast.Binding) -> ast.Binding:
    """`let rec f : t = e` is `let rec f = (e : t)`."""
    pattern = binding.pattern
    if isinstance(pattern, ast.PAnnot) and isinstance(pattern.pattern, ast.PVar):
        value = ast.Annot(binding.value, pattern.annotation, pattern.span)
        return ast.Binding(pattern.pattern, value, binding.span)
    return binding


class ExceptionCase:
    """`| exception p -> e`, a case of a `match` only."""

    def __init__(self, case: ast.Case) -> None:
        self.case = case
        self.span = case.span


def is_sized_literal(expr: ast.Expr) -> bool:
    return isinstance(expr, ast.App) and isinstance(expr.function, ast.Var) \
        and expr.function.name in ("fl_int32_of_int", "fl_int64_of_int", "fl_nativeint_of_int") \
        and isinstance(expr.argument, ast.Const) and expr.argument.kind == "int"


def no_exception_cases(cases: tuple[Any, ...]) -> None:
    for case in cases:
        if isinstance(case, ExceptionCase):
            raise CompileError(case.span, "Exception patterns are not allowed in this position.")


# What the scrutinee of a `match` with exception cases gave: `'a fl_outcome'` in the prelude
_VALUE, _RAISED = "Fl_value'", "Fl_raised'"


def match_with_exceptions(scrutinee: ast.Expr, cases: tuple[Any, ...], span: Span) -> ast.Expr:
    """`match e with p -> a | exception q -> b` is `match (try Fl_value' e with x -> Fl_raised'
    x) with Fl_value' p -> a | Fl_raised' q -> b | Fl_raised' x -> raise x`: only e is in the
    try, as OCaml has it, and an exception no case matches goes on up."""
    raised = ast.Var("%raised", span)
    handler = ast.Match(ast.Var(ast.EXCEPTION_VAR, span),
                        (ast.Case(ast.PVar(raised.name, span), None, ast.Construct(_RAISED, (raised,), span), span),),
                        span, reraise=True)
    outcome = ast.Try(ast.Construct(_VALUE, (scrutinee,), scrutinee.span), handler, span)
    wrapped = []
    for case in cases:
        constructor, inner = (_RAISED, case.case) if isinstance(case, ExceptionCase) else (_VALUE, case)
        wrapped.append(replace(inner, pattern=ast.PConstruct(constructor, (inner.pattern,), inner.pattern.span)))
    handlers = [c.case for c in cases if isinstance(c, ExceptionCase)]
    if not any(h.guard is None and catches_all(h.pattern) for h in handlers):
        reraise = ast.App(ast.Var("raise", span), raised, span)
        wrapped.append(ast.Case(ast.PConstruct(_RAISED, (ast.PVar(raised.name, span),), span), None, reraise, span))
    return ast.Match(outcome, tuple(wrapped), span)


def catches_all(pattern: ast.Pattern) -> bool:
    if isinstance(pattern, (ast.PWild, ast.PVar)):
        return True
    if isinstance(pattern, ast.PAlias):
        return catches_all(pattern.pattern)
    return isinstance(pattern, ast.PAnnot) and catches_all(pattern.pattern)


def rewritten(value: Any, rewrite: Callable[[Any], Any]) -> Any:
    """`value` (an AST) with each node `rewrite` gives a new one for (it gives the node itself
    otherwise) made that one, after its children were."""
    if isinstance(value, tuple):
        items = tuple(rewritten(v, rewrite) for v in value)
        return value if all(a is b for a, b in zip(items, value)) else items
    if not hasattr(value, "__dataclass_fields__") or isinstance(value, Span):
        return value
    changes = {}
    for name in value.__dataclass_fields__:
        if name in ("span", "ty", "tree"):
            continue
        child = getattr(value, name)
        new = rewritten(child, rewrite)
        if new is not child:
            changes[name] = new
    return rewrite(replace(value, **changes) if changes else value)


class ConstructorRenamer:
    """Makes a name's constructors (in expressions and patterns) another's: those of a local
    exception, in its scope. A `let exception` of the same name inside was renamed first."""

    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def node(self, value: Any) -> Any:
        return rewritten(value, self.rename)

    def rename(self, node: Any) -> Any:
        if isinstance(node, (ast.Construct, ast.PConstruct)) and node.name == self.old:
            return replace(node, name=self.new)
        return node
# `lazy p`, as the parser gives it: a case made of it forces the value (`forcing_case`)
LAZY = "%lazy"
ARRAY = "%array"  # `[| p1; ...; pn |]`, its items the arguments
VIEWED = (LAZY, ARRAY)  # the patterns `forcing_case` turns into guards


@dataclass(frozen=True)
class RecursiveLazies:
    """`let rec x = lazy e and f y = ... and z = lazy e'` as: each lazy value made pending,
    then the functions (a `let rec` of their own, naming the lazy values), then each lazy
    value's computation set."""

    pending: tuple[ast.Binding, ...]
    functions: tuple[ast.Binding, ...]
    delays: tuple[ast.Expr, ...]


def recursive_lazy(is_rec: bool, bindings: tuple[ast.Binding, ...]) -> RecursiveLazies | None:
    """`let rec` of lazy values and functions (which OCaml allows, each naming the others):
    forcing a lazy value inside its own computation raises Lazy.Undefined."""
    if not is_rec:
        return None
    lazies = [(b.pattern, b.value.argument, b.span) for b in bindings
              if isinstance(b.pattern, ast.PVar) and isinstance(b.value, ast.App)
              and isinstance(b.value.function, ast.Var) and b.value.function.name == "Lazy.from_fun"]
    functions = tuple(b for b in bindings if isinstance(ast.unannotated(b.value), ast.Fun))
    if not lazies or len(lazies) + len(functions) != len(bindings):
        return None
    pending = tuple(ast.Binding(pattern, ast.App(ast.Var("fl_lazy_pending", span), ast.Const(None, "unit", span),
                                                 span), span) for pattern, _, span in lazies)
    delays = [ast.App(ast.App(ast.Var("fl_lazy_delay", span), ast.Var(pattern.name, span), span), computation, span)
              for pattern, computation, span in lazies]
    return RecursiveLazies(pending, functions, tuple(delays))


def function_after_prefix(bindings: tuple[ast.Binding, ...]) -> ast.Binding | None:
    """`let rec f = P[fun x -> e]`, where P is `let ... in`s and `e1;`s that do not name f (OCaml
    allows it: f is a function once P is evaluated), as `let f = P[let rec f = fun x -> e in f]`;
    None for any other group."""
    if len(bindings) != 1:
        return None
    binding = bindings[0]
    pattern = binding.pattern.pattern if isinstance(binding.pattern, ast.PAnnot) else binding.pattern
    value = binding.value
    final = _final_function(value)
    if not isinstance(pattern, ast.PVar) or final is None or final is ast.unannotated(value):
        return None
    span = final.span
    inner = ast.Let(True, (ast.Binding(ast.PVar(pattern.name, pattern.span), final, span),),
                    ast.Var(pattern.name, span), span)
    rebuilt = _with_final(value, inner)
    if pattern.name in ast.mentioned_names([_with_final(value, ast.Const(None, "unit", span))]):
        return None  # the prefix names f: OCaml's check decides (`cpsc.syntax.recursive_values`)
    return replace(binding, value=rebuilt)


def _final_function(expr: ast.Expr) -> ast.Fun | None:
    while isinstance(expr, (ast.Let, ast.Seq, ast.Annot)):
        expr = expr.body if isinstance(expr, ast.Let) else expr.second if isinstance(expr, ast.Seq) else expr.expr
    return expr if isinstance(expr, ast.Fun) else None


def _with_final(expr: ast.Expr, final: ast.Expr) -> ast.Expr:
    """`expr` with what it evaluates to last (through `let ... in`, `;` and annotations) replaced
    by `final` (a loop over the prefix, rebuilt from the inside: it may be long)."""
    chain: list[ast.Let | ast.Seq | ast.Annot] = []
    while isinstance(expr, (ast.Let, ast.Seq, ast.Annot)):
        chain.append(expr)
        expr = expr.body if isinstance(expr, ast.Let) else expr.second if isinstance(expr, ast.Seq) else expr.expr
    for link in reversed(chain):
        if isinstance(link, ast.Let):
            final = replace(link, body=final)
        elif isinstance(link, ast.Seq):
            final = replace(link, second=final)
        else:
            final = ast.Annot(final, link.annotation, link.span, sealing=link.sealing)
    return final


def forcing_case(case: ast.Case) -> ast.Case:
    """A case whose pattern has `lazy p`s in it: each is a variable, whose value is forced and
    matched with p in the guard (and again, memoised, in the body)."""
    if not has_lazy(case.pattern):  # (the usual case: no recursion over a pattern that may be deep)
        return case
    lazies: list[tuple[str, ast.PConstruct]] = []
    pattern = without_lazies(case.pattern, lazies)
    span = case.span
    forced_items = [viewed_value(name, viewed, span) for name, viewed in lazies]
    forced = forced_items[0] if len(forced_items) == 1 else ast.Tuple(tuple(forced_items), span)
    inner = [view_pattern(viewed) for _, viewed in lazies]
    inner_pattern = inner[0] if len(inner) == 1 else ast.PTuple(tuple(inner), span)
    if irrefutable(inner_pattern):
        def bound(e: ast.Expr) -> ast.Expr:  # (a match of one case: `lazy (lazy v)` forces twice)
            return ast.Match(forced, (forcing_case(ast.Case(inner_pattern, None, e, span)),), span, quiet=True)
        return ast.Case(pattern, None if case.guard is None else bound(case.guard), bound(case.body), span)
    true, false = ast.Const(True, "bool", span), ast.Const(False, "bool", span)
    guard = ast.Match(forced, (forcing_case(ast.Case(inner_pattern, case.guard, true, span)),
                               ast.Case(ast.PWild(span), None, false, span)), span, quiet=True)
    unreachable = ast.App(ast.Var("raise", span), ast.Construct("Assert_failure", (ast.Tuple(
        (ast.Const(span.file, "string", span), ast.Const(span.line, "int", span),
         ast.Const(span.col - 1, "int", span)), span),), span), span)
    body = ast.Match(forced, (forcing_case(ast.Case(inner_pattern, None, case.body, span)),
                              ast.Case(ast.PWild(span), None, unreachable, span)), span, quiet=True)
    return ast.Case(pattern, guard, body, span)


def viewed_value(name: str, viewed: ast.PConstruct, span: Span) -> ast.Expr:
    """What the value of the variable `name` that stands for a viewed pattern is matched as:
    `lazy p`'s forced, `[| p1; ...; pn |]`'s `Some (v.(0), ..., v.(n-1))` when it has n
    elements, else None."""
    value = ast.Var(name, span)
    if viewed.name == LAZY:
        return ast.App(ast.Var("Lazy.force", span), value, span)
    count = len(viewed.args)
    items = [ast.App(ast.App(ast.Var("Array.unsafe_get", span), value, span), ast.Const(i, "int", span), span)
             for i in range(count)]
    elements: ast.Expr = ast.Const(None, "unit", span) if not items else items[0] if count == 1 else \
        ast.Tuple(tuple(items), span)
    length = ast.App(ast.Var("Array.length", span), value, span)
    fits = ast.App(ast.App(ast.Var("=", span), length, span), ast.Const(count, "int", span), span)
    return ast.If(fits, ast.Construct("Some", (elements,), span), ast.Construct("None", (), span), span)


def view_pattern(viewed: ast.PConstruct) -> ast.Pattern:
    """The pattern `viewed_value`'s value is matched with."""
    if viewed.name == LAZY:
        return viewed.args[0]
    span, items = viewed.span, viewed.args
    elements = ast.PUnit(span) if not items else items[0] if len(items) == 1 else ast.PTuple(items, span)
    return ast.PConstruct("Some", (elements,), span)


def without_lazies(pattern: ast.Pattern, lazies: list[tuple[str, ast.PConstruct]]) -> ast.Pattern:
    """`pattern` with each `lazy p` or `[| ... |]` (outside another) a fresh variable, listed
    with it."""
    if isinstance(pattern, ast.PConstruct) and pattern.name in VIEWED:
        name = f"%viewed{pattern.span.line}_{pattern.span.col}"  # (where it is: one name a pattern)
        lazies.append((name, pattern))
        return ast.PVar(name, pattern.span)
    if isinstance(pattern, ast.POr):
        if not has_lazy(pattern):
            return pattern
        factored = factored_lazy(pattern)
        if factored is None:
            raise CompileError(pattern.span, "lazy and array patterns inside or-patterns are supported only "
                               "as alternatives that are all lazy (lazy p | lazy q), not yet elsewhere")
        return without_lazies(factored, lazies)
    if isinstance(pattern, ast.PConstruct):
        return replace(pattern, args=tuple(without_lazies(a, lazies) for a in pattern.args))
    if isinstance(pattern, ast.PTuple):
        return replace(pattern, items=tuple(without_lazies(i, lazies) for i in pattern.items))
    if isinstance(pattern, (ast.PAlias, ast.PAnnot)):
        return replace(pattern, pattern=without_lazies(pattern.pattern, lazies))
    if isinstance(pattern, ast.PRecord):
        return replace(pattern, fields=tuple((f, without_lazies(p, lazies)) for f, p in pattern.fields))
    return pattern


def has_lazy(pattern: ast.Pattern) -> bool:
    """Whether a `lazy p` is in the pattern (iteratively: a list pattern may be deep)."""
    stack: list[Any] = [pattern]
    while stack:
        p = stack.pop()
        if isinstance(p, ast.PConstruct):
            if p.name in VIEWED:
                return True
            stack.extend(p.args)
        elif isinstance(p, ast.POr):
            stack.extend((p.left, p.right))
        elif isinstance(p, ast.PTuple):
            stack.extend(p.items)
        elif isinstance(p, (ast.PAlias, ast.PAnnot)):
            stack.append(p.pattern)
        elif isinstance(p, ast.PRecord):
            stack.extend(q for _, q in p.fields)
    return False


def fun_forcing(param: ast.Pattern, body: ast.Expr, span: Span, label: str = "") -> ast.Fun:
    """`fun p -> body`; when p has `lazy q`s in it, `fun x -> match x with p -> body`, whose
    case forces them (`forcing_case`)."""
    if not has_lazy(param):
        return ast.Fun(param, body, span, label=label)
    name = f"%lazy_param{param.span.line}_{param.span.col}"
    case = forcing_case(ast.Case(param, None, body, span))
    matched = ast.Match(ast.Var(name, param.span), (case,), param.span)  # (a Match_failure is the parameter's)
    return ast.Fun(ast.PVar(name, param.span), matched, span, label=label)


def bound_forcing(binding: ast.Binding) -> ast.Binding:
    """`let p = e` for any pattern (`ast.bound_by_match`), forcing the `lazy q`s in p."""
    bound = ast.bound_by_match(binding)
    if bound is binding or not has_lazy(binding.pattern):
        return bound
    match = bound.value
    assert isinstance(match, ast.Match)
    return ast.Binding(bound.pattern, replace(match, cases=(forcing_case(match.cases[0]),)), bound.span)


def factored_lazy(pattern: ast.POr) -> ast.Pattern | None:
    """`lazy p | lazy q` as `lazy (p | q)` (alternatives that are all lazy), else None."""
    sides = []
    for side in (pattern.left, pattern.right):
        if isinstance(side, ast.POr):
            side = factored_lazy(side) or side
        if not (isinstance(side, ast.PConstruct) and side.name == LAZY):
            return None
        sides.append(side.args[0])
    return ast.PConstruct(LAZY, (ast.POr(sides[0], sides[1], pattern.span),), pattern.span)


def irrefutable(pattern: ast.Pattern) -> bool:
    if isinstance(pattern, (ast.PVar, ast.PWild, ast.PUnit)):
        return True
    if isinstance(pattern, ast.PConstruct) and pattern.name == LAZY:
        return irrefutable(pattern.args[0])
    if isinstance(pattern, ast.PTuple):
        return all(irrefutable(i) for i in pattern.items)
    if isinstance(pattern, (ast.PAlias, ast.PAnnot)):
        return irrefutable(pattern.pattern)
    return False


"""Hindley-Milner inference over the AST (levels for generalisation, value restriction).

The result, `Typing`, records the type of every expression and pattern node and, for every
variable occurrence of a polymorphic binding, the types its quantified variables were
instantiated with; monomorphisation (`cpsc.mono`) reads both.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from cpsc.syntax import ast
from cpsc.syntax.builtins import PRIMITIVE_TYPES
from cpsc.syntax.diagnostics import CompileError, Span
from cpsc.syntax.parser import parse_type
from cpsc.syntax.scope import Scope
from cpsc.types.types import (
    BASE_TYPES,
    BOOL,
    CHAR,
    FLOAT,
    INT,
    STRING,
    UNIT,
    TCon,
    TVar,
    Type,
    arrow,
    resolve,
    show,
    tuple_type,
)


@dataclass(frozen=True)
class Scheme:
    """`forall quantified. type`."""

    quantified: tuple[TVar, ...]
    type: Type


@dataclass
class Typing:
    """What inference learned: node types and instantiations, keyed by `id(node)`."""

    types: dict[int, Type] = field(default_factory=dict)
    # Var occurrence -> (scheme it refers to, the instance type of each quantified variable)
    instances: dict[int, tuple[Scheme, tuple[Type, ...]]] = field(default_factory=dict)
    # binding pattern id (PVar of a let) -> its scheme
    schemes: dict[int, Scheme] = field(default_factory=dict)


class _TypeError(Exception):
    pass


def _occurs_and_adjust(var: TVar, t: Type) -> None:
    t = resolve(t)
    if t is var:
        raise _TypeError("occurs")
    if isinstance(t, TVar):
        t.level = min(t.level, var.level)
    else:
        for arg in t.args:
            _occurs_and_adjust(var, arg)


def unify(a: Type, b: Type) -> None:
    a, b = resolve(a), resolve(b)
    if a is b:
        return
    if isinstance(a, TVar):
        _occurs_and_adjust(a, b)
        a.link = b
    elif isinstance(b, TVar):
        _occurs_and_adjust(b, a)
        b.link = a
    elif a.name != b.name or len(a.args) != len(b.args):
        raise _TypeError("clash")
    else:
        for x, y in zip(a.args, b.args):
            unify(x, y)


@functools.cache
def _primitive_schemes() -> dict[str, tuple[ast.TypeExpr, ...]]:
    return {name: (parse_type(text),) for name, text in PRIMITIVE_TYPES.items()}


class Inferencer:
    def __init__(self) -> None:
        self.typing = Typing()
        self.level = 0
        self.annotation_vars: dict[str, TVar] = {}

    # ---------------------------------------------------------------- helpers
    def fresh(self) -> TVar:
        return TVar(self.level)

    def expect(self, actual: Type, expected: Type, span: Span, what: str = "expression") -> None:
        try:
            unify(actual, expected)
        except _TypeError as err:
            names: dict[int, str] = {}
            actual_text, expected_text = show(actual, names), show(expected, names)
            message = (f"This {what} has type {actual_text} but an {what} was expected of type "
                       f"{expected_text}")
            if str(err) == "occurs":
                message += f"\n       The type variable occurs inside {expected_text}"
            raise CompileError(span, message) from None

    def generalize(self, t: Type) -> Scheme:
        quantified: list[TVar] = []

        def walk(t: Type) -> None:
            t = resolve(t)
            if isinstance(t, TVar):
                if t.level > self.level and t not in quantified:
                    quantified.append(t)
            else:
                for arg in t.args:
                    walk(arg)

        walk(t)
        return Scheme(tuple(quantified), t)

    def instantiate(self, scheme: Scheme) -> tuple[Type, tuple[Type, ...]]:
        fresh = {v.id: self.fresh() for v in scheme.quantified}

        def copy(t: Type) -> Type:
            t = resolve(t)
            if isinstance(t, TVar):
                return fresh.get(t.id, t)
            return TCon(t.name, tuple(copy(a) for a in t.args)) if t.args else t

        return copy(scheme.type), tuple(fresh[v.id] for v in scheme.quantified)

    def type_of_annotation(self, texpr: ast.TypeExpr, vars: dict[str, TVar] | None = None) -> Type:
        vars = self.annotation_vars if vars is None else vars
        if isinstance(texpr, ast.TyVar):
            if texpr.name not in vars:
                vars[texpr.name] = self.fresh()
            return vars[texpr.name]
        if isinstance(texpr, ast.TyArrow):
            return arrow(self.type_of_annotation(texpr.param, vars), self.type_of_annotation(texpr.result, vars))
        if isinstance(texpr, ast.TyTuple):
            return tuple_type([self.type_of_annotation(i, vars) for i in texpr.items])
        if texpr.name in BASE_TYPES and not texpr.args:
            return BASE_TYPES[texpr.name]
        raise CompileError(texpr.span, f"Unbound type constructor {texpr.name}")

    def primitive_scheme(self, name: str) -> Scheme:
        saved = self.level
        self.level = 1
        t = self.type_of_annotation(_primitive_schemes()[name][0], {})
        self.level = saved
        return self.generalize(t)

    # ---------------------------------------------------------------- patterns
    def bind_pattern(self, pattern: ast.Pattern, t: Type, env: Scope[Scheme] | None) -> None:
        """Give `pattern` type `t`, adding its variables (monomorphic) to `env` unless it is None."""
        self.typing.types[id(pattern)] = t
        if isinstance(pattern, ast.PVar):
            if env is not None:
                env.bind(pattern.name, Scheme((), t))
        elif isinstance(pattern, ast.PUnit):
            self.expect(t, UNIT, pattern.span, "pattern")
        elif isinstance(pattern, ast.PTuple):
            items: list[Type] = [self.fresh() for _ in pattern.items]
            self.expect(t, tuple_type(items), pattern.span, "pattern")
            for item, item_type in zip(pattern.items, items):
                self.bind_pattern(item, item_type, env)
        elif isinstance(pattern, ast.PAnnot):
            self.expect(t, self.type_of_annotation(pattern.annotation), pattern.span, "pattern")
            self.bind_pattern(pattern.pattern, t, env)
        names = ast.pattern_names(pattern)
        duplicate = next((n for n in names if names.count(n) > 1), None)
        if duplicate is not None:
            raise CompileError(pattern.span, f"Variable {duplicate} is bound several times in this matching")

    # ---------------------------------------------------------------- expressions
    def infer(self, expr: ast.Expr, env: Scope[Scheme]) -> Type:
        t = self._infer(expr, env)
        self.typing.types[id(expr)] = t
        return t

    def _infer(self, expr: ast.Expr, env: Scope[Scheme]) -> Type:
        if isinstance(expr, ast.Const):
            return {"int": INT, "float": FLOAT, "bool": BOOL, "char": CHAR, "string": STRING,
                    "unit": UNIT}[expr.kind]
        if isinstance(expr, ast.Var):
            scheme = env.get(expr.name)
            if scheme is None:
                raise CompileError(expr.span, f"Unbound value {expr.name}")
            t, instance = self.instantiate(scheme)
            if scheme.quantified:
                self.typing.instances[id(expr)] = (scheme, instance)
            return t
        if isinstance(expr, ast.App):
            return self.infer_app(expr, env)
        if isinstance(expr, ast.Fun):
            param = self.fresh()
            with env.scope():
                self.bind_pattern(expr.param, param, env)
                return arrow(param, self.infer(expr.body, env))
        if isinstance(expr, ast.Let):
            return self.infer_let_chain(expr, env)
        if isinstance(expr, ast.If):
            self.expect(self.infer(expr.condition, env), BOOL, expr.condition.span)
            t = self.infer(expr.then_branch, env)
            self.expect(self.infer(expr.else_branch, env), t, expr.else_branch.span)
            return t
        if isinstance(expr, ast.Seq):
            return self.infer_sequence(expr, env)
        if isinstance(expr, ast.Tuple):
            return tuple_type([self.infer(item, env) for item in expr.items])
        if isinstance(expr, ast.Annot):
            t = self.infer(expr.expr, env)
            self.expect(t, self.type_of_annotation(expr.annotation), expr.expr.span)
            return t
        raise AssertionError(expr)

    def infer_let_chain(self, expr: ast.Let, env: Scope[Scheme]) -> Type:
        """`let ... in let ... in body` in a loop, so that long chains need no deep recursion."""
        mark = env.mark()
        lets: list[ast.Let] = []
        body: ast.Expr = expr
        while isinstance(body, ast.Let):
            self.infer_bindings(body.is_rec, body.bindings, env)
            lets.append(body)
            body = body.body
        t = self.infer(body, env)
        for let in lets:
            self.typing.types[id(let)] = t
        env.undo(mark)
        return t

    def infer_sequence(self, expr: ast.Seq, env: Scope[Scheme]) -> Type:
        """`e1; e2; ...; en` in a loop: a long sequence needs no deep recursion."""
        links: list[ast.Seq] = []
        last: ast.Expr = expr
        while isinstance(last, ast.Seq):
            self.infer(last.first, env)
            links.append(last)
            last = last.second
        t = self.infer(last, env)
        for link in links:
            self.typing.types[id(link)] = t
        return t

    def infer_app(self, expr: ast.App, env: Scope[Scheme]) -> Type:
        function = self.infer(expr.function, env)
        resolved = resolve(function)
        if isinstance(resolved, TCon) and resolved.name != "->":
            head = expr.function
            raise CompileError(head.span, f"This expression has type {show(function)}\n"
                               "       This is not a function; it cannot be applied.")
        result = self.fresh()
        param = self.fresh()
        self.expect(function, arrow(param, result), expr.function.span)
        self.expect(self.infer(expr.argument, env), param, expr.argument.span)
        return result

    def infer_bindings(self, is_rec: bool, bindings: tuple[ast.Binding, ...], env: Scope[Scheme]) -> None:
        """Infer `let [rec] bindings` and bind their (generalised) names in `env`."""
        self.level += 1
        if is_rec:
            with env.scope():
                for binding in bindings:
                    self.bind_pattern(binding.pattern, self.fresh(), env)
                for binding in bindings:
                    if not isinstance(binding.value, ast.Fun):
                        raise CompileError(binding.value.span, "This kind of expression is not allowed as "
                                           "right-hand side of `let rec'")
                    t = self.infer(binding.value, env)
                    self.expect(t, self.typing.types[id(binding.pattern)], binding.value.span)
            types = [(b.pattern, self.typing.types[id(b.pattern)], True) for b in bindings]
        else:
            types = []
            for binding in bindings:
                t = self.infer(binding.value, env)
                self.bind_pattern(binding.pattern, t, None)
                types.append((binding.pattern, t, is_syntactic_value(binding.value)))
        self.level -= 1
        for pattern, _t, generalizable in types:
            self.bind_generalized(pattern, generalizable, env)

    def bind_generalized(self, pattern: ast.Pattern, generalizable: bool, env: Scope[Scheme]) -> None:
        t = self.typing.types[id(pattern)]
        if isinstance(pattern, ast.PVar):
            scheme = self.generalize(t) if generalizable else Scheme((), t)
            if not generalizable:
                self.lower_to_current_level(t)
            self.typing.schemes[id(pattern)] = scheme
            env.bind(pattern.name, scheme)
        elif isinstance(pattern, ast.PTuple):
            for item in pattern.items:
                self.bind_generalized(item, generalizable, env)
        elif isinstance(pattern, ast.PAnnot):
            self.bind_generalized(pattern.pattern, generalizable, env)

    def declarations(self, declarations: tuple[ast.LetDecl, ...], env: Scope[Scheme]) -> None:
        for decl in declarations:
            self.annotation_vars = {}
            self.infer_bindings(decl.is_rec, decl.bindings, env)

    def lower_to_current_level(self, t: Type) -> None:
        t = resolve(t)
        if isinstance(t, TVar):
            t.level = min(t.level, self.level)
        else:
            for arg in t.args:
                self.lower_to_current_level(arg)


def is_syntactic_value(expr: ast.Expr) -> bool:
    """The value restriction: only these right-hand sides are generalised."""
    if isinstance(expr, (ast.Fun, ast.Const, ast.Var)):
        return True
    if isinstance(expr, ast.Tuple):
        return all(is_syntactic_value(i) for i in expr.items)
    if isinstance(expr, ast.Annot):
        return is_syntactic_value(expr.expr)
    return False


@dataclass
class CheckedPrelude:
    """The prelude, parsed and type-checked once: its declarations, what inference learned about
    them, and the names in scope after them (primitives included)."""

    module: ast.Module
    typing: Typing
    env: dict[str, Scheme]


def check_prelude(module: ast.Module) -> CheckedPrelude:
    inferencer = Inferencer()
    env = Scope({name: inferencer.primitive_scheme(name) for name in PRIMITIVE_TYPES})
    inferencer.declarations(module.declarations, env)
    return CheckedPrelude(module, inferencer.typing, env.snapshot())


def infer_module(module: ast.Module, prelude: CheckedPrelude) -> Typing:
    """Type-check a program in the scope of the prelude; raises `CompileError` on the first
    error. The result covers the prelude's nodes too (for monomorphisation)."""
    inferencer = Inferencer()
    inferencer.typing = Typing(dict(prelude.typing.types), dict(prelude.typing.instances),
                               dict(prelude.typing.schemes))
    inferencer.declarations(module.declarations, Scope(prelude.env))
    return inferencer.typing

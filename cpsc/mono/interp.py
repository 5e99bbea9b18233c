"""The reference interpreter: the definitional semantics of FL, on the monomorphic AST.

Calls in tail position loop instead of recursing, so tail-recursive FL runs in constant Python
stack, as it must natively.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cpsc.semantics import builtins
from cpsc.semantics.builtins import DATA_PRIMITIVES, FlArray, FlRaise, FunctionValue, fail, fresh_exception
from cpsc.semantics.values import BINARY_NAMES, UNARY_NAMES, Machine, Outcome, binary, machine, run_deep, unary
from cpsc.syntax import ast, recursive_values


@dataclass
class Closure(FunctionValue):
    param: ast.Pattern
    body: ast.Expr
    env: dict[str, Any]


class Primitive(FunctionValue):
    """A curried primitive, waiting for its remaining arguments; a comparison of values that may
    hold bytes knows their type (`ast.Var.compared`)."""

    def __init__(self, name: str, arity: int, args: tuple[Any, ...] = (), compared: Any = None) -> None:
        self.name, self.arity, self.args, self.compared = name, arity, args, compared


def bind(pattern: ast.Pattern, value: Any, env: dict[str, Any]) -> None:
    if isinstance(pattern, ast.PVar):
        env[pattern.name] = value
    elif isinstance(pattern, ast.PTuple):
        for item, v in zip(pattern.items, value):
            bind(item, v, env)
    elif isinstance(pattern, ast.PAnnot):
        bind(pattern.pattern, value, env)


class Interpreter:
    """Values: ints, floats, bools, chars and strings (1-char and n-char `str`), unit `None`,
    tuples and immutable records as Python tuples, mutable records and arrays as lists;
    constructors as `cpsc.types.datatypes` lays them out (an int, or a tuple of the tag, when
    there is one, and the arguments). Matches run case by case, the definitional semantics
    the decision trees of the other levels must agree with."""

    def __init__(self, datatypes: Any = None) -> None:
        self.machine = Machine()
        self.datatypes = datatypes
        self.globals: dict[str, Any] = {name: Primitive(name, 2) for name in BINARY_NAMES}
        self.globals.update({name: Primitive(name, 1) for name in UNARY_NAMES})
        self.globals.update({name: Primitive(name, arity) for name, (arity, _) in DATA_PRIMITIVES.items()})

    def apply_primitive(self, prim: Primitive, arg: Any) -> Any:
        args = prim.args + (arg,)
        if len(args) < prim.arity:
            return Primitive(prim.name, prim.arity, args, prim.compared)
        if prim.compared is not None and prim.name not in ("==", "!=") and args[0] is not args[1]:
            args = tuple(self.datatypes.kept_apart().compared_value(a, prim.compared) for a in args)
        if prim.name in DATA_PRIMITIVES:
            return DATA_PRIMITIVES[prim.name][1](*args)
        if prim.arity == 1:
            return unary(self.machine.out, prim.name, arg)
        return binary(prim.name, args[0], args[1], self.machine.out)

    # ---------------------------------------------------------------- data
    def exception_identity(self, key: str, env: dict[str, Any]) -> Any:
        """A local exception's identity is the one its `let exception` made (bound in env)."""
        return env.get(ast.local_exception_identity(key), self.datatypes.constructors[key].exception)

    def construct(self, key: str, args: list[Any], env: dict[str, Any]) -> Any:
        info = self.datatypes.constructors[key]
        if info.exception is not None:
            return tuple([self.exception_identity(key, env)] + args)
        if info.constant:
            return info.index
        return tuple([info.index] + args) if info.tagged else tuple(args)

    def record(self, expr: ast.Record, env: dict[str, Any]) -> Any:
        """The base of `{ r with ... }` first, then the fields given, right to left in declaration order."""
        datatype = self.datatypes.types[expr.ty.name]
        slots: list[Any] = list(self.eval(expr.base, env)) if expr.base is not None else [None] * len(datatype.fields)
        fields = sorted(((self.datatypes.fields[key].index, v) for key, v in expr.fields), key=lambda f: f[0])
        for (index, _), value in zip(fields, self.operands([v for _, v in fields], env)):
            slots[index] = value
        return slots if datatype.mutable else tuple(slots)

    def matches(self, pattern: ast.Pattern, value: Any, env: dict[str, Any]) -> bool:
        """Whether `value` matches `pattern`, binding its variables in `env` if so."""
        if isinstance(pattern, (ast.PVar, ast.PTuple, ast.PAnnot)) and ast.is_irrefutable(pattern):
            bind(pattern, value, env)
            return True
        if isinstance(pattern, (ast.PWild, ast.PUnit)):
            return True
        if isinstance(pattern, ast.PTuple):
            return all(self.matches(p, v, env) for p, v in zip(pattern.items, value))
        if isinstance(pattern, ast.PAnnot):
            return self.matches(pattern.pattern, value, env)
        if isinstance(pattern, ast.PConst):
            return bool(value == pattern.value)
        if isinstance(pattern, ast.PAlias):
            env[pattern.name] = value
            return self.matches(pattern.pattern, value, env)
        if isinstance(pattern, ast.POr):
            return self.matches(pattern.left, value, env) or self.matches(pattern.right, value, env)
        if isinstance(pattern, ast.PRecord):
            return all(self.matches(p, value[self.datatypes.fields[key].index], env) for key, p in pattern.fields)
        assert isinstance(pattern, ast.PConstruct)
        info = self.datatypes.constructors[pattern.name]
        if info.exception is not None and value[0] != self.exception_identity(pattern.name, env):
            return False
        if info.constant:
            return isinstance(value, int) and value == info.index  # (a block is a tuple or a list)
        if isinstance(value, int) or info.tagged and value[0] != info.index:
            return False
        args = value[info.offset:]
        return all(self.matches(p, v, env) for p, v in zip(pattern.args, args))

    def match(self, expr: ast.Match, env: dict[str, Any]) -> tuple[ast.Expr, dict[str, Any]]:
        value = self.eval(expr.scrutinee, env)
        for case in expr.cases:
            inner = dict(env)
            if self.matches(case.pattern, value, inner) and (case.guard is None or self.eval(case.guard, inner)):
                return case.body, inner
        if expr.reraise:
            raise FlRaise(value)
        span = expr.span
        raise fail("Match_failure", (span.file, span.line, span.col - 1))

    def loop(self, expr: ast.While | ast.For, env: dict[str, Any]) -> None:
        if isinstance(expr, ast.While):
            while self.eval(expr.condition, env):
                self.eval(expr.body, env)
            return
        start, stop = self.eval(expr.start, env), self.eval(expr.stop, env)
        indices = range(start, stop + 1) if expr.up else range(start, stop - 1, -1)
        for i in indices:
            inner = dict(env)  # each iteration's `i` is its own (closures may capture it)
            inner[expr.var] = i
            self.eval(expr.body, inner)

    def eval(self, expr: ast.Expr, env: dict[str, Any]) -> Any:
        while True:
            if isinstance(expr, ast.Const):
                return expr.value
            if isinstance(expr, ast.Var):
                if expr.name in env:
                    return env[expr.name]
                if expr.compared is not None:
                    return Primitive(expr.name, 2, (), expr.compared)
                return self.globals[expr.name]
            if isinstance(expr, ast.App):
                # `f a1 ... an` as ocamlopt evaluates it: the arguments right to left, then f,
                # then the applications
                head, applications = ast.application_spine(expr)
                arguments = self.operands([application.argument for application in applications], env)
                function = self.eval(head, env)
                for argument in arguments[:-1]:
                    function = self.apply(function, argument)
                if isinstance(function, Primitive):
                    return self.apply_primitive(function, arguments[-1])
                env = dict(function.env)
                bind(function.param, arguments[-1], env)
                expr = function.body
            elif isinstance(expr, ast.Fun):
                return Closure(expr.param, expr.body, env)
            elif isinstance(expr, ast.Let):
                env = self.bind_let(expr, env)
                expr = expr.body
            elif isinstance(expr, ast.If):
                expr = expr.then_branch if self.eval(expr.condition, env) else expr.else_branch
            elif isinstance(expr, ast.Seq):
                self.eval(expr.first, env)
                expr = expr.second
            elif isinstance(expr, ast.Tuple):
                return tuple(self.operands(expr.items, env))
            elif isinstance(expr, ast.Annot):
                expr = expr.expr
            elif isinstance(expr, ast.Match):
                expr, env = self.match(expr, env)
            elif isinstance(expr, ast.LetException):
                key = expr.declaration.name
                env = dict(env)
                env[ast.local_exception_identity(key)] = fresh_exception(self.datatypes.constructors[key].exception)
                expr = expr.body
            elif isinstance(expr, ast.Try):
                try:
                    return self.eval(expr.body, env)  # not a tail call: the handler is waiting
                except FlRaise as raised:
                    env = dict(env)
                    env[ast.EXCEPTION_VAR] = raised.value
                    expr, env = self.match(expr.handler, env)
            else:
                return self.eval_data(expr, env)

    def operands(self, exprs: Sequence[ast.Expr], env: dict[str, Any]) -> list[Any]:
        """The values of `exprs`, evaluated right to left (as `cpsc.to_cps` evaluates them)."""
        values = [self.eval(e, env) for e in reversed(exprs)]
        values.reverse()
        return values

    def apply(self, function: Any, argument: Any) -> Any:
        """`function argument`, not in tail position."""
        if isinstance(function, Primitive):
            return self.apply_primitive(function, argument)
        env = dict(function.env)
        bind(function.param, argument, env)
        return self.eval(function.body, env)

    def eval_data(self, expr: ast.Expr, env: dict[str, Any]) -> Any:
        if isinstance(expr, ast.Construct):
            return self.construct(expr.name, self.operands(expr.args, env), env)
        if isinstance(expr, ast.Record):
            return self.record(expr, env)
        if isinstance(expr, ast.GetField):
            return self.eval(expr.record, env)[self.datatypes.fields[expr.name].index]
        if isinstance(expr, ast.SetField):
            value = self.eval(expr.value, env)
            self.eval(expr.record, env)[self.datatypes.fields[expr.name].index] = value
            return None
        if isinstance(expr, ast.ArrayLit):
            return FlArray(self.operands(expr.items, env))
        if isinstance(expr, (ast.While, ast.For)):
            self.loop(expr, env)
            return None
        raise AssertionError(expr)

    def bind_let(self, expr: ast.Let, env: dict[str, Any]) -> dict[str, Any]:
        inner = dict(env)
        if expr.is_rec:
            group = recursive_values.group_of(expr.bindings)
            for binding in group.plain:
                bind(binding.pattern, self.eval(binding.value, inner), inner)
            dummies = [builtins.dummy_array(1) if isinstance(recursive_values.final_expression(b.value), ast.ArrayLit)
                       else builtins.dummy_block(0) for b in group.blocks]
            for binding, dummy in zip(group.blocks, dummies):
                bind(binding.pattern, dummy, inner)
            for binding in group.functions:
                bind(binding.pattern, self.eval(binding.value, inner), inner)
            for binding, dummy in zip(group.blocks, dummies):
                builtins.update_dummy(dummy, self.eval(binding.value, inner), len(dummy))
            return inner
        values = [self.eval(binding.value, env) for binding in expr.bindings]
        for binding, value in zip(expr.bindings, values):
            bind(binding.pattern, value, inner)
        return inner


def run_ast(program: ast.Program, stdin: str | None = None) -> Outcome:
    """Run a monomorphised program (see `cpsc.driver.front_end`)."""
    interpreter = Interpreter(program.datatypes)
    interpreter.machine = machine(stdin)
    return run_deep(lambda: interpreter.machine.finish(lambda: interpreter.eval(program.body, {})))

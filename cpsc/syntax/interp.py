"""The reference interpreter: the definitional semantics of FL, on the monomorphic AST.

Calls in tail position loop instead of recursing, so tail-recursive FL runs in constant Python
stack, as it must natively.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cpsc.syntax import ast
from cpsc.syntax.values import BINARY_NAMES, UNARY_NAMES, Machine, Outcome, binary, run_deep, unary


@dataclass
class Closure:
    param: ast.Pattern
    body: ast.Expr
    env: dict[str, Any]


class Primitive:
    """A curried primitive, waiting for its remaining arguments."""

    def __init__(self, name: str, arity: int, args: tuple[Any, ...] = ()) -> None:
        self.name, self.arity, self.args = name, arity, args


def bind(pattern: ast.Pattern, value: Any, env: dict[str, Any]) -> None:
    if isinstance(pattern, ast.PVar):
        env[pattern.name] = value
    elif isinstance(pattern, ast.PTuple):
        for item, v in zip(pattern.items, value):
            bind(item, v, env)
    elif isinstance(pattern, ast.PAnnot):
        bind(pattern.pattern, value, env)


class Interpreter:
    def __init__(self) -> None:
        self.machine = Machine()
        self.globals: dict[str, Any] = {name: Primitive(name, 2) for name in BINARY_NAMES}
        self.globals.update({name: Primitive(name, 1) for name in UNARY_NAMES})

    def apply_primitive(self, prim: Primitive, arg: Any) -> Any:
        args = prim.args + (arg,)
        if len(args) < prim.arity:
            return Primitive(prim.name, prim.arity, args)
        if prim.arity == 1:
            return unary(self.machine.out, prim.name, arg)
        return binary(prim.name, args[0], args[1])

    def eval(self, expr: ast.Expr, env: dict[str, Any]) -> Any:
        while True:
            if isinstance(expr, ast.Const):
                return expr.value
            if isinstance(expr, ast.Var):
                return env[expr.name] if expr.name in env else self.globals[expr.name]
            if isinstance(expr, ast.App):
                function = self.eval(expr.function, env)
                argument = self.eval(expr.argument, env)
                if isinstance(function, Primitive):
                    return self.apply_primitive(function, argument)
                env = dict(function.env)
                bind(function.param, argument, env)
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
                return tuple(self.eval(item, env) for item in expr.items)
            elif isinstance(expr, ast.Annot):
                expr = expr.expr
            else:
                raise AssertionError(expr)

    def bind_let(self, expr: ast.Let, env: dict[str, Any]) -> dict[str, Any]:
        inner = dict(env)
        if expr.is_rec:
            for binding in expr.bindings:
                bind(binding.pattern, self.eval(binding.value, inner), inner)
            return inner
        values = [self.eval(binding.value, env) for binding in expr.bindings]
        for binding, value in zip(expr.bindings, values):
            bind(binding.pattern, value, inner)
        return inner


def run_ast(program: ast.Expr) -> Outcome:
    """Run a monomorphised program (see `cpsc.driver.front_end`)."""
    interpreter = Interpreter()
    return run_deep(lambda: interpreter.machine.finish(lambda: interpreter.eval(program, {})))

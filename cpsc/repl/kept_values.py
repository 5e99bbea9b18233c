"""Phrases evaluated once, as OCaml's toplevel evaluates them.

The session runs its whole program (every phrase accepted so far, then the new one) through
the reference interpreter, because monomorphisation is whole-program: a later phrase may use an
earlier polymorphic function at a new type. But an earlier phrase is not evaluated again: each of
its top-level bindings takes the value it was given when that phrase ran (so `let x = fib 30`
costs once, and a ref keeps what later phrases stored in it), and its top-level statements
(`let () = ...`) are skipped. Only the instances that monomorphisation makes anew (a polymorphic
function at a type not used before) are evaluated, and defining a function has no effect.

The top-level bindings are the `let`s on the spine of the monomorphised program's body; a
binding is known by its position in its phrase and the names it binds, which stay the same
from one run to the next.
"""

from __future__ import annotations

from typing import Any

from cpsc.mono.interp import Interpreter
from cpsc.semantics.values import Outcome, machine, run_deep
from cpsc.syntax import ast

BindingKey = tuple[tuple[str, int, int, tuple[str, ...]], ...]


class KeptValues:
    """The values of the top-level bindings of the phrases run so far."""

    def __init__(self) -> None:
        self.values: dict[BindingKey, dict[str, Any]] = {}

    def run(self, program: ast.Program, phrase_file: str) -> Outcome:
        """Run `program`, evaluating only what `phrase_file` (the new phrase) and the session's
        own code declare; the new phrase's bindings are kept if it ends normally."""
        interpreter = _PhraseInterpreter(program, self.values, phrase_file)
        interpreter.machine = machine("")
        outcome = run_deep(lambda: interpreter.machine.finish(lambda: interpreter.eval(program.body, {})))
        if outcome.status == 0:
            self.values.update(interpreter.new_values)
        return outcome


class _PhraseInterpreter(Interpreter):
    def __init__(self, program: ast.Program, values: dict[BindingKey, dict[str, Any]], phrase_file: str) -> None:
        super().__init__(program.datatypes)
        self.values = values
        self.phrase_file = phrase_file
        self.new_values: dict[BindingKey, dict[str, Any]] = {}
        self.spine = _spine(program.body)

    def bind_let(self, expr: ast.Let, env: dict[str, Any]) -> dict[str, Any]:
        if id(expr) not in self.spine or not _from_phrase(expr):
            return super().bind_let(expr, env)
        key = _key(expr)
        if expr.bindings[0].span.file != self.phrase_file:
            if key in self.values:
                return {**env, **self.values[key]}
            if not key[0][3]:
                return env  # an earlier phrase's statement: it ran then
        inner = super().bind_let(expr, env)
        self.new_values[key] = {name: inner[name] for binding in key for name in binding[3]}
        return inner


def _spine(body: ast.Expr) -> set[int]:
    """The `let`s of the top level: the chain a program's body is made of."""
    spine: set[int] = set()
    while isinstance(body, ast.Let):
        spine.add(id(body))
        body = body.body
    return spine


def _from_phrase(expr: ast.Let) -> bool:
    """Declared by the user's phrases (files `[1]`, `[2]` ...), not by the prelude or the
    session's own code (value printers)."""
    return expr.bindings[0].span.file.startswith("[")


def _key(expr: ast.Let) -> BindingKey:
    return tuple((b.span.file, b.span.line, b.span.col, tuple(ast.pattern_names(b.pattern))) for b in expr.bindings)

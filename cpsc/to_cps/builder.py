"""The state of CPS conversion and the way code is built: the current block, bindings
emitted into it, blocks finished into continuations, fresh names, the handler in scope.

`Converter` (`convert.py`) is a `Builder` that converts expressions; the conversion of a match
(`match.py`) and the comparison functions (`compare.py`) build code through a `Builder` and call
back into expression conversion through its `value`, `tail` and `exception`, so that neither
imports the converter (and `convert` imports them: no cycle).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cpsc.cps import ir
from cpsc.cps.names import NameSupply
from cpsc.support.scope import Scope
from cpsc.syntax import ast
from cpsc.types.datatypes import DataTypes
from cpsc.types.types import EXNID, TCon


@dataclass
class _Block:
    label: str
    function: str
    params: tuple[ir.Var, ...]
    bindings: list[ir.Binding]


class Builder:
    def __init__(self, datatypes: DataTypes) -> None:
        self.datatypes = datatypes
        self.names = NameSupply()
        self.functions: dict[str, ir.Function] = {}
        self.conts: dict[str, ir.Cont] = {}
        # The comparison function made for each type (and totality), on first use (`compare.py`).
        self.comparisons: dict[tuple[TCon, bool], str] = {}
        self.block: _Block | None = None
        self.current_function = ""
        # The continuation an exception raised here goes to: a `try`'s handler, or None for
        # the current function's `exn` (out of the function)
        self.handler: str | None = None

    # ---------------------------------------------------------------- blocks
    def start(self, label: str, params: tuple[ir.Var, ...] = (), function: str | None = None) -> None:
        assert self.block is None, "previous block not finished"
        owner = function if function is not None else self.current_function
        if function is not None:  # a function's entry: no handler of the code around it applies
            self.handler = None
        self.block = _Block(label, owner, params, [])
        self.current_function = owner

    def finish(self, terminator: ir.Terminator) -> None:
        block = self.block
        assert block is not None
        self.conts[block.label] = ir.Cont(block.label, block.function, block.params,
                                          tuple(block.bindings), terminator)
        self.block = None

    def emit(self, hint: str, type_: TCon, value: ir.Value) -> ir.Var:
        assert self.block is not None
        var = ir.Var(self.names.fresh(hint), type_)
        self.block.bindings.append(ir.Binding(var, value))
        return var

    def suspended(self) -> tuple[_Block | None, str, str | None]:
        """Set the current block aside (to build another function or region); the handler in
        scope stays (a region is in the same function) until `start` enters a function's entry."""
        saved = (self.block, self.current_function, self.handler)
        self.block = None
        return saved

    def resume(self, saved: tuple[_Block | None, str, str | None]) -> None:
        self.block, self.current_function, self.handler = saved

    def raise_to_handler(self, exception: ir.Operand) -> None:
        """`raise`: a jump to the handler in scope, or out of the function (finishes the block)."""
        target: ir.Target = self.handler if self.handler is not None else ir.Exn(self.current_function)
        self.finish(ir.Jump(target, (exception,)))

    # ---------------------------------------------------------------- expressions (`Converter`)
    def value(self, expr: ast.Expr, env: Scope[Any]) -> ir.Operand:
        """Convert `expr` in the current block; its value."""
        raise NotImplementedError

    def tail(self, expr: ast.Expr, target: ir.Target, env: Scope[Any]) -> None:
        """Convert `expr` so that its value is passed to `target`; this finishes the block."""
        raise NotImplementedError

    def unless(self, ok: ir.Operand, exception: Callable[[], ir.Operand]) -> None:
        """Carry on in a new block if `ok`, else raise the exception made by `exception`."""
        carry_on, fail = self.names.fresh("ok"), self.names.fresh("fail")
        self.finish(ir.Branch(ok, carry_on, fail))
        self.start(fail)
        self.raise_to_handler(exception())
        self.start(carry_on)

    def exception_identity(self, key: str, env: Scope[Any] | None) -> ir.Operand:
        """An exception's identity: the one a local exception's `let exception` made, bound
        in its body, or the declared one."""
        local = None if env is None else env.get(ast.local_exception_identity(key))
        if local is not None:
            return local  # type: ignore[no-any-return]
        return ir.Const(self.datatypes.constructors[key].exception, EXNID)

    def exception(self, name: str, args: tuple[ir.Operand, ...] = ()) -> ir.Operand:
        """A value of one of OCaml's predefined exceptions (declared by the prelude)."""
        raise NotImplementedError

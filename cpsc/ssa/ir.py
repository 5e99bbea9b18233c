"""Basic-block SSA. A function is a list of blocks; a block's phis come first, then
instructions, then one terminator; `preds` is the explicit CFG, kept coherent with terminators.
Values are CPS variables (unique names), printed `%name`; instructions reuse the CPS value nodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from cpsc.cps import ir as cps

Operand = cps.Operand


@dataclass(frozen=True, slots=True)
class Phi:
    var: cps.Var
    inputs: tuple[tuple[str, Operand], ...]  # (predecessor label, value on that edge)


@dataclass(frozen=True, slots=True)
class Return:
    value: Operand


@dataclass(frozen=True, slots=True)
class Goto:
    target: str


@dataclass(frozen=True, slots=True)
class CondBr:
    condition: Operand
    if_true: str
    if_false: str


@dataclass(frozen=True, slots=True)
class Invoke:
    """A call with a handler ends its block (as LLVM's `invoke`): `binding` defines its result
    in `normal`, where control goes when the callee returns; when it raises, control goes to
    `unwind`, a landing block that takes the exception (`caught_exception`)."""

    binding: cps.Binding
    normal: str
    unwind: str


@dataclass(frozen=True, slots=True)
class Raise:
    """Raise `value` out of the function (`jump (exn f)(value)` in CPS)."""

    value: Operand


Terminator = Union[Return, Goto, CondBr, cps.Switch, cps.TailCall, cps.TailApply, Invoke, Raise]


@dataclass(frozen=True, slots=True)
class Block:
    label: str
    phis: tuple[Phi, ...]
    instructions: tuple[cps.Binding, ...]
    terminator: Terminator


@dataclass(frozen=True, slots=True)
class Function:
    name: str
    params: tuple[cps.Var, ...]
    result: cps.Type
    blocks: tuple[Block, ...]  # the first is the entry
    preds: tuple[tuple[str, tuple[str, ...]], ...]  # the CFG: block -> predecessors
    noinline: bool = False  # never inlined into a caller (see `cpsc.cps.ir.Function`)
    full: str | None = None  # a closure code function's entry taking all arguments (`cpsc.cps.ir.Function`)

    def predecessors(self) -> dict[str, tuple[str, ...]]:
        return dict(self.preds)


@dataclass(frozen=True, slots=True)
class Module:
    functions: tuple[Function, ...]
    main: str
    globals: tuple[tuple[str, cps.Type], ...] = ()  # see `cpsc.cps.program.Program.globals`


def block_successors(term: Terminator) -> list[str]:
    if isinstance(term, Goto):
        return [term.target]
    if isinstance(term, CondBr):
        return [term.if_true, term.if_false]
    if isinstance(term, cps.Switch):
        return term.labels
    if isinstance(term, Invoke):
        return [term.normal, term.unwind]
    return []


def terminator_operands(term: Terminator) -> tuple[Operand, ...]:
    if isinstance(term, (Return, Raise)):
        return (term.value,)
    if isinstance(term, Invoke):
        return cps.value_operands(term.binding.value)
    if isinstance(term, CondBr):
        return (term.condition,)
    if isinstance(term, cps.Switch):
        return (term.value,)
    if isinstance(term, cps.TailApply):
        return (term.closure,) + term.args
    if isinstance(term, cps.TailCall):
        return term.args
    return ()

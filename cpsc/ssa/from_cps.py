"""CPS (closure-converted) to basic-block SSA: each continuation becomes a block, its parameters
phis, `jump k(args)` a goto plus one phi input per parameter, `jump (ret f)(v)` a return,
`jump (exn f)(e)` a raise. A call with a handler ends its block (an `invoke`); the rest of the
continuation follows in a block of its own, and the exceptional edge goes through a landing
block that takes the exception and passes it to the handler's phi.
Branch targets take no arguments, so every phi input sits on an edge of its own (no critical
edge into a block with phis); the SSA verifier checks it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from cpsc.cps import ir as cps
from cpsc.cps.program import Program, function_conts
from cpsc.ssa import ir
from cpsc.types.types import EXN


def _split_at_handled_calls(cont: cps.Cont, fresh: Callable[[str], str]) -> list[_Piece]:
    """The blocks of one continuation: each but the last ends in an invoke (with the handler
    its exception goes to); the last has the rest of the bindings and no terminator yet."""
    out: list[_Piece] = []
    label, start = cont.label, 0
    for i, b in enumerate(cont.bindings):
        handler = cps.handler_of(b.value)
        if handler is None:
            continue
        assert isinstance(b.value, (cps.Call, cps.Apply))
        value = dataclasses.replace(b.value, handler=None)
        normal = fresh(f"{cont.label}.returned")
        invoke = ir.Invoke(cps.Binding(b.var, value), normal, fresh(f"{cont.label}.landing"))
        out.append(_Piece(label, cont.bindings[start:i], invoke, handler))
        label, start = normal, i + 1
    out.append(_Piece(label, cont.bindings[start:], None, None))
    return out


@dataclass(frozen=True)
class _Piece:
    label: str
    instructions: tuple[cps.Binding, ...]
    invoke: ir.Invoke | None
    handler: str | None


class _FunctionConversion:
    def __init__(self, program: Program, name: str) -> None:
        self.program = program
        self.name = name
        self.order = function_conts(program, name)
        self.taken = set(self.order)
        self.counters: dict[str, int] = {}
        self.inputs: dict[str, list[tuple[str, tuple[cps.Operand, ...]]]] = {label: [] for label in self.order}
        self.blocks: dict[str, tuple[tuple[cps.Binding, ...], ir.Terminator]] = {}  # in order

    def fresh(self, hint: str) -> str:
        n = self.counters.get(hint, 0)
        candidate = hint if n == 0 else f"{hint}{n}"
        while candidate in self.taken:
            n += 1
            candidate = f"{hint}{n}"
        self.counters[hint] = n + 1
        self.taken.add(candidate)
        return candidate

    def add(self, label: str, instructions: tuple[cps.Binding, ...], term: ir.Terminator) -> None:
        self.blocks[label] = (instructions, term)

    def convert(self) -> ir.Function:
        for cont_label in self.order:
            self.continuation(self.program.cont_table[cont_label])
        params = {label: self.program.cont_table[label].params for label in self.order}
        out = []
        for label, (bindings, block_term) in self.blocks.items():
            phis = tuple(ir.Phi(p, tuple((pred, args[i]) for pred, args in self.inputs[label]))
                         for i, p in enumerate(params.get(label, ())))
            out.append(ir.Block(label, phis, bindings, block_term))
        preds: dict[str, list[str]] = {b.label: [] for b in out}
        for b in out:
            for s in ir.block_successors(b.terminator):
                preds[s].append(b.label)
        f = self.program.function_table[self.name]
        return ir.Function(self.name, f.params, f.result, tuple(out),
                           tuple((k, tuple(v)) for k, v in preds.items()), f.noinline, f.full)

    def continuation(self, cont: cps.Cont) -> None:
        *handled, last = _split_at_handled_calls(cont, self.fresh)
        for piece in handled:
            assert piece.invoke is not None and piece.handler is not None
            self.add(piece.label, piece.instructions, piece.invoke)
            caught = cps.Var(self.fresh(f"{piece.invoke.unwind}.exn"), EXN)
            self.add(piece.invoke.unwind, (cps.Binding(caught, cps.Prim("caught_exception", ())),),
                     ir.Goto(piece.handler))
            self.inputs[piece.handler].append((piece.invoke.unwind, (caught,)))
        self.add(last.label, last.instructions, self.terminator(last.label, cont.terminator))

    def terminator(self, label: str, term: cps.Terminator) -> ir.Terminator:
        if isinstance(term, cps.Jump):
            if isinstance(term.target, cps.Ret):
                return ir.Return(term.args[0])
            if isinstance(term.target, cps.Exn):
                return ir.Raise(term.args[0])
            self.inputs[term.target].append((label, term.args))
            return ir.Goto(term.target)
        if isinstance(term, cps.Branch):
            # Branch targets take no arguments (the verifier's rule), so no edge carries a phi
            # input out of a two-way block: no critical edge needs splitting.
            return ir.CondBr(term.condition, term.if_true, term.if_false)
        assert isinstance(term, (cps.TailCall, cps.TailApply, cps.Switch))
        return term  # a switch's targets, as a branch's, take no arguments


def convert_function(program: Program, name: str) -> ir.Function:
    return _FunctionConversion(program, name).convert()


def to_ssa(program: Program) -> ir.Module:
    """Requires a closed program (after `closure_convert`): no callc, no free variables."""
    assert program.closed, "closure-convert first"
    return ir.Module(tuple(convert_function(program, name) for name in sorted(program.function_table)), program.main,
                     tuple(sorted(program.globals.items())))

"""What any pass asks of a program's code, beyond the IR's own tables: fresh names, the
arguments each continuation receives, one function's control-flow graph with its dominators,
free variables, immutable fields, constant folding; and replacing values program-wide."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial

from cpsc.cps import ir
from cpsc.cps.dominance import Dominators
from cpsc.cps.names import NameSupply
from cpsc.cps.primops import PRIMOPS, evaluate, is_pure, never_returns
from cpsc.cps.program import Program, function_conts
from cpsc.cps.rewrite import cont_definitions, cont_uses, rename_program
from cpsc.types.types import BOOL, EXNID


def free_variables(program: Program, functions: Iterable[str],
                   conts_of: Callable[[str], list[str]] | None = None) -> set[str]:
    """The variables the code of `functions` uses and does not define. Of a function and the
    functions nested in it, these are what it takes from the functions it is nested in (its
    lexically free variables); closure conversion's `captured_variables` are another thing."""
    defined: set[str] = set()
    used: set[str] = set()
    for f in functions:
        defined.update(p.name for p in program.function_table[f].params)
        for label in (conts_of or partial(function_conts, program))(f):
            cont = program.cont_table[label]
            defined.update(v.name for v in cont_definitions(cont))
            used.update(cont_uses(cont))
    return used - defined


def name_supply(program: Program) -> NameSupply:
    """Fresh names that clash with no function, continuation, return point or variable."""
    taken: set[str] = set(program.function_table)
    taken.update(program.cont_table)
    for f in program.function_table.values():
        taken.update(p.name for p in f.params)
    for cont in program.cont_table.values():  # most continuations live through many passes:
        taken.update(cont.introduced_names)  # their names, gathered once, are one C-level update
    return NameSupply(taken)


def incoming_arguments(program: Program) -> dict[str, list[tuple[ir.Operand, ...]] | None]:
    """For each continuation, the argument tuples of all jumps to it (None: also a branch/entry
    target, or a handler, whose parameter an exception from a call may also give)."""
    incoming: dict[str, list[tuple[ir.Operand, ...]] | None] = {label: [] for label in program.cont_table}
    for f in program.function_table.values():
        incoming[f.entry] = None
    for cont in program.cont_table.values():
        for target, args in cont.memo("analysis.transfers", _transfers):
            if args is None:
                incoming[target] = None
            elif (jumps := incoming.get(target)) is not None:
                jumps.append(args)
    return incoming


def _transfers(cont: ir.Cont) -> tuple[tuple[str, tuple[ir.Operand, ...] | None], ...]:
    """The continuation's transfers of control to labels, in order, each with its arguments
    (None: a handler's, a branch's or a switch's, which take what they are given otherwise)."""
    out: list[tuple[str, tuple[ir.Operand, ...] | None]] = []
    for b in cont.bindings:
        handler = ir.handler_of(b.value)
        if handler is not None:
            out.append((handler, None))
        if isinstance(b.value, ir.CallC):
            out.append((b.value.target, b.value.args))
    term = cont.terminator
    if isinstance(term, ir.Jump) and isinstance(term.target, str):
        out.append((term.target, term.args))
    elif isinstance(term, ir.Branch):
        out.extend([(term.if_true, None), (term.if_false, None)])
    elif isinstance(term, ir.Switch):
        out.extend((label, None) for label in term.labels)
    return tuple(out)


class FunctionGraph:
    """One function's control-flow graph of continuations: `labels` in reverse postorder (the
    entry first), `preds`, `dominators` and the dominator tree (`children`). The edges are
    those of `ir.successors`: jumps, branches, switches, callc targets and call handlers."""

    def __init__(self, program: Program, function: str) -> None:
        self.program = program
        self.labels = function_conts(program, function)
        self.preds: dict[str, list[str]] = {label: [] for label in self.labels}
        for label in self.labels:
            for successor in ir.successors(program.cont_table[label]):
                if successor in self.preds:
                    self.preds[successor].append(label)
        self.dominators = Dominators(self.labels, self.preds)
        self.children: dict[str, list[str]] = {label: [] for label in self.labels}
        for label in self.labels[1:]:
            self.children[self.dominators.idom[label]].append(label)


def replace_values(program: Program, labels: list[str], renaming: dict[str, ir.Operand],
                   terminators: dict[str, ir.Terminator] | None = None) -> Program:
    """The program with the bindings of the variables `renaming` names dropped from the
    continuations `labels` (where they are bound), their uses renamed program-wide, and the
    terminators `terminators` gives in place of the old ones."""
    terminators = terminators or {}
    changed = {}
    for cont in map(program.cont_table.__getitem__, labels):
        kept = tuple(b for b in cont.bindings if b.var.name not in renaming)
        terminator = terminators.get(cont.label, cont.terminator)
        if len(kept) != len(cont.bindings) or terminator is not cont.terminator:
            changed[cont.label] = ir.Cont(cont.label, cont.function, cont.params, kept, terminator)
    return rename_program(program.with_conts(changed), renaming)


def first_exit(cont: ir.Cont) -> int:
    """The index of the first binding control can leave the continuation from (a handled call,
    a callc), or the number of bindings when there is none."""
    for i, b in enumerate(cont.bindings):
        if isinstance(b.value, ir.CallC) or ir.handler_of(b.value) is not None:
            return i
    return len(cont.bindings)


ImmutableFields = frozenset[tuple[ir.Type, int]]


def immutable_fields(program: Program) -> ImmutableFields:
    """The fields, a data type and an index, that the program's blocks of the type have and no
    `set_field` ever stores to: a load of one is pure (the immutable fields of a record with
    mutable ones too, a ref never assigned)."""
    built: set[tuple[ir.Type, int]] = set()
    stored: set[tuple[ir.Type, int]] = set()
    for cont in program.cont_table.values():
        for b in cont.bindings:
            if isinstance(b.value, ir.MakeBlock):
                built.update((b.var.type, index) for index in range(len(b.value.items)))
            elif isinstance(b.value, ir.SetField):
                stored.add((b.value.record.type, b.value.index))
    return frozenset(built - stored)


def fold_primitive(v: ir.Value, result_type: ir.Type) -> ir.Const | None:
    """The constant a pure primitive of constant operands evaluates to (None: not foldable)."""
    if isinstance(v, ir.Prim) and v.op == "phys_eq" and all(isinstance(a, ir.Const) and a.type == EXNID
                                                            for a in v.args):
        return ir.Const(v.args[0].value == v.args[1].value, BOOL)  # type: ignore[union-attr]
    if not (isinstance(v, ir.Prim) and v.op in PRIMOPS and is_pure(v.op) and not never_returns(v.op)
            and all(isinstance(a, ir.Const) for a in v.args)):
        return None
    try:
        return ir.Const(evaluate(v.op, [a.value for a in v.args], []), result_type)  # type: ignore[union-attr]
    except Exception:  # noqa: BLE001 - a fold that fails (division by zero) is simply not done
        return None

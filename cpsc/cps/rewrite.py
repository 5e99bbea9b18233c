"""Utilities every pass shares: renaming operands and labels, the census of uses, definitions,
the functions a program still uses."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Container, Iterable, Mapping
from itertools import chain

from cpsc.cps import ir
from cpsc.cps.program import Program


def rename_operand(o: ir.Operand, renaming: Mapping[str, ir.Operand]) -> ir.Operand:
    return renaming.get(o.name, o) if isinstance(o, ir.Var) else o


def _ops(os: tuple[ir.Operand, ...], renaming: Mapping[str, ir.Operand]) -> tuple[ir.Operand, ...]:
    return tuple(rename_operand(o, renaming) for o in os)


def rename_value(v: ir.Value, renaming: Mapping[str, ir.Operand]) -> ir.Value:
    if isinstance(v, ir.Prim):
        return ir.Prim(v.op, _ops(v.args, renaming))
    if isinstance(v, ir.Call):
        return ir.Call(v.function, _ops(v.args, renaming), v.handler, v.loc)
    if isinstance(v, ir.Apply):
        return ir.Apply(rename_operand(v.closure, renaming), _ops(v.args, renaming), v.handler, v.loc)
    if isinstance(v, ir.MakeClosure):
        return ir.MakeClosure(v.function, _ops(v.captured, renaming), v.full)
    if isinstance(v, ir.MakeTuple):
        return ir.MakeTuple(_ops(v.items, renaming))
    if isinstance(v, ir.Field):
        return ir.Field(rename_operand(v.record, renaming), v.index)
    if isinstance(v, ir.MakeBlock):
        return ir.MakeBlock(_ops(v.items, renaming), v.mutable)
    if isinstance(v, ir.SetField):
        return ir.SetField(rename_operand(v.record, renaming), v.index, rename_operand(v.value, renaming))
    if isinstance(v, ir.GlobalLoad):
        return v
    if isinstance(v, ir.GlobalStore):
        return ir.GlobalStore(v.name, rename_operand(v.value, renaming))
    return ir.CallC(v.target, _ops(v.args, renaming), v.ret)


def rename_terminator(t: ir.Terminator, renaming: Mapping[str, ir.Operand]) -> ir.Terminator:
    if isinstance(t, ir.Jump):
        return ir.Jump(t.target, _ops(t.args, renaming))
    if isinstance(t, ir.Branch):
        return ir.Branch(rename_operand(t.condition, renaming), t.if_true, t.if_false)
    if isinstance(t, ir.Switch):
        return ir.Switch(rename_operand(t.value, renaming), t.cases, t.default)
    if isinstance(t, ir.TailCall):
        return ir.TailCall(t.function, _ops(t.args, renaming), t.loc)
    return ir.TailApply(rename_operand(t.closure, renaming), _ops(t.args, renaming), t.loc)


def relabel_terminator(term: ir.Terminator, relabel: Callable[[str], str]) -> ir.Terminator:
    """`term` with each continuation it goes to (a jump's, a branch's, a switch's: in that order,
    the default last) replaced by `relabel(label)`; `term` itself when none changes."""
    if isinstance(term, ir.Jump):
        if isinstance(term.target, str):
            target = relabel(term.target)
            return term if target == term.target else ir.Jump(target, term.args)
        return term
    if isinstance(term, ir.Branch):
        if_true, if_false = relabel(term.if_true), relabel(term.if_false)
        if if_true == term.if_true and if_false == term.if_false:
            return term
        return ir.Branch(term.condition, if_true, if_false)
    if isinstance(term, ir.Switch):
        cases = tuple((value, relabel(label)) for value, label in term.cases)
        default = relabel(term.default)
        if cases == term.cases and default == term.default:
            return term
        return ir.Switch(term.value, cases, default)
    return term


def rename_program(program: Program, renaming: Mapping[str, ir.Operand]) -> Program:
    """Replace uses of variables program-wide (chains `a -> b -> c` resolved); only the
    continuations that use a renamed variable are rebuilt."""
    if not renaming:
        return program
    # resolve chains a -> b -> c
    def final(o: ir.Operand) -> ir.Operand:
        seen = 0
        while isinstance(o, ir.Var) and o.name in renaming and seen < 1000:
            o, seen = renaming[o.name], seen + 1
        return o
    resolved = {name: final(o) for name, o in renaming.items()}
    changed = {label: rename_cont(c, resolved) for label, c in program.cont_table.items()
               if not resolved.keys().isdisjoint(cont_uses(c))}
    return program.with_conts(changed)


def rename_cont(cont: ir.Cont, renaming: Mapping[str, ir.Operand]) -> ir.Cont:
    """Replace uses of variables (not definitions) according to `renaming`."""
    if not renaming or renaming.keys().isdisjoint(cont.used_names):
        return cont
    # Only what uses a renamed variable is rebuilt (a smaller IR sweeps faster).
    bindings = tuple(b if renaming.keys().isdisjoint(ir.uses_of_value(b.value))
                     else ir.Binding(b.var, rename_value(b.value, renaming)) for b in cont.bindings)
    term = cont.terminator
    if not renaming.keys().isdisjoint(ir.terminator_uses(term)):
        term = rename_terminator(term, renaming)
    return ir.Cont(cont.label, cont.function, cont.params, bindings, term)


def cont_uses(cont: ir.Cont) -> tuple[str, ...]:
    return cont.used_names


def cont_definitions(cont: ir.Cont) -> list[ir.Var]:
    return list(cont.params) + [b.var for b in cont.bindings]


def use_census(program: Program) -> Counter[str]:
    """How many times each variable is used, program-wide."""
    # One count over every continuation's uses (one C loop, not a call of `update` per continuation)
    return Counter(chain.from_iterable([cont.used_names for cont in program.cont_table.values()]))


def label_census(program: Program) -> Counter[str]:
    """How many control transfers name each continuation label (entries count once)."""
    counts: Counter[str] = Counter(f.entry for f in program.function_table.values())
    counts.update(chain.from_iterable([cont.successor_labels for cont in program.cont_table.values()]))
    return counts


def function_references(program: Program) -> Counter[str]:
    """How many calls, tail calls and closures name each function."""
    counts: Counter[str] = Counter([program.main])
    for cont in program.cont_table.values():
        for b in cont.bindings:
            if isinstance(b.value, (ir.Call, ir.MakeClosure)):
                counts[b.value.function] += 1
            if isinstance(b.value, ir.MakeClosure) and b.value.full:
                counts[b.value.full] += 1
        if isinstance(cont.terminator, ir.TailCall):
            counts[cont.terminator.function] += 1
    return counts


def split_callc(program: Program) -> Program:
    """Turn `let x = callc k(a) ret r; rest` into `jump k(a)` plus a continuation `r(x) = rest`:
    the return point becomes an ordinary block whose parameter is the phi of the result."""
    changed: dict[str, ir.Cont] = {}
    for cont in program.cont_table.values():
        pieces = split_cont(cont)
        if len(pieces) > 1:
            changed.update((piece.label, piece) for piece in pieces)
    return program.with_conts(changed) if changed else program


def split_cont(cont: ir.Cont) -> list[ir.Cont]:
    """`cont` split at each of its callc (see `split_callc`): itself when it has none."""
    pieces = []
    index = _first_callc(cont)
    while index is not None:
        binding = cont.bindings[index]
        callc = binding.value
        assert isinstance(callc, ir.CallC)
        pieces.append(ir.Cont(cont.label, cont.function, cont.params, cont.bindings[:index],
                              ir.Jump(callc.target, callc.args)))
        cont = ir.Cont(callc.ret, cont.function, (binding.var,), cont.bindings[index + 1:], cont.terminator)
        index = _first_callc(cont)
    pieces.append(cont)
    return pieces


def _first_callc(cont: ir.Cont) -> int | None:
    return next((i for i, b in enumerate(cont.bindings) if isinstance(b.value, ir.CallC)), None)


def live_functions(roots: Iterable[str], named: Callable[[str], Iterable[str]], functions: Container[str]) -> set[str]:
    """The functions the `roots` reach, where `named(f)` are the functions the live code of `f`
    names (calls, tail calls, closures made); names not in `functions` are left out. (Counting
    references instead would keep a recursive function that only it names, or that only dead
    code names, and then its parent could go while it stays.)"""
    live = set(roots)
    work = list(live)
    while work:
        for g in named(work.pop()):
            if g not in live and g in functions:
                live.add(g)
                work.append(g)
    return live

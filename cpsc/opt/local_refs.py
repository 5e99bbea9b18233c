"""`local_refs`: a `ref` that does not escape its function becomes continuation parameters
(seed 002's mem2reg, MLton's localRef).

    cont f.entry() =                           cont f.entry() =
      let s: ref<int> = block mutable(0)         jump loop(0, 0)
      jump loop(0)                             cont loop(i: int, s.v: int) =
    cont loop(i: int) =                          let t: int = add_int(s.v, i)
      let v: int = field s #0           =>       let i.1: int = add_int(i, 1)
      let t: int = add_int(v, i)                 let c: bool = lt_int(i.1, n)
      let u: unit = set_field s #0 t             br c, ...
      let i.1: int = add_int(i, 1)
      let c: bool = lt_int(i.1, n)
      br c, ...

A ref escapes when it is used other than as the cell of a load (`field r #0`) or a store
(`set_field r #0 v`) in its own function: passed to a call, stored, captured by a nested
function, compared. One that does not is removed: a load becomes the value last stored on
the way to it, a store becomes nothing, and where paths with different stores meet (the
iterated dominance frontier of the stores, as in SSA construction) the continuation gets a
parameter that every jump to it fills with the value it carries. A `for` loop over a ref then
carries the value in a loop parameter, a register after SSA conversion.

A branch or switch to such a continuation goes through a new continuation that jumps there
with the value (the edge is split). A ref is left alone when a handler would need such a
parameter: a handler takes the exception only. `simplify` afterwards drops the parameters no
load needs.

Relies on: a verified input (the definition of the ref dominates its uses) and unique names.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from cpsc.cps import ir
from cpsc.cps.analysis import FunctionGraph
from cpsc.cps.names import NameSupply
from cpsc.cps.program import Program
from cpsc.cps.rewrite import relabel_terminator, rename_program
from cpsc.opt.context import PassContext
from cpsc.types.types import UNIT

Stats = Counter[str]
UNIT_VALUE = ir.Const(None, UNIT)


def _is_cell_use(value: ir.Value, name: str) -> bool:
    """Whether every use of `name` in `value` is as the cell of a load or a store."""
    if isinstance(value, ir.Field):
        return value.index == 0
    if isinstance(value, ir.SetField):
        return value.index == 0 and not (isinstance(value.value, ir.Var) and value.value.name == name)
    return False


@dataclass(frozen=True)
class LocalRef:
    """A ref that does not escape: its variable, the continuation defining it, where it is used."""

    var: ir.Var
    definition: str
    used_in: frozenset[str]


def local_refs_candidates(program: Program) -> dict[str, LocalRef]:
    """The refs that do not escape, by name, in the order of their names (promoted in this
    order, they get their parameters in it: the program's tables would give the order of
    their hashes, which changes from run to run)."""
    defined: dict[str, tuple[str, ir.Binding]] = {}
    used_in: dict[str, set[str]] = {}
    for cont in program.cont_table.values():
        for b in cont.bindings:
            if isinstance(b.value, ir.MakeBlock) and b.value.mutable and b.var.type.name == "ref":
                defined[b.var.name] = (cont.label, b)
    escaped: set[str] = set()
    for cont in program.cont_table.values():
        for b in cont.bindings:
            for name in ir.uses_of_value(b.value):
                if name in defined:
                    used_in.setdefault(name, set()).add(cont.label)
                if name in defined and (not _is_cell_use(b.value, name)
                                        or captured(program, defined[name][0], cont)):
                    escaped.add(name)
        escaped.update(ir.terminator_uses(cont.terminator))
    return {name: LocalRef(b.var, label, frozenset(used_in.get(name, ())))
            for name, (label, b) in sorted(defined.items()) if name not in escaped}


def captured(program: Program, definition: str, use: ir.Cont) -> bool:
    """Whether a ref made in continuation `definition` and used in `use` is used by a function
    nested in its own (which reads it when called, wherever that is): then it escapes."""
    return program.cont_table[definition].function != use.function


def join_predecessors(graph: FunctionGraph, label: str) -> list[str]:
    """The reachable predecessors of `label`, a loop's back edges included: a value stored in
    the loop comes back to its header by them."""
    return [p for p in graph.preds[label] if p in graph.preds]


def dominance_frontiers(graph: FunctionGraph) -> dict[str, set[str]]:
    """Cooper, Harvey and Kennedy's walk up from each predecessor of a join."""
    frontiers: dict[str, set[str]] = {label: set() for label in graph.labels}
    for label in graph.labels[1:]:
        preds = join_predecessors(graph, label)
        if len(set(preds)) < 2:
            continue
        for p in preds:
            runner = p
            while runner != graph.dominators.idom[label]:
                frontiers[runner].add(label)
                runner = graph.dominators.idom[runner]
    return frontiers


@dataclass
class _Promotion:
    """Promote one ref: the rewritten continuations, the loads and stores renamed away.

    The value current at a continuation is None where the ref does not exist yet: a handler
    or callc target entered from the defining continuation before the ref's binding. Nothing
    there loads the ref (its binding does not dominate it), but such a continuation may still
    jump to a join that would take the ref's value: then the ref is left alone."""

    conts: dict[str, ir.Cont]
    graph: FunctionGraph
    ref: ir.Var
    definition: str
    phis: dict[str, ir.Var]
    renaming: dict[str, ir.Operand]
    names: NameSupply

    def run(self) -> bool:
        """Rewrite the continuations the ref's definition dominates (False: leave it alone)."""
        region = [label for label in self.graph.labels if self.graph.dominators.dominates(self.definition, label)]
        out: dict[str, ir.Operand | None] = {}
        at_exit: dict[tuple[str, str], ir.Operand | None] = {}  # (cont, handler or callc target) -> value
        for label in region:
            if label == self.definition:
                entry: ir.Operand | None = None
            elif label in self.phis:
                entry = self.phis[label]
            else:
                values = {at_exit.get((p, label), out[p]) for p in self.graph.preds[label] if p in out}
                if len(values) != 1:
                    return False  # two edges from one continuation bring two values
                entry = values.pop()
            out[label] = self._rewrite(label, entry, at_exit)
        try:
            for label in region:
                self._pass_to_phis(label, out, at_exit)
        except _NotYetMade:
            return False
        return True

    def note_exit(self, at_exit: dict[tuple[str, str], ir.Operand | None], edge: tuple[str, str],
                  current: ir.Operand | None) -> None:
        """The value a continuation entered from the middle of a block (a call's handler, a
        callc's target) sees: the one current at the call, not the block's last."""
        at_exit[edge] = current

    def _rewrite(self, label: str, current: ir.Operand | None,
                 at_exit: dict[tuple[str, str], ir.Operand | None]) -> ir.Operand | None:
        cont = self.conts[label]
        kept = []
        for b in cont.bindings:
            v = b.value
            if b.var == self.ref:
                assert isinstance(v, ir.MakeBlock)
                current = v.items[0]
            elif isinstance(v, ir.Field) and v.record == self.ref:
                assert current is not None, "a load the ref's binding does not dominate"
                self.renaming[b.var.name] = current
            elif isinstance(v, ir.SetField) and v.record == self.ref:
                current = v.value
                self.renaming[b.var.name] = UNIT_VALUE
            else:
                exit_to = v.target if isinstance(v, ir.CallC) else ir.handler_of(v)
                if exit_to is not None:
                    self.note_exit(at_exit, (label, exit_to), current)
                kept.append(b)
        params = cont.params + ((self.phis[label],) if label in self.phis else ())
        self.conts[label] = ir.Cont(label, cont.function, params, tuple(kept), cont.terminator)
        return current

    def _pass_to_phis(self, label: str, out: dict[str, ir.Operand | None],
                      at_exit: dict[tuple[str, str], ir.Operand | None]) -> None:
        cont = self.conts[label]
        bindings = tuple(
            ir.Binding(b.var, ir.CallC(b.value.target, b.value.args + (_made(at_exit[(label, b.value.target)]),),
                                       b.value.ret))
            if isinstance(b.value, ir.CallC) and b.value.target in self.phis else b for b in cont.bindings)
        term = cont.terminator
        if isinstance(term, ir.Jump):
            if isinstance(term.target, str) and term.target in self.phis:
                term = ir.Jump(term.target, term.args + (_made(out[label]),))
        else:
            term = relabel_terminator(term, lambda target: self._edge(cont, target, out[label]))
        if bindings != cont.bindings or term is not cont.terminator:
            self.conts[label] = ir.Cont(label, cont.function, cont.params, bindings, term)


    def _edge(self, source: ir.Cont, target: str, value: ir.Operand | None) -> str:
        """`target`, or when it takes the ref's value, a new continuation that jumps there
        with `value` (branch targets take no arguments)."""
        if target not in self.phis:
            return target
        label = self.names.fresh(f"{target}.from")
        self.conts[label] = ir.Cont(label, source.function, (), (), ir.Jump(target, (_made(value),)))
        return label


class _NotYetMade(Exception):
    """A join would take the ref's value from where the ref is not made yet."""


def _made(value: ir.Operand | None) -> ir.Operand:
    if value is None:
        raise _NotYetMade
    return value


def _phi_labels(graph: FunctionGraph, frontiers: dict[str, set[str]], definition: str,
                stores: set[str]) -> set[str]:
    """The iterated dominance frontier of the stores, inside the region the ref's definition
    strictly dominates."""
    phis: set[str] = set()
    work = list(stores)
    while work:
        for label in frontiers[work.pop()]:
            if label not in phis:
                phis.add(label)
                work.append(label)
    return {label for label in phis if label != definition and graph.dominators.dominates(definition, label)}


def local_refs_with_stats(program: Program, context: PassContext | None = None) -> tuple[Program, Stats]:
    """Turn every ref that does not escape its function into continuation parameters."""
    stats: Stats = Counter()
    candidates = local_refs_candidates(program)
    if not candidates:
        return program, stats
    names = (context if context is not None else PassContext()).name_supply(program)
    by_function: dict[str, list[str]] = {}
    for name, ref in candidates.items():
        by_function.setdefault(program.cont_table[ref.definition].function, []).append(name)
    renaming: dict[str, ir.Operand] = {}
    for function, refs in by_function.items():
        for name in refs:
            graph = FunctionGraph(program, function)
            promoted = _promote(graph, names, candidates[name])
            if promoted is None:
                stats["refs kept (a handler would need their value)"] += 1
                continue
            if context is not None and not context.allow("local_refs", f"{name} in {function}"):
                break
            conts, found = promoted
            # The next ref's graph has the edges this one split.
            program = program.with_conts(conts)
            renaming.update(found)
            stats["refs made parameters"] += 1
    return rename_program(program, renaming), stats


def _promote(graph: FunctionGraph, names: NameSupply,
             local: LocalRef) -> tuple[dict[str, ir.Cont], dict[str, ir.Operand]] | None:
    """The function's continuations with `local` promoted, and the renaming of its loads and
    stores (None: it stays a ref)."""
    program = graph.program
    conts = {label: program.cont_table[label] for label in graph.labels}
    handlers = {h for label in graph.labels for b in conts[label].bindings if (h := ir.handler_of(b.value)) is not None}
    handlers.add(graph.labels[0])
    ref, definition = local.var, local.definition
    uses = list(local.used_in)
    if definition not in graph.preds or any(not graph.dominators.dominates(definition, label) for label in uses):
        return None  # used in code the definition does not dominate: unreachable, left alone
    stores = {definition} | {label for label in uses if any(
        isinstance(b.value, ir.SetField) and b.value.record == ref for b in conts[label].bindings)}
    # A handler entered from the middle of a continuation that stores may see an earlier value
    # than the continuation's end: for the placement of parameters it defines one.
    stores |= {exit_to for label in stores for b in conts[label].bindings
               if (exit_to := b.value.target if isinstance(b.value, ir.CallC) else ir.handler_of(b.value))}
    phi_labels = _phi_labels(graph, dominance_frontiers(graph), definition, stores)
    if not phi_labels.isdisjoint(handlers):
        return None
    content = ref.type.args[0]
    assert isinstance(content, ir.Type)
    phis = {label: ir.Var(names.fresh(ref.name), content) for label in sorted(phi_labels)}
    promotion = _Promotion(dict(conts), graph, ref, definition, phis, {}, names)
    if not promotion.run():
        return None
    return promotion.conts, promotion.renaming

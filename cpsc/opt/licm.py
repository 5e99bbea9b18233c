"""`licm`: loop-invariant code motion.

    cont for() =                               cont for() =
      jump for_body(0)                           let t.3: int = mul_int(k, k)
    cont for_body(i: int) =                      jump for_body(0)
      let t.2: int = array_unsafe_get(a, i) =>  cont for_body(i: int) =
      let t.3: int = mul_int(k, k)               let t.2: int = array_unsafe_get(a, i)
      let t.4: int = mul_int(t.2, t.3)           let t.4: int = mul_int(t.2, t.3)
      ...                                        ...
      jump for_body(i.1)                         jump for_body(i.1)

A loop is found from its back edges (a jump to a continuation that dominates the jumping one:
the loop's header); its body is every continuation that reaches a back edge without passing
the header. A value in the body is invariant when it is pure and safe to evaluate early, and
its operands are defined outside the loop or are themselves invariant. Invariant values move,
in order, to the end of the header's immediate dominator, which every entry into the loop
passes. Inner loops are done first and the pass repeats, so a value leaves every loop it does
not depend on.

Safe to evaluate early (speculatively: the loop may run zero times, the value may have been on
a path not taken) are pure primitives that cannot fail, and loads from tuples and of fields
no `set_field` stores to, where every value of the type is a block with that field (records,
single-constructor types; a record's immutable fields beside its mutable ones); never a load
of a field that is stored to, which a store in the loop could change.

Relies on: a verified input (definitions dominate uses, so an operand defined outside the loop
dominates the header) and unique names.
"""

from __future__ import annotations

from collections import Counter

from cpsc.cps import ir
from cpsc.cps.analysis import FunctionGraph, first_exit, immutable_fields
from cpsc.cps.primops import is_pure, never_returns
from cpsc.cps.program import Program, function_conts
from cpsc.cps.rewrite import cont_definitions
from cpsc.opt.context import PassContext

Stats = Counter[str]

# Pure, but only meaningful once a test has passed: the conversion checks first.
PARTIAL = frozenset({"int_of_string", "float_of_string", "string_unsafe_get"})
MAX_ROUNDS = 8


def block_fields(program: Program) -> frozenset[tuple[ir.Type, int]]:
    """The immutable fields (`immutable_fields`) that every value of their type has: the type's
    values are all blocks (types with constant constructors, whose values may be immediates,
    are left out) and the index is below the fewest fields a block of it has."""
    fields: dict[ir.Type, int] = {}
    immediates: set[ir.Type] = set()
    for cont in program.cont_table.values():
        for b in cont.bindings:
            if isinstance(b.value, ir.MakeBlock):
                fields[b.var.type] = min(fields.get(b.var.type, len(b.value.items)), len(b.value.items))
            elif isinstance(b.value, ir.Prim) and b.value.op == "immediate":
                immediates.add(b.var.type)
    return frozenset((t, index) for t, index in immutable_fields(program)
                     if t not in immediates and index < fields[t])


def hoistable(value: ir.Value, blocks: frozenset[tuple[ir.Type, int]]) -> bool:
    """Whether `value` may be computed before the loop instead of in it: a pure primitive that
    cannot fail, or a load of a slot every block of its type has (`blocks`), so that taking it
    early on a path that would not have taken it cannot fault."""
    if isinstance(value, ir.Prim):
        return is_pure(value.op) and not never_returns(value.op) and value.op not in PARTIAL
    if isinstance(value, ir.Field):
        record_type = value.record.type
        return record_type.name == "*" or (record_type, value.index) in blocks
    return False


def _may_loop(program: Program, function: str) -> bool:
    """Whether a continuation of `function` jumps to one at or before it in reverse postorder.
    A loop's back edge does (its target dominates its source), so a function without such an
    edge has no loop, and needs no dominator tree to tell."""
    labels = function_conts(program, function)
    position = {label: i for i, label in enumerate(labels)}
    table = program.cont_table
    return any(position.get(successor, i + 1) <= i
               for i, label in enumerate(labels) for successor in table[label].successor_labels)


def natural_loops(graph: FunctionGraph) -> dict[str, set[str]]:
    """Each loop header's body (the header included), headers of inner loops last in reverse
    postorder: callers visit them in reverse to do inner loops first."""
    loops: dict[str, set[str]] = {}
    for label in graph.labels:
        for successor in ir.successors(graph.program.cont_table[label]):
            if successor in graph.preds and graph.dominators.dominates(successor, label):
                body = loops.setdefault(successor, {successor})
                work = [label]
                while work:
                    node = work.pop()
                    if node not in body:
                        body.add(node)
                        work.extend(graph.preds[node])
    order = {label: i for i, label in enumerate(graph.labels)}
    return dict(sorted(loops.items(), key=lambda item: order[item[0]]))


def defined_in(conts: dict[str, ir.Cont], body: set[str]) -> set[str]:
    """The variables a loop defines, which a value using one cannot leave it: its continuations'
    parameters (a loop's phis change from one iteration to the next) and bindings."""
    return {v.name for label in body for v in cont_definitions(conts[label])}


def _hoist_loop(conts: dict[str, ir.Cont], graph: FunctionGraph, header: str, body: set[str],
                blocks: frozenset[tuple[ir.Type, int]], stats: Stats) -> bool:
    """Move the loop's invariant values to the end of the header's immediate dominator."""
    preheader = graph.dominators.idom.get(header)
    if preheader is None or first_exit(conts[preheader]) < len(conts[preheader].bindings):
        return False
    in_loop = defined_in(conts, body)
    hoisted: list[ir.Binding] = []
    for label in graph.labels:
        if label not in body:
            continue
        cont = conts[label]
        kept = []
        for b in cont.bindings:
            if hoistable(b.value, blocks) and in_loop.isdisjoint(ir.uses_of_value(b.value)):
                hoisted.append(b)
                in_loop.discard(b.var.name)
            else:
                kept.append(b)
        if len(kept) != len(cont.bindings):
            conts[label] = ir.Cont(label, cont.function, cont.params, tuple(kept), cont.terminator)
    if not hoisted:
        return False
    target = conts[preheader]
    conts[preheader] = ir.Cont(preheader, target.function, target.params, target.bindings + tuple(hoisted),
                               target.terminator)
    stats["values hoisted"] += len(hoisted)
    return True


def licm_with_stats(program: Program, context: PassContext | None = None) -> tuple[Program, Stats]:
    """Hoist loop-invariant pure values out of every loop (see the module docstring)."""
    stats: Stats = Counter()
    blocks: frozenset[tuple[ir.Type, int]] | None = None  # asked for only once a loop is found
    for function in program.function_table:
        if not _may_loop(program, function):
            continue
        for _ in range(MAX_ROUNDS):
            graph = FunctionGraph(program, function)
            loops = natural_loops(graph)
            if not loops:
                break
            conts = {label: program.cont_table[label] for label in graph.labels}
            blocks = block_fields(program) if blocks is None else blocks
            moved = False
            for header in reversed(loops):
                if _hoist_loop(conts, graph, header, loops[header], blocks, stats):
                    moved = True
            if not moved or context is not None and not context.allow("licm", f"loops of {function}"):
                break
            program = program.with_conts(conts)
    return program, stats

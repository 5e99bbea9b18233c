"""`loads`: heap value numbering (seed 004's field maps): loads of mutable places that are
already known.

    cont f.entry() =                             cont f.entry() =
      let u.1: unit = set_field a #0 v             let u.1: unit = set_field a #0 v
      let m: float = field b #1                    let m: float = field b #1
      let u.2: unit = set_field b #0 w    =>       let u.2: unit = set_field b #0 w
      let m.1: float = field b #1                  let x: float = field a #0
      let x: float = field a #0                    let t: float = mul_float(x, m)
      let t: float = mul_float(x, m.1)             ...
      let y: float = field b #0                    (y is w)

`a` and `b` may be one block, so `field a #0` after the store to `b`'s is loaded again.

A map from places to the values they hold is carried along each continuation and into the
continuations entered only from its end (a branch's or a switch's arms, a jump's single
target); a join, a loop header or a handler starts with nothing known. A place is a field of a
block (`field r #k`) or an element of an array (`array_unsafe_get(a, i)`), named by the
variables that reach it. A load of a known place is the value it holds; a store makes the
stored value known. What a store may change is forgotten: a store to field k of any block
forgets field k of every block (two variables may name one block, but a block's field k is
never another's field j), a store into an array forgets the elements of every array of its
type. A call, an apply and every primitive that may write the heap forget everything.

Relies on: a verified input (definitions dominate uses) and unique names; that the program
only reaches a block's fields through `field` and `set_field`, and an array's elements
through the array primitives (FL has no `Obj`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable

from cpsc.cps import ir
from cpsc.cps.analysis import FunctionGraph, ImmutableFields, immutable_fields
from cpsc.cps.primops import PRIMITIVES_THAT_KEEP_THE_HEAP, is_pure
from cpsc.cps.program import Program
from cpsc.opt.context import Found, PassContext, replace_found

Stats = Counter[str]

# Places known at once, at most: a map is copied into every continuation a branch enters.
KNOWN_PLACES = 64

Place = tuple[Hashable, ...]


def _key(o: ir.Operand) -> Hashable:
    return ("const", repr(o.value)) if isinstance(o, ir.Const) else o.name


def place_of(value: ir.Value) -> Place | None:
    """The place a load or a store reaches (None: neither)."""
    if isinstance(value, (ir.Field, ir.SetField)):
        return ("field", _key(value.record), value.index)
    if isinstance(value, ir.Prim) and value.op in ("array_unsafe_get", "array_unsafe_set"):
        return ("element", value.args[0].type, _key(value.args[0]), _key(value.args[1]))
    return None


def forget_aliases(known: dict[Place, ir.Operand], place: Place) -> None:
    """Forget what a store to `place` may change: the same field of every block, the elements
    of every array of the same type."""
    if place[0] == "field":
        stale = [p for p in known if p[0] == "field" and p[2] == place[2]]
    else:
        stale = [p for p in known if p[0] == "element" and p[1] == place[1]]
    for p in stale:
        del known[p]


def keeps_the_heap(value: ir.Value) -> bool:
    """Whether evaluating `value` writes no block or array the program already has."""
    if isinstance(value, ir.Prim):
        return is_pure(value.op) or value.op in PRIMITIVES_THAT_KEEP_THE_HEAP
    return isinstance(value, (ir.MakeTuple, ir.MakeBlock, ir.MakeClosure, ir.Field, ir.GlobalLoad, ir.GlobalStore))


class _Loads:
    """One function's walk: the loads found known, by what they are renamed to."""

    def __init__(self, program: Program, graph: FunctionGraph, immutable: ImmutableFields) -> None:
        self.program = program
        self.graph = graph
        self.immutable = immutable
        self.renaming: dict[str, ir.Operand] = {}
        self.stats: Stats = Counter()

    def run(self) -> None:
        stack: list[tuple[str, dict[Place, ir.Operand]]] = [(self.graph.labels[0], {})]
        while stack:
            label, known = stack.pop()
            cont = self.program.cont_table[label]
            for b in cont.bindings:
                self._binding(b, known)
            targets = _terminator_targets(cont)  # once: a switch may have thousands
            for child in self.graph.children[label]:
                stack.append((child, dict(known) if inherits(self.graph, cont, child, targets) else {}))

    def _binding(self, b: ir.Binding, known: dict[Place, ir.Operand]) -> None:
        value = b.value
        place = place_of(value)
        if place is None:
            if not keeps_the_heap(value):
                known.clear()
            return
        if isinstance(value, ir.SetField) or (isinstance(value, ir.Prim) and value.op == "array_unsafe_set"):
            forget_aliases(known, place)
            stored = value.value if isinstance(value, ir.SetField) else value.args[2]
            self._remember(known, place, stored)
            return
        if isinstance(value, ir.Field) and (value.record.type, value.index) in self.immutable:
            return  # cse numbers loads of immutable fields
        held = known.get(place)
        if held is not None and held.type == b.var.type:
            self.renaming[b.var.name] = held
            self.stats["loads of known places"] += 1
        else:
            self._remember(known, place, b.var)

    @staticmethod
    def _remember(known: dict[Place, ir.Operand], place: Place, value: ir.Operand) -> None:
        known.pop(place, None)
        if len(known) >= KNOWN_PLACES:
            del known[next(iter(known))]  # the oldest
        known[place] = value


def inherits(graph: FunctionGraph, cont: ir.Cont, child: str, targets: set[str]) -> bool:
    """Whether `child` is entered only from the end of `cont` (whose terminator's `targets`
    it is one of), knowing what `cont` knows there."""
    return graph.preds[child] == [cont.label] and child in targets


def _terminator_targets(cont: ir.Cont) -> set[str]:
    term = cont.terminator
    if isinstance(term, ir.Jump) and isinstance(term.target, str):
        return {term.target}
    if isinstance(term, ir.Branch):
        return {term.if_true, term.if_false}
    if isinstance(term, ir.Switch):
        return set(term.labels)
    return set()


def loads_with_stats(program: Program, context: PassContext | None = None) -> tuple[Program, Stats]:
    """Replace the loads of places whose value is known by that value."""
    stats: Stats = Counter()
    immutable = immutable_fields(program)

    def find(function: str) -> Found:
        graph = FunctionGraph(program, function)
        walk = _Loads(program, graph, immutable)
        walk.run()
        return graph.labels, walk.renaming, {}, walk.stats

    return replace_found(program, context, "loads", "{count} in {function}", find, stats), stats

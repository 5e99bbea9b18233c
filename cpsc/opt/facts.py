"""`facts`: path facts (seed 000's Pi nodes, seed 004's assertion propagation, ABCD).

    cont for_body(i: int) =      facts: 0 <= i, i <= t.1         (t.1 = t - 1)
      let c.1: bool = ge_int(i, 0)                 =>   (c.1 is true)
      let c.2: bool = lt_int(i, t)                 =>   (c.2 is true)
      let in_bounds: bool = and_bool(c.1, c.2)     =>   (in_bounds is true)
      br in_bounds, ok, fail                       =>   jump ok()

What a branch tests is known in the continuations it dominates: after `br c, then, else`,
`c` is true in `then` (the only way in) and in everything `then` dominates. A comparison of
integers known from a branch becomes a difference constraint `a <= b + k` between variables
(constants are offsets from one node, zero); `x + 1`, `x - 1`, `Array.length`, `land` with a
constant add their own. A comparison, a branch or a switch that the facts decide becomes a
constant or a jump, which `simplify` then folds: a bounds check inside `for i = 0 to
Array.length a - 1` goes, a repeated test folds, a match on a value already matched takes the
known arm. `--dump-after=facts` shows what was decided: a decided comparison's binding is gone
and its uses are `true` or `false`; a decided branch or switch is a jump.

Facts about a continuation's parameters are guessed and checked (an inductive invariant):
the candidates compare a parameter with the other side of the comparisons it is tested in and
with 0; a candidate stays while every jump to the continuation passes an argument that
satisfies it, given the facts at the jump, the candidates included; the rounds repeat until
none fails (a greatest fixed point; with none after a few rounds, no parameter has facts).

Arithmetic wraps, so `v = x + c` is `x + c` only when that cannot overflow: the pass proves
`x <= max_int - c` first. Every variable is at most max_int and at least min_int.

Relies on: a verified input (definitions dominate uses; a continuation's incoming arguments
are the arguments of the jumps to it) and unique names.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import islice

from cpsc.cps import ir
from cpsc.cps.analysis import FunctionGraph, fold_primitive, incoming_arguments
from cpsc.cps.program import Program
from cpsc.cps.rewrite import cont_definitions
from cpsc.opt.context import Found, PassContext, replace_found
from cpsc.types.types import BOOL, INT

Stats = Counter[str]

ZERO = "#zero"  # the node constants are offsets from (never a variable's name)
MAX_INT = (1 << 63) - 1
MIN_INT = -(1 << 63)
SEARCH_DEPTH = 6  # edges followed from a node when proving a bound
SEARCH_NODES = 48  # nodes reached before a search gives up
FANOUT = 16  # facts followed from one node
PARTNERS = 6  # operands a parameter is compared with, considered for its candidate facts
ROUNDS = 6  # rounds of checking candidates before the pass gives up a function's guesses
SWITCH_CASES = 16  # cases of a switch whose exclusion is known in its default

COMPARISONS = frozenset({"lt_int", "le_int", "gt_int", "ge_int", "eq_int", "ne_int"})

Term = tuple[str, int]  # node + offset


def term_of(o: ir.Operand) -> Term | None:
    """An integer operand as a node and an offset (None: not an integer)."""
    if isinstance(o, ir.Const):
        return (ZERO, o.value) if o.type == INT and isinstance(o.value, int) else None
    return (o.name, 0) if o.type == INT else None


@dataclass(frozen=True)
class Candidate:
    """A guessed fact about a parameter: `param <= other + k` (`below`) or `other + k <= param`."""

    param: str
    other: Term
    below: bool


class Facts:
    """The difference constraints and truths known at a point of a walk of the dominator tree;
    a trail undoes what a subtree added."""

    def __init__(self) -> None:
        self.bounds: dict[str, dict[str, int]] = {}  # bounds[a][b] = k: a <= b + k, the least k known
        self.truth: dict[str, bool] = {}
        self.unequal: set[tuple[str, str, int]] = set()  # a != b + k
        self.trail: list[tuple[str, str, str, int | None]] = []

    # ----------------------------------------------------------------- recording
    def mark(self) -> int:
        return len(self.trail)

    def undo(self, mark: int) -> None:
        while len(self.trail) > mark:
            kind, a, b, old = self.trail.pop()
            if kind == "bound":
                if old is None:
                    del self.bounds[a][b]
                else:
                    self.bounds[a][b] = old
            elif kind == "truth":
                del self.truth[a]
            else:
                self.unequal.discard((a, b, old if old is not None else 0))

    def add_le(self, a: Term, b: Term, k: int = 0) -> None:
        """Record `a <= b + k`."""
        (an, ao), (bn, bo) = a, b
        if an == bn:
            return
        weight = bo + k - ao
        edges = self.bounds.setdefault(an, {})
        old = edges.get(bn)
        if old is None or weight < old:
            edges[bn] = weight
            self.trail.append(("bound", an, bn, old))

    def add_unequal(self, a: Term, b: Term) -> None:
        """Record `a != b`, and `a < b` where `a <= b` is known (or the other way round)."""
        (an, ao), (bn, bo) = a, b
        if an == bn:
            return
        self.unequal.add((an, bn, bo - ao))
        self.trail.append(("unequal", an, bn, bo - ao))
        if self.proves_le(a, b):
            self.add_le(a, b, -1)
        elif self.proves_le(b, a):
            self.add_le(b, a, -1)

    def add_truth(self, name: str, value: bool) -> None:
        if name not in self.truth:
            self.truth[name] = value
            self.trail.append(("truth", name, "", None))

    # ----------------------------------------------------------------- proving
    def least_bound(self, a: str, b: str) -> int | None:
        """The least k found with `a <= b + k` (None: none found), by a bounded search."""
        if a == b:
            return 0
        best = {a: 0}
        frontier = [a]
        for _ in range(SEARCH_DEPTH):
            reached: list[str] = []
            for node in frontier:
                weight = best[node]
                # the latest facts first, and only so many: a node may have thousands
                edges = self.bounds.get(node, {})
                steps = list(islice(reversed(edges.items()), FANOUT))
                if b in edges:
                    steps.append((b, edges[b]))
                if node != ZERO:
                    steps.append((ZERO, MAX_INT))
                for other, k in steps:
                    if other not in best or weight + k < best[other]:
                        best[other] = weight + k
                        reached.append(other)
            if not reached or len(best) > SEARCH_NODES:
                break
            frontier = reached
        found = best.get(b)
        if b != ZERO and ZERO in best:  # every variable is at least min_int
            floor = best[ZERO] - MIN_INT
            found = floor if found is None else min(found, floor)
        return found

    def proves_le(self, a: Term, b: Term, k: int = 0) -> bool:
        """Whether `a <= b + k` follows."""
        (an, ao), (bn, bo) = a, b
        if an == bn:
            return ao <= bo + k
        found = self.least_bound(an, bn)
        return found is not None and found <= bo + k - ao

    def proves_unequal(self, a: Term, b: Term) -> bool:
        (an, ao), (bn, bo) = a, b
        if (an, bn, bo - ao) in self.unequal or (bn, an, ao - bo) in self.unequal:
            return True
        return self.proves_le(a, b, -1) or self.proves_le(b, a, -1)

    def value_of(self, a: Term) -> int | None:
        """The constant `a` is known to equal (None: not known)."""
        node, offset = a
        if node == ZERO:
            return offset
        upper, lower = self.least_bound(node, ZERO), self.least_bound(ZERO, node)
        if upper is not None and lower is not None and upper == -lower:
            return upper + offset
        return None


# A comparison as the constraint its truth gives: (le, x, y, k) means x <= y + k; its falsity
# the reverse. eq/ne are handled apart.
def _as_le(op: str, x: Term, y: Term) -> tuple[Term, Term, int]:
    """The constraint `a <= b + k` that `op(x, y)` being true means (for lt, le, gt, ge)."""
    return {"lt_int": (x, y, -1), "le_int": (x, y, 0), "gt_int": (y, x, -1), "ge_int": (y, x, 0)}[op]


def assume_comparison(facts: Facts, op: str, x: Term, y: Term, value: bool) -> None:
    """Record what `op(x, y) = value` means."""
    if op in ("eq_int", "ne_int"):
        if value == (op == "eq_int"):
            facts.add_le(x, y)
            facts.add_le(y, x)
        else:
            facts.add_unequal(x, y)
        return
    a, b, k = _as_le(op, x, y)
    if value:
        facts.add_le(a, b, k)
    else:  # not (a <= b + k): b + k + 1 <= a
        facts.add_le(b, a, -k - 1)


def decide_comparison(facts: Facts, op: str, x: Term, y: Term) -> bool | None:
    """The value of `op(x, y)` where the facts decide it."""
    if op in ("eq_int", "ne_int"):
        equal = facts.proves_le(x, y) and facts.proves_le(y, x)
        if equal or facts.proves_unequal(x, y):
            return equal == (op == "eq_int")
        return None
    a, b, k = _as_le(op, x, y)
    if facts.proves_le(a, b, k):
        return True
    if facts.proves_le(b, a, -k - 1):
        return False
    return None


def offset_fits(facts: Facts, base: Term, amount: int) -> bool:
    """Whether `base + amount` is known not to overflow."""
    if amount > 0:
        return facts.proves_le(base, (ZERO, MAX_INT - amount))
    return facts.proves_le((ZERO, MIN_INT - amount), base)


def satisfies(facts: Facts, argument: Term, candidate: Candidate) -> bool:
    """Whether a jump's argument for the candidate's parameter satisfies it."""
    if candidate.below:
        return facts.proves_le(argument, candidate.other)
    return facts.proves_le(candidate.other, argument)


class _Walk:
    """One walk of a function's dominator tree under a set of candidate facts: the decisions
    it makes, and the candidates some jump does not satisfy."""

    def __init__(self, program: Program, graph: FunctionGraph, candidates: dict[str, list[Candidate]]) -> None:
        self.program = program
        self.graph = graph
        self.candidates = candidates
        self.facts = Facts()
        self.definitions: dict[str, ir.Prim] = {}
        self.lengths: dict[str, ir.Operand] = {}
        self.switch_cases: dict[str, dict[str, list[int]]] = {}  # a switch's cases by target  # arrays made here: the length they were made with
        self.renaming: dict[str, ir.Operand] = {}
        self.jumps: dict[str, ir.Jump] = {}  # continuations whose terminator is decided
        self.failed: set[Candidate] = set()
        self.stats: Stats = Counter()

    def run(self) -> None:
        stack: list[tuple[str, int | None]] = [(self.graph.labels[0], None)]
        while stack:
            label, mark = stack.pop()
            if mark is not None:
                self.facts.undo(mark)
                continue
            stack.append((label, self.facts.mark()))
            self._visit(self.program.cont_table[label])
            stack.extend((child, None) for child in reversed(self.graph.children[label]))

    def _visit(self, cont: ir.Cont) -> None:
        self._assume_edge(cont.label)
        for candidate in self.candidates.get(cont.label, ()):
            self._assume_candidate(candidate)
        for b in cont.bindings:
            self._binding(b)
        self._terminator(cont)

    # ---------------------------------------------------------------- what holds on entry
    def _assume_edge(self, label: str) -> None:
        """What the only way into `label`, a branch's or a switch's arm, says. (A continuation
        whose predecessor enters it by a `callc` is not an arm of that predecessor's branch.)"""
        preds = self.graph.preds[label]
        if len(preds) != 1:
            return
        term = self.program.cont_table[preds[0]].terminator
        if isinstance(term, ir.Branch) and isinstance(term.condition, ir.Var) and term.if_true != term.if_false:
            if label in (term.if_true, term.if_false):
                self.assume(term.condition.name, label == term.if_true)
        elif isinstance(term, ir.Switch) and (label == term.default or any(t == label for _, t in term.cases)):
            value = term_of(term.value)
            if value is not None:
                self._assume_switch_arm(preds[0], term, value, label)

    def _assume_switch_arm(self, switch_label: str, switch: ir.Switch, value: Term, label: str) -> None:
        by_target = self.switch_cases.get(switch_label)
        if by_target is None:  # once per switch: a switch may have thousands of arms
            by_target = self.switch_cases[switch_label] = {}
            for k, target in switch.cases:
                by_target.setdefault(target, []).append(k)
        cases = by_target.get(label, [])
        if label == switch.default:
            if not cases and len(switch.cases) <= SWITCH_CASES:
                for k, _ in switch.cases:
                    self.facts.add_unequal(value, (ZERO, k))
        elif len(cases) == 1:
            self.facts.add_le(value, (ZERO, cases[0]))
            self.facts.add_le((ZERO, cases[0]), value)

    def _assume_candidate(self, candidate: Candidate) -> None:
        param = (candidate.param, 0)
        if candidate.below:
            self.facts.add_le(param, candidate.other)
        else:
            self.facts.add_le(candidate.other, param)

    def assume(self, name: str, value: bool) -> None:
        """Record that the boolean `name` is `value`, and what that means."""
        if name in self.facts.truth:
            return
        self.facts.add_truth(name, value)
        definition = self.definitions.get(name)
        if definition is None:
            return
        if definition.op in COMPARISONS:
            x, y = (term_of(a) for a in definition.args)
            if x is not None and y is not None:
                assume_comparison(self.facts, definition.op, x, y, value)
        elif definition.op == "not" and isinstance(definition.args[0], ir.Var):
            self.assume(definition.args[0].name, not value)
        elif definition.op == "and_bool" and value:
            for a in definition.args:
                if isinstance(a, ir.Var):
                    self.assume(a.name, True)

    # ---------------------------------------------------------------- bindings
    def _binding(self, b: ir.Binding) -> None:
        if not isinstance(b.value, ir.Prim):
            return
        value = self._known(b.value)
        self.definitions[b.var.name] = value
        if value.op == "array_make":
            self.lengths[b.var.name] = value.args[0]
        if b.var.type == BOOL:
            decided = self._decide(value)
            if decided is not None:
                self.renaming[b.var.name] = decided
                self.stats["comparisons decided" if value.op in COMPARISONS else "booleans decided"] += 1
                if isinstance(decided, ir.Const):
                    self.facts.add_truth(b.var.name, bool(decided.value))
                return
        elif b.var.type == INT:
            self._arithmetic(b.var.name, value)

    def _known(self, value: ir.Prim) -> ir.Prim:
        """`value` with the booleans known here as constants."""
        args = tuple(ir.Const(self.facts.truth[a.name], BOOL)
                     if isinstance(a, ir.Var) and a.name in self.facts.truth else a for a in value.args)
        return value if args == value.args else ir.Prim(value.op, args)

    def _decide(self, value: ir.Prim) -> ir.Operand | None:
        """A known boolean's value (a constant), or the operand it is equal to."""
        if value.op in COMPARISONS:
            x, y = (term_of(a) for a in value.args)
            if x is None or y is None:
                return None
            decided = decide_comparison(self.facts, value.op, x, y)
            return None if decided is None else ir.Const(decided, BOOL)
        if value.op == "and_bool":
            for a, other in (value.args, value.args[::-1]):
                if isinstance(a, ir.Const):
                    return other if a.value else a
            return None
        return fold_primitive(value, BOOL) if value.op == "not" else None

    def _arithmetic(self, name: str, value: ir.Prim) -> None:
        """What an integer primitive's result is known to be, where it cannot overflow."""
        v: Term = (name, 0)
        op, args = value.op, value.args
        made = self.lengths.get(args[0].name) if op == "array_length" and isinstance(args[0], ir.Var) else None
        length = term_of(made) if made is not None else None
        if length is not None:  # the length an array was made with (a negative one raised)
            self.facts.add_le(v, length)
            self.facts.add_le(length, v)
        if op in ("array_length", "string_length") or (op == "lsr_int" and _positive(args[1])):
            self.facts.add_le((ZERO, 0), v)
        elif op == "and_int" and any(isinstance(a, ir.Const) and a.value >= 0 for a in args):
            mask = min(a.value for a in args if isinstance(a, ir.Const) and a.value >= 0)
            self.facts.add_le((ZERO, 0), v)
            self.facts.add_le(v, (ZERO, mask))
        elif op in ("add_int", "sub_int"):
            self._offset(v, op, args)

    def _offset(self, v: Term, op: str, args: tuple[ir.Operand, ...]) -> None:
        x, c = args
        if op == "add_int" and isinstance(x, ir.Const):
            x, c = c, x
        base = term_of(x)
        if not isinstance(c, ir.Const) or base is None or base[0] == ZERO:
            return
        amount = c.value if op == "add_int" else -c.value
        if offset_fits(self.facts, base, amount):  # v = x + amount exactly
            self.facts.add_le(v, base, amount)
            self.facts.add_le(base, v, -amount)

    # ---------------------------------------------------------------- terminators
    def _terminator(self, cont: ir.Cont) -> None:
        term = cont.terminator
        if isinstance(term, ir.Branch) and isinstance(term.condition, ir.Var):
            known = self.facts.truth.get(term.condition.name)
            if known is not None:
                self.jumps[cont.label] = ir.Jump(term.if_true if known else term.if_false, ())
                self.stats["branches decided"] += 1
        elif isinstance(term, ir.Switch):
            self._switch(cont.label, term)
        elif isinstance(term, ir.Jump) and isinstance(term.target, str):
            self._check(term.target, term.args)

    def _switch(self, label: str, switch: ir.Switch) -> None:
        value = term_of(switch.value)
        if value is None or value[0] == ZERO:
            return
        known = self.facts.value_of(value)
        if known is not None:
            target = next((t for k, t in switch.cases if k == known), switch.default)
        elif len(switch.cases) <= SWITCH_CASES and all(
                self.facts.proves_unequal(value, (ZERO, k)) for k, _ in switch.cases):
            target = switch.default
        else:
            return
        self.jumps[label] = ir.Jump(target, ())
        self.stats["switches decided"] += 1

    def _check(self, target: str, args: tuple[ir.Operand, ...]) -> None:
        """Mark the candidates of `target` that the jump's arguments do not satisfy."""
        candidates = self.candidates.get(target)
        if not candidates:
            return
        params = [p.name for p in self.program.cont_table[target].params]
        for candidate in candidates:
            argument = term_of(args[params.index(candidate.param)])
            if argument is None or not satisfies(self.facts, argument, candidate):
                self.failed.add(candidate)


def _positive(o: ir.Operand) -> bool:
    return isinstance(o, ir.Const) and isinstance(o.value, int) and o.value > 0


def guesses(program: Program, graph: FunctionGraph,
            incoming: dict[str, list[tuple[ir.Operand, ...]] | None]) -> dict[str, list[Candidate]]:
    """The candidate facts about the integer parameters of the function's join points: each
    compared with 0 and with what it is tested against, where that is in scope."""
    partners: dict[str, list[Term]] = {}
    for label in graph.labels:
        for b in program.cont_table[label].bindings:
            if isinstance(b.value, ir.Prim) and b.value.op in COMPARISONS:
                x, y = b.value.args
                for param, other in ((x, y), (y, x)):
                    found = term_of(other)
                    if isinstance(param, ir.Var) and found is not None:
                        partners.setdefault(param.name, []).append(found)
    defined_in = {v.name: label for label in graph.labels for v in cont_definitions(program.cont_table[label])}
    candidates: dict[str, list[Candidate]] = {}
    jumps_inside = Counter(target for label in graph.labels for target, args
                           in _jumps(program.cont_table[label]))
    for label in graph.labels:
        found_jumps = incoming.get(label)
        if not found_jumps or jumps_inside[label] != len(found_jumps):  # entered from elsewhere too
            continue
        for p in program.cont_table[label].params:
            if p.type != INT:
                continue
            others = [(ZERO, 0)] + [t for t in partners.get(p.name, []) if _in_scope(t, label, defined_in, graph)]
            for node, offset in list(dict.fromkeys(others))[:PARTNERS]:
                for k in (0, -1):
                    candidates.setdefault(label, []).extend([
                        Candidate(p.name, (node, offset + k), True), Candidate(p.name, (node, offset - k), False)])
    return candidates


def _jumps(cont: ir.Cont) -> list[tuple[str, tuple[ir.Operand, ...]]]:
    term = cont.terminator
    return [(term.target, term.args)] if isinstance(term, ir.Jump) and isinstance(term.target, str) else []


def _in_scope(t: Term, label: str, defined_in: dict[str, str], graph: FunctionGraph) -> bool:
    """Whether `t` may be named on entry to `label`: a constant, a variable from outside the
    function, or one defined in a continuation that strictly dominates `label`."""
    where = defined_in.get(t[0])
    return t[0] == ZERO or where is None or (where != label and graph.dominators.dominates(where, label))


def facts_of_function(program: Program, graph: FunctionGraph,
                      incoming: dict[str, list[tuple[ir.Operand, ...]] | None]) -> _Walk:
    """The walk of one function under its greatest set of candidate facts that every jump
    satisfies (none, when the rounds run out)."""
    candidates = guesses(program, graph, incoming)
    for _ in range(ROUNDS):
        walk = _Walk(program, graph, candidates)
        walk.run()
        if not walk.failed:
            return walk
        candidates = {label: [c for c in found if c not in walk.failed] for label, found in candidates.items()}
    walk = _Walk(program, graph, {})
    walk.run()
    return walk


def facts_with_stats(program: Program, context: PassContext | None = None) -> tuple[Program, Stats]:
    """Decide the comparisons, branches and switches that path facts decide."""
    stats: Stats = Counter()
    incoming = incoming_arguments(program)

    def find(function: str) -> Found:
        graph = FunctionGraph(program, function)
        walk = facts_of_function(program, graph, incoming)
        return graph.labels, walk.renaming, dict(walk.jumps), walk.stats

    return replace_found(program, context, "facts", "{count} in {function}", find, stats), stats

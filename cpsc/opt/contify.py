"""`contify`: a function that always returns to the same place becomes continuations of its
caller (MLton's contification, seed 003's "functions as continuations").

    fun count(n: int) -> int in main = ...       fun count(n: int) -> int in main = ...
      cont count.entry() =                         cont count.entry() =
        tailcall go(n, 0)                            jump go.head(n, 0)
    fun go(i: int, acc: int) -> int in count     cont go.head(i: int, acc: int) =
      cont go.entry() =                              jump go.entry()
        let c: bool = eq_int(i, 0)         =>    cont go.entry() =
        br c, then, else                             let c: bool = eq_int(i, 0)
      cont else() =                                  br c, then, else
        let t: int = sub_int(i, 1)                 cont else() =
        let t.1: int = add_int(acc, i)               let t: int = sub_int(i, 1)
        tailcall go(t, t.1)                          let t.1: int = add_int(acc, i)
      cont then() =                                  jump go.head(t, t.1)
        jump (ret go)(acc)                         cont then() =
                                                     jump (ret count)(acc)

A function `g` is contified into `f` when no closure of `g` is made, every call of `g` from
outside `g` is in `f`, and all those calls return to the same place: either there is one of
them, or all are tail calls of `f` (so they return to `ret f`). Calls of `g` inside `g` must be
tail calls: they become jumps to a new continuation `g.head(params)` of `f`, so a
tail-recursive function becomes a loop of continuations. The calls from `f` become jumps to
`g.head` too, and `g`'s code moves into `f` by return-continuation substitution
(`cpsc.opt.substitute`): `ret g` becomes the return point, `exn g` the handler in scope.

Relies on: unique names (nothing is renamed: the continuations move with their labels and
variables) and a verified program (the free variables of `g` must be in scope at the calls,
which the pass checks). Mutually recursive groups are left alone.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from cpsc.cps import ir
from cpsc.cps.names import NameSupply
from cpsc.cps.program import Program
from cpsc.opt.call_graph import CallGraph
from cpsc.opt.context import PassContext
from cpsc.opt.substitute import CallSite, Relocation, ReturnPoint, call_sites_in, framed, return_point

Stats = Counter[str]


@dataclass(frozen=True)
class _Plan:
    function: str
    caller: str
    sites: list[CallSite]
    inner: list[CallSite]  # g's calls of itself, all tail calls


class _Sites:
    """Every direct call site, by callee, kept current as contification rewrites the program:
    a rewrite changes only the continuations it returns, and the sites in the others stay
    where they were."""

    def __init__(self) -> None:
        self.by_callee: dict[str, dict[tuple[str, int | None], CallSite]] = defaultdict(dict)
        self.by_label: dict[str, list[CallSite]] = defaultdict(list)

    def add(self, program: Program, function: str, labels: list[str],
            conts: Mapping[str, ir.Cont] | None = None) -> None:
        for site in call_sites_in(program, function, labels, conts):
            self.by_callee[site.callee][(site.label, site.binding)] = site
            self.by_label[site.label].append(site)

    def replace(self, program: Program, function: str, changed: list[str]) -> None:
        """Follow a rewrite that changed (or added) the continuations `changed`, now `function`'s."""
        for label in changed:
            for site in self.by_label.pop(label, []):
                del self.by_callee[site.callee][(site.label, site.binding)]
        self.add(program, function, changed)

    def of(self, callee: str) -> list[CallSite]:
        return list(self.by_callee.get(callee, {}).values())


def _sites_and_closures(program: Program, facts: CallGraph) -> tuple[_Sites, set[str]]:
    sites = _Sites()
    closures: set[str] = set()
    conts = program.cont_table
    for f in sorted(program.function_table):
        labels = facts.owned(f)  # a call in unreachable code names g too
        sites.add(program, f, labels, conts)
        for label in labels:
            for b in conts[label].bindings:  # (a closure's full function is called from anywhere)
                if isinstance(b.value, ir.MakeClosure):
                    closures.update([b.value.function, b.value.full] if b.value.full else [b.value.function])
    return sites, closures


def _plan(facts: CallGraph, g: str, sites: list[CallSite]) -> _Plan | None:
    inner = [s for s in sites if s.function == g]
    outer = [s for s in sites if s.function != g]
    if not outer or any(s.binding is not None for s in inner):
        return None
    caller = outer[0].function
    if any(s.function != caller for s in outer) or caller == g or facts.is_ancestor(g, caller):
        return None
    if len(outer) > 1 and not all(_returns_to_caller(facts.program, s) for s in outer):
        return None
    for s in outer:
        if facts.out_of_scope(g, caller, s.label, s.position(facts.program)) is not None:
            return None
    return _Plan(g, caller, outer, inner)


def _returns_to_caller(program: Program, site: CallSite) -> bool:
    """Whether the call's result is what its function returns, with nothing in between."""
    if site.binding is None:
        return True
    cont = program.cont_table[site.label]
    call = cont.bindings[site.binding]
    return (site.binding == len(cont.bindings) - 1 and ir.handler_of(call.value) is None
            and cont.terminator == ir.Jump(ir.Ret(site.function), (call.var,)))


def reparented(program: Program, children: list[str], parent: str) -> dict[str, ir.Function]:
    """The functions nested in a contified function, now nested in `parent` (its code is
    there now, and their free variables with it)."""
    table = program.function_table
    return {child: ir.Function(c.name, c.params, c.result, c.entry, parent, c.noinline)
            for child in children for c in [table[child]]}


def _contify(program: Program, plan: _Plan, names: NameSupply, facts: CallGraph,
             sites: _Sites, frames: frozenset[str] | None = None) -> Program:
    """(`frames`, with -g: a function of one call that is not a tail call keeps its frame
    for backtraces, `framed`; the calls of a function of several are all tail calls.)"""
    g = program.function_table[plan.function]
    head = names.fresh(f"{g.name}.head")
    point: ReturnPoint | None = None
    changed: dict[str, ir.Cont] = {}
    for site in plan.sites:  # all return to the same place: the first one's split serves all
        site_point = return_point(program, site, names)
        point = point or site_point
        cont = program.cont_table[site.label]
        changed[site.label] = ir.Cont(site.label, plan.caller, cont.params, site_point.before,
                                      ir.Jump(head, site.call(program).args))
    assert point is not None
    if frames is not None and len(plan.sites) == 1:
        point, frame = framed(point, plan.sites[0], names, frames)
        if frame is not None:
            changed[frame.label] = frame
    if point.continuation is not None:
        changed[point.continuation.label] = point.continuation
    changed[head] = ir.Cont(head, plan.caller, g.params, (), ir.Jump(g.entry, ()))
    relocation = Relocation(g.name, plan.caller, point, {}, {}, {}, names, g.result)
    loops = {s.label for s in plan.inner}
    for label in facts.owned(g.name):  # unreachable ones too: g's name goes
        cont = program.cont_table[label]
        if label in loops:
            assert isinstance(cont.terminator, ir.TailCall)
            cont = ir.Cont(label, cont.function, cont.params, cont.bindings, ir.Jump(head, cont.terminator.args))
        changed[label] = relocation.cont(cont, plan.caller, cont.params)
    functions = reparented(program, facts.children(g.name), plan.caller)
    program = program.with_conts(changed, functions=functions, removed_functions=[g.name])
    facts.changed(program, plan.caller, list(changed.values()), [])
    facts.moved(g.name, g.parent, plan.caller)
    sites.replace(program, plan.caller, list(changed))
    return program


def _callers_first(program: Program, facts: CallGraph) -> list[str]:
    """The functions in the order a walk of the call graph from main first meets them (the
    others after, by name). Contified in this order, a function moves into a caller that is
    done growing from above: in a chain `f1` tail-calling `f0`, `f2` calling `f1`, ..., each
    function's own code moves once (calls-first order would move `f0` into `f1`, both into
    `f2`, ...: quadratic in the chain's length)."""
    order: dict[str, None] = {}
    work = [program.main]
    while work:
        f = work.pop()
        if f in order or f not in program.function_table:
            continue
        order[f] = None
        # nested functions after the functions called (the stack's top comes first)
        work.extend(sorted((c for c in facts.children(f) if c not in order), reverse=True))
        work.extend(sorted((g for g in facts.named_in(f) if g not in order), reverse=True))
    order.update(dict.fromkeys(sorted(program.function_table)))
    return list(order)


def contify_with_stats(program: Program, context: PassContext | None = None) -> tuple[Program, Stats]:
    context = context if context is not None else PassContext()
    stats: Stats = Counter()
    names = context.name_supply(program)  # one supply for every round: it remembers what it gave out
    # The facts and the sites follow every rewrite (each contification in a round relies on
    # them), so a later round, which finds what the first's contifications made possible, asks
    # them again rather than sweep the whole program anew; contification makes no closure.
    facts = CallGraph(program)
    sites, closures = _sites_and_closures(program, facts)
    for _ in range(20):
        contified = 0
        for g in _callers_first(program, facts):
            function = program.function_table.get(g)
            if function is None or g == program.main or function.noinline or g in closures:
                continue
            plan = _plan(facts, g, sites.of(g))
            if plan is None:
                continue
            if not context.allow("contify", f"{g} into {plan.caller}"):
                return program, stats
            _remark(context, plan)
            program = _contify(program, plan, names, facts, sites, context.frames)
            contified += 1
            stats["functions contified"] += 1
            stats["loops made"] += bool(plan.inner)
        if not contified:
            break
    return program, stats


def _remark(context: PassContext, plan: _Plan) -> None:
    """Each call that becomes a jump says why (`--remarks=contify`)."""
    why = ("its one call" if len(plan.sites) == 1
           else f"each of its {len(plan.sites)} calls is a tail call of {plan.caller}")
    for site in plan.sites:
        context.remark("contify", site.loc, f"{plan.function} contified into {plan.caller}: {why}"
                       + (" (a loop)" if plan.inner else ""))

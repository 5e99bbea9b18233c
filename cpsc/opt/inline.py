"""`inline`: calls of known functions replaced by a copy of the callee's code, by
return-continuation substitution (see `cpsc.opt.substitute`, and `docs/design.md`).

    fun sq(x: int) -> int in main = ...        fun f(a: int) -> int in main = ...
      cont sq.entry() =                          cont f.entry() =
        let y: int = mul_int(x, x)                 jump sq.entry.1()
        jump (ret sq)(y)                 =>      cont sq.entry.1() =
    fun f(a: int) -> int in main = ...             let y.1: int = mul_int(a, a)
      cont f.entry() =                             jump sq.ret(y.1)
        let s: int = call sq(a)                  cont sq.ret(s: int) =
        let t: int = add_int(s, 1)                 let t: int = add_int(s, 1)
        jump (ret f)(t)                            jump (ret f)(t)

(`sq`, called nowhere else, then goes, and `simplify` merges the three continuations.)

The heuristic, per call site, bottom-up over the call graph (callees are improved first, so a
caller inlines the improved copy): never a `noinline` or recursive callee; then a callee that
has no other call site or closure (it dies afterwards), a small one, or a medium one given a
known closure, block or constant as argument, as long as the caller stays within its budget.
Every decision can be printed as a remark (`--remarks=inline`). `inline_call_site` inlines
one chosen site whatever the heuristic says (the REPL's `:inline`).

Relies on: unique names and a verified program (scope is dominance: a callee's free variables
are in scope at a call site when they are defined in a function enclosing the caller, or in
the caller before the call; the pass checks this and otherwise leaves the call alone).
"""

from __future__ import annotations

from collections import Counter

from cpsc.cps import ir
from cpsc.cps.analysis import name_supply
from cpsc.cps.graphs import strongly_connected_components
from cpsc.cps.names import NameSupply
from cpsc.cps.program import Program, function_conts
from cpsc.cps.rewrite import function_references
from cpsc.opt.call_graph import CallGraph
from cpsc.opt.context import PassContext
from cpsc.opt.substitute import (
    CallSite,
    Relocation,
    call_sites_in,
    framed,
    fresh_copies,
    parameter_values,
    return_point,
)

Stats = Counter[str]


class NotInlinable(Exception):
    """`inline_call_site` was asked for a call it cannot inline; the message says why."""


def call_sites(program: Program, function: str) -> list[CallSite]:
    """The direct call sites in `function`, numbered as the REPL shows them."""
    return call_sites_in(program, function, function_conts(program, function))


def why_not_inlinable(facts: CallGraph, site: CallSite) -> str | None:
    """What makes inlining this call site wrong (None: it can be inlined)."""
    program = facts.program
    callee = program.function_table[site.callee]
    if site.callee == site.function or facts.is_ancestor(site.callee, site.function):
        return f"the call is inside {site.callee} itself"
    outside = facts.out_of_scope(callee.name, site.function, site.label, site.position(program))
    if outside is not None:
        return f"{callee.name}'s free variable {outside} is not in scope at the call"
    return None


def inline_call_site(program: Program, site: CallSite) -> Program:
    """Inline one call site (from `call_sites`), heuristic or not; `NotInlinable` says why
    a call cannot be inlined."""
    facts = CallGraph(program)
    reason = why_not_inlinable(facts, site)
    if reason is not None:
        raise NotInlinable(reason)
    return _Inliner(facts, name_supply(program)).inline(site)[0]


class _Inliner:
    """Copies callees into callers, keeping the facts about the program up to date."""

    def __init__(self, facts: CallGraph, names: NameSupply, frames: frozenset[str] | None = None) -> None:
        self.facts = facts
        self.names = names
        self.frames = frames  # -g: keep the frame of each call inlined (`framed`)

    def inline(self, site: CallSite) -> tuple[Program, str | None, list[ir.Cont]]:
        """The program with `site` inlined, the continuation that now holds what followed the
        call (None for a tail call), and the copied continuations."""
        program, facts = self.facts.program, self.facts
        callee = program.function_table[site.callee]
        args = site.call(program).args
        point = return_point(program, site, self.names)
        point, frame = framed(point, site, self.names, self.frames) if self.frames is not None else (point, None)
        subtree = facts.subtree(callee.name)
        functions = {callee.name: site.function} | {f: self.names.fresh_copy(f) for f in subtree[1:]}
        variables = parameter_values(callee, args)
        labels = fresh_copies(program, self.names, subtree, facts.conts_of, variables)
        relocation = Relocation(callee.name, site.function, point, variables, labels, functions,
                                self.names, callee.result)
        copies = relocation.copies(program, subtree, facts.conts_of)
        new_functions = relocation.nested_functions(program, subtree)
        caller_cont = program.cont_table[site.label]
        changed = {c.label: c for c in copies}
        changed[site.label] = ir.Cont(site.label, site.function, caller_cont.params, point.before,
                                      ir.Jump(labels[callee.entry], ()))
        if point.continuation is not None:
            changed[point.continuation.label] = point.continuation
        if frame is not None:
            changed[frame.label] = frame
        program = program.with_conts(changed, functions=new_functions)
        facts.changed(program, site.function, list(changed.values()), list(new_functions.values()))
        receiver = point.continuation.label if point.continuation is not None else None
        return program, receiver, copies


def _known_argument(facts: CallGraph, args: tuple[ir.Operand, ...]) -> bool:
    for a in args:
        if isinstance(a, ir.Const):
            return True
        binding = facts.binding_of(a.name)
        if binding is not None and isinstance(binding.value, (ir.MakeClosure, ir.MakeBlock, ir.MakeTuple)):
            return True
    return False


class _Heuristic:
    """One round of heuristic inlining over the whole program."""

    def __init__(self, program: Program, context: PassContext, stats: Stats, names: NameSupply) -> None:
        self.facts = CallGraph(program)
        self.inliner = _Inliner(self.facts, names, context.frames)
        self.context = context
        self.budget = context.inline_budget
        self.stats = stats
        self.references = function_references(program)
        self.recursive = self.facts.recursive()
        self.caller_sizes: dict[str, int] = {}
        self.grown: set[str] = set()  # callers inlined into, whose sizes are estimates
        self.dropped: set[str] = set()  # callees that lost a call
        # Whether another round could inline more (see `inline_with_stats`)
        self.may_find_more = False

    def run(self) -> Program:
        for function in self._bottom_up():
            self._inline_into(function)
        # A callee left with one call may now be inlined as its only one.
        self.may_find_more = self.may_find_more or any(self.references[f] == 1 for f in self.dropped)
        return self.facts.program

    def _bottom_up(self) -> list[str]:
        graph = {f: sorted(self.facts.named_in(f)) for f in sorted(self.facts.program.function_table)}
        return [f for component in strongly_connected_components(sorted(graph), graph) for f in sorted(component)]

    def _inline_into(self, function: str) -> None:
        work = list(self.facts.conts_of(function))
        while work:
            label = work.pop()
            for site in call_sites_in(self.facts.program, function, [label]):
                inlined, receiver = self._consider(site)
                if inlined:
                    if receiver is not None:
                        work.append(receiver)
                    break

    def _consider(self, site: CallSite) -> tuple[bool, str | None]:
        ok, reason = self._decide(site)
        if ok:
            legal = why_not_inlinable(self.facts, site)
            if legal is not None:
                ok, reason = False, legal
        if not ok:
            self._remark(site, f"{site.callee} not inlined into {site.function}: {reason}")
            return False, None
        if not self.context.allow("inline", f"{site.callee} into {site.function} at {site.loc or '?'}"):
            return False, None
        size = self.facts.size(site.callee)
        program, receiver, copies = self.inliner.inline(site)
        self.references[site.callee] -= 1
        self.dropped.add(site.callee)
        for cont in copies:
            self.references.update(ir.functions_named(cont))
        # calls this round did not consider, of callees the next round might inline
        copied_sites = call_sites_in(program, site.function, [cont.label for cont in copies],
                                     {cont.label: cont for cont in copies})
        self.may_find_more = self.may_find_more or any(self._may_inline(s.callee) for s in copied_sites)
        self.caller_sizes[site.function] = self._caller_size(site.function) + size
        self.grown.add(site.function)
        self.stats["calls inlined"] += 1
        self._remark(site, f"{site.callee} inlined into {site.function}: {reason}")
        return True, receiver

    def _may_inline(self, callee: str) -> bool:
        return callee not in self.recursive and not self.facts.program.function_table[callee].noinline

    def _caller_size(self, function: str) -> int:
        if function not in self.caller_sizes:
            self.caller_sizes[function] = self.facts.size(function)
        return self.caller_sizes[function]

    def _decide(self, site: CallSite) -> tuple[bool, str]:
        program = self.facts.program
        if program.function_table[site.callee].noinline:
            return False, "it is noinline"
        if site.callee in self.recursive:
            return False, "it is recursive"
        size = self.facts.size(site.callee)
        grown = self._caller_size(site.function) + size
        if grown > self.budget.caller:
            # the next round measures the caller again, and may find it smaller than estimated
            self.may_find_more = self.may_find_more or site.function in self.grown
            return False, f"budget ({site.function} would grow to {grown} > {self.budget.caller})"
        if self.references[site.callee] == 1:
            return True, f"its only call (size {size})"
        if size <= self.budget.small:
            return True, f"small (size {size} <= {self.budget.small})"
        if size <= self.budget.known_argument and _known_argument(self.facts, site.call(program).args):
            return True, f"known argument (size {size} <= {self.budget.known_argument})"
        return False, f"too big (size {size} > {self.budget.small})"

    def _remark(self, site: CallSite, message: str) -> None:
        self.context.remark("inline", site.loc, message)


def inline_with_stats(program: Program, context: PassContext | None = None) -> tuple[Program, Stats]:
    context = context if context is not None else PassContext()
    stats: Stats = Counter()
    names = context.name_supply(program)
    for _ in range(context.inline_budget.rounds):
        heuristic = _Heuristic(program, context, stats, names)
        program = heuristic.run()
        if not heuristic.may_find_more:
            break
    return program, stats

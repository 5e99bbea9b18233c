"""The pass registry and the `-O` levels: the CLI (`--passes`, `--dump-after`, `--time-passes`)
and the REPL find passes here by name."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from cpsc.cps.program import Program
from cpsc.opt.context import InlineBudget, PassContext
from cpsc.opt.contify import contify_with_stats
from cpsc.opt.cse import cse_with_stats
from cpsc.opt.facts import facts_with_stats
from cpsc.opt.inline import inline_with_stats
from cpsc.opt.licm import licm_with_stats
from cpsc.opt.loads import loads_with_stats
from cpsc.opt.local_refs import local_refs_with_stats
from cpsc.opt.simplify import simplify_with_stats
from cpsc.opt.specialise import specialise_with_stats

PassFunction = Callable[[Program, PassContext], tuple[Program, Counter[str]]]


@dataclass(frozen=True)
class Pass:
    name: str
    run: PassFunction
    doc: str


PASSES: dict[str, Pass] = {
    "simplify": Pass("simplify", simplify_with_stats,
                     "dead code, constant and branch folding, block merging, jump threading, phi simplification"),
    "inline": Pass("inline", inline_with_stats,
                   "inlining of known calls by return-continuation substitution (size/benefit heuristic)"),
    "specialise": Pass("specialise", specialise_with_stats,
                       "copies of functions for the known closures they are given, whose calls become known"),
    "contify": Pass("contify", contify_with_stats,
                    "functions always returning to one place become continuations (tail recursion: loops)"),
    "cse": Pass("cse", cse_with_stats,
                "global value numbering of pure values and immutable loads, VN-phis for unchanging loop parameters"),
    "facts": Pass("facts", facts_with_stats,
                  "comparisons, branches and switches decided by path facts (bounds checks in loops)"),
    "loads": Pass("loads", loads_with_stats,
                  "heap value numbering: a load of a field or an element already known is its value"),
    "licm": Pass("licm", licm_with_stats, "loop-invariant pure values and immutable loads move out of loops"),
    "local_refs": Pass("local_refs", local_refs_with_stats,
                       "refs that do not escape their function become continuation parameters (mem2reg)"),
}

BUILT_IN = frozenset(PASSES)


def run_alone(name: str, program: Program) -> Program:
    """The pass `name` as the `Program -> Program` function it is: no fuel limit, its remarks
    and statistics dropped."""
    return PASSES[name].run(program, PassContext())[0]


def register_pass(name: str, function: Callable[[Program], Program], doc: str | None = None) -> Pass:
    """Make a user's pass (any `Program -> Program` function) known by `name`: in `--passes`,
    the REPL's `:pass` and `run_pipeline`, without editing cpsc. Registering a name again
    replaces the earlier user pass; a built-in pass cannot be replaced."""
    if name in BUILT_IN:
        raise ValueError(f"'{name}' is a built-in pass")

    def run(program: Program, context: PassContext) -> tuple[Program, Counter[str]]:
        # Its rewrites cannot be counted one by one: the whole pass is one rewrite of the fuel,
        # so that `cpsc bisect` can blame it.
        if not context.allow(name, "the whole of a user's pass (its own rewrites are not counted)"):
            return program, Counter()
        return function(program), Counter()

    summary = doc if doc is not None else (function.__doc__ or "a user's pass").strip().split("\n")[0]
    PASSES[name] = Pass(name, run, summary)
    return PASSES[name]


@dataclass(frozen=True)
class Level:
    """What `-O<n>` means: the passes it runs, in order, and how far the inliner may grow code."""

    passes: list[str]
    inline_budget: InlineBudget

    def context(self, fuel: int | None = None) -> PassContext:
        """A context for one run of this level's pipeline (`fuel`: see `PassContext`)."""
        return PassContext(inline_budget=self.inline_budget, fuel=fuel)


# `specialise` makes known the closures a function is given; `simplify` then turns their applies
# into calls, which `inline` inlines; what those return (a curried function's next closure) is
# known after the next `simplify`, for the second `inline`.
_EVERY_PASS = ["simplify", "contify", "specialise", "simplify", "inline", "simplify", "inline", "simplify", "contify",
               "local_refs", "cse", "loads", "licm", "facts", "simplify"]

LEVELS: dict[int, Level] = {
    0: Level([], InlineBudget()),
    # Inlining of small functions only, and the cleaning up after it.
    1: Level(["simplify", "inline", "simplify"], InlineBudget(small=4, known_argument=8, caller=500, rounds=1)),
    2: Level(_EVERY_PASS, InlineBudget()),
    # -O2's passes with an inliner that may make code larger to make it faster.
    3: Level(_EVERY_PASS, InlineBudget(small=30, known_argument=100, caller=8000, rounds=4)),
}


@dataclass
class PassReport:
    name: str
    seconds: float
    counts: Counter[str]


def run_pipeline(program: Program, names: list[str],
                 after_each: Callable[[str, Program], None] | None = None,
                 context: PassContext | None = None) -> tuple[Program, list[PassReport]]:
    """Run the named passes in order; `after_each` sees every intermediate program (verify, dump);
    `context` gives the level, the fuel and collects remarks."""
    context = context if context is not None else PassContext()
    reports = []
    for name in names:
        if name not in PASSES:
            raise KeyError(f"unknown pass '{name}' (known: {', '.join(sorted(PASSES))})")
        start = time.perf_counter()
        before = program
        program, counts = PASSES[name].run(program, context)
        reports.append(PassReport(name, time.perf_counter() - start, counts))
        if name in BUILT_IN:  # a user's pass may make names of its own: the next one starts afresh
            context.passed_on(before, program)
        if after_each is not None:
            after_each(name, program)
    return program, reports

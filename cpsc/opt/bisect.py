"""`cpsc bisect prog.fl`: the first rewrite of the optimiser after which the program's output
changes, found by binary search on the fuel (`PassContext.fuel`).

The reference is the program at `-O0` in the CPS interpreter; each probe runs the pipeline with
fuel N and interprets the result. Assuming the output is right with no rewrite and wrong with
all of them, the search finds N such that N-1 rewrites keep the output and N change it, and
prints rewrite N's pass, what it did and where, and the IR before and after it (the functions
it changed, as a unified diff).
"""

from __future__ import annotations

import difflib
from typing import TextIO

from cpsc.cps.interp import run_cps
from cpsc.cps.printer import print_program
from cpsc.cps.program import Program
from cpsc.opt.context import InlineBudget, PassContext
from cpsc.opt.pipeline import run_pipeline
from cpsc.semantics.values import Outcome

UNLIMITED = 1 << 40


def optimised_with_fuel(program: Program, passes: list[str], budget: InlineBudget, fuel: int) -> tuple[Program, PassContext]:
    context = PassContext(inline_budget=budget, fuel=fuel)
    return run_pipeline(program, passes, context=context)[0], context


def first_bad_rewrite(program: Program, passes: list[str], budget: InlineBudget) -> tuple[int, int] | None:
    """(N, total): rewrite N is the first after which the output differs from `-O0`'s, out of
    `total` rewrites; None when the output never changes."""
    reference = run_cps(program)

    def good(fuel: int) -> bool:
        return _outcome(optimised_with_fuel(program, passes, budget, fuel)[0]) == reference

    _, context = optimised_with_fuel(program, passes, budget, UNLIMITED)
    total = context.spent
    if good(total):
        return None
    low, high = 0, total  # good(low) (no rewrite: the reference itself), not good(high)
    while high - low > 1:
        middle = (low + high) // 2
        if good(middle):
            low = middle
        else:
            high = middle
    return high, total


def _outcome(program: Program) -> Outcome:
    try:
        return run_cps(program)
    except Exception as error:  # noqa: BLE001 - a miscompiled program may crash the interpreter
        return Outcome("", f"interpreter failed: {error!r}", -1)


def bisect(program: Program, passes: list[str], budget: InlineBudget, out: TextIO) -> int:
    """Print the first rewrite that changes the output of `program` (at -O0, as CPS conversion
    makes it); status 0 if one is found, 1 if none."""
    found = first_bad_rewrite(program, passes, budget)
    if found is None:
        print("bisect: the output is the same after every rewrite", file=out)
        return 1
    n, total = found
    before, _ = optimised_with_fuel(program, passes, budget, n - 1)
    after, context = optimised_with_fuel(program, passes, budget, n)
    print(f"bisect: rewrite {n} of {total} changes the output", file=out)
    print(f"bisect: {context.last_rewrite}", file=out)
    wrong = _outcome(after)
    print(f"bisect: output before: {run_cps(before).stdout[:200]!r}", file=out)
    print(f"bisect: output after:  {wrong.stdout[:200]!r} (status {wrong.status})", file=out)
    out.writelines(_diff(before, after))
    return 0


def _diff(before: Program, after: Program) -> list[str]:
    """The functions that differ, as a unified diff of their IR."""
    def by_function(program: Program) -> dict[str, list[str]]:
        text = print_program(program)
        chunks: dict[str, list[str]] = {}
        current = ""
        for line in text.splitlines(keepends=True):
            if line.startswith("fun "):
                current = line.split()[1].split("(")[0]
            chunks.setdefault(current, []).append(line)
        return chunks

    old, new = by_function(before), by_function(after)
    lines: list[str] = []
    for name in sorted(set(old) | set(new)):
        if old.get(name) != new.get(name):
            lines.extend(difflib.unified_diff(old.get(name, []), new.get(name, []),
                                              f"before/{name}", f"after/{name}"))
    return lines

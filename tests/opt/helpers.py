"""What the pass tests share: run a pass on a program prepared by other passes, check that it
means what the source means, and measure the work it saves."""

from __future__ import annotations

from collections import Counter

from cpsc import driver
from cpsc.cps.interp import run_cps
from cpsc.cps.printer import print_program
from cpsc.syntax.interp import run_ast


def run_pass(source: str, before: list[str], passes: list[str]) -> tuple[str, Counter[str], Counter[str]]:
    """The CPS text after `before` then `passes` (verified after each), and the dynamic counts
    before and after `passes`; both runs must print what the AST interpreter prints."""
    typed = driver.front_end(source, "prog.fl")
    prepared, _ = driver.optimise(driver.to_cps(typed), before, verify_each=True)
    after, _ = driver.optimise(prepared, passes, verify_each=True)
    work_before: Counter[str] = Counter()
    work_after: Counter[str] = Counter()
    assert run_cps(after, counts=work_after) == run_cps(prepared, counts=work_before) == run_ast(typed)
    return print_program(after), work_before, work_after

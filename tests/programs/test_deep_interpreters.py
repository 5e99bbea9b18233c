"""The interpreters recurse as deep as native code: `deep_list_map.fl` (native-only in the
examples' runs, being slow to interpret) at each interpreter, once, with the optimiser's -O2."""

from __future__ import annotations

import pytest

from cpsc import driver
from cpsc.cps.interp import run_cps
from cpsc.mono.interp import run_ast
from cpsc.opt.pipeline import LEVELS
from cpsc.ssa.interp import run_ssa
from tests.programs.harness import ROOT, Program, check_outcome

PROGRAM = Program(ROOT / "tests" / "programs" / "deep_list_map.fl")


@pytest.mark.parametrize("level", ["ast", "cps", "ssa"])
def test_deep_recursion_at_each_interpreter(level):
    expr = driver.front_end(PROGRAM.text, PROGRAM.name)
    if level == "ast":
        outcome = run_ast(expr, "")
    else:
        cps, _ = driver.optimise(driver.to_cps(expr), LEVELS[2].passes)
        outcome = run_cps(cps, "") if level == "cps" else run_ssa(driver.to_ssa_module(cps), "")
    check_outcome(PROGRAM, outcome, level)

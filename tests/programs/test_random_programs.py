"""Property tests over random programs (cpsc/testing/generate.py): the interpreters agree at
every level, every pass (alone and in each -O pipeline) keeps the verifier silent, the CPS
text round-trips, and simplify is idempotent. HYPOTHESIS_PROFILE=thorough for a long run."""

from __future__ import annotations

import shutil
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings

from cpsc import driver
from cpsc.cps.interp import run_cps
from cpsc.cps.parser import parse_program
from cpsc.cps.printer import print_program
from cpsc.cps.verify import verify
from cpsc.mono.interp import run_ast
from cpsc.opt.pipeline import LEVELS, PASSES, run_alone
from cpsc.ssa.interp import run_ssa
from cpsc.ssa.parser import parse_module
from cpsc.ssa.printer import print_module
from cpsc.testing.generate import programs
from tests.programs.harness import Program, native

SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large]


def _front(source: str):  # type: ignore[no-untyped-def]
    return driver.front_end(source, "random.fl")


@settings(suppress_health_check=SLOW)
@given(programs())
def test_every_level_agrees(source: str):
    expr = _front(source)
    reference = run_ast(expr)
    cps = driver.to_cps(expr)
    verify(cps)
    assert run_cps(cps) == reference, source
    pipelines = {f"-O{number}": (level.passes, level) for number, level in LEVELS.items()}
    pipelines.update({name: ([name], LEVELS[2]) for name in PASSES})
    for label, (names, level) in pipelines.items():
        optimised, _ = driver.optimise(cps, names, verify_each=True, context=level.context())
        assert run_cps(optimised) == reference, (label, source)
        assert run_ssa(driver.to_ssa_module(optimised, verify_each=True)) == reference, (label, source)


@settings(suppress_health_check=SLOW)
@given(programs())
def test_print_parse_round_trip_and_idempotent_simplify(source: str):
    cps = driver.to_cps(_front(source))
    once = run_alone("simplify", cps)
    for program in (cps, once):
        text = print_program(program)
        assert parse_program(text) == program
        module = driver.to_ssa_module(program)
        assert parse_module(print_module(module)) == module
    assert run_alone("simplify", once) == once


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
@settings(max_examples=5, suppress_health_check=SLOW)
@given(programs())
def test_native_agrees(tmp_path_factory, source: str):
    path = tmp_path_factory.mktemp("random") / "random.fl"
    path.write_text(source)
    assert native(Program(path)) == run_ast(_front(source)), source


def _work(counts: Counter[str]) -> int:
    return sum(counts.values())


# A pipeline may add a little work: a hoisted value is computed once even when its loop then
# runs no iteration, an edge split for a loop parameter is one more jump.
WORK_ALLOWANCE = 4


@settings(suppress_health_check=SLOW)
@given(programs())
def test_optimised_programs_do_no_more_work(source: str):
    cps = driver.to_cps(_front(source))
    unoptimised: Counter[str] = Counter()
    reference = run_cps(cps, counts=unoptimised)
    for level in (1, 2):
        optimised, _ = driver.optimise(cps, LEVELS[level].passes, context=LEVELS[level].context())
        counts: Counter[str] = Counter()
        assert run_cps(optimised, counts=counts) == reference
        assert _work(counts) <= _work(unoptimised) + WORK_ALLOWANCE, (level, counts, unoptimised, source)

"""Properties of the optimiser over every example: simplify is idempotent and verified."""

from __future__ import annotations

import pytest

from cpsc import driver
from cpsc.cps.printer import print_program
from cpsc.cps.verify import verify
from cpsc.opt.pipeline import run_alone
from tests.programs.harness import ROOT

EXAMPLES = sorted((ROOT / "examples").glob("*.fl"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_simplify_is_idempotent(path):
    program = driver.to_cps(driver.front_end(path.read_text(), str(path)))
    once = run_alone("simplify", program)
    verify(once)
    assert print_program(run_alone("simplify", once)) == print_program(once)

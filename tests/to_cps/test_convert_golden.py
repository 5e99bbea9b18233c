"""Golden CPS conversion: `tests/to_cps/golden/*.fl` and the CPS IR that
`cpsc build --emit=cps --passes=simplify` gives for it (`.cps`). They show what a user sees of loops (a continuation whose parameter is
the loop variable, jumped back to: no closure, no call per iteration) and of match (a
decision tree of `switch`es on constructor tags). CPSC_UPDATE_GOLDEN=1 rewrites them."""

from __future__ import annotations

from pathlib import Path

import pytest

from cpsc import driver
from cpsc.cps.printer import print_program
from tests.kit import assert_golden

PROGRAMS = sorted((Path(__file__).parent / "golden").glob("*.fl"))


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_conversion_matches_golden(path: Path):
    program = driver.front_end(path.read_text(), path.name)
    cps, _ = driver.optimise(driver.to_cps(program), ["simplify"], verify_each=True)
    actual = print_program(cps)
    assert_golden(path.with_suffix(".cps"), actual)


def test_for_loop_is_a_loop_of_continuations():
    text = (Path(__file__).parent / "golden" / "for_loop.cps").read_text()
    body = text.split("fun sum_to", 1)[1].split("\nfun ", 1)[0]
    assert "cont for_body(i: int) =" in body and "jump for_body(i.1)" in body
    assert "closure" not in body and "apply" not in body


def test_match_dispatches_with_switches_on_tags():
    text = (Path(__file__).parent / "golden" / "match_switch.cps").read_text()
    assert "switch tag [0: case.2, 1: case.3] default" in text
    assert "is_block(op)" in text

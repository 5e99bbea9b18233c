"""The worked example of `docs/adding-a-pass.md` works: its pass, run on its input IR, gives
its output IR, verified and meaning what the input means; with no fuel it changes nothing."""

from __future__ import annotations

import re
import types
from pathlib import Path

from cpsc.cps.interp import run_cps
from cpsc.cps.parser import parse_program
from cpsc.cps.printer import print_program
from cpsc.cps.verify import verify
from cpsc.opt.context import PassContext

DOC = Path(__file__).resolve().parents[1] / "docs" / "adding-a-pass.md"


def _block(name: str) -> str:
    match = re.search(rf"<!-- test: {name} -->\n```[a-z]*\n(.*?)```", DOC.read_text(), re.S)
    assert match is not None, name
    return match.group(1)


def test_the_worked_example_pass_gives_the_ir_the_page_shows():
    module = types.ModuleType("strength")
    exec(compile(_block("pass"), str(DOC), "exec"), module.__dict__)  # noqa: S102 - the page's own code
    before = parse_program(_block("before"))
    after, stats = module.strength_with_stats(before, PassContext())
    verify(after)
    assert print_program(after) == _block("after")
    assert stats["multiplications made shifts"] == 1
    assert run_cps(after) == run_cps(before) and run_cps(before).stdout == "120"
    unchanged, _ = module.strength_with_stats(before, PassContext(fuel=0))
    assert unchanged is before

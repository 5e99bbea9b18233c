"""Golden IR tests: `tests/cps/golden/*.cps` hold input IR, a pass list and the expected IR.

Set CPSC_UPDATE_GOLDEN=1 to rewrite the expectations after an intended change (then review the diff).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cpsc.cps.interp import run_cps
from cpsc.cps.parser import parse_program
from cpsc.cps.printer import print_program
from cpsc.cps.verify import verify
from cpsc.opt.pipeline import run_pipeline
from tests.kit import updating_golden

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.cps"))


def _split(text: str) -> tuple[list[str], str, str, str]:
    header, _, rest = text.partition("main ")
    source, _, expected = ("main " + rest).partition(";; expect:\n")
    passes = next(line.split(":", 1)[1] for line in header.splitlines() if line.startswith(";; passes:"))
    return [p.strip() for p in passes.split(",")], header, source, expected


@pytest.mark.parametrize("path", GOLDEN, ids=[p.name for p in GOLDEN])
def test_golden(path: Path):
    passes, header, source, expected = _split(path.read_text())
    before = parse_program(source)
    verify(before)
    after, _ = run_pipeline(before, passes)
    verify(after)
    assert run_cps(after) == run_cps(before)
    actual = print_program(after)
    if updating_golden():
        path.write_text(header + source + ";; expect:\n" + actual)
        return
    assert actual == expected

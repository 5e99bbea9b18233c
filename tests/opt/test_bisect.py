"""`cpsc bisect`: with a planted bug switched on, the bisector names the rewrite that breaks
the program; with none, it finds nothing."""

from __future__ import annotations

import io

import pytest

from cpsc import driver
from cpsc.opt import planted
from cpsc.opt.bisect import bisect

SOURCE = """
let choose b = if b then "yes" else "no"
let () = print_string (choose true); print_string (choose false)
"""


def test_no_rewrite_changes_a_correct_optimisation():
    out = io.StringIO()
    assert bisect(driver.to_cps(driver.front_end(SOURCE, "b.fl")), ["simplify", "inline", "simplify"], 2, out) == 1
    assert "same after every rewrite" in out.getvalue()


def test_a_planted_bug_is_found(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(planted, "_ACTIVE", frozenset({"simplify.branch_inverted"}))
    out = io.StringIO()
    assert bisect(driver.to_cps(driver.front_end(SOURCE, "b.fl")), ["simplify", "inline", "simplify"], 2, out) == 0
    report = out.getvalue()
    assert "bisect: simplify: fold_constants" in report
    assert "output before: 'yesno'" in report
    assert "-    br " in report or "br " in report

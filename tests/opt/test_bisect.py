"""`cpsc bisect`: with a mutant of a pass (`tests/mutants.py`), the bisector names the rewrite
that breaks the program; with none, it finds nothing."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from cpsc import driver
from cpsc.opt.bisect import bisect
from cpsc.opt.context import InlineBudget

ROOT = Path(__file__).resolve().parents[2]
SOURCE = """
let choose b = if b then "yes" else "no"
let () = print_string (choose true); print_string (choose false)
"""


def test_no_rewrite_changes_a_correct_optimisation():
    out = io.StringIO()
    assert bisect(driver.to_cps(driver.front_end(SOURCE, "b.fl")), ["simplify", "inline", "simplify"], InlineBudget(), out) == 1
    assert "same after every rewrite" in out.getvalue()


def test_a_planted_bug_is_found(tmp_path: Path):
    # The mutant patches the pure build, in a process of its own.
    program = tmp_path / "b.fl"
    program.write_text(SOURCE)
    driver_code = ("import sys; from tests.mutants import MUTANTS; MUTANTS['simplify.branch_inverted'].apply(); "
                   "from cpsc.cli.main import main; sys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", driver_code, "bisect", str(program), "--passes", "simplify,inline,simplify"],
                          capture_output=True, text=True, cwd=ROOT, env={**os.environ, "CPSC_PURE": "1"})
    assert done.returncode == 0, done.stderr
    report = done.stdout
    assert "bisect: simplify: fold_constants" in report
    assert "output before: 'yesno'" in report
    assert "-    br " in report or "br " in report

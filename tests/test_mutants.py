"""The mutants of `tests/mutants.py` (what `scripts/planted-bugs` runs): each replaces helpers
the passes still have, and each changes what a pass makes of a program that uses the helper."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mutants import MUTANTS

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_a_mutant_replaces_helpers_the_passes_have(name: str):
    replacements = MUTANTS[name].replacements()
    assert replacements
    for owner, attribute, value in replacements:
        assert hasattr(owner, attribute), f"{owner.__name__}.{attribute}"
        assert getattr(owner, attribute) is not value


def test_a_mutant_is_applied_to_the_pure_build_only_and_changes_the_pass():
    # Applied in a process of its own (it patches modules); the branch folds the wrong way.
    code = ("import sys; from tests.mutants import MUTANTS; MUTANTS['simplify.branch_inverted'].apply(); "
            "import cpsc; p = cpsc.compile('let () = print_string (if 1 < 2 then \"yes\" else \"no\")'); "
            "print(p.pipeline(1).run().stdout)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "CPSC_PURE": "1"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "no"

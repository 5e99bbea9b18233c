"""Order-revealing programs (`cpsc.testing.order`) print what ocamlopt's executables print, at
every level; evaluated in another order, they would not."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from cpsc.testing import order

NEEDS_OCAMLOPT = pytest.mark.skipif(shutil.which("ocamlopt") is None, reason="ocamlopt is not installed")
# The quick profile in CI; HYPOTHESIS_PROFILE=thorough checks more (and `python -m cpsc.testing.order` more still)
COUNT = 60 if os.environ.get("HYPOTHESIS_PROFILE") == "thorough" else 3
FIRST_SEED = 51_000


def test_programs_come_again_from_their_seed_and_use_every_form():
    assert order.program(5) == order.program(5) != order.program(6)
    made = "".join(order.program(seed) for seed in range(40))
    for form in order.FORMS:
        marker = max(re.split(r'\{\}|"%"', form.replace("{{", "{").replace("}}", "}")), key=len)
        assert marker in made or form.isupper(), form
    for marker in ("{ (p ", "with Exit -> 99", "(boom "):
        assert marker in made, marker


@NEEDS_OCAMLOPT
@pytest.mark.parametrize("seed", range(FIRST_SEED, FIRST_SEED + COUNT))
def test_every_level_evaluates_as_ocamlopt(seed):
    verdict = order.check(seed)
    assert verdict.valid, "ocamlopt refused the program"
    assert verdict.disagreements == {}


PLANTED = f"""
from cpsc.testing import order
from cpsc.to_cps import convert
convert.Converter.values = lambda self, exprs, env: [self.value(e, env) for e in exprs]  # left to right
verdict = order.check({FIRST_SEED}, native=False)
print(verdict.valid, sorted(verdict.disagreements))
"""


@NEEDS_OCAMLOPT
def test_another_order_is_seen():
    """The CPS conversion planted with left-to-right evaluation (in the pure build, where a
    module can be patched): every level after it disagrees, the AST interpreter does not."""
    done = subprocess.run([sys.executable, "-c", PLANTED], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "CPSC_PURE": "1"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("True ")
    levels = done.stdout.split(" ", 1)[1]
    assert "ast" not in levels
    for level in ("cps-O0", "ssa-O0", "cps-O2", "ssa-O2", "cps-O3", "ssa-O3"):
        assert f"'{level}'" in levels, levels

"""Programs cpsc rejects (or warns about): `cpsc check` prints exactly the located diagnostic
of their `.stderr` file, with status 1 for an error and 0 for warnings alone."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.programs.harness import ROOT

ERRORS = ROOT / "tests" / "programs" / "errors"
PROGRAMS = sorted(ERRORS.glob("*.fl"))


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_diagnostic_is_located_on_the_construct(path):
    expected = path.with_suffix(".stderr").read_text()
    done = subprocess.run([sys.executable, "-m", "cpsc", "check", path.name], cwd=ERRORS, capture_output=True,
                          text=True, timeout=120)
    assert done.stderr == expected
    assert done.returncode == (1 if ": error: " in expected else 0)
    assert "Traceback" not in done.stderr


def test_every_construct_outside_fl_has_a_program():
    names = {p.stem for p in PROGRAMS}
    assert {"objects", "functor", "polymorphic_variant", "label", "optional", "gadt", "first_class_module",
            "lazy"} <= names

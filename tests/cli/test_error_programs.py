"""Programs cpsc rejects (or warns about): `cpsc check` prints exactly the located diagnostic
of their `.stderr` file, with status 1 for an error and 0 for warnings alone, in the compiled
build users get (mypyc, when built) and in the pure one alike."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.programs.harness import ROOT

ERRORS = ROOT / "tests" / "programs" / "errors"
PROGRAMS = sorted(ERRORS.glob("*.fl"))


BUILDS = {"compiled": {}, "pure": {"CPSC_PURE": "1"}}


@pytest.mark.parametrize("build", list(BUILDS))
@pytest.mark.parametrize("path", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_diagnostic_is_located_on_the_construct(path, build):
    expected = path.with_suffix(".stderr").read_bytes()
    done = subprocess.run([sys.executable, "-m", "cpsc", "check", path.name], cwd=ERRORS, capture_output=True,
                          timeout=120, env={**_without_pure(), **BUILDS[build]})
    assert done.stderr == expected
    assert done.returncode == (1 if b": error: " in expected else 0)
    assert b"Traceback" not in done.stderr


def _without_pure() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "CPSC_PURE"}


def test_the_compiled_build_is_the_one_tested():
    """In CI the compiler is compiled (scripts/bootstrap) and must run compiled, or the tests
    above test the pure build twice."""
    done = subprocess.run([sys.executable, "-c", "import cpsc.support.native; print(cpsc.support.native.mode())"],
                          capture_output=True, text=True, timeout=60, env=_without_pure())
    if os.environ.get("CI") != "true" and done.stdout.strip() != "compiled":
        pytest.skip(f"not compiled here: {done.stdout.strip()}")
    assert done.stdout.strip() == "compiled"


def test_every_construct_outside_fl_has_a_program():
    names = {p.stem for p in PROGRAMS}
    assert {"objects", "outside_recursive_module", "polymorphic_variant", "gadt",
            "first_class_module"} <= names

"""Every example agrees at all four levels (and through the JIT), with its .expected output,
and with ocaml."""

from __future__ import annotations

import os

import pytest

from tests.programs.harness import ROOT, Program, check_outcome, interpreted, jit, native, with_ocaml

PROGRAMS = sorted((ROOT / "examples").glob("*.fl")) + sorted((ROOT / "tests" / "programs").glob("*.fl"))
IDS = [p.name for p in PROGRAMS]


@pytest.mark.parametrize("path", PROGRAMS, ids=IDS)
def test_interpreters_agree_with_expected(path):
    program = Program(path)
    if program.native_only:
        pytest.skip("too long for the Python interpreters; its small twin runs there")
    for level, outcome in interpreted(program).items():
        check_outcome(program, outcome, level)


@pytest.mark.parametrize("path", PROGRAMS, ids=IDS)
def test_native_agrees_with_expected(path):
    program = Program(path)
    outcome = native(program)
    check_outcome(program, outcome, "native")
    if program.expected_status == 2 and program.expected_stderr is None:  # (a .stderr says what instead)
        assert outcome.stderr.startswith("Fatal error: exception ")


EVERY_LEVEL = [p for p in PROGRAMS if Program(p).every_level]


@pytest.mark.parametrize("path", EVERY_LEVEL, ids=[p.name for p in EVERY_LEVEL])
def test_every_optimisation_level_agrees(path):
    """-O1 and -O3 too, interpreted and native (the others run above)."""
    program = Program(path)
    for level, outcome in interpreted(program, (1, 3)).items():
        check_outcome(program, outcome, level)
    for opt in (1, 3):
        check_outcome(program, native(program, opt), f"native -O{opt}")


@pytest.mark.parametrize("path", PROGRAMS, ids=IDS)
def test_jit_agrees_with_expected(path):
    program = Program(path)
    outcome = jit(program)
    check_outcome(program, outcome, "jit")


@pytest.mark.skipif(os.environ.get("CPSC_NO_OCAML") == "1", reason="ocaml oracle disabled")
@pytest.mark.parametrize("path", PROGRAMS, ids=IDS)
def test_ocaml_agrees_with_expected(path):
    program = Program(path)
    if program.ocaml_differs:
        pytest.skip("a documented difference from OCaml (deep recursion)")
    outcome = with_ocaml(program)
    if outcome is None:
        pytest.skip("ocaml is not installed")
    assert outcome.stdout == program.expected_stdout
    assert outcome.status == program.expected_status

"""`independent_parts`: the program in parts that share no variable and no label, and
simplify by parts, which must reach the program the whole-program fixed point reaches."""

from __future__ import annotations

from pathlib import Path

import pytest

from cpsc import driver
from cpsc.cps.printer import print_program
from cpsc.cps.program import Program
from cpsc.cps.rewrite import cont_definitions
from cpsc.opt.context import PassContext
from cpsc.opt.parts import independent_parts
from cpsc.opt.pipeline import run_pipeline
from cpsc.opt.simplify import simplify_with_stats

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = sorted((ROOT / "tests" / "programs").glob("*.fl"))

NESTED = """
let make_counter start =
  let count = ref start in
  let step k = count := !count + k; !count in
  let twice k = step k + step k in
  twice
let square x = x * x
let apply_all fs x = List.map (fun f -> f x) fs
let () =
  let c = make_counter 10 in
  print_int (c 1 + square 3);
  List.iter print_int (apply_all [square; c; (fun y -> y + 1)] 4);
  print_newline ()
"""


def _cps(source: str, name: str = "prog.fl") -> Program:
    return driver.to_cps(driver.front_end(source, name))


def _check_parts(program: Program, size: int) -> list[tuple[list[str], list[str]]]:
    parts = independent_parts(program, size)
    part_of_function = {f: n for n, (functions, _) in enumerate(parts) for f in functions}
    part_of_label = {label: n for n, (_, labels) in enumerate(parts) for label in labels}
    assert sorted(part_of_function) == sorted(program.function_table)
    assert sorted(part_of_label) == sorted(program.cont_table)
    assert sum(len(labels) for _, labels in parts) == len(program.cont_table)
    defined = {p.name: f.name for f in program.function_table.values() for p in f.params}
    for cont in program.cont_table.values():
        assert part_of_label[cont.label] == part_of_function[cont.function]
        defined.update((v.name, cont.function) for v in cont_definitions(cont))
    for cont in program.cont_table.values():
        for name in cont.used_names:
            assert part_of_function[defined[name]] == part_of_function[cont.function], name
    return parts


@pytest.mark.parametrize("size", [1, 16, 256])
def test_no_variable_is_used_outside_its_part(size):
    program = _cps(NESTED)
    parts = _check_parts(program, size)
    if size == 1:  # a nested function that uses its parent's variables is in the parent's part
        by_function = {f: n for n, (functions, _) in enumerate(parts) for f in functions}
        assert by_function["step"] == by_function["make_counter"]  # uses `count`
        assert by_function["twice"] != by_function["make_counter"]  # names only `step`, a function
        assert by_function["square"] != by_function["make_counter"]


def test_parts_hold_the_whole_of_every_test_program():
    for path in PROGRAMS[:40]:
        try:
            program = _cps(path.read_text(encoding="latin-1"), str(path))
        except Exception:  # noqa: BLE001 - programs that are meant not to compile
            continue
        _check_parts(program, 64)


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_simplify_by_parts_reaches_the_whole_programs_fixed_point(path):
    """Limited fuel makes simplify sweep the whole program (the bisector's order of rewrites):
    with fuel to spare, it must reach the same program, text for text, after every pass."""
    try:
        program = _cps(path.read_text(encoding="latin-1"), str(path))
    except Exception:  # noqa: BLE001 - programs that are meant not to compile
        pytest.skip("does not compile")
    passes = ["simplify", "contify", "inline", "simplify", "contify", "local_refs", "cse", "licm", "simplify"]
    for number, name in enumerate(passes):
        if name == "simplify":
            by_parts, _ = simplify_with_stats(program)
            whole, _ = simplify_with_stats(program, PassContext(fuel=10**9))
            assert print_program(by_parts) == print_program(whole), f"simplify #{number}"
            program = by_parts
        else:
            program, _ = run_pipeline(program, [name])

"""Closures that take all their arguments at once: `full` from CPS conversion to the closure's
code, and an unknown application of all of them that allocates nothing."""

from __future__ import annotations

from collections import Counter

from cpsc import driver
from cpsc.cps.interp import run_cps
from cpsc.cps.parser import parse_program
from cpsc.cps.printer import print_program
from cpsc.mono.interp import run_ast
from cpsc.ssa.parser import parse_module as parse_ssa
from cpsc.ssa.printer import print_module

SOURCE = """
let add a b = a + b
let add3 a b c = a + b * c
let curried a = let d = a * 2 in fun b -> d + b
let rec repeat n (f : int -> int -> int) acc = if n = 0 then acc else repeat (n - 1) f (f acc n)
let () =
  let n = int_of_string (read_line ()) in
  print_int (repeat n add 0); print_newline ();
  print_int (repeat n (add3 1) 0); print_newline ();
  print_int (repeat n curried 0); print_newline ()
"""


def _cps(source: str = SOURCE):
    return driver.to_cps(driver.front_end(source, "prog.fl"))


def _allocations(program, n: int, which: str) -> int:
    """The allocations of a run applying `which` n times (the others 0 times)."""
    counts: Counter[str] = Counter()
    source = SOURCE.replace("repeat n " + which, "repeat m " + which).replace(
        "let n = int_of_string (read_line ()) in", "let n = 0 and m = int_of_string (read_line ()) in")
    run_cps(_cps(source) if program is None else program, f"{n}\n", counts)
    return counts["allocations"]


def test_a_closure_of_a_function_of_several_parameters_names_it_as_full():
    text = print_program(_cps())
    assert "= closure add.curry1() full add" in text
    assert "= closure add3.curry1() full add3" in text
    assert "apply f(acc, n)" in text  # one apply of both arguments


def test_an_unknown_saturated_call_allocates_nothing():
    """At -O0 (no pass makes the call known): applying `add` 10 or 1000 times allocates the
    same; a partial application of a function of three parameters, or a function returning a
    function, allocates at every application."""
    assert _allocations(None, 1000, "add") == _allocations(None, 10, "add")
    assert _allocations(None, 1000, "(add3 1)") - _allocations(None, 10, "(add3 1)") == 990
    assert _allocations(None, 1000, "curried") - _allocations(None, 10, "curried") == 990


def test_closure_conversion_gives_the_code_a_full_entry_and_every_level_agrees():
    closed = driver.closure_convert(_cps())
    text = print_program(closed)
    code = next(line for line in text.splitlines() if line.startswith("fun add.curry1.code("))
    assert " full add.full" in code
    assert print_program(parse_program(text)) == text
    module = driver.to_ssa_module(_cps())
    ssa_text = print_module(module)
    assert " full add.full" in ssa_text
    assert print_module(parse_ssa(ssa_text)) == ssa_text


def test_the_code_carries_its_arity_and_an_apply_tests_it():
    llvm = driver.to_llvm(driver.to_ssa_module(_cps()))
    code = next(line for line in llvm.splitlines() if '@"fl.add.curry1.code"(' in line and line.startswith("define"))
    assert 'prefix <{ i64, i64 }> <{ i64 sub (i64 ptrtoint (ptr @"fl.add.full" to i64)' in code
    assert code.endswith("i64 2 }>")
    inner = next(line for line in llvm.splitlines() if '@"fl.add.curry2.code"(' in line and line.startswith("define"))
    assert inner.endswith("<{ i64 0, i64 1 }>")
    assert "icmp eq i64" in llvm and "getelementptr i8, ptr" in llvm


def test_native_applies_go_by_the_arity_and_agree_with_the_interpreters(tmp_path):
    """At -O0 the three applies stay unknown: arity 2 (the full entry), a partial application of
    arity 3, a function of arity 1 returning a function (one argument at a time)."""
    from tests.programs.harness import Program, native

    (tmp_path / "arity.fl").write_text(SOURCE)
    (tmp_path / "arity.input").write_text("100\n")
    program = Program(tmp_path / "arity.fl")
    expected = run_ast(driver.front_end(SOURCE, "arity.fl"), "100\n")
    assert expected.stdout.startswith("5050\n") and expected.stdout.count("\n") == 3
    assert run_cps(_cps(), "100\n") == expected
    assert native(program, 0) == expected

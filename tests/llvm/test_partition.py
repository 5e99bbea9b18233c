"""A program split into parts that LLVM compiles in parallel behaves as it does in one piece:
every example and test program, built in three parts, prints what it should; the split keeps
what LLVM may inline together and cuts only calls of `noinline` functions."""

from __future__ import annotations

import subprocess

import pytest

from cpsc import driver
from cpsc.llvm.partition import functions_named, part_count, partition
from cpsc.opt.pipeline import LEVELS
from tests.programs.harness import Program, check_outcome, native
from tests.programs.test_examples import IDS, PROGRAMS

# An exception made in one top-level statement and matched in another, closures handed from
# one to the next, and a handler in one around a raise in another: each statement is a
# function of its own (noinline), so the split may put every one in a different part.
ACROSS_PARTS = """
exception Boom of int
let saved = ref Not_found
let handlers = ref []
let () = saved := Boom 41
let () = handlers := (fun x -> x * 2) :: (fun x -> raise (Boom x)) :: !handlers
let () =
  match !saved with
  | Boom n -> print_int (n + 1)
  | _ -> print_string "another exception"
let () =
  List.iter (fun h -> try print_int (h 5) with Boom n -> print_string (" boom " ^ string_of_int n)) !handlers
let () = print_newline ()
"""


def _module(source: str, opt: int = 2):  # type: ignore[no-untyped-def]
    cps, _ = driver.optimise(driver.to_cps(driver.front_end(source, "prog.fl")), LEVELS[opt].passes, context=LEVELS[opt].context())
    return driver.to_ssa_module(cps)


@pytest.mark.parametrize("path", PROGRAMS, ids=IDS)
def test_programs_built_in_parts_agree_with_expected(path):
    program = Program(path)
    check_outcome(program, native(program, parts=3), "native in parts")


def test_exceptions_and_closures_cross_parts(tmp_path):
    module = _module(ACROSS_PARTS)
    parts = partition(module, 8)
    assert len(parts) > 3
    exe = tmp_path / "prog"
    driver.native_executable(module, 2, str(exe), parts=8)
    done = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
    assert done.stdout == "4210 boom 5\n"


def test_only_calls_of_noinline_functions_are_cut():
    module = _module(ACROSS_PARTS, opt=0)
    parts = partition(module, 4)
    assert module.main in parts[0]
    part_of = {name: i for i, part in enumerate(parts) for name in part}
    assert set(part_of) == {f.name for f in module.functions}
    noinline = {f.name for f in module.functions if f.noinline}
    for f in module.functions:
        for callee in functions_named(f):
            assert part_of[callee] == part_of[f.name] or callee in noinline, (f.name, callee)


def test_small_programs_stay_whole():
    assert part_count(_module(ACROSS_PARTS)) == 1

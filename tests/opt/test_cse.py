"""`cse`: seed 004's loop (`k = k + 1 - 1` collapses to the value entering the loop) as golden
IR, and common values merged only where that is sound: never across a store, never for a loop
parameter that changes."""

from __future__ import annotations

import re

from cpsc import driver
from cpsc.cps.interp import run_cps
from cpsc.cps.parser import parse_program
from cpsc.cps.printer import print_program
from cpsc.cps.verify import verify
from cpsc.mono.interp import run_ast
from cpsc.opt.cse import cse_with_stats
from cpsc.opt.pipeline import run_alone
from tests.kit import OPT_GOLDEN as GOLDEN
from tests.kit import assert_golden


def test_loop_parameter_restored_each_iteration_collapses_to_its_initial_value():
    before = parse_program((GOLDEN / "vn_phi_before.cps").read_text())
    after, stats = cse_with_stats(before)
    verify(after)
    assert_golden(GOLDEN / "vn_phi_cse.cps", print_program(after))
    assert stats["parameters merged (VN-phi)"] == 1 and stats["values merged"] == 1
    simplified = run_alone("simplify", after)
    assert_golden(GOLDEN / "vn_phi_simplified.cps", print_program(simplified))
    loop = print_program(simplified).split("cont loop(", 1)[1]
    assert loop.startswith("i: int, acc: int)") and "add_int(k0, 1)" in loop and "sub_int" not in loop
    assert run_cps(simplified) == run_cps(before)
    assert run_cps(before).stdout == "160"


def _cse_agrees(source: str, passes: list[str]) -> str:
    typed = driver.front_end(source, "prog.fl")
    optimised, _ = driver.optimise(driver.to_cps(typed), passes, verify_each=True)
    assert run_cps(optimised) == run_ast(typed)
    return print_program(optimised)


def _right_hand_sides(text: str) -> list[str]:
    return [line.split(" = ", 1)[1] for line in text.splitlines() if line.startswith("    let ")]


def test_equal_pure_values_are_computed_once():
    source = """
type point = { x : int; y : int }
let norm p = p.x * p.x + p.y * p.y
let f a b =
  let p = { x = a; y = b } in
  let d = (a - 1) * (b - 1) + (a - 1) * (1 + a) + (a + 1) * (b + 1) in
  print_int (norm p + d + p.x * p.x); print_char ' ';
  print_int ((b - 1) - (a - 1))
let () = let n = Array.length Sys.argv in f (n + 6) (n + 2)
"""
    without = _right_hand_sides(_cse_agrees(source, ["simplify", "inline", "simplify"]))
    with_cse = _right_hand_sides(_cse_agrees(source, ["simplify", "inline", "simplify", "cse", "simplify"]))
    assert len(with_cse) == len(set(with_cse)) < len(set(without))
    assert len(with_cse) <= len(without) - 5


def _count(pattern: str, text: str) -> int:
    return len(re.findall(pattern, text))


def test_loads_are_merged_but_not_across_stores():
    source = """
type cell = { mutable v : int; w : int }
let () =
  let a = Array.make 3 1 in
  let r = ref 5 in
  let c = { v = 1; w = 2 } in
  let x = a.(1) + !r + c.v + c.w in
  a.(1) <- 10; r := 20; c.v <- 30;
  let y = a.(1) + !r + c.v + c.w in
  print_int x; print_char ' '; print_int y
"""
    without = _cse_agrees(source, ["simplify"])
    with_cse = _cse_agrees(source, ["simplify", "cse", "simplify"])
    # `c.w` (immutable) is read once; `a.(1)` and `c.v` again after the stores to them
    assert _count(r"= field \S+ #1\n", with_cse) == _count(r"= field \S+ #1\n", without) - 1
    assert _count(r"array_unsafe_get\(", with_cse) == _count(r"array_unsafe_get\(", without) == 2
    assert _count(r"= field \S+ #0\n", with_cse) == _count(r"= field \S+ #0\n", without)


def _loop_parameters(text: str) -> list[str]:
    header = re.search(r"cont loop\.head\(([^)]*)\)", text)
    assert header is not None, text
    return [p.split(":")[0] for p in header.group(1).split(", ")]


def test_an_unchanging_loop_parameter_goes_and_a_changing_one_stays():
    source = """
let sum n k j =
  let rec loop i k j acc = if i > n then acc else loop (i + 1) (k + 2 - 1) (j + 1 - 1) (acc + i * k + j) in
  loop 1 k j 0
let () = print_int (sum 10 (int_of_string "4") 3); print_char ' '; print_int (sum 3 0 1)
"""
    before = ["simplify", "contify", "simplify"]
    assert _loop_parameters(_cse_agrees(source, before)) == ["i", "k.1", "j.1", "acc"]
    assert _loop_parameters(_cse_agrees(source, before + ["cse", "simplify"])) == ["i", "k.1", "acc"]

"""`cse`: seed 004's loop (`k = k + 1 - 1` collapses to the value entering the loop) as golden
IR, and common values merged only where that is sound: never across a store, never for a loop
parameter that changes."""

from __future__ import annotations

from cpsc import driver
from cpsc.cps.interp import run_cps
from cpsc.cps.parser import parse_program
from cpsc.cps.printer import print_program
from cpsc.cps.verify import verify
from cpsc.opt.cse import cse_with_stats
from cpsc.opt.simplify import simplify
from cpsc.syntax.interp import run_ast
from tests.opt.test_inline import GOLDEN, _golden


def test_loop_parameter_restored_each_iteration_collapses_to_its_initial_value():
    before = parse_program((GOLDEN / "vn_phi_before.cps").read_text())
    after, stats = cse_with_stats(before)
    verify(after)
    _golden("vn_phi_cse.cps", print_program(after))
    assert stats["parameters merged (VN-phi)"] == 1 and stats["values merged"] == 1
    simplified = simplify(after)
    _golden("vn_phi_simplified.cps", print_program(simplified))
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


def test_loads_and_reads_are_not_merged_across_stores():
    _cse_agrees("""
type cell = { mutable v : int; w : int }
let () =
  let a = Array.make 3 1 in
  let r = ref 5 in
  let c = { v = 1; w = 2 } in
  let x = a.(1) + !r + c.v + c.w in
  a.(1) <- 10; r := 20; c.v <- 30;
  let y = a.(1) + !r + c.v + c.w in
  print_int x; print_char ' '; print_int y
""", ["simplify", "cse", "simplify"])


def test_changing_loop_parameters_stay():
    _cse_agrees("""
let sum n k =
  let rec loop i k acc = if i > n then acc else loop (i + 1) (k + 2 - 1) (acc + i * k) in
  loop 1 k 0
let () = print_int (sum 10 (int_of_string "4")); print_char ' '; print_int (sum 3 0)
""", ["simplify", "contify", "simplify", "cse", "simplify"])

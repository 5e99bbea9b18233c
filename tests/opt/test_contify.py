"""`contify`: a local tail-recursive function becomes a loop of continuations in its caller."""

from __future__ import annotations

from cpsc import driver
from cpsc.cps.interp import run_cps
from cpsc.cps.printer import print_program
from cpsc.opt.contify import contify_with_stats

SOURCE = """
let sum_to n =
  let rec loop i acc = if i > n then acc else loop (i + 1) (acc + i) in
  let total = loop 0 0 in
  total * 2

let () = print_int (sum_to (int_of_string "100")); print_int (sum_to 3)
"""


def test_tail_recursive_local_function_becomes_a_loop():
    cps = driver.to_cps(driver.front_end(SOURCE, "loop.fl"))
    simplified, _ = driver.optimise(cps, ["simplify"], verify_each=True)
    contified, stats = contify_with_stats(simplified)
    optimised, _ = driver.optimise(contified, ["simplify"], verify_each=True)
    assert stats["loops made"] >= 1
    text = print_program(optimised)
    assert "fun loop" not in text
    sum_to = text.split("fun sum_to(", 1)[1].split("\nfun ", 1)[0]
    assert "cont loop.head(" in sum_to and "jump loop.head(" in sum_to and "call " not in sum_to
    assert run_cps(optimised) == run_cps(cps)
    assert run_cps(cps).stdout == "1010012"


RAISING_LOOP = """
let rec check t n = if n > t then raise Exit else if n < 0 then check t (n + 1) else n
let count_until limit t =
  let rec loop i acc =
    if i = 7 then raise Not_found
    else if i > limit then acc
    else loop (i + 1) (List.fold_left (fun a x -> a + x * i) acc [check t i; 1])
  in
  try loop 0 0 with Exit -> -1 | Not_found -> -7
let () =
  print_int (count_until 10 3); print_char ' ';
  print_int (count_until 10 100); print_char ' ';
  print_int (count_until 5 100); print_char ' ';
  print_int (count_until 4 2); print_char ' ';
  print_int (check 5 (-2))
"""


def test_a_loop_contified_inside_try_keeps_its_handler_and_its_closures():
    """`loop` moves into `count_until` inside a `try`: its call of `check` and its own raise
    must reach the `try`'s handler, and the closure it makes must now be nested in
    `count_until`."""
    from cpsc.mono.interp import run_ast

    typed = driver.front_end(RAISING_LOOP, "loop.fl")
    simplified, _ = driver.optimise(driver.to_cps(typed), ["simplify"], verify_each=True)
    contified, stats = contify_with_stats(simplified)
    optimised, _ = driver.optimise(contified, ["simplify"], verify_each=True)
    assert stats["loops made"] >= 1 and "fun loop" not in print_program(optimised)
    assert run_cps(optimised) == run_ast(typed)
    assert run_ast(typed).stdout == "-1 -7 70 -1 0"

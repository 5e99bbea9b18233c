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

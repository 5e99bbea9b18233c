"""`licm`: invariant values leave loops, loads that a store or a constructor test guards stay."""

from __future__ import annotations

import re

from cpsc import driver
from cpsc.cps.interp import run_cps
from cpsc.cps.printer import print_program
from cpsc.mono.interp import run_ast
from cpsc.opt.licm import licm_with_stats
from tests.kit import run_pass

SOURCE = """
let f (o : int option) (p : int * int) n =
  let a = Array.make 4 1 in
  let rec loop i acc =
    if i > n then acc
    else
      let (x, y) = p in
      let s = x * y + n * 3 in
      a.(1) <- a.(1) + i;
      match o with
      | Some v -> loop (i + 1) (acc + v * s + a.(1))
      | None -> loop (i + 1) (acc + s)
  in loop 0 0
let () =
  let k = Array.length Sys.argv in
  print_int (f (Some (k + 2)) (k, k + 1) 10); print_char ' ';
  print_int (f None (k + 3, 4) 5)
"""

BEFORE_LICM = ["simplify", "contify", "inline", "simplify", "contify", "simplify", "cse"]


def _function(text: str, name: str) -> str:
    return text.split(f"fun {name}(", 1)[1].split("\nfun ", 1)[0]


def test_invariant_values_leave_the_loop_and_guarded_loads_stay():
    typed = driver.front_end(SOURCE, "prog.fl")
    before, _ = driver.optimise(driver.to_cps(typed), BEFORE_LICM, verify_each=True)
    after, stats = driver.optimise(before, ["licm"], verify_each=True)
    assert run_cps(after) == run_ast(typed)
    assert run_ast(typed).stdout == "1287 186"
    function = _function(print_program(after), "f")
    # the names the program's `n` and `a` have after inlining (the library's names come first)
    n = re.search(r"(n(?:\.\d+)?): int\)", function.split("\n", 1)[0])
    a = re.search(r"let (\S+): array<int> = array_make\(4, 1\)", function)
    assert n is not None and a is not None
    preheader, loop = function.split("cont loop.head(", 1)
    for invariant in ("field p #0", "field p #1", f"mul_int({n[1]}, 3)", f"array_length({a[1]})", "is_block(o)"):
        assert invariant in preheader and invariant not in loop
    assert "field o #0" in loop  # only once the constructor test has passed
    assert loop.count(f"array_unsafe_get({a[1]}, 1)") == 2  # the loop stores into `a`
    _, counts = licm_with_stats(before)
    assert counts["values hoisted"] >= 8


def test_nested_loops_hoist_to_the_outermost_loop_they_do_not_depend_on():
    source = """
let grid n m =
  let total = ref 0 in
  for i = 1 to n do
    for j = 1 to m do
      total := !total + (n * m + i) * j
    done
  done;
  !total
let () = print_int (grid (Array.length Sys.argv + 3) 4)
"""
    _, work_before, work_after = run_pass(source, BEFORE_LICM, ["licm", "simplify"])
    # `n * m` leaves both loops (once instead of 4 * 4 times), `n * m + i` the inner one
    assert work_before["values"] - work_after["values"] == (16 - 1) + (16 - 4)

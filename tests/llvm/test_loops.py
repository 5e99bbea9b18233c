"""What the optimiser promises LLVM's code: tail-recursive loops are branches, not calls, and
a higher-order pipeline allocates no closure in its per-element loop."""

from __future__ import annotations

import re

from cpsc import driver
from cpsc.cps import ir
from cpsc.cps.analysis import FunctionGraph
from cpsc.llvm.backend import optimize
from cpsc.opt.licm import natural_loops
from cpsc.opt.pipeline import LEVELS

TAIL_LOOPS = """
let rec count_down i acc = if i = 0 then acc else count_down (i - 1) (acc + (i land 7))
let rec even n = if n = 0 then true else odd (n - 1)
and odd n = if n = 0 then false else even (n - 1)
let sum_to n = let rec go i s = if i > n then s else go (i + 1) (s + i * i) in go 0 0
let () =
  let k = Array.length Sys.argv in
  print_int (count_down (k * 1000) 0); print_string (if even (k + 10) then "e" else "o");
  print_int (sum_to (k + 100))
"""


def _optimised_llvm(source: str) -> str:
    cps, _ = driver.optimise(driver.to_cps(driver.front_end(source, "prog.fl")), LEVELS[2].passes)
    return str(optimize(driver.to_llvm(driver.to_ssa_module(cps)), 2))


def test_tail_recursive_loops_are_branches_not_calls():
    llvm_ir = _optimised_llvm(TAIL_LOOPS)
    calls = re.findall(r"call [^@]*@([\w.]+)\(", llvm_ir)
    assert "fl_print_int" in calls  # the program is there
    # the only calls of compiled functions left are main's of each top-level statement
    assert [c for c in calls if c.startswith("fl.") and not c.startswith("fl.toplevel")] == []
    assert len(re.findall(r"br i1 .*, label %[\w.]+, label %[\w.]+", llvm_ir)) >= 3


PIPELINE = """
let rec map f = function [] -> [] | x :: rest -> let y = f x in y :: map f rest
let rec fold f acc = function [] -> acc | x :: rest -> fold f (f acc x) rest
let () =
  let xs = map (fun x -> x + 1) [1; 2; 3; 4; 5] in
  let total = ref 0 in
  for round = 1 to Array.length Sys.argv + 9 do
    let scale = round mod 7 + 1 in
    total := !total + fold (fun acc z -> acc + z * scale) 0 (map (fun x -> x * scale) xs)
  done;
  print_int !total
"""


def test_a_higher_order_pipeline_allocates_no_closure_per_element():
    cps, _ = driver.optimise(driver.to_cps(driver.front_end(PIPELINE, "prog.fl")), LEVELS[2].passes)
    inner_loops = 0
    for function in cps.functions:
        graph = FunctionGraph(cps, function)
        loops = natural_loops(graph)
        for header, body in loops.items():
            if any(other != header and other in body for other in loops):
                continue  # an outer loop (per round): its closures are made once a round
            inner_loops += 1
            made = [b for label in body for b in cps.conts[label].bindings if isinstance(b.value, ir.MakeClosure)]
            assert not made, (function, header, made)
    assert inner_loops >= 1

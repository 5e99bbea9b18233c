"""`facts`: bounds checks that dominating tests make redundant go (golden IR: a `for` loop over
an array); a repeated test and a match on a matched value fold; checks that may fail stay, and
`x + 1 > x` is not folded where `x + 1` may wrap."""

from __future__ import annotations

from collections import Counter

import pytest

from cpsc import driver
from cpsc.cps.interp import run_cps
from cpsc.cps.parser import parse_program
from cpsc.cps.printer import print_program
from cpsc.cps.verify import verify
from cpsc.mono.interp import run_ast
from cpsc.opt.facts import facts_with_stats
from cpsc.opt.pipeline import LEVELS, run_alone
from tests.kit import OPT_GOLDEN as GOLDEN
from tests.kit import assert_golden

BEFORE_FACTS = LEVELS[2].passes[:LEVELS[2].passes.index("facts")]
OUT_OF_BOUNDS = '"index out of bounds"'


def test_a_for_loop_over_an_array_keeps_no_bounds_check():
    before = parse_program((GOLDEN / "facts_loop_before.cps").read_text())
    after, stats = facts_with_stats(before)
    verify(after)
    assert_golden(GOLDEN / "facts_loop_after.cps", print_program(after))
    assert stats == Counter({"comparisons decided": 2, "booleans decided": 1, "branches decided": 1})
    simplified = run_alone("simplify", after)
    assert OUT_OF_BOUNDS in print_program(before) and OUT_OF_BOUNDS not in print_program(simplified)
    work_before: Counter[str] = Counter()
    work_after: Counter[str] = Counter()
    assert run_cps(simplified, counts=work_after) == run_cps(before, counts=work_before)
    assert run_cps(before).stdout == "20"
    assert work_after["values"] < work_before["values"]


def _optimised(source: str, passes: list[str]) -> tuple[str, Counter[str]]:
    """The CPS text after `passes` (verified after each), which must mean what the source means,
    and the facts pass's counts."""
    typed = driver.front_end(source, "prog.fl")
    before = driver.to_cps(typed)
    counts: Counter[str] = Counter()
    program = before
    for name in passes:
        if name == "facts":
            program, found = facts_with_stats(program)
            counts.update(found)
        else:
            program, _ = driver.optimise(program, [name], verify_each=True, context=LEVELS[2].context())
        verify(program)
    assert run_cps(program) == run_ast(typed)
    return print_program(program), counts


def _function(text: str, name: str) -> str:
    return text.split(f"fun {name}(", 1)[1].split("\nfun ", 1)[0]


LOCAL = ["simplify", "contify", "local_refs", "simplify", "cse", "facts", "simplify"]


def test_a_repeated_test_and_a_match_on_a_matched_value_fold():
    source = """
type t = A of int | B of int | C
let f v = match v with A x -> (match v with A y -> x + y | B _ -> 0 | C -> 1) | B x -> x | C -> 2
let g x n = if x < n then (if x < n then 1 else 2) else (if x >= n then 3 else 4)
let h x n = if x <= n then (if n >= x then 5 else 6) else (if x = n then 7 else 8)
let () = print_int (f (A 3) + f (B 1) + f C + g 1 2 + g 3 2 + h 1 1 + h 2 1)
"""
    text, counts = _optimised(source, LOCAL)
    assert "switch" not in _function(text, "f").split("field v #1", 1)[1]  # the inner match: no test
    for name, left in (("g_int", ("1", "3")), ("h_int", ("5", "8"))):
        body = _function(text, name)
        assert body.count("br ") == 1, body  # one test, each arm decided by it
        assert all(f"({value})" in body for value in left)
    assert counts["switches decided"] == 1 and counts["branches decided"] >= 3


def test_checks_that_can_fail_stay():
    source = """
let past a = let s = ref 0 in for i = 0 to Array.length a do s := !s + a.(i) done; !s
let below a i = if i < Array.length a then a.(i) else 0
let above a i = if i >= 0 then a.(i) else 0
let ahead a = let s = ref 0 in for i = 0 to Array.length a - 1 do s := !s + a.(i + 1) done; !s
let show f = print_int (try f () with Invalid_argument _ -> -1); print_char ' '
let () =
  let a = [| 1; 2; 3 |] and b = [| 4 |] in
  show (fun () -> past a); show (fun () -> past b); show (fun () -> below a (-1)); show (fun () -> below a 2);
  show (fun () -> above a 3); show (fun () -> above b 0); show (fun () -> ahead a); show (fun () -> ahead b)
"""
    text, _ = _optimised(source, LOCAL)
    for name in ("past", "below", "above", "ahead"):
        assert OUT_OF_BOUNDS in _function(text, name), name


def test_a_continuation_entered_by_callc_is_not_an_arm_of_its_predecessors_branch():
    """The loop body's `if` is entered by a `callc` from the continuation that ends in the
    loop's exit test: that test's outcome (`i <> -1`) is not known in it, so `i >= 0` is not,
    and the check of `a.(i)` stays (found by a random program: `facts` alone removed it)."""
    source = """
let h a = let s = ref 0 in
  (try for i = Array.length a - 1 downto -1 do s := !s + (if i < Array.length a then a.(i) else 7) done
   with Invalid_argument _ -> s := !s + 100); !s
let () = print_int (h [||]); print_int (h [| 5 |])
"""
    text, _ = _optimised(source, ["facts"])
    assert OUT_OF_BOUNDS in _function(text, "h")


@pytest.mark.parametrize("test, at_the_edge", [
    ("x + 1 > x", "max_int"), ("x - 1 < x", "min_int"), ("x + 2 >= x + 1", "max_int - 1"),
    ("x - 3 <= x - 2", "min_int + 2")])
def test_wrapping_arithmetic_is_not_taken_as_exact(test: str, at_the_edge: str):
    source = f"""
let f x = {test}
let g x = if x < 100 && x > -100 then {test} else false
let () = Printf.printf "%b %b %b %b" (f 5) (f ({at_the_edge})) (g 5) (g 200)
"""
    text, _ = _optimised(source, LOCAL)
    assert "true false true false" == run_cps(parse_program(text)).stdout
    assert "_int(" in _function(text, "f")  # the comparison stays where x may be at the edge
    assert "_int(" not in _function(text, "g").split("br ", 2)[-1]  # and goes where it cannot


def test_guessed_loop_facts_hold_only_when_every_jump_keeps_them():
    # `j` starts at 0 but the back edge may make it negative: `j >= 0` is not a loop fact
    source = """
let f a k =
  let s = ref 0 and j = ref 0 in
  for _ = 1 to 5 do
    (try s := !s + a.(!j) with Invalid_argument _ -> s := !s + 100);
    j := !j - k
  done;
  !s
let () = print_int (f [| 1; 2; 3 |] 1); print_char ' '; print_int (f [| 1; 2; 3 |] (-1))
"""
    text, _ = _optimised(source, LOCAL)
    assert OUT_OF_BOUNDS in _function(text, "f")
    assert run_cps(parse_program(text)).stdout == "401 206"


def test_the_pass_is_in_every_optimising_level_after_licm():
    for level in (2, 3):
        passes = LEVELS[level].passes
        assert passes.index("facts") > passes.index("licm") and passes[-1] == "simplify"

"""`simplify`: each reduction on a small program, checked against the AST interpreter (what
the program means) and for the shape it leaves."""

from __future__ import annotations

from pathlib import Path

from cpsc import driver
from cpsc.cps.interp import run_cps
from cpsc.cps.printer import print_program
from cpsc.mono.interp import run_ast
from cpsc.opt.simplify import simplify_with_stats


def _simplified(source: str) -> tuple[str, object]:
    typed = driver.front_end(source, "prog.fl")
    cps = driver.to_cps(typed)
    optimised, _ = driver.optimise(cps, ["simplify"], verify_each=True)
    _, stats = simplify_with_stats(cps)
    assert run_cps(optimised) == run_ast(typed)
    return print_program(optimised), stats


def test_fields_of_a_block_built_in_sight_fold_to_the_right_items():
    text, stats = _simplified("""
type point = { x : int; y : int; z : int }
let () =
  let a = int_of_string "7" and b = int_of_string "3" in
  let p = (a, b, a * b) in
  let (u, v, w) = p in
  let q = { x = w; y = v; z = u } in
  print_int (q.x - q.y * q.z); print_char ' ';
  print_int (u - v); print_char ' '; print_int (w / v)
""")
    assert stats["fields of known blocks"] >= 6
    main = text.split("fun toplevel", 1)[-1]
    assert " field(" not in main


def test_constant_branches_fold_to_the_taken_side():
    text, stats = _simplified("""
let () =
  if 3 < 4 then print_string "yes" else print_string "no";
  if 2 * 3 = 7 then print_string "wrong" else print_string "right"
""")
    assert stats["branches folded"] >= 2
    assert "br " not in text and '"no"' not in text and '"wrong"' not in text


def test_unused_effects_stay_and_unused_pure_values_go():
    text, stats = _simplified("""
let () =
  let a = Array.make 3 0 in
  let unused = int_of_string "5" * 2 in
  let _ = print_string "effect" in
  a.(1) <- 4;
  print_int a.(1)
""")
    assert stats["dead values removed"] >= 1
    assert "print_string" in text and "array_unsafe_set" in text


def test_a_match_on_a_constructor_built_in_sight_folds_to_its_case():
    text, stats = _simplified("""
type shape = Circle of int | Square of int * int | Empty
let () =
  let k = Array.length Sys.argv in
  print_int (match Square (k, k + 1) with Circle r -> 3 * r * r | Square (a, b) -> a * b | Empty -> 0);
  print_int (match Empty with Circle r -> 3 * r * r | Square (a, b) -> a * b | Empty -> 0);
  print_int (match Some k with Some v -> v | None -> 0);
  print_int (match [k; 2] with _ :: y :: _ -> y | _ -> 7)
""")
    assert stats["cases of known constructors"] >= 3
    assert "switch" not in text and "is_block" not in text and "br " not in text


def test_applications_of_closures_made_in_sight_become_calls():
    """The closure made by `fun acc (_, f) -> fun x -> ...` is applied where it is made: a known
    call. The closures the calls make inside the fold's loop must still each see that
    iteration's `acc` (the CPS interpreter once shared it between them)."""
    from tests.kit import run_pass

    text, before, after = run_pass("""
let () =
  let operations = [("double", fun x -> x * 2); ("square", fun x -> x * x); ("negate", fun x -> -x)] in
  let pipeline = List.fold_left (fun acc (_, f) -> fun x -> f (acc x)) (fun x -> x) operations in
  print_int (pipeline 3); print_char ' ';
  let table = Array.init 4 (fun i -> fun x -> x + i) in
  print_int (Array.fold_left (fun acc f -> f acc) 0 table)
""", ["simplify", "contify", "inline"], ["simplify"])
    assert before["closure calls"] > after["closure calls"]


def test_golden_applies_of_known_closures_with_a_full_function():
    """`closure add.curry1() full add` applied to both arguments is `call add`, applied to one
    a call of its curried wrapper; applied to more (`adder`), the call of the full function is
    split off and its result takes the rest, as a closure of a function of one parameter applied
    to two arguments (as a value and in tail position)."""
    from collections import Counter

    from cpsc.cps.parser import parse_program
    from cpsc.cps.verify import verify
    from cpsc.opt.simplify import LazyNames, Region, call_known_closures

    golden = Path(__file__).parent / "golden"
    before = parse_program((golden / "full_apply_before.cps").read_text())
    stats: Counter[str] = Counter()
    known = call_known_closures(before, stats, Region((before.main,), LazyNames(before, None)))
    verify(known)
    assert print_program(known) == (golden / "full_apply_known.cps").read_text()
    assert run_cps(known) == run_cps(before)
    assert run_cps(known).stdout == "235"


def test_a_call_whose_value_or_unit_is_returned_becomes_a_tail_call():
    text, stats = _simplified("""
let rec countdown n = if n > 0 then (print_int n; countdown (n - 1); ())
let last_of n = let r = ref 0 in for i = 1 to n do r := i done; !r
let twice n = let m = last_of n in m
let guarded n = try last_of (10 / n) with Division_by_zero -> -1
let plus_one n = last_of n + 1
let seven n = ignore (last_of n); 7
let () =
  countdown 3; print_int (twice 4); print_int (guarded 0); print_int (guarded 5); print_int (plus_one 2);
  print_int (seven 3)
""")
    assert stats["tail calls formed"] >= 2
    countdown = text.split("fun countdown", 1)[1].split("\nfun ", 1)[0]
    assert "tailcall countdown(" in countdown
    guarded = text.split("fun guarded", 1)[1].split("\nfun ", 1)[0]
    assert "tailcall" not in guarded  # its handler must still catch what the call raises
    for other_value in ("plus_one", "seven"):  # (they return something else than the call's value)
        assert "tailcall" not in text.split(f"fun {other_value}", 1)[1].split("\nfun ", 1)[0]

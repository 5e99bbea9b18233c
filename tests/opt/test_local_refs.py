"""`local_refs`: refs that do not escape become continuation parameters; the others stay."""

from __future__ import annotations

from collections import Counter

from tests.kit import run_pass

BEFORE = ["simplify", "contify", "inline", "simplify", "contify", "simplify"]


def _promoted(source: str) -> tuple[str, Counter[str], Counter[str]]:
    return run_pass(source, BEFORE, ["local_refs", "simplify"])


def test_for_loops_over_refs_carry_the_values_in_parameters():
    text, before, after = _promoted("""
let grid n m =
  let total = ref 0 and count = ref 0 in
  for i = 1 to n do
    for j = 1 to m do
      if (i + j) mod 3 = 0 then incr count;
      total := !total + i * j
    done
  done;
  (!total, !count)
let () =
  let (t, c) = grid (Array.length Sys.argv + 3) 4 in
  print_int t; print_char ' '; print_int c;
  let (t, c) = grid 0 4 in print_int t; print_int c
""")
    assert "block mutable" not in text and "set_field" not in text
    assert before["allocations"] - after["allocations"] == 4


def test_refs_that_escape_stay_refs():
    text, _, _ = _promoted("""
let run n =
  let hidden = ref 0 and seen = ref 0 and local = ref 1 in
  let bump = Array.make 1 (fun () -> hidden := !hidden + 1) in
  for i = 1 to n do bump.(0) (); local := !local * 2; seen := !seen + i done;
  let keep = Array.make 1 seen in
  print_int !hidden; print_char ' '; print_int !local; print_char ' ';
  print_int !(keep.(0))
let () = run (Array.length Sys.argv + 4)
""")
    assert text.count("block mutable") == 2


def test_a_handler_sees_the_value_current_at_the_call_that_raised():
    text, _, _ = _promoted("""
let rec check n = if n > 2 then raise Exit else if n < 0 then check (n + 1) else n
let attempt n =
  let r = ref 0 in
  let s = ref 10 in
  (try
     r := 1;
     s := check n;
     r := 2
   with Exit -> print_int !r; print_char ' ');
  print_int (!r + !s); print_char ' '
let () = attempt (Array.length Sys.argv); attempt (Array.length Sys.argv + 5); print_int (check (-3))
""")
    assert "block mutable" not in text and "call check(n" in text

"""`loads`: heap value numbering. A load of a place stored or loaded before, with no store
that may reach it in between, is the value known (golden IR); stores to a place another
variable may name, calls, joins and loop headers forget what they may change."""

from __future__ import annotations

from collections import Counter

from cpsc import driver
from cpsc.cps.interp import run_cps
from cpsc.cps.parser import parse_program
from cpsc.cps.printer import print_program
from cpsc.cps.verify import verify
from cpsc.mono.interp import run_ast
from cpsc.opt.loads import loads_with_stats
from cpsc.opt.pipeline import LEVELS
from tests.kit import OPT_GOLDEN as GOLDEN
from tests.kit import assert_golden

PREPARE = ["simplify", "contify", "local_refs", "simplify", "cse"]


def test_known_fields_are_not_loaded_again_and_aliases_are():
    before = parse_program((GOLDEN / "loads_before.cps").read_text())
    after, stats = loads_with_stats(before)
    verify(after)
    assert_golden(GOLDEN / "loads_after.cps", print_program(after))
    assert stats == Counter({"loads of known places": 2})
    f = print_program(after).split("fun f(", 1)[1]
    assert "field b #1" in f and "let m.1" not in f  # loaded once: the store to #0 keeps #1
    assert "let x: float = field a #0" in f  # `b`'s store may have been `a`'s: loaded again
    assert "let y" not in f and "add_float(t.1, w)" in f  # `b`'s field #0 is what was stored
    assert run_cps(after) == run_cps(before)
    assert run_cps(before).stdout == "16.7537.5"  # f(p, p): a and b one block


def _loads(source: str) -> tuple[str, Counter[str]]:
    """The program after PREPARE and `loads` (verified), which must mean what the source means,
    and the pass's counts."""
    typed = driver.front_end(source, "prog.fl")
    prepared, _ = driver.optimise(driver.to_cps(typed), PREPARE, verify_each=True, context=LEVELS[2].context())
    after, stats = loads_with_stats(prepared)
    verify(after)
    assert run_cps(after) == run_ast(typed)
    return print_program(after), stats


def _function(text: str, name: str) -> str:
    return text.split(f"fun {name}(", 1)[1].split("\nfun ", 1)[0]


def test_array_elements_and_the_stores_that_may_reach_them():
    source = """
let f a b i j =
  a.(i) <- 5;
  let x = a.(i) in      (* 5 *)
  b.(j) <- 7;           (* b may be a, j may be i *)
  let y = a.(i) in      (* loaded again *)
  let z = b.(j) in      (* 7 *)
  x + y * 10 + z * 100
let () =
  let a = [| 1; 2 |] and b = [| 3; 4 |] in
  print_int (f a b 0 1); print_char ' '; print_int (f a a 1 1); print_char ' '; print_int (f a a 0 1)
"""
    text, stats = _loads(source)
    body = _function(text, "f")
    assert body.count("array_unsafe_get(") == 1 and stats["loads of known places"] == 2
    assert run_ast(driver.front_end(source, "prog.fl")).stdout == "755 775 755"


def test_calls_joins_and_loops_forget():
    source = """
type cell = { mutable v : int }
let bump c = c.v <- c.v + 1
let after_call c = let x = c.v in bump c; x + c.v
let after_join c k = let x = c.v in (if k > 0 then c.v <- k); x + c.v
let in_loop c n = let s = ref 0 in for i = 1 to n do s := !s + c.v; c.v <- i done; !s + c.v
let in_arm c k = c.v <- 3; if k > 0 then c.v * 2 else c.v
let () =
  let c = { v = 1 } in
  bump c;
  Printf.printf "%d %d %d %d %d\\n" (after_call c) (after_join c 10) (after_join c 0) (in_loop c 4) (in_arm c 1);
  Printf.printf "%d %d %d\\n" (after_call c) (in_arm c 0) (in_loop c 2)
"""
    text, _ = _loads(source)
    for name in ("after_call", "after_join", "in_loop"):
        assert _function(text, name).count(": int = field c") >= 2, name
    arm = _function(text, "in_arm")
    assert "set_field c" in arm and " = field c" not in arm  # each arm is entered from the store's end only


def test_the_pass_runs_after_cse_at_every_optimising_level():
    for level in (2, 3):
        passes = LEVELS[level].passes
        assert passes.index("cse") < passes.index("loads") < passes.index("licm")

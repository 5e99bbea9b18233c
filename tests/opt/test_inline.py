"""`inline`: DESIGN.md's example as golden IR (the call site inlined by return-continuation
substitution, then simplified), the call-site API the REPL uses, what is refused and why,
and the remarks."""

from __future__ import annotations

from pathlib import Path

import pytest

from cpsc import driver
from cpsc.cps import ir
from cpsc.cps.interp import run_cps
from cpsc.cps.parser import parse_program
from cpsc.cps.printer import print_program
from cpsc.cps.program import Program
from cpsc.cps.verify import verify
from cpsc.mono.interp import run_ast
from cpsc.opt.context import PassContext
from cpsc.opt.inline import NotInlinable, call_sites, inline_call_site, inline_with_stats
from cpsc.opt.pipeline import LEVELS, run_alone
from tests.kit import OPT_GOLDEN as GOLDEN
from tests.kit import assert_golden


def test_design_example_inlined_by_return_continuation_substitution():
    before = parse_program((GOLDEN / "sq_before.cps").read_text())
    [site] = call_sites(before, "f")
    assert (site.callee, site.loc) == ("sq", "prog.fl:2:11")
    after = inline_call_site(before, site)
    verify(after)
    assert_golden(GOLDEN / "sq_inlined.cps", print_program(after))
    text = print_program(after)
    assert "call sq" not in text.split("fun f(", 1)[1]
    assert "jump sq.ret(" in text  # `ret sq` became the fresh return continuation
    simplified = run_alone("simplify", after)
    assert_golden(GOLDEN / "sq_simplified.cps", print_program(simplified))
    f_body = print_program(simplified).split("fun f(", 1)[1]
    assert "mul_int(a, a)" in f_body and "jump (ret f)" in f_body and "sq.ret" not in f_body
    assert run_cps(simplified) == run_cps(before)


RAISING = """main main
fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    let r: int = call guarded(0)
    let u: unit = print_int(r)
    jump (ret main)(u)
fun check(x: int) -> int in main = callc check.entry() ret (ret check)
  cont check.entry() =
    let z: bool = eq_int(x, 0)
    br z, bad, good
  cont bad() =
    let e: exn = block(exception("Not_found", ""))
    jump (exn check)(e)
  cont good() =
    jump (ret check)(x)
fun guarded(n: int) -> int in main = callc guarded.entry() ret (ret guarded)
  cont guarded.entry() =
    let c: int = call check(n) handler caught
    jump (ret guarded)(c)
  cont caught(exn: exn) =
    jump (ret guarded)(42)
"""


def test_a_raise_in_the_inlined_code_becomes_a_jump_to_the_handler():
    before = parse_program(RAISING)
    [site] = call_sites(before, "guarded")
    after = inline_call_site(before, site)
    verify(after)
    guarded = print_program(after).split("fun guarded(", 1)[1]
    assert "jump caught(" in guarded and "exn check" not in guarded
    assert run_cps(after).stdout == run_cps(before).stdout == "42"


def test_inlining_a_call_that_always_raises_keeps_what_follows_it_scoped():
    """What followed a call of a function that always raises is dead, but a function nested in
    the caller (here a closure specialised into a known function) may still name the call's
    result: the code stays, unreachable, until simplify removes it, and every pass of -O2
    leaves a program the verifier accepts (found by random programs)."""
    source = """
exception Ea
let () = print_float (
  let rec h17 g18 k19 =
    if k19 <= 0 then
      g18 (let rec h22 g23 k24 = if k24 <= 0 then g23 0.5 k24 else h22 g23 (k24 - 1) in
           h22 (fun x29 -> let w31 = (let f34 = fun x35 -> k19 in f34 0) in fun y30 -> raise Ea) 0) k19
    else h17 g18 (k19 - 1) in
  let a20 = h17 (fun x61 -> let w63 = (let v65 = (if 0 = 0 then 0 else 0) in 0) in fun y62 -> x61) 0 in
  let b21 = h17 (fun x66 y67 -> 0.5) 0 in a20 +. b21)
"""
    typed = driver.front_end(source, "raises.fl")
    optimised, _ = driver.optimise(driver.to_cps(typed), LEVELS[2].passes, verify_each=True,
                                   context=LEVELS[2].context())
    assert run_cps(optimised) == run_ast(typed)
    assert "Ea" in run_cps(optimised).stderr


def test_inline_refuses_a_call_of_a_function_inside_itself():
    program = parse_program("""main main
fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    let r: int = call loop(3)
    let u: unit = print_int(r)
    jump (ret main)(u)
fun loop(n: int) -> int in main = callc loop.entry() ret (ret loop)
  cont loop.entry() =
    let z: bool = eq_int(n, 0)
    br z, done, again
  cont done() =
    jump (ret loop)(0)
  cont again() =
    let m: int = sub_int(n, 1)
    let r: int = call loop(m)
    jump (ret loop)(r)
""")
    [site] = call_sites(program, "loop")
    with pytest.raises(NotInlinable, match="inside loop itself"):
        inline_call_site(program, site)


def test_heuristic_remarks_say_why():
    program = parse_program((GOLDEN / "sq_before.cps").read_text())
    context = PassContext()
    inlined, stats = inline_with_stats(program, context)
    verify(inlined)
    assert stats["calls inlined"] == 2
    messages = {str(r) for r in context.remarks}
    assert "prog.fl:2:11: remark: sq inlined into f: its only call (size 2)" in messages
    assert run_cps(inlined) == run_cps(program)


def test_fuel_stops_the_inliner():
    program = parse_program((GOLDEN / "sq_before.cps").read_text())
    context = PassContext(fuel=1)
    inlined, stats = inline_with_stats(program, context)
    assert stats["calls inlined"] == 1 and context.spent == 1
    assert context.last_rewrite is not None and context.last_rewrite.startswith("inline: ")


CALLS_IN_A_TRY = """
let rec find x l = match l with [] -> raise Not_found | y :: r -> if x = y then 0 else 1 + find x r
let lookup x = find x [1; 2; 3] + 1
let apply_twice f x = f (f x)
let () =
  print_int (try lookup 5 with Not_found -> -1);
  print_int (try lookup 2 with Not_found -> -1);
  print_int (try apply_twice (fun y -> if y > 2 then raise Exit else y + 2) 1 with Exit -> -2)
"""


def test_calls_in_inlined_code_raise_to_the_handler_of_the_call():
    """`lookup` is inlined inside `try`; the call of the recursive `find` it contains must
    raise to the `try`'s handler, not out of the caller."""
    from cpsc import driver
    from cpsc.mono.interp import run_ast

    typed = driver.front_end(CALLS_IN_A_TRY, "try.fl")
    optimised, reports = driver.optimise(driver.to_cps(typed), ["simplify", "inline", "simplify"],
                                         verify_each=True)
    assert sum(r.counts["calls inlined"] for r in reports) >= 2
    assert run_cps(optimised) == run_ast(typed)
    assert run_ast(typed).stdout == "-12-2"


def test_inlining_a_recursive_callee_keeps_its_recursive_call():
    """The copy of a recursive function still calls the original (a bug renamed the call to
    the caller, found by the REPL's :inline)."""
    from cpsc import driver
    from cpsc.cps.interp import run_cps
    from cpsc.cps.verify import verify
    from cpsc.opt.inline import call_sites, inline_call_site

    source = ("let rec map f = function [] -> [] | x :: r -> f x :: map f r\n"
              "let sum l = List.fold_left (+) 0 (map (fun x -> x * x) l)\n"
              "let () = print_int (sum [1; 2; 3])\n")
    program = driver.to_cps(driver.front_end(source, "t.fl"))
    site = call_sites(program, "sum")[0]
    assert site.callee == "map_int_int"
    inlined = inline_call_site(program, site)
    verify(inlined)
    copied = [c for c in inlined.conts.values() if c.function == "sum"]
    calls = [b.value.function for c in copied for b in c.bindings if isinstance(b.value, ir.Call)]
    assert calls == ["map_int_int"]
    assert run_cps(inlined).stdout == "14"


PROGRAMS = sorted((Path(__file__).resolve().parents[2] / "tests" / "programs").glob("*.fl"))


def _rounds_until_one_inlines_nothing(program: Program, context: PassContext) -> Program:
    """The inliner as it was before its early stop: rounds until one inlines nothing."""
    from collections import Counter

    from cpsc.cps.analysis import name_supply
    from cpsc.opt import inline as inline_module

    stats: Counter[str] = Counter()
    names = name_supply(program)
    for _ in range(context.inline_budget.rounds):
        before = stats["calls inlined"]
        program = inline_module._Heuristic(program, context, stats, names).run()
        if stats["calls inlined"] == before:
            break
    return program


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_stopping_when_no_round_can_inline_more_loses_nothing(path):
    """The inliner stops after a round that copied no call and left no callee with one call
    (the next round would redo the whole program's analyses to inline nothing): it must give
    the program that rounds until one inlines nothing give."""
    from cpsc import driver
    from cpsc.opt.pipeline import run_pipeline

    try:
        program = driver.to_cps(driver.front_end(path.read_text(encoding="latin-1"), str(path)))
    except Exception:  # noqa: BLE001 - programs that are meant not to compile
        pytest.skip("does not compile")
    program, _ = run_pipeline(program, ["simplify", "contify"])
    for level in (2, 3):
        stopped, _ = inline_with_stats(program, LEVELS[level].context())
        exhaustive = _rounds_until_one_inlines_nothing(program, LEVELS[level].context())
        assert print_program(stopped) == print_program(exhaustive), f"-O{level}"

"""For each verifier rule: IR text that breaks it, and the verifier's message."""

from __future__ import annotations

from pathlib import Path

import pytest

from cpsc.cps.interp import run_cps
from cpsc.cps.parser import parse_program
from cpsc.cps.printer import print_program
from cpsc.cps.verify import VerifyError, verify

VALID = """main main

fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    let r: int = call sq(3)
    let c: bool = lt_int(r, 10)
    br c, small, big
  cont small() =
    jump done(r)
  cont big() =
    jump done(0)
  cont done(v: int) =
    let u: unit = print_int(v)
    jump (ret main)(u)

fun sq(x: int) -> int in main = callc sq.entry() ret (ret sq)
  cont sq.entry() =
    let y: int = mul_int(x, x)
    jump (ret sq)(y)
"""

BROKEN = [
    ("bound twice", ("let y: int = mul_int(x, x)", "let y: int = mul_int(x, x)\n    let y: int = add_int(x, 1)"),
     "bound more than once"),
    ("use not dominated", ("jump done(0)", "jump done(w)\n  cont extra() =\n    let w: int = add_int(1, 2)\n    jump done(w)"),
     "does not dominate"),
    ("ret of another function", ("jump (ret sq)(y)", "jump (ret main)(y)"), "only usable in its own function"),
    ("jump arity", ("jump done(0)", "jump done(0, 1)"), "expects 1 arguments but is given 2"),
    ("jump type", ("jump done(0)", "jump done(true)"), "has type bool but int is expected"),
    ("primitive type", ("mul_int(x, x)", "mul_int(x, 2.5)"), "argument 2 of primitive mul_int"),
    ("continuation of another function", ("jump (ret sq)(y)", "jump done(y)"), "continuations are local"),
    ("branch condition", ("br c, small, big", "br r, small, big"), "branch condition has type int"),
    ("variable of an unrelated function",
     ("in main = callc sq.entry() ret (ret sq)\n  cont sq.entry() =\n    let y: int = mul_int(x, x)",
      "= callc sq.entry() ret (ret sq)\n  cont sq.entry() =\n    let y: int = mul_int(r, r)"),
     "not nested in it"),
    ("call arity", ("call sq(3)", "call sq(3, 4)"), "function sq expects 1 arguments"),
    ("result type", ("let r: int = call sq(3)", "let r: float = call sq(3)"), "float"),
    ("unknown continuation", ("jump done(0)", "jump nowhere(0)"), "unknown continuation nowhere"),
    ("nested function named outside its parent",
     ("fun sq(x: int) -> int in main = callc",
      "fun helper() -> int in main = callc helper.entry() ret (ret helper)\n  cont helper.entry() =\n"
      "    jump (ret helper)(1)\n\nfun sq(x: int) -> int in helper = callc"),
     "function sq, nested in helper, is named in function main, which is not nested in helper"),
]


def _accepted_and_runs(text: str, stdout: str) -> None:
    """The verifier accepts the program, which prints and parses back identically and runs."""
    program = parse_program(text)
    verify(program)
    assert parse_program(print_program(program)) == program
    assert run_cps(program).stdout == stdout


def test_valid_program_is_accepted():
    _accepted_and_runs(VALID, "9")


@pytest.mark.parametrize("name, edit, message", BROKEN, ids=[b[0] for b in BROKEN])
def test_verifier_rejects(name, edit, message, valid=VALID):
    old, new = edit
    assert old in valid
    program = parse_program(valid.replace(old, new, 1))
    with pytest.raises(VerifyError, match=message):
        verify(program)


def test_second_class_continuations_cannot_be_values():
    # A label in operand position is just an unbound variable: continuations are not values.
    with pytest.raises(ValueError, match="never bound"):
        parse_program(VALID.replace("jump done(0)", "jump done(small)"))


CLOSED_WITH_GLOBAL = """main main closed
global g: int

fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    let s: unit = global_store g(41)
    let r: int = call f()
    let u: unit = print_int(r)
    jump (ret main)(u)

fun f() -> int = callc f.entry() ret (ret f)
  cont f.entry() =
    let v: int = global_load g
    let w: int = add_int(v, 1)
    jump (ret f)(w)
"""


@pytest.mark.parametrize("old, new, message", [
    ("global_load g", "global_load h", "global h is not declared"),
    ("global_store g(41)", "global_store g(true)", "argument 1 of global_store g has type bool"),
    ("global g: int", "global g: bool", "(v is declared int|argument 1 of global_store g has type int)"),
])
def test_globals_are_declared_and_used_at_their_type(old, new, message):
    verify(parse_program(CLOSED_WITH_GLOBAL))
    with pytest.raises(VerifyError, match=message):
        verify(parse_program(CLOSED_WITH_GLOBAL.replace(old, new, 1)))


VALID_EXCEPTIONS = """main main

fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    let r: int = call risky(3) handler caught
    jump done(r)
  cont caught(problem: exn) =
    jump done(0)
  cont done(v: int) =
    let u: unit = print_int(v)
    jump (ret main)(u)

fun risky(x: int) -> int in main = callc risky.entry() ret (ret risky)
  cont risky.entry() =
    let c: bool = lt_int(x, 0)
    br c, fail, fine
  cont fail() =
    let e: exn = block(exception("Exit", ""))
    jump (exn risky)(e)
  cont fine() =
    jump (ret risky)(x)
"""

BROKEN_EXCEPTIONS = [
    ("exn of another function", ("jump (exn risky)(e)", "jump (exn main)(e)"), "only usable in its own function"),
    ("exn given a non-exception", ("jump (exn risky)(e)", "jump (exn risky)(x)"), "has type int but exn is expected"),
    ("handler without an exn parameter", ("handler caught", "handler done"), "must take one parameter of type exn"),
    ("handler of another function", ("handler caught", "handler fine"), "continuations are local"),
    ("handler using the call's result", ("cont caught(problem: exn) =\n    jump done(0)", "cont caught(problem: exn) =\n    jump done(r)"),
     "handler caught took an exception"),
]


def test_valid_exceptions_are_accepted():
    _accepted_and_runs(VALID_EXCEPTIONS, "3")


@pytest.mark.parametrize("name, edit, message", BROKEN_EXCEPTIONS, ids=[b[0] for b in BROKEN_EXCEPTIONS])
def test_verifier_rejects_exception_misuse(name, edit, message):
    test_verifier_rejects(name, edit, message, VALID_EXCEPTIONS)


FULL_APPLY = (Path(__file__).parent.parent / "opt" / "golden" / "full_apply_before.cps").read_text()

BROKEN_FULL = [
    ("full of another type", ("closure add.curry1() full add", "closure add.curry1() full pair"),
     "does not take all the arguments"),
    ("full of one parameter", ("closure add.curry1() full add", "closure add.curry1() full add.curry1"),
     "does not take all the arguments"),
    ("full not a sibling", ("fun add(a: int, b: int) -> int in main", "fun add(a: int, b: int) -> int in tails"),
     "is not a sibling"),
    ("apply of too many arguments", ("apply add_closure(1, 2)", "apply add_closure(1, 2, 3)"), "to 3 arguments"),
]


def test_closures_with_a_full_function_are_accepted():
    _accepted_and_runs(FULL_APPLY, "235")


@pytest.mark.parametrize("name, edit, message", BROKEN_FULL, ids=[b[0] for b in BROKEN_FULL])
def test_verifier_rejects_a_wrong_full_function(name, edit, message):
    test_verifier_rejects(name, edit, message, FULL_APPLY)

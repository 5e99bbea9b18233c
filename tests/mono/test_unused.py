"""Monomorphisation keeps only the functions a program uses: the prelude costs a program
nothing beyond what it calls, at every later stage (even at -O0)."""

from __future__ import annotations

from cpsc import driver
from cpsc.cps.interp import run_cps
from cpsc.mono.interp import run_ast


def functions_of(source: str) -> set[str]:
    return set(driver.to_cps(driver.front_end(source, "t.fl")).functions)


def test_hello_pays_only_for_print_endline():
    # main and the top-level statement it calls (see `Converter.outlined`)
    assert functions_of('let () = print_endline "hello"\n') == {"main", "toplevel_1", "print_endline"}


def test_unused_user_functions_are_dropped_but_effects_stay():
    source = """
let unused x = x + 1
let rec ping n = if n = 0 then 0 else pong (n - 1)
and pong n = ping n
let rec even n = if n = 0 then true else odd (n - 1)
and odd n = if n = 0 then false else even (n - 1)
let side = print_string "effect "
let () = print_string (if odd 7 then "odd" else "even")
"""
    names = {name.split(".")[0] for name in functions_of(source)}
    assert "unused" not in names and "ping" not in names and "pong" not in names
    assert {"even", "odd"} <= names  # `even` is only called by `odd`, which the program uses
    expr = driver.front_end(source, "t.fl")
    assert run_ast(expr).stdout == run_cps(driver.to_cps(expr)).stdout == "effect odd"

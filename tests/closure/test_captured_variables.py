"""Closure conversion's free variables: transitive through calls, exact inside mutual recursion."""

from __future__ import annotations

from cpsc import driver
from cpsc.closure.convert import captured_variables, closure_convert
from cpsc.cps.graphs import strongly_connected_components
from cpsc.cps.interp import run_cps
from cpsc.cps.parser import parse_program
from cpsc.cps.printer import print_program
from cpsc.cps.verify import verify
from cpsc.mono.interp import run_ast
from cpsc.ssa.interp import run_ssa
from cpsc.ssa.parser import parse_module as parse_ssa
from cpsc.ssa.printer import print_module


def test_components_come_callees_first():
    edges = {"main": ["f"], "f": ["g"], "g": ["f", "h"], "h": []}
    components = strongly_connected_components(["main", "f", "g", "h"], edges)
    assert [sorted(c) for c in components] == [["h"], ["f", "g"], ["main"]]


def test_chain_of_100k_functions_needs_no_recursion():
    n = 100_000
    edges = {f"f{i}": [f"f{i - 1}"] if i else [] for i in range(n)}
    components = strongly_connected_components(list(reversed(list(edges))), edges)
    assert components[0] == ["f0"] and len(components) == n


def free_names(source: str) -> dict[str, list[str]]:
    cps = driver.to_cps(driver.front_end(source, "t.fl"))
    return {f: [v.name for v in vs] for f, vs in captured_variables(cps).items()}


def test_variable_of_an_enclosing_function_is_not_free_in_a_sibling_that_calls_back():
    # `inner` (nested in `outer`) uses `v` and calls `other`, which calls `outer`: `other` must
    # not receive `v`, which does not exist where `other` is called from the top level.
    source = """
let rec outer x = let v = x * 2 in let inner y = v + other y in inner x
and other z = if z > 10 then z else outer (z + 1)
let () = print_int (other 1)
"""
    free = free_names(source)
    other = next(name for name in free if name.startswith("other"))
    inner = next(name for name in free if name.startswith("inner"))
    assert free[other] == [] and len(free[inner]) == 1  # `v` (named by its value in the IR)


def test_top_level_values_used_by_a_chain_of_functions_become_globals():
    # Lifted as parameters, c0..ci would be passed to every f_i: quadratic code.
    n = 50
    lines = ["let c0 = int_of_float 1.5", "let f0 x = x + c0"]
    for i in range(1, n):
        lines += [f"let c{i} = c{i - 1} + 1", f"let f{i} x = f{i - 1} x + c{i}"]
    lines.append(f"let () = print_int (f{n - 1} 0)")
    expr = driver.front_end("\n".join(lines) + "\n", "t.fl")
    cps = driver.to_cps(expr)
    closed = closure_convert(cps)
    verify(closed)
    assert len(closed.globals) == n
    assert all(len(closed.functions[f"f{i}"].params) == 1 for i in range(n))
    text = print_program(closed)
    assert print_program(parse_program(text)) == text
    module = driver.to_ssa_module(cps)
    assert print_module(parse_ssa(print_module(module))) == print_module(module)
    expected = str(sum(range(1, n + 1)))
    assert run_ast(expr).stdout == run_cps(closed).stdout == run_ssa(module).stdout == expected

"""Closure conversion's free variables: transitive through calls, exact inside mutual recursion."""

from __future__ import annotations

from cpsc import driver
from cpsc.closure.convert import free_variables, strongly_connected_components


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
    return {f: [v.name for v in vs] for f, vs in free_variables(cps).items()}


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

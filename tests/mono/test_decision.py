"""Decision trees (cpsc/mono/decision.py): no value is tested twice along a path, and the
warnings name a value the match misses, as OCaml's do."""

from __future__ import annotations

from cpsc import driver
from cpsc.mono import decision as d
from cpsc.syntax import ast

RED_BLACK = """
type color = R | B
type t = E | T of color * t * int * t
let balance = function
  | B, T (R, T (R, a, x, b), y, c), z, d
  | B, T (R, a, x, T (R, b, y, c)), z, d
  | B, a, x, T (R, T (R, b, y, c), z, d)
  | B, a, x, T (R, b, y, T (R, c, z, d)) -> T (R, T (B, a, x, b), y, T (B, c, z, d))
  | color, a, x, b -> T (color, a, x, b)
let () = match balance (B, E, 1, E) with T (_, _, x, _) -> print_int x | E -> ()
"""


def matches(source: str) -> list[ast.Match]:
    program = driver.front_end(source, "m.fl")
    found: list[ast.Match] = []
    stack: list[object] = [program.body]
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(node)
        elif hasattr(node, "__dataclass_fields__"):
            if isinstance(node, ast.Match) and node.span.file == "m.fl":
                found.append(node)
            stack.extend(getattr(node, f) for f in node.__dataclass_fields__ if f not in ("span", "ty", "tree"))
    return found


def paths_test_each_value_once(tree: d.Tree, tested: frozenset[int] = frozenset()) -> bool:
    if isinstance(tree, d.Guard):
        return paths_test_each_value_once(tree.otherwise, tested)
    if not isinstance(tree, d.Switch):
        return True
    occurrence = tree.occurrence.id
    if occurrence in tested:
        return False
    subtrees = [sub for _, _, sub in tree.cases] + ([tree.default] if tree.default is not None else [])
    return all(paths_test_each_value_once(sub, tested | {occurrence}) for sub in subtrees)


def test_no_value_is_tested_twice_along_a_path():
    (balance, final) = sorted(matches(RED_BLACK), key=lambda m: m.span.line)
    for match in (balance, final):
        assert paths_test_each_value_once(match.tree.tree)
    assert not match.tree.warnings


def test_missing_value_and_unused_case():
    source = ("type t = A | B of int | C of t\n"
              "let f = function A -> 0 | B 0 -> 1 | C (B _) -> 2 | A -> 3 | C A -> 4\n"
              "let () = print_int (f A)\n")
    (match,) = matches(source)
    warnings = [(w.message, w.notes) for w in match.tree.warnings]
    assert ("this pattern-matching is not exhaustive",
            ("here is an example of a case that is not matched: B 1",)) in warnings
    assert any(message == "this match case is unused" for message, _ in warnings)


def test_guards_do_not_make_a_match_exhaustive():
    (match,) = matches("let f x = match x with n when n > 0 -> 1 | 0 -> 0\nlet () = print_int (f 3)\n")
    (warning,) = match.tree.warnings
    assert warning.notes == ("here is an example of a case that is not matched: 1",
                             "however, some guarded clause may match this value")

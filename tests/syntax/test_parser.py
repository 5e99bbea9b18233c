"""The parser: comments blanked in place, spans of nodes as OCaml reports them."""

from __future__ import annotations

import pytest

from cpsc.elaborate import parse_module
from cpsc.syntax import ast
from cpsc.syntax.diagnostics import CompileError
from cpsc.syntax.lexical import strip_comments


def test_comments_are_blanked_keeping_positions():
    text = 'let x = 1 (* a (* nested *) comment\n still *) + 2\nlet s = "(* not a comment *)"\n'
    stripped = strip_comments(text, "t.fl")
    assert len(stripped) == len(text) and stripped.count("\n") == text.count("\n")
    assert "comment" not in stripped.split("\n")[0] and stripped.split("\n")[1].strip() == "+ 2"
    assert '"(* not a comment *)"' in stripped


def test_char_literals_and_operators_open_no_comment():
    text = "let c = '(' let d = '\\'' let m = ( *) 2 3\n"
    assert strip_comments(text, "t.fl") == text


def test_unterminated_comment_is_located_at_its_start():
    with pytest.raises(CompileError) as error:
        strip_comments("let x = 1\nlet y = (* open\n", "t.fl")
    assert (error.value.span.line, error.value.span.col) == (2, 9)


def value_of(source: str) -> ast.Expr:
    return parse_module(source, "t.fl").declarations[0].bindings[0].value


def test_spans_cover_keywords_and_brackets():
    expr = value_of("let v = if c then (a + b) else f x")
    assert isinstance(expr, ast.If)
    assert (expr.span.col, expr.span.end_col) == (9, 35)
    assert (expr.then_branch.span.col, expr.then_branch.span.end_col) == (19, 26)  # `(a + b)`, as OCaml
    let = value_of("let v = let y = 1 in y")
    assert (let.span.col, let.span.end_col) == (9, 23)


def test_deep_parentheses_parse_without_recursion():
    depth = 200_000
    expr = value_of("let v = " + "(" * depth + "1" + ")" * depth)
    assert isinstance(expr, ast.Const) and expr.value == 1 and expr.span.end_col - expr.span.col == 2 * depth + 1


@pytest.mark.parametrize("source, message", [
    ("let o = object end", "objects"), ("let f x = x#m", "objects"), ("let c = new c", "objects"),
    ("let m = (module M)", "first-class modules"),
    ("module rec A : S = struct end", "recursive modules"), ("module L : module type of List = List", "module type of"),
    ("let v = `A", "polymorphic variants"),
    ("external f : int -> int = \"f\"", "cannot link C functions"),
    ("type 'a t = 'a list constraint 'a = int", "constraint"),
])
def test_constructs_outside_fl_get_their_own_diagnostic(source, message):
    # (`reject_outside_fl` looks for them only in a text holding one of their signs)
    with pytest.raises(CompileError) as error:
        parse_module(source + "\n", "t.fl")
    assert message in str(error.value) and error.value.span.line == 1


def test_words_of_constructs_outside_fl_inside_strings_are_text():
    module = parse_module('let s = "object `A ~x lazy"\nlet value = 1\nlet signal = value\n', "t.fl")
    assert len(module.declarations) == 3


def test_only_whole_words_of_constructs_outside_fl_send_a_text_to_the_full_scan():
    from cpsc.syntax.lexical import _holds_outside_fl_sign

    assert not _holds_outside_fl_sign("let classify value = print_newline (); signal value\n")
    assert all(_holds_outside_fl_sign(text) for text in ("new c", "(val x)", "é new", "new'"))

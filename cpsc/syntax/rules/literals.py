"""The rules of literals, which patterns and expressions share."""


from __future__ import annotations

from lark import Token

from cpsc.syntax import ast
from cpsc.syntax.diagnostics import CompileError, Span
from cpsc.syntax.lexical import IllegalEscape, decode_escapes, parse_float_literal, parse_int_literal
from cpsc.syntax.rules.base import RuleBase


class LiteralRules(RuleBase):
    """Integer, float, char, string, bool and unit literals."""

    def int_lit(self, tok: Token) -> ast.Expr:
        value = parse_int_literal(str(tok))
        if value >= 2**64:
            raise CompileError(self._tok_span(tok), "Integer literal exceeds the range of representable integers of type int")
        if value >= 2**63:
            value -= 2**64
        return ast.Const(value, "int", self._tok_span(tok))

    def sized_int_lit(self, tok: Token) -> ast.Expr:
        """`5l`, `5L`, `5n`: `fl_int32_of_int 5`... (`Int32.of_int`: a value of the sealed type,
        folded by the optimiser); out of the type's range, OCaml's error."""
        literal = self.psized_int(tok)
        span = literal.span
        return ast.App(ast.Var(f"fl_{literal.kind}_of_int", span), ast.Const(literal.value, "int", span), span)

    def psized_int(self, tok: Token, minus: Token | None = None) -> ast.PConst:
        """`5L` (or `-5L`) as a pattern: a constant of kind `int64` (of FL's int, as `Int64.of_int
        5` is); the kinds `int32` and `nativeint` likewise."""
        text, suffix = str(tok)[:-1], str(tok)[-1]
        type_name = ast.SIZED_INTEGERS[suffix]
        bits = 32 if type_name == "int32" else 64
        value = parse_int_literal(text)
        decimal = text[:2].lower() not in ("0x", "0b", "0o")
        if value >= 2 ** bits or decimal and value > 2 ** (bits - 1):
            raise CompileError(self._tok_span(tok), "Integer literal exceeds the range of representable integers "
                               f"of type {type_name}")
        value = value if minus is None else -value
        wrapped = (value + 2 ** (bits - 1)) % 2 ** bits - 2 ** (bits - 1)
        return ast.PConst(wrapped, type_name, self._tok_span(tok) if minus is None else self._span((minus, tok)))

    def pneg_sized_int(self, minus: Token, tok: Token) -> ast.Pattern:
        return self.psized_int(tok, minus)

    def float_lit(self, tok: Token) -> ast.Expr:
        return ast.Const(parse_float_literal(str(tok)), "float", self._tok_span(tok))

    def _literal(self, tok: Token) -> str:
        """The value of a string or character literal (a quoted string's is its text)."""
        text = str(tok)
        if text.startswith("{"):
            opening = text.index("|") + 1
            return text[opening:len(text) - opening]
        try:
            return decode_escapes(str(tok)[1:-1])
        except IllegalEscape as illegal:
            line, column = tok.line or 1, (tok.column or 1) + 1 + illegal.offset
            raise CompileError(Span(self.file, line, column, line, column + 1), illegal.message) from None

    def char_lit(self, tok: Token) -> ast.Expr:
        return ast.Const(self._literal(tok), "char", self._tok_span(tok))

    def string_lit(self, tok: Token) -> ast.Expr:
        return ast.Const(self._literal(tok), "string", self._tok_span(tok))

    def true_lit(self, tok: Token) -> ast.Expr:
        return ast.Const(True, "bool", self._tok_span(tok))

    def false_lit(self, tok: Token) -> ast.Expr:
        return ast.Const(False, "bool", self._tok_span(tok))

    def unit_lit(self, *brackets: Token) -> ast.Expr:
        return ast.Const(None, "unit", self._span(brackets))

"""The rules of patterns and type expressions."""

from __future__ import annotations

import dataclasses
from typing import Any

from lark import Token

from cpsc.syntax import ast
from cpsc.syntax.desugar import ARRAY, LAZY
from cpsc.syntax.lexical import parse_float_literal
from cpsc.syntax.rules.literals import LiteralRules
from cpsc.syntax.rules.parts import FieldPattern, label_of, unqualified_constructor


class PatternRules(LiteralRules):
    """Patterns and type expressions."""

    # ---------------------------------------------------------------- patterns
    def pvar(self, tok: Token) -> ast.Pattern:
        return ast.PVar(str(tok), self._tok_span(tok))

    def pvar_op(self, opening: Token, name: ast.PVar, closing: Token) -> ast.Pattern:
        return ast.PVar(name.name, self._span((opening, closing)))

    def pwild(self, tok: Token) -> ast.Pattern:
        return ast.PWild(self._tok_span(tok))

    def punit(self, *brackets: Token) -> ast.Pattern:
        return ast.PUnit(self._span(brackets))

    def pparen(self, opening: Token, pattern: ast.Pattern, closing: Token) -> ast.Pattern:
        return dataclasses.replace(pattern, span=self._span((opening, closing)))

    def palias(self, pattern: ast.Pattern, name: Token) -> ast.Pattern:
        return ast.PAlias(pattern, str(name), self._span((pattern, name)))

    def por(self, left: ast.Pattern, right: ast.Pattern) -> ast.Pattern:
        return ast.POr(left, right, self._span((left, right)))

    def pcons(self, head: ast.Pattern, op: Token, tail: ast.Pattern) -> ast.Pattern:
        span = self._span((head, tail))
        return ast.PConstruct("::", (ast.PTuple((head, tail), span),), span)

    def plazy(self, keyword: Token, pattern: ast.Pattern) -> ast.Pattern:
        return ast.PConstruct(LAZY, (pattern,), self._span((keyword, pattern)))

    def pconstruct_app(self, name: ast.PConstruct, arg: ast.Pattern) -> ast.Pattern:
        return ast.PConstruct(name.name, (arg,), self._span((name, arg)))

    def pconstruct(self, name: ast.PConstruct) -> ast.Pattern:
        return name

    def constr_name(self, name: Token) -> ast.PConstruct:
        return ast.PConstruct(unqualified_constructor(self._qualified(str(name))), (), self._tok_span(name))

    def pint(self, tok: Token) -> ast.Pattern:
        literal = self.int_lit(tok)
        assert isinstance(literal, ast.Const)
        return ast.PConst(literal.value, "int", literal.span)

    def pfloat(self, tok: Token) -> ast.Pattern:
        return ast.PConst(parse_float_literal(str(tok)), "float", self._tok_span(tok))

    def pneg_float(self, minus: Token, tok: Token) -> ast.Pattern:
        return ast.PConst(-parse_float_literal(str(tok)), "float", self._span((minus, tok)))

    def pneg_int(self, minus: Token, tok: Token) -> ast.Pattern:
        literal = self.int_lit(tok)
        assert isinstance(literal, ast.Const)
        return ast.PConst(-literal.value, "int", self._span((minus, tok)))  # type: ignore[operator]

    def pchar(self, tok: Token) -> ast.Pattern:
        return ast.PConst(self._literal(tok), "char", self._tok_span(tok))

    def pchar_range(self, low: Token, high: Token) -> ast.Pattern:
        """`'a' .. 'z'` is the or-pattern of the characters in the range."""
        span = self._span((low, high))
        first, last = ord(self._literal(low)), ord(self._literal(high))
        result: ast.Pattern | None = None
        for code in range(min(first, last), max(first, last) + 1):
            char = ast.PConst(chr(code), "char", span)
            result = char if result is None else ast.POr(result, char, span)
        assert result is not None
        return result

    def pstring(self, tok: Token) -> ast.Pattern:
        return ast.PConst(self._literal(tok), "string", self._tok_span(tok))

    def ptrue(self, tok: Token) -> ast.Pattern:
        return ast.PConst(True, "bool", self._tok_span(tok))

    def pfalse(self, tok: Token) -> ast.Pattern:
        return ast.PConst(False, "bool", self._tok_span(tok))

    def pnil(self, opening: Token, closing: Token) -> ast.Pattern:
        return ast.PConstruct("[]", (), self._span((opening, closing)))

    def parray(self, opening: Token, *rest: Any) -> ast.Pattern:
        """`[| p1; ...; pn |]`: an array of n elements matching them, tried in a guard as a
        lazy pattern is (`forcing_case`)."""
        items: list[ast.Pattern] = rest[0] if len(rest) == 2 else []
        return ast.PConstruct(ARRAY, tuple(items), self._span((opening, rest[-1])))

    def plist(self, opening: Token, items: list[ast.Pattern], closing: Token) -> ast.Pattern:
        span = self._span((opening, closing))
        result: ast.Pattern = ast.PConstruct("[]", (), span)
        for item in items[::-1]:
            result = ast.PConstruct("::", (ast.PTuple((item, result), span),), span)
        return result

    def pattern_items(self, *items: ast.Pattern) -> list[ast.Pattern]:
        return list(items)

    def precord(self, opening: Token, fields: list[FieldPattern], closing: Token) -> ast.Pattern:
        return ast.PRecord(tuple(fields), self._span((opening, closing)))

    def field_patterns(self, *fields: Any) -> list[FieldPattern]:
        return [f for f in fields if not isinstance(f, Token)]

    def field_pattern(self, name: Token, pattern: ast.Pattern) -> FieldPattern:
        return self._qualified(str(name)), pattern

    def field_pattern_pun(self, name: Token) -> FieldPattern:
        return self._qualified(str(name)), ast.PVar(str(name).rpartition(".")[2], self._tok_span(name))

    def ptuple(self, *items: ast.Pattern) -> ast.Pattern:
        return ast.PTuple(items, self._span(items))

    def pannot(self, opening: Token, pattern: ast.Pattern, type_expr: ast.TypeExpr, closing: Token) -> ast.Pattern:
        return ast.PAnnot(pattern, type_expr, self._span((opening, closing)))

    # ---------------------------------------------------------------- types
    def tarrow(self, param: ast.TypeExpr, result: ast.TypeExpr) -> ast.TypeExpr:
        return ast.TyArrow(param, result, self._span((param, result)))

    def labelled_arrow(self, label: Token, *parts: Any) -> ast.TypeExpr:
        """`x:t -> u` (x a LIDENT, then ":"), `?x:t -> u` (one OPTLABEL token)."""
        param, result = parts[-2], parts[-1]
        text = "~" + str(label) if label.type == "LIDENT" else label_of(label)
        return ast.TyArrow(param, result, self._span((label, result)), label=text)

    def ttuple(self, *items: Any) -> ast.TypeExpr:
        return ast.TyTuple(tuple(i for i in items if not isinstance(i, Token)), self._span(items))

    def tapp(self, arg: ast.TypeExpr, name: Token) -> ast.TypeExpr:
        return ast.TyName(self._qualified(str(name)), (arg,), self._span((arg, name)))

    def tapp_many(self, *parts: Any) -> ast.TypeExpr:
        *args, name = parts
        return ast.TyName(self._qualified(str(name)), tuple(args), self._span((args[0], name)))

    def tcon(self, name: Token) -> ast.TypeExpr:
        return ast.TyName(self._qualified(str(name)), (), self._tok_span(name))

    def tvar(self, name: Token) -> ast.TypeExpr:
        return ast.TyVar(str(name), self._tok_span(name))



"""Parse FL source text into the AST of `cpsc.syntax.ast` with the Lark grammar in `lang/`."""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

import lark
from lark import Lark, Token, Transformer, v_args

from cpsc.syntax import ast
from cpsc.syntax.diagnostics import CompileError, Span


def lang_file(name: str) -> str:
    """The text of a file shipped in the `lang/` folder."""
    return resources.files("lang").joinpath(name).read_text()


@functools.cache
def _parser() -> Lark:
    return Lark(lang_file("grammar.lark"), parser="lalr", propagate_positions=True,
                maybe_placeholders=False)


def strip_comments(text: str, file: str) -> str:
    """Blank out nested `(* ... *)` comments, keeping every line and column in place."""
    out = list(text)
    depth = 0
    i = 0
    in_string = False
    start = (0, 0)
    while i < len(text):
        c = text[i]
        if depth == 0 and in_string:
            if c == "\\":
                i += 2
                continue
            if c == '"':
                in_string = False
        elif depth == 0 and c == '"':
            in_string = True
        elif depth == 0 and c == "'" and text[i:i + 3].endswith("'") and len(text[i:i + 3]) == 3:
            i += 3
            continue
        elif text.startswith("(*", i) and not text.startswith("(*)", i):
            if depth == 0:
                start = (text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i))
            depth += 1
            out[i] = out[i + 1] = " "
            i += 2
            continue
        elif depth > 0 and text.startswith("*)", i):
            depth -= 1
            out[i] = out[i + 1] = " "
            i += 2
            continue
        if depth > 0 and c != "\n":
            out[i] = " "
        i += 1
    if depth > 0:
        line, col = start
        raise CompileError(Span(file, line, col, line, col + 2), "this comment is not terminated")
    return "".join(out)


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "\\": "\\", "'": "'", '"': '"', " ": " "}


def decode_escapes(body: str) -> str:
    """Decode OCaml escape sequences; strings are byte strings held as latin-1 text."""
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt.isdigit():
            out.append(chr(int(body[i + 1:i + 4]) % 256))
            i += 4
        elif nxt == "x":
            out.append(chr(int(body[i + 2:i + 4], 16)))
            i += 4
        elif nxt == "\n":
            i += 2
            while i < len(body) and body[i] in " \t":
                i += 1
        else:
            out.append("\\" + nxt)
            i += 2
    return "".join(out)


def parse_int_literal(text: str) -> int:
    digits = text.replace("_", "")
    value = int(digits, 0) if digits[:2].lower() in ("0x", "0b", "0o") else int(digits)
    return value


@v_args(meta=True, inline=True)
class _ToAst(Transformer[Any, Any]):
    """Turns the Lark tree into AST nodes with spans."""

    def __init__(self, file: str) -> None:
        super().__init__()
        self.file = file

    def span(self, meta: Any) -> Span:
        if getattr(meta, "empty", True):
            return Span(self.file, 0, 0, 0, 0)
        return Span(self.file, meta.line, meta.column, meta.end_line, meta.end_column)

    def tok_span(self, tok: Token) -> Span:
        return Span(self.file, tok.line or 0, tok.column or 0, tok.end_line or 0, tok.end_column or 0)

    # ---------------------------------------------------------------- top level
    def start(self, meta: Any, *items: Any) -> ast.Module:
        decls: list[ast.LetDecl] = []
        for item in items:
            decls.extend(item if isinstance(item, list) else [item])
        return ast.Module(tuple(decls), (self.file,))

    def toplevel_expr(self, meta: Any, expr: ast.Expr) -> ast.LetDecl:
        span = self.span(meta)
        return ast.LetDecl(False, (ast.Binding(ast.PWild(span), expr, span),), span)

    def declaration(self, meta: Any, decl: ast.LetDecl) -> ast.LetDecl:
        return decl

    def decl_then_expr(self, meta: Any, decl: ast.LetDecl, expr: ast.LetDecl) -> list[ast.LetDecl]:
        return [decl, expr]

    def let_decl(self, meta: Any, *parts: Any) -> ast.LetDecl:
        is_rec, bindings = self._rec_bindings(parts)
        return ast.LetDecl(is_rec, bindings, self.span(meta))

    def _rec_bindings(self, parts: tuple[Any, ...]) -> tuple[bool, tuple[ast.Binding, ...]]:
        is_rec = bool(parts) and isinstance(parts[0], Token) and parts[0].type == "REC"
        bindings = tuple(p for p in parts if isinstance(p, ast.Binding))
        if is_rec:
            for b in bindings:
                if not isinstance(b.pattern, ast.PVar):
                    raise CompileError(b.pattern.span, "Only variables are allowed as left-hand side of `let rec'")
        return is_rec, bindings

    def fun_binding(self, meta: Any, name: ast.PVar, *rest: Any) -> ast.Binding:
        *params, body = rest
        annot = None
        if params and isinstance(params[-1], _ReturnAnnot):
            annot = params.pop()
        if annot is not None:
            body = ast.Annot(body, annot.type, annot.span)
        value: ast.Expr = body
        for param in reversed(params):
            value = ast.Fun(param, value, self.span(meta))
        return ast.Binding(name, value, self.span(meta))

    def pattern_binding(self, meta: Any, pattern: ast.Pattern, *rest: Any) -> ast.Binding:
        if len(rest) == 2:
            annot, body = rest
            pattern = ast.PAnnot(pattern, annot.type, annot.span)
        else:
            (body,) = rest
        return ast.Binding(pattern, body, self.span(meta))

    def return_annot(self, meta: Any, type_expr: ast.TypeExpr) -> _ReturnAnnot:
        return _ReturnAnnot(type_expr, self.span(meta))

    def value_name(self, meta: Any, name: Any) -> ast.PVar:
        text = name.name if isinstance(name, ast.PVar) else str(name)
        return ast.PVar(text, self.span(meta))

    def operator_name(self, meta: Any, tok: Token) -> ast.PVar:
        return ast.PVar(str(tok), self.span(meta))

    # ---------------------------------------------------------------- expressions
    def sequence(self, meta: Any, first: ast.Expr, second: ast.Expr) -> ast.Expr:
        return ast.Seq(first, second, self.span(meta))

    def trailing_semi(self, meta: Any, expr: ast.Expr) -> ast.Expr:
        return expr

    def let_in(self, meta: Any, *parts: Any) -> ast.Expr:
        is_rec, bindings = self._rec_bindings(parts[:-1])
        return ast.Let(is_rec, bindings, parts[-1], self.span(meta))

    def lambda_(self, meta: Any, *parts: Any) -> ast.Expr:
        *params, body = parts
        if params and isinstance(params[-1], _ReturnAnnot):
            annot = params.pop()
            body = ast.Annot(body, annot.type, annot.span)
        for param in reversed(params):
            body = ast.Fun(param, body, self.span(meta))
        return body

    def if_else(self, meta: Any, cond: ast.Expr, then: ast.Expr, other: ast.Expr) -> ast.Expr:
        return ast.If(cond, then, other, self.span(meta))

    def if_then(self, meta: Any, cond: ast.Expr, then: ast.Expr) -> ast.Expr:
        span = self.span(meta)
        return ast.If(cond, then, ast.Const(None, "unit", span), span)

    def binop(self, meta: Any, left: ast.Expr, op: Token, right: ast.Expr) -> ast.Expr:
        span = self.span(meta)
        name = str(op)
        if name == "&&":
            return ast.If(left, right, ast.Const(False, "bool", span), span)
        if name == "||":
            return ast.If(left, ast.Const(True, "bool", span), right, span)
        operator = ast.Var(name, self.tok_span(op))
        return ast.App(ast.App(operator, left, span), right, span)

    def tuple(self, meta: Any, *items: ast.Expr) -> ast.Expr:
        return ast.Tuple(items, self.span(meta))

    def negate(self, meta: Any, op: Token, operand: ast.Expr) -> ast.Expr:
        span = self.span(meta)
        if isinstance(operand, ast.Const) and operand.kind in ("int", "float") and str(op) == "-":
            return ast.Const(-operand.value, operand.kind, span)  # type: ignore[operator]
        if isinstance(operand, ast.Const) and operand.kind == "float":
            return ast.Const(-operand.value, "float", span)  # type: ignore[operator]
        name = "~-." if str(op) == "-." else "~-"
        return ast.App(ast.Var(name, self.tok_span(op)), operand, span)

    def apply(self, meta: Any, function: ast.Expr, argument: ast.Expr) -> ast.Expr:
        return ast.App(function, argument, self.span(meta))

    def var(self, meta: Any, name: ast.PVar) -> ast.Expr:
        return ast.Var(name.name, self.span(meta))

    def paren(self, meta: Any, expr: ast.Expr) -> ast.Expr:
        return expr

    def annot(self, meta: Any, expr: ast.Expr, type_expr: ast.TypeExpr) -> ast.Expr:
        return ast.Annot(expr, type_expr, self.span(meta))

    def prefix(self, meta: Any, op: Token, operand: ast.Expr) -> ast.Expr:
        return ast.App(ast.Var(str(op), self.tok_span(op)), operand, self.span(meta))

    def int_lit(self, meta: Any, tok: Token) -> ast.Expr:
        value = parse_int_literal(str(tok))
        if value >= 2**64:
            raise CompileError(self.span(meta), "Integer literal exceeds the range of representable integers of type int")
        if value >= 2**63:
            value -= 2**64
        return ast.Const(value, "int", self.span(meta))

    def float_lit(self, meta: Any, tok: Token) -> ast.Expr:
        return ast.Const(float(str(tok).replace("_", "")), "float", self.span(meta))

    def char_lit(self, meta: Any, tok: Token) -> ast.Expr:
        return ast.Const(decode_escapes(str(tok)[1:-1]), "char", self.span(meta))

    def string_lit(self, meta: Any, tok: Token) -> ast.Expr:
        return ast.Const(decode_escapes(str(tok)[1:-1]), "string", self.span(meta))

    def true_lit(self, meta: Any) -> ast.Expr:
        return ast.Const(True, "bool", self.span(meta))

    def false_lit(self, meta: Any) -> ast.Expr:
        return ast.Const(False, "bool", self.span(meta))

    def unit_lit(self, meta: Any) -> ast.Expr:
        return ast.Const(None, "unit", self.span(meta))

    # ---------------------------------------------------------------- patterns
    def pvar(self, meta: Any, tok: Token) -> ast.Pattern:
        return ast.PVar(str(tok), self.span(meta))

    def pvar_op(self, meta: Any, name: ast.PVar) -> ast.Pattern:
        return ast.PVar(name.name, self.span(meta))

    def pwild(self, meta: Any) -> ast.Pattern:
        return ast.PWild(self.span(meta))

    def punit(self, meta: Any) -> ast.Pattern:
        return ast.PUnit(self.span(meta))

    def ptuple(self, meta: Any, *items: ast.Pattern) -> ast.Pattern:
        return ast.PTuple(items, self.span(meta))

    def pannot(self, meta: Any, pattern: ast.Pattern, type_expr: ast.TypeExpr) -> ast.Pattern:
        return ast.PAnnot(pattern, type_expr, self.span(meta))

    # ---------------------------------------------------------------- types
    def tarrow(self, meta: Any, param: ast.TypeExpr, result: ast.TypeExpr) -> ast.TypeExpr:
        return ast.TyArrow(param, result, self.span(meta))

    def ttuple(self, meta: Any, *items: Any) -> ast.TypeExpr:
        return ast.TyTuple(tuple(i for i in items if not isinstance(i, Token)), self.span(meta))

    def tapp(self, meta: Any, arg: ast.TypeExpr, name: Token) -> ast.TypeExpr:
        return ast.TyName(str(name), (arg,), self.span(meta))

    def tcon(self, meta: Any, name: Token) -> ast.TypeExpr:
        return ast.TyName(str(name), (), self.span(meta))

    def tvar(self, meta: Any, name: Token) -> ast.TypeExpr:
        return ast.TyVar(str(name), self.span(meta))


setattr(_ToAst, "lambda", _ToAst.lambda_)


class _ReturnAnnot:
    def __init__(self, type_expr: ast.TypeExpr, span: Span) -> None:
        self.type = type_expr
        self.span = span


def parse_module(text: str, file: str) -> ast.Module:
    """Parse a whole FL source file, raising `CompileError` on a syntax error."""
    cleaned = strip_comments(text, file)
    try:
        tree = _parser().parse(cleaned)
    except lark.exceptions.UnexpectedCharacters as err:
        span = Span(file, err.line, err.column, err.line, err.column + 1)
        raise CompileError(span, f"Illegal character ({cleaned[err.pos_in_stream or 0]!r})") from None
    except lark.exceptions.UnexpectedToken as err:
        tok = err.token
        if tok.type == "$END":
            lines = text.rstrip().split("\n")
            span = Span(file, len(lines), len(lines[-1]) + 1, len(lines), len(lines[-1]) + 2)
            raise CompileError(span, "Syntax error: unexpected end of file") from None
        span = Span(file, tok.line or 0, tok.column or 0, tok.end_line or 0, tok.end_column or 0)
        raise CompileError(span, f"Syntax error: unexpected {str(tok)!r}") from None
    except lark.exceptions.UnexpectedEOF:
        lines = text.rstrip().split("\n")
        span = Span(file, len(lines), len(lines[-1]) + 1, len(lines), len(lines[-1]) + 2)
        raise CompileError(span, "Syntax error: unexpected end of file") from None
    module = _ToAst(file).transform(tree)
    assert isinstance(module, ast.Module)
    return module


def parse_type(text: str) -> ast.TypeExpr:
    """Parse a type expression, e.g. the signature of a primitive."""
    module = parse_module(f"let _ = (fun x -> x : {text})", "<builtin>")
    expr = module.declarations[0].bindings[0].value
    assert isinstance(expr, ast.Annot)
    return expr.annotation

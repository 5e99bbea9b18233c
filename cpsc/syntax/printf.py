"""`Printf.printf`, `Printf.sprintf` and `Printf.eprintf` with a literal format, typed from the
format as OCaml does, by rewriting at parse time: `Printf.printf "x=%d %s\\n"` is

    fun %fmt1 -> fun %fmt2 -> print_string ("x=" ^ fl_format_int "%d" %fmt1 ^ " " ^ ...)

so each conversion's argument gets the type of its formatting primitive (`%d` an int, `%s` a
string...) and partial application works as in OCaml. The primitives format one value as C's
printf does (as OCaml's Printf does, through it), with OCaml's own conversions (`%S %C %B %F`)
beside; `cpsc.semantics.formatting` gives their meaning, which the runtime repeats in C.
"""

from __future__ import annotations

import re

from cpsc.syntax import ast
from cpsc.syntax.diagnostics import CompileError, Span

PRINTERS = {"Printf.printf": "print_string", "Printf.eprintf": "prerr_string", "Printf.sprintf": None}
PRINTF_MEMBERS = frozenset(name.partition(".")[2] for name in PRINTERS)  # for `open Printf`

_CONVERSION = re.compile(r"%([-0+ #]*)([0-9]*)(?:\.([0-9]*))?([a-zA-Z%])")
# conversion -> the primitive that formats its argument
_PRIMITIVE = {**{c: "fl_format_int" for c in "diuxXo"}, **{c: "fl_format_float" for c in "feEgGF"},
              "s": "fl_format_string", "S": "fl_format_string", "c": "fl_format_char", "C": "fl_format_char",
              "b": "fl_format_string", "B": "fl_format_string"}


def parse_format(text: str, span: Span) -> list[str | tuple[str, str]]:
    """Literal pieces and (spec, conversion) pairs, e.g. `("%-5d", "d")`."""
    pieces: list[str | tuple[str, str]] = []
    position = 0
    while True:
        start = text.find("%", position)
        if start < 0:
            break
        if start > position:
            pieces.append(text[position:start])
        match = _CONVERSION.match(text, start)
        if match is None or match.group(4) not in _PRIMITIVE and match.group(4) != "%":
            raise CompileError(span, f"invalid or unsupported conversion in the format {text!r}")
        if match.group(4) == "%":
            pieces.append("%")
        else:
            pieces.append((match.group(0), match.group(4)))
        position = match.end()
    if position < len(text):
        pieces.append(text[position:])
    return pieces


def printf_expression(function: ast.Var, fmt: ast.Expr, span: Span) -> ast.Expr:
    """The expression `Printf.xprintf fmt` stands for (see the module docstring)."""
    if not (isinstance(fmt, ast.Const) and fmt.kind == "string"):
        raise CompileError(fmt.span, f"the format of {function.name} must be a literal string")
    params: list[str] = []
    parts: list[ast.Expr] = []
    for piece in parse_format(str(fmt.value), fmt.span):
        if isinstance(piece, str):
            parts.append(ast.Const(piece, "string", fmt.span))
            continue
        spec, conversion = piece
        param = f"%fmt{len(params) + 1}"
        params.append(param)
        value: ast.Expr = ast.Var(param, fmt.span)
        if conversion in "bB":  # a bool is formatted as its name
            value = _call("string_of_bool", [value], fmt.span)
            spec = spec[:-1] + "s"
        parts.append(_call(_PRIMITIVE[conversion], [ast.Const(spec, "string", fmt.span), value], fmt.span))
    body = parts[0] if parts else ast.Const("", "string", fmt.span)
    for part in parts[1:]:
        body = _call("^", [body, part], span)
    printer = PRINTERS[function.name]
    if printer is not None:
        body = _call(printer, [body], span)
    for param in reversed(params):
        body = ast.Fun(ast.PVar(param, fmt.span), body, span)
    return body


def _call(name: str, args: list[ast.Expr], span: Span) -> ast.Expr:
    expr: ast.Expr = ast.Var(name, span)
    for arg in args:
        expr = ast.App(expr, arg, span)
    return expr

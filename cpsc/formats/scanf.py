"""`Scanf.scanf`, `sscanf` and `bscanf` with a literal format, typed from the format as OCaml
types them, by rewriting at parse time (as `cpsc.formats.printf` does Printf):
`Scanf.sscanf s " %d,%s"` is

    let %scan_buffer = Scanf.Scanning.from_string s in
    fun %scan_k ->
      let %scan1 = Scanf.fl_scan %scan_buffer (fun () ->
          Scanf.fl_check_char %scan_buffer ' ';
          let %scan1 = Scanf.fl_scan_int %scan_buffer max_int 'd' in
          Scanf.fl_check_char %scan_buffer ',';
          ...) in
      %scan_k %scan1 ...

so the function given the values gets each conversion's type (`%d` an int, `%s` a string...).
The `fl_` functions of the prelude's Scanf scan as OCaml 4.13's scanf.ml does, with its errors
(`Scan_failure "scanf: bad input at char number 3: ..."`, `End_of_file`); an exception the
function raises itself is not one of them.
"""

from __future__ import annotations

import re

from cpsc.syntax import ast
from cpsc.syntax.diagnostics import CompileError, Span

# the scanners, each with the function making the buffer it reads from the argument before
# the format ("": the argument is the buffer; `scanf` reads stdin's); the k-variants take a
# function for a scanning error after it
_SCANNERS = {"Scanf.scanf": "Scanf.Scanning.stdin", "Scanf.sscanf": "Scanf.Scanning.from_string",
             "Scanf.bscanf": "", "Scanf.fscanf": "Scanf.Scanning.from_channel"}
_K_SCANNERS = {"Scanf.kscanf": "", "Scanf.ksscanf": "Scanf.Scanning.from_string",
               "Scanf.kfscanf": "Scanf.Scanning.from_channel"}
SCANNERS = frozenset(_SCANNERS) | frozenset(_K_SCANNERS)
SCANF_MEMBERS = frozenset(name.partition(".")[2] for name in SCANNERS)

_CONVERSION = re.compile(r"%(_?)([0-9]*)(?:\.[0-9]*)?([lLn](?=[diuxXo]))?([diuxXobBfFeEgGscSCn%!,]|\[\]?[^\]]*\])(@.)?")
# `%ld`, `%Ld`, `%nd`: the int scanned, made an int32, int64 or nativeint
_SIZED = {"l": "fl_int32_of_int", "L": "fl_int64_of_int", "n": "fl_nativeint_of_int"}
_INT, _FLOAT = "diuxXo", "fFeEgG"


def scanf_application(function: ast.Expr, argument: ast.Expr, span: Span) -> ast.Expr | None:
    """What `function argument` stands for when it gives a Scanf function its format
    (`Scanf.scanf fmt`, `Scanf.sscanf s fmt`), else None."""
    if isinstance(function, ast.Var) and function.name == "Scanf.scanf":
        return _expansion(ast.Var(_SCANNERS["Scanf.scanf"], span), argument, span)
    if isinstance(function, ast.App) and isinstance(function.function, ast.Var) \
            and function.function.name in _SCANNERS:
        return _expansion(_source(_SCANNERS[function.function.name], function.argument, span), argument, span)
    if isinstance(function, ast.App) and isinstance(function.function, ast.App) \
            and isinstance(function.function.function, ast.Var) and function.function.function.name in _K_SCANNERS:
        source = _source(_K_SCANNERS[function.function.function.name], function.function.argument, span)
        return _expansion(source, argument, span, function.argument)
    return None


def _source(making: str, argument: ast.Expr, span: Span) -> ast.Expr:
    """The scanning buffer a scanner reads, from the argument it is given."""
    return ast.App(ast.Var(making, span), argument, span) if making else argument


def _expansion(source: ast.Expr, fmt: ast.Expr, span: Span, on_error: ast.Expr | None = None) -> ast.Expr:
    """The scanner: given the function of the values; with `on_error` (kscanf's), a scanning
    error is given to it with the buffer rather than raised."""
    if not (isinstance(fmt, ast.Const) and fmt.kind == "string"):
        raise CompileError(fmt.span, "the format of a Scanf function must be a literal string")
    buffer = ast.Var("%scan_buffer", span)
    steps: list[ast.Expr | _Binding] = []  # unit actions, and the values scanned
    values: list[str] = []
    text = str(fmt.value)
    position = 0
    while position < len(text):
        char = text[position]
        if char != "%":
            steps.append(_call("Scanf.fl_check_char", [buffer, ast.Const(char, "char", span)], span))
            position += 1
            continue
        match = _CONVERSION.match(text, position)
        if match is None:
            raise CompileError(fmt.span, f"invalid or unsupported conversion in the Scanf format {text!r}")
        position = match.end()
        skipped, width_text, size, conversion, stop = match.groups()
        value = _conversion(conversion, buffer, width_text, stop, span, fmt.span, text)
        if size and value is not None and not isinstance(value, _Action):
            value = _call(_SIZED[size], [value], span)
        if value is None:
            continue
        if isinstance(value, _Action):
            steps.append(value.action)
            continue
        name = f"%scan{len(values) + len(steps) + 1}"
        steps.append(_Binding(name, value))
        if not skipped:
            values.append(name)
    result: ast.Expr = _tuple([ast.Var(v, span) for v in values], span)
    for step in reversed(steps):
        if isinstance(step, _Binding):
            result = ast.Let(False, (ast.Binding(ast.PVar(step.name, span), step.value, span),), result, span)
        else:
            result = ast.Seq(step, result, span)
    scanning = ast.Fun(ast.PUnit(span), result, span)
    continuation = ast.Var("%scan_k", span)
    applied: ast.Expr = continuation
    for v in values:
        applied = ast.App(applied, ast.Var(v, span), span)
    pattern: ast.Pattern = _tuple_pattern([ast.PVar(v, span) for v in values], span)
    body: ast.Expr
    if on_error is None:
        scanned = _call("Scanf.fl_scan", [buffer, scanning], span)
        body = ast.Let(False, (ast.Binding(pattern, scanned, span),), applied, span)
    else:
        body = _call("Scanf.fl_kscan", [buffer, ast.Var("%scan_error", span), scanning,
                                        ast.Fun(pattern, applied, span)], span)
    function: ast.Expr = ast.Fun(ast.PVar(continuation.name, span), body, span)
    if on_error is not None:
        function = ast.Let(False, (ast.Binding(ast.PVar("%scan_error", span), on_error, span),), function, span)
    return ast.Let(False, (ast.Binding(ast.PVar(buffer.name, span), source, span),), function, span)


def _conversion(conversion: str, buffer: ast.Expr, width_text: str, stop: str | None, span: Span,
                fmt_span: Span, text: str) -> ast.Expr | _Action | None:
    """What one conversion scans (None: nothing; an `_Action`: no value)."""
    width = ast.Const(int(width_text), "int", span) if width_text else ast.Var("max_int", span)
    stop_code = ast.Const(ord(stop[1]) if stop else -1, "int", span)
    if conversion == "%":
        return _Action(_call("Scanf.fl_check_char", [buffer, ast.Const("%", "char", span)], span))
    if conversion == ",":
        return None
    if conversion == "!":
        return _Action(_call("Scanf.fl_check_end", [buffer], span))
    if conversion in _INT:
        return _call("Scanf.fl_scan_int", [buffer, width, ast.Const(conversion, "char", span)], span)
    if conversion in _FLOAT:
        return _call("Scanf.fl_scan_float", [buffer, width], span)
    if conversion == "s":
        return _call("Scanf.fl_scan_string", [buffer, width, stop_code], span)
    if conversion == "c":
        return _call("Scanf.fl_scan_char", [buffer], span)
    if conversion in "bB":
        return _call("Scanf.fl_scan_bool", [buffer], span)
    if conversion == "S":
        return _call("Scanf.fl_scan_caml_string", [buffer], span)
    if conversion == "C":
        return _call("Scanf.fl_scan_caml_char", [buffer], span)
    if conversion == "n":
        return _call("Scanf.fl_count", [buffer], span)
    if conversion.startswith("["):
        chars = ast.Const(_char_set(conversion[1:-1]), "string", span)
        return _call("Scanf.fl_scan_set", [buffer, width, chars, stop_code], span)
    raise CompileError(fmt_span, f"invalid or unsupported conversion in the Scanf format {text!r}")


def _char_set(inside: str) -> str:
    """A `%[...]` set as `fl_in_set` reads it (a `]` first is one of its characters)."""
    return inside


class _Action:
    def __init__(self, action: ast.Expr) -> None:
        self.action = action


class _Binding:
    def __init__(self, name: str, value: ast.Expr) -> None:
        self.name, self.value = name, value


def _tuple(items: list[ast.Expr], span: Span) -> ast.Expr:
    if not items:
        return ast.Const(None, "unit", span)
    return items[0] if len(items) == 1 else ast.Tuple(tuple(items), span)


def _tuple_pattern(items: list[ast.Pattern], span: Span) -> ast.Pattern:
    if not items:
        return ast.PUnit(span)
    return items[0] if len(items) == 1 else ast.PTuple(tuple(items), span)


def _call(name: str, args: list[ast.Expr], span: Span) -> ast.Expr:
    expr: ast.Expr = ast.Var(name, span)
    for arg in args:
        expr = ast.App(expr, arg, span)
    return expr

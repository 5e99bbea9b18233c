"""The Printf functions with a literal format, typed from the format as OCaml does, by
rewriting at parse time: `Printf.printf "x=%d %s\\n"` is

    fun %fmt1 -> fun %fmt2 -> output_string stdout "x="; output_string stdout (fl_format_int "%d" %fmt1); ...

and `Printf.sprintf` joins the same pieces into one string (`bprintf` adds them to a buffer,
`ksprintf k` gives the string to k, `ifprintf` makes none). `%!` flushes the channel, `%t` and
`%a` call the function given with the channel (the buffer, or () where a string is made);
`%*d` and `%.*f` take the width or precision as arguments first.

So each conversion's argument gets the type of its formatting primitive (`%d` an int, `%s` a
string...) and partial application works as in OCaml. The primitives format one value as C's
printf does (as OCaml's Printf does, through it), with OCaml's own conversions (`%S %C %B %F`)
beside; `cpsc.semantics.formatting` gives their meaning, which the runtime repeats in C.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from cpsc.formats.scanf import SCANNERS, scanf_application
from cpsc.syntax import ast
from cpsc.syntax.diagnostics import CompileError, Span

# The printers, each by how its output is made: written to a channel (`printf` to stdout), a
# string (`sprintf`), added to a buffer (`bprintf`), given to a continuation (`ksprintf`) or
# dropped (`ifprintf`). Those of the second group take their target before the format.
_DIRECT = {"Printf.printf": ("channel", "stdout"), "Printf.eprintf": ("channel", "stderr"),
           "Printf.sprintf": ("string", None)}
_TARGETED = {"Printf.fprintf": "channel", "Printf.bprintf": "buffer", "Printf.ksprintf": "continuation",
             "Printf.kprintf": "continuation", "Printf.ifprintf": "ignored", "Printf.ibprintf": "ignored"}
# those that take a continuation and a target, and give the target to the continuation at the end
_CONTINUED = {"Printf.kfprintf": "channel", "Printf.kbprintf": "buffer", "Printf.ikfprintf": "ignored",
              "Printf.ikbprintf": "ignored"}
PRINTERS = frozenset(_DIRECT) | frozenset(_TARGETED) | frozenset(_CONTINUED) | SCANNERS  # (those a format must be given)
# Printf's printers -> how many arguments they take before the format
PRINTF_TARGETS = {**{name: 0 for name in _DIRECT}, **{name: 1 for name in _TARGETED},
                  **{name: 2 for name in _CONTINUED}}
PRINTF_MEMBERS = frozenset(name.partition(".")[2] for name in PRINTERS if name.startswith("Printf."))

# (a sign before the precision, `%.-3d`, is read and left out, as OCaml's legacy format parser does)
_CONVERSION = re.compile(r"%([-0+ #]*)([0-9]*|\*)(?:\.[-+]?([0-9]*|\*))?([lLn](?=[diuxXo]))?([a-zA-Z%!])")
_SIGNED_PRECISION = re.compile(r"\.[-+]")
# `%ld`, `%Ld`, `%nd`...: the value, an int32, int64 or nativeint, as the int it is
_SIZED = {"l": "fl_int32_to_int", "L": "fl_int64_to_int", "n": "fl_nativeint_to_int"}
# conversion -> the primitive that formats its argument
_PRIMITIVE = {**{c: "fl_format_int" for c in "diuxXo"}, **{c: "fl_format_float" for c in "feEgGF"},
              "s": "fl_format_string", "S": "fl_format_string", "c": "fl_format_char", "C": "fl_format_char",
              "b": "fl_format_string", "B": "fl_format_string", "h": "fl_format_float", "H": "fl_format_float"}
_OWN = {"%": "%", "!": "flush", "a": "a", "t": "t"}  # conversions that format no value of their own


def _legacy_precision(match: re.Match[str]) -> str:
    """A conversion's spec with a signed precision (`%.-3d`) read as OCaml's legacy parser reads
    it: the sign left out, but for a string without a width, whose precision is its width
    (`%.5s` pads), which `-` justifies to the left (`%.-5s` is `%-5s`)."""
    spec = match.group(0)
    signed = _SIGNED_PRECISION.search(spec)
    if signed is None:
        return spec
    if match.group(5) in "sS" and not match.group(2) and signed.group() == ".-":
        return "%-" + spec[1:].replace(".-", "", 1)
    return spec.replace(signed.group(), ".", 1)


def parse_format(text: str, span: Span) -> list[str | tuple[str, str]]:
    """Literal pieces and (spec, conversion) pairs, e.g. `("%-5d", "d")`, `("%*d", "d")`,
    `("%!", "!")`."""
    pieces: list[str | tuple[str, str]] = []
    position = 0
    while True:
        start = text.find("%", position)
        if start < 0:
            break
        if start > position:
            pieces.append(text[position:start])
        if text.startswith("%,", start):  # OCaml's empty conversion (what `^^` puts between formats)
            position = start + 2
            continue
        match = _CONVERSION.match(text, start)
        if match is None or match.group(5) not in _PRIMITIVE and match.group(5) not in _OWN:
            raise CompileError(span, f"invalid or unsupported conversion in the format {text!r}")
        size = match.group(4) or ""
        spec = _legacy_precision(match)
        if match.group(5) == "%":
            pieces.append("%")
        else:  # (the spec as C's printf reads it: without the size)
            pieces.append((spec.replace(size, "", 1) if size else spec, size + match.group(5)))
        position = match.end()
    if position < len(text):
        pieces.append(text[position:])
    return pieces


def printf_application(function: ast.Expr, argument: ast.Expr, span: Span) -> ast.Expr | None:
    """What `function argument` stands for when it gives a Printf (or Scanf) function its
    format (`Printf.printf fmt`, `Printf.fprintf oc fmt`, `Scanf.sscanf s fmt`), else None."""
    scanned = scanf_application(function, argument, span)
    if scanned is not None:
        return scanned
    if isinstance(function, ast.Var) and function.name in _DIRECT:
        kind, target = _DIRECT[function.name]
        return _Expansion(kind, None if target is None else ast.Var(target, span), span).of(argument)
    if isinstance(function, ast.App) and isinstance(function.function, ast.Var) \
            and function.function.name in _TARGETED:
        return _Expansion(_TARGETED[function.function.name], function.argument, span).of(argument)
    if isinstance(function, ast.App) and isinstance(function.function, ast.App) \
            and isinstance(function.function.function, ast.Var) and function.function.function.name in _CONTINUED:
        kind = _CONTINUED[function.function.function.name]
        return _Expansion(kind, function.argument, span, function.function.argument).of(argument)
    return None


class FormatArguments:
    """The parameters a format's conversions take, in order (`%fmt1`, `%fmt2`...)."""

    def __init__(self, span: Span) -> None:
        self.span = span
        self.params: list[str] = []

    def param(self) -> ast.Expr:
        name = f"%fmt{len(self.params) + 1}"
        self.params.append(name)
        return ast.Var(name, self.span)

    def around(self, body: ast.Expr) -> ast.Expr:
        """`fun %fmt1 -> ... -> body`"""
        for param in reversed(self.params):
            body = ast.Fun(ast.PVar(param, self.span), body, self.span)
        return body


class _Expansion:
    """`Printf.xprintf [target] fmt` as FL: a function of each conversion's arguments whose
    body makes the output piece by piece (see the module docstring)."""

    def __init__(self, kind: str, target: ast.Expr | None, span: Span,
                 continuation: ast.Expr | None = None) -> None:
        self.kind, self.span = kind, span
        # the target (and kfprintf's continuation), bound once before the arguments are taken
        # (as OCaml evaluates them first)
        self.target = None if target is None else ast.Var("%printf_target", span)
        self.target_value = target
        self.continuation = continuation
        self.arguments = FormatArguments(span)
        self.param = self.arguments.param

    def of(self, fmt: ast.Expr) -> ast.Expr:
        if isinstance(fmt, ast.Const) and fmt.kind == "string":
            pieces: list[Any] = []  # strings, and actions of their own (`_Action`)
            for piece in parse_format(str(fmt.value), fmt.span):
                if isinstance(piece, str):
                    pieces.append(ast.Const(piece, "string", fmt.span))
                else:
                    pieces.extend(self.conversion(*piece))
            body = self.arguments.around(self.continued(self.output(pieces)))
        else:  # a format value (`cpsc.formats.format_printf.format_value`)
            body = format_printing(fmt, lambda pieces: self.continued(self.printed_pieces(pieces)), self.span)
        if self.target is not None and self.target_value is not None:
            body = let_binding(self.target.name, self.target_value, body, self.span)
        if self.continuation is not None:
            body = let_binding("%printf_continuation", self.continuation, body, self.span)
        return body

    def continued(self, printing: ast.Expr) -> ast.Expr:
        """The printing, then (for kfprintf, kbprintf, ikfprintf) the continuation given the target."""
        if self.continuation is None:
            return printing
        span = self.span
        given = call("%printf_continuation", [self.target_or_unit()], span)
        return given if self.kind == "ignored" else ast.Seq(printing, given, span)

    def printed_pieces(self, pieces: ast.Expr) -> ast.Expr:
        """The printing of a format value's pieces (the prelude's `fl_printf_channel`...)."""
        span = self.span
        if self.kind in ("channel", "buffer"):
            name = "fl_printf_channel" if self.kind == "channel" else "fl_printf_buffer"
            return call(name, [self.target_or_unit(), pieces], span)
        if self.kind == "ignored":
            return ast.Const(None, "unit", span)
        text = call("fl_printf_string", [pieces], span)
        return call_expr(self.target_or_unit(), [text], span) if self.kind == "continuation" else text

    def conversion(self, spec: str, conversion: str) -> list[Any]:
        """The pieces one conversion makes; its arguments become parameters in order."""
        span = self.span
        if conversion == "!":
            return [_Action(call("fl_flush", [self.target_or_unit()], span))] if self.kind == "channel" else []
        if conversion in "at":
            printer = self.param()
            arguments = [printer] if conversion == "t" else [printer, self.param()]
            if self.kind == "ignored":
                return []
            if self.kind in ("channel", "buffer"):
                return [_Action(call_expr(arguments[0], [self.target_or_unit(), *arguments[1:]], span))]
            return [call_expr(arguments[0], [ast.Const(None, "unit", span), *arguments[1:]], span)]
        return [value_conversion(spec, conversion, self.param, span)]

    def target_or_unit(self) -> ast.Expr:
        return self.target if self.target is not None else ast.Const(None, "unit", self.span)

    def output(self, pieces: list[Any]) -> ast.Expr:
        """The body: the pieces written or added one by one, or joined into one string."""
        span = self.span
        if self.kind in ("channel", "buffer"):
            write = "fl_output_string" if self.kind == "channel" else "fl_buffer_add_string"
            steps = [p.action if isinstance(p, _Action) else call(write, [self.target_or_unit(), p], span)
                     for p in pieces]
            body = steps[-1] if steps else ast.Const(None, "unit", span)
            for step in reversed(steps[:-1]):
                body = ast.Seq(step, body, span)
            return body
        strings = [p for p in pieces if not isinstance(p, _Action)]
        # each piece made in turn (a `%a` printer is called left to right, as OCaml's), then joined
        made: list[tuple[str, ast.Expr]] = [(f"%piece{i}", p) for i, p in enumerate(strings)
                                            if not isinstance(p, ast.Const)]
        named = {id(p): name for name, p in made}
        strings = [ast.Var(named[id(p)], span) if id(p) in named else p for p in strings]
        text = strings[0] if strings else ast.Const("", "string", span)
        for part in strings[1:]:
            text = call("^", [text, part], span)
        if self.kind == "continuation":
            text = call_expr(self.target_or_unit(), [text], span)
        elif self.kind == "ignored":
            text = ast.Const(None, "unit", span)
        for name, piece in made[::-1]:
            text = let_binding(name, piece, text, span)
        return text


def value_conversion(spec: str, conversion: str, param: Callable[[], ast.Expr], span: Span) -> ast.Expr:
    """The string one conversion of a value makes (`%-5d`, `%*d`, `%Ld`, `%B`...); `param`
    gives each argument it takes, in order (the width and precision of `%*.*f` first)."""
    spec_expr: ast.Expr = ast.Const(spec, "string", span)
    width, precision = "*" in spec.partition(".")[0], "*" in spec.partition(".")[2]
    if width or precision:  # `%*d`, `%.*f`: the width and precision are arguments first
        head, _, tail = spec.partition(".")
        parts: list[ast.Expr] = []
        for text, starred in ((head, width), ("." + tail if tail else "", precision)):
            before, star, after = text.partition("*")
            parts.append(ast.Const(before, "string", span))
            if starred:
                parts.append(call("string_of_int", [param()], span))
                parts.append(ast.Const(after, "string", span))
        spec_expr = parts[0]
        for part in parts[1:]:
            spec_expr = call("^", [spec_expr, part], span)
    value = param()
    if len(conversion) == 2:  # a sized integer; an int32 shown unsigned is its 32 bits
        size, conversion = conversion[0], conversion[1]
        unsigned = size == "l" and conversion in "uxXo"
        value = call("fl_int32_unsigned" if unsigned else _SIZED[size], [value], span)
    if conversion in "bB":  # a bool is formatted as its name
        value = call("string_of_bool", [value], span)
        spec_expr = call("^", [call("String.sub", [spec_expr, ast.Const(0, "int", span),
                                                      call("-", [call("String.length", [spec_expr], span),
                                                                  ast.Const(1, "int", span)], span)], span),
                                ast.Const("s", "string", span)], span) if width or precision else \
            ast.Const(spec[:-1] + "s", "string", span)
    return call(_PRIMITIVE[conversion], [spec_expr, value], span)


def format_printing(fmt: ast.Expr, printing: Callable[[ast.Expr], ast.Expr], span: Span) -> ast.Expr:
    """`fl_format_apply (fun pieces -> printing pieces) fmt`: a printer given a format value
    (its pieces, once every argument is given; the printing typed first, so that a value that
    is no format is shown the format the printer wants)."""
    pieces = ast.Var("%pieces", span)
    return call("fl_format_apply", [ast.Fun(ast.PVar(pieces.name, span), printing(pieces), span), fmt], span)


def let_binding(name: str, value: ast.Expr, body: ast.Expr, span: Span) -> ast.Expr:
    """`let name = value in body`"""
    return ast.Let(False, (ast.Binding(ast.PVar(name, span), value, span),), body, span)


class _Action:
    """A piece written to a channel that is an action of its own (`%!`, `%t`, `%a`)."""

    def __init__(self, action: ast.Expr) -> None:
        self.action = action
        self.span = action.span


def call(name: str, args: list[ast.Expr], span: Span) -> ast.Expr:
    return call_expr(ast.Var(name, span), args, span)


def call_expr(function: ast.Expr, args: list[ast.Expr], span: Span) -> ast.Expr:
    expr = function
    for arg in args:
        expr = ast.App(expr, arg, span)
    return expr

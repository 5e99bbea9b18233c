"""Format's printing functions with a literal format, typed from the format as OCaml types
them, by rewriting at parse time as `cpsc.syntax.printf` does Printf's:
`Format.printf "@[<v 2>%s:@ %a@]@." name pp x` is

    fun %fmt1 -> fun %fmt2 -> fun %fmt3 ->
      let %ppf = Format.std_formatter in
      Format.fl_open_box_of_string %ppf "v 2"; Format.pp_print_string %ppf (fl_format_string "%s" %fmt1);
      Format.pp_print_string %ppf ":"; Format.pp_print_break %ppf 1 0; %fmt2 %ppf %fmt3;
      Format.pp_close_box %ppf (); Format.pp_print_newline %ppf ()

each piece of the format one call of the prelude's pretty-printing engine (its Format module),
as OCaml's `output_acc` makes them: text and formatted values are printed as strings, `@[` opens
the box its description names (`<hov 2>`), `@ `, `@,` and `@;<n m>` are break hints, `@]`
closes, `@.` flushes with a newline, `@<n>` gives the next text the size n, `@{<t>` and `@}`
open and close a tag. The printers differ in where the output goes and what they return (see
`_KINDS`); the string printers print into a formatter of their own, flushed at the end.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from cpsc.syntax import ast
from cpsc.syntax.diagnostics import CompileError, Span
from cpsc.syntax.printf import PRINTERS as PRINTF_PRINTERS
from cpsc.syntax.printf import call, call_expr, parse_format, printf_application, value_conversion

# printer -> (kind, how many targets it takes before the format). The kinds: "formatter"
# prints on a formatter given (or std_formatter...), "kformatter" then gives it to k;
# "string" and "kstring" make a string (their `%a` printers make strings, taking ()), as do
# "astring" and "kastring" (their printers print on a formatter); "buffer" prints into a
# buffer; "ignored"/"kignored" take the arguments and print nothing; "delayed"/"kdelayed"
# make the printing a function of the formatter.
_KINDS = {"Format.printf": ("formatter", 0), "Format.eprintf": ("formatter", 0), "Format.fprintf": ("formatter", 1),
          "Format.kfprintf": ("kformatter", 2), "Format.sprintf": ("string", 0), "Format.ksprintf": ("kstring", 1),
          "Format.kprintf": ("kstring", 1), "Format.asprintf": ("astring", 0), "Format.kasprintf": ("kastring", 1),
          "Format.bprintf": ("buffer", 1), "Format.ifprintf": ("ignored", 1), "Format.ikfprintf": ("kignored", 2),
          "Format.dprintf": ("delayed", 0), "Format.kdprintf": ("kdelayed", 1)}
_STANDARD = {"Format.printf": "Format.std_formatter", "Format.eprintf": "Format.err_formatter"}
FORMAT_MEMBERS = frozenset(name.partition(".")[2] for name in _KINDS)
PRINTERS = PRINTF_PRINTERS | frozenset(_KINDS)

# what follows `@`: a break `@;<1 2>`, a size `@<5>`, a box's or tag's description `<v 2>`
_GOOD_BREAK = re.compile(r"< *(-?[0-9]+) *(?:(-?[0-9]+) *)?>")
_MAGIC_SIZE = re.compile(r" *(-?[0-9]+) *>")
_SIMPLE = {"]": ("Format.pp_close_box", []), "}": ("Format.pp_close_tag", []), ",": ("Format.pp_print_break", [0, 0]),
           " ": ("Format.pp_print_break", [1, 0]), "?": ("Format.pp_print_flush", []),
           "\n": ("Format.pp_force_newline", []), ".": ("Format.pp_print_newline", [])}


def printing_application(function: ast.Expr, argument: ast.Expr, span: Span) -> ast.Expr | None:
    """What `function argument` stands for when it gives a Format, Printf or Scanf function its
    format, else None."""
    head, targets = function, []
    while isinstance(head, ast.App):
        targets.append(head.argument)
        head = head.function
    if isinstance(head, ast.Var) and head.name in _KINDS and len(targets) == _KINDS[head.name][1]:
        kind = _KINDS[head.name][0]
        standard = [ast.Var(_STANDARD[head.name], span)] if head.name in _STANDARD else []
        return _FormatExpansion(kind, standard + targets[::-1], span).of(argument)
    return printf_application(function, argument, span)


class _FormatExpansion:
    """`Format.xprintf [targets] fmt` as FL: a function of each conversion's arguments whose
    body prints the pieces on `%ppf` one by one (see the module docstring)."""

    def __init__(self, kind: str, targets: list[ast.Expr], span: Span) -> None:
        self.kind, self.span = kind, span
        self.targets = targets  # bound once before the arguments are taken (OCaml evaluates them first)
        self.target_names = [f"%format_target{i + 1}" for i in range(len(targets))]
        self.params: list[str] = []
        self.ppf = ast.Var("%ppf", span)
        self.size: ast.Expr | None = None  # the size `@<n>` gives the next text

    def param(self) -> ast.Expr:
        name = f"%fmt{len(self.params) + 1}"
        self.params.append(name)
        return ast.Var(name, self.span)

    def target(self, index: int) -> ast.Expr:
        return ast.Var(self.target_names[index], self.span)

    def of(self, fmt: ast.Expr) -> ast.Expr:
        if not (isinstance(fmt, ast.Const) and fmt.kind == "string"):
            raise CompileError(fmt.span, "the format of a Format function must be a literal string")
        steps = self.pieces(str(fmt.value), fmt.span)
        body = self.result(steps)
        for param in reversed(self.params):
            body = ast.Fun(ast.PVar(param, self.span), body, self.span)
        for name, value in reversed(list(zip(self.target_names, self.targets))):
            body = _let(name, value, body, self.span)
        return body

    # ---------------------------------------------------------------- the pieces
    def pieces(self, text: str, span: Span) -> list[ast.Expr]:
        """The calls that print `text` on `%ppf`, in order."""
        steps: list[ast.Expr] = []
        literal: list[str] = []

        def flush_literal() -> None:
            if literal:
                steps.append(self.text(ast.Const("".join(literal), "string", span)))
                literal.clear()

        position = 0
        while position < len(text):
            at = text.find("@", position)
            if at < 0:
                at = len(text)
            self.printf_pieces(text[position:at], span, literal, steps, flush_literal)
            if at == len(text):
                break
            position, action = self.at_directive(text, at + 1, span)
            if isinstance(action, str):
                literal.append(action)
            else:
                flush_literal()  # (before a size `@<n>` is given to what follows)
                if isinstance(action, int):
                    self.size = ast.Const(action, "int", span)
                else:
                    steps.append(action)
        flush_literal()
        return steps

    def printf_pieces(self, text: str, span: Span, literal: list[str], steps: list[ast.Expr],
                      flush_literal: Callable[[], None]) -> None:
        """The pieces of a part without `@`: text, and conversions as Printf's."""
        if not text:
            return
        for piece in parse_format(text, span):
            if isinstance(piece, str):
                literal.append(piece)
                continue
            flush_literal()
            steps.extend(self.conversion(*piece))

    def text(self, value: ast.Expr) -> ast.Expr:
        """Print a string: `@<n>` before it gives its size."""
        if self.size is not None:
            size, self.size = self.size, None
            return call("Format.pp_print_as", [self.ppf, size, value], self.span)
        return call("Format.pp_print_string", [self.ppf, value], self.span)

    def conversion(self, spec: str, conversion: str) -> list[ast.Expr]:
        span = self.span
        if conversion == "!":
            return [self.unit_call("Format.pp_print_flush")]
        if conversion in "at":
            printer = self.param()
            arguments = [printer] if conversion == "t" else [printer, self.param()]
            if self.kind in ("string", "kstring"):  # the printer makes a string, from ()
                return [self.text(call_expr(printer, [_unit(span), *arguments[1:]], span))]
            self.size = None
            return [call_expr(printer, [self.ppf, *arguments[1:]], span)]
        return [self.text(value_conversion(spec, conversion, self.param, span))]

    def unit_call(self, name: str, *numbers: int) -> ast.Expr:
        self.size = None
        arguments: list[ast.Expr] = [ast.Const(n, "int", self.span) for n in numbers] or [_unit(self.span)]
        return call(name, [self.ppf, *arguments], self.span)

    def at_directive(self, text: str, position: int, span: Span) -> tuple[int, ast.Expr | str | int]:
        """What `@` before `text[position]` makes, and where the format goes on: a call, text,
        or a number (`@<n>`: the size of the next text)."""
        if position == len(text):
            return position, "@"
        char = text[position]
        if char in _SIMPLE:
            name, numbers = _SIMPLE[char]
            return position + 1, self.unit_call(name, *numbers)
        if char == ";":
            match = _GOOD_BREAK.match(text, position + 1)
            if match is None:
                return position + 1, self.unit_call("Format.pp_print_break", 1, 0)
            return match.end(), self.unit_call("Format.pp_print_break", int(match.group(1)), int(match.group(2) or 0))
        if char in "[{":
            return self.opening(text, position + 1, char == "[", span)
        if char == "<":
            match = _MAGIC_SIZE.match(text, position + 1)
            if match is None:
                return position + 1, "@<"
            return match.end(), int(match.group(1))
        if char == "%" and text.startswith("%%", position):
            return position + 2, "%"
        if char == "%":
            return position, "@"
        return position + 1, "@" if char == "@" else "@" + char  # any other character is kept with its @

    def opening(self, text: str, position: int, is_box: bool, span: Span) -> tuple[int, ast.Expr]:
        """`@[` or `@{`, with the description in `<...>` after it if there is one."""
        description: ast.Expr = ast.Const("", "string", span)
        close = text.find(">", position + 1)
        if text.startswith("<", position) and close >= 0:
            description = self.description(text[position + 1:close], span)
            position = close + 1
        self.size = None
        name = "Format.fl_open_box_of_string" if is_box else "Format.pp_open_tag"
        return position, call(name, [self.ppf, description], span)

    def description(self, text: str, span: Span) -> ast.Expr:
        """A box's or tag's description as a string (it may have conversions of its own)."""
        parts: list[ast.Expr] = []
        for piece in parse_format(text, span):
            if isinstance(piece, str):
                parts.append(ast.Const(piece, "string", span))
            elif piece[1] in "at!":
                raise CompileError(span, f"%{piece[1]} in the description of a box or tag is not supported")
            else:
                parts.append(value_conversion(piece[0], piece[1], self.param, span))
        result = parts[0] if parts else ast.Const("", "string", span)
        for part in parts[1:]:
            result = call("^", [result, part], span)
        return result

    # ---------------------------------------------------------------- the result
    def result(self, steps: list[ast.Expr]) -> ast.Expr:
        """The body, once every argument is given: the steps on the right formatter, and what
        the printer returns."""
        span, kind = self.span, self.kind
        if kind in ("ignored", "kignored"):
            return call_expr(self.target(0), [self.target(1)], span) if kind == "kignored" else _unit(span)
        if kind in ("formatter", "kformatter"):
            formatter = self.target(len(self.targets) - 1)
            done = call_expr(self.target(0), [self.ppf], span) if kind == "kformatter" else _unit(span)
            return _let(self.ppf.name, formatter, _sequence(steps, done), span)
        if kind == "buffer":
            formatter = call("Format.fl_buffer_formatter", [self.target(0)], span)
            return _let(self.ppf.name, formatter, _sequence(steps, call("Format.fl_flush_queue_of", [self.ppf], span)),
                        span)
        if kind in ("delayed", "kdelayed"):
            printing = ast.Fun(ast.PVar(self.ppf.name, span), _sequence(steps, _unit(span)), span)
            return call_expr(self.target(0), [printing], span) if kind == "kdelayed" else printing
        # a string: printed on a formatter of its own into a buffer, flushed
        buffer = ast.Var("%format_buffer", span)
        made = call("Format.fl_flush_buffer_formatter", [buffer, self.ppf], span)
        if kind in ("kstring", "kastring"):
            made = call_expr(self.target(0), [made], span)
        pattern = ast.PTuple((ast.PVar(buffer.name, span), ast.PVar(self.ppf.name, span)), span)
        return ast.Let(False, (ast.Binding(pattern, call("Format.fl_string_formatter", [_unit(span)], span), span),),
                       _sequence(steps, made), span)


def _sequence(steps: list[ast.Expr], last: ast.Expr) -> ast.Expr:
    body = last
    for step in reversed(steps):
        body = ast.Seq(step, body, step.span)
    return body


def _let(name: str, value: ast.Expr, body: ast.Expr, span: Span) -> ast.Expr:
    return ast.Let(False, (ast.Binding(ast.PVar(name, span), value, span),), body, span)


def _unit(span: Span) -> ast.Expr:
    return ast.Const(None, "unit", span)


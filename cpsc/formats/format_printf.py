"""Format's printing functions with a literal format, typed from the format as OCaml types
them, by rewriting at parse time as `cpsc.formats.printf` does Printf's:
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

A format that is not a literal is a value (`let say fmt = Format.printf fmt`): a literal where
a format is expected (the type checker decides, as OCaml's) is `format_value`'s function of the
conversions' arguments giving the pieces it made to a continuation, and a printer takes the
pieces of a format value with a function of the prelude (`Format.fl_print_pieces`...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union

from cpsc.formats.printf import PRINTERS as PRINTF_PRINTERS
from cpsc.formats.printf import (
    PRINTF_TARGETS,
    FormatArguments,
    call,
    call_expr,
    format_printing,
    let_binding,
    parse_format,
    printf_application,
    value_conversion,
)
from cpsc.syntax import ast
from cpsc.syntax.desugar import rewritten
from cpsc.syntax.diagnostics import CompileError, Span

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

# what follows `@`: a break `@;<1 2>`, a size `@<5>`
_GOOD_BREAK = re.compile(r"< *(-?[0-9]+) *(?:(-?[0-9]+) *)?>")
_MAGIC_SIZE = re.compile(r" *(-?[0-9]+) *>")
# `@c` -> (what Format does, its numbers); `;` is a break of its own
_SIMPLE = {"]": ("close_box", ()), "}": ("close_tag", ()), ",": ("break", (0, 0)), " ": ("break", (1, 0)),
           "?": ("flush", ()), "\n": ("force_newline", ()), ".": ("newline", ())}


# ---------------------------------------------------------------- a format's items
@dataclass(frozen=True)
class _Text:
    text: str


@dataclass(frozen=True)
class _Conversion:
    spec: str
    conversion: str


@dataclass(frozen=True)
class _At:
    """An `@` directive: its text (what Printf prints), and what Format does: `action` with its
    `numbers`, or the `description` of a box or tag (which may have conversions of its own), or
    the text it prints (`@@` prints @)."""

    source: str
    action: str
    numbers: tuple[int, ...] = ()
    description: str | None = None


_Item = Union[_Text, _Conversion, _At]


def format_items(text: str, span: Span) -> list[_Item]:
    """The items of a Format format, in order (CamlinternalFormat's parse of it)."""
    items: list[_Item] = []
    position = 0
    while position < len(text):
        at = text.find("@", position)
        at = len(text) if at < 0 else at
        if at > position:
            items.extend(_Text(p) if isinstance(p, str) else _Conversion(*p) for p in parse_format(text[position:at], span))
        if at == len(text):
            break
        position, item = _at_directive(text, at + 1)
        items.append(item)
    return items


def _at_directive(text: str, position: int) -> tuple[int, _At]:
    """The directive of the `@` before `text[position]`, and where the format goes on."""
    if position == len(text):
        return position, _At("@", "text", description="@")
    char = text[position]
    if char in _SIMPLE:
        action, numbers = _SIMPLE[char]
        return position + 1, _At("@" + char, action, numbers)
    if char == ";":
        match = _GOOD_BREAK.match(text, position + 1)
        if match is None:
            return position + 1, _At("@;", "break", (1, 0))
        return match.end(), _At("@;" + match.group(0), "break", (int(match.group(1)), int(match.group(2) or 0)))
    if char in "[{":
        action = "open_box" if char == "[" else "open_tag"
        close = text.find(">", position + 2)
        if text.startswith("<", position + 1) and close >= 0:
            return close + 1, _At("@" + char, action, description=text[position + 2:close])
        return position + 1, _At("@" + char, action, description="")
    if char == "<":
        match = _MAGIC_SIZE.match(text, position + 1)
        if match is None:
            return position + 1, _At("@<", "text", description="@<")
        return match.end(), _At("@<" + match.group(0), "size", (int(match.group(1)),))
    if char == "%" and text.startswith("%%", position):
        return position + 2, _At("@%", "text", description="%")
    if char == "%":
        return position, _At("@", "text", description="@")
    return position + 1, _At("@" + char, "text", description="@" if char == "@" else "@" + char)


class _Arguments(FormatArguments):
    """The parameters a format's conversions take, and a box's description made of them."""

    def description(self, text: str) -> ast.Expr:
        """A box's or tag's description as a string (it may have conversions of its own)."""
        span = self.span
        parts: list[ast.Expr] = []
        for piece in parse_format(text, span):
            if isinstance(piece, str):
                parts.append(ast.Const(piece, "string", span))
            elif piece[1] in "at!":
                raise CompileError(span, f"%{piece[1]} in the description of a box or tag is not supported")
            else:
                parts.append(value_conversion(piece[0], piece[1], self.param, span))
        return _joined(parts, span)


# ---------------------------------------------------------------- printing a literal format
def printing_application(function: ast.Expr, argument: ast.Expr, span: Span) -> ast.Expr | None:
    """What `function argument` stands for when it gives a Format, Printf or Scanf function its
    format, else None."""
    head, targets = ast.applied(function)
    if isinstance(head, ast.Var) and head.name in _KINDS and len(targets) == _KINDS[head.name][1]:
        kind = _KINDS[head.name][0]
        standard = [ast.Var(_STANDARD[head.name], span)] if head.name in _STANDARD else []
        return _FormatExpansion(kind, standard + targets, span).of(argument)
    return printf_application(function, argument, span)


def with_formats_rewritten(module: ast.Module, files: frozenset[str] | None = None) -> ast.Module:
    """`module` with each application that gives a printer its literal format rewritten
    (`printing_application`), inner applications first, in the declarations written in
    `files` (all if None), the others having none."""
    def rewrite(node: object) -> object:
        if isinstance(node, ast.App):
            # the application's own span, not that of brackets around it (`(printf "%d")`)
            start, end = node.function.span, node.argument.span
            span = Span(node.span.file, start.line, start.col, end.end_line, end.end_col)
            expanded = printing_application(node.function, node.argument, span)
            return node if expanded is None else expanded
        return node

    if files is None:
        declarations = rewritten(module.declarations, rewrite)
    else:
        declarations = tuple(rewritten(d, rewrite) if _written_in(d, files) else d for d in module.declarations)
    return ast.Module(declarations, module.files)


def _written_in(declaration: ast.Declaration, files: frozenset[str]) -> bool:
    span = getattr(declaration, "span", None)
    return span is None or span.file in files


def printer_function(name: str, span: Span) -> ast.Expr | None:
    """A printer used as a value (`List.iter (Printf.printf fmt)`... after `let pr = Printf.printf`):
    `fun target -> fun fmt -> printer target fmt`, the format a value (None for Scanf's)."""
    targets = _KINDS[name][1] if name in _KINDS else PRINTF_TARGETS.get(name)
    if targets is None:
        return None
    names = [f"%printer_argument{i + 1}" for i in range(targets + 1)]
    head: ast.Expr = ast.Var(name, span)
    for argument in names[:-1]:
        head = ast.App(head, ast.Var(argument, span), span)
    body = printing_application(head, ast.Var(names[-1], span), span)
    assert body is not None
    for argument in reversed(names):
        body = ast.Fun(ast.PVar(argument, span), body, span)
    return body


class _FormatExpansion:
    """`Format.xprintf [targets] fmt` as FL: a function of each conversion's arguments whose
    body prints the pieces on `%ppf` one by one (see the module docstring)."""

    def __init__(self, kind: str, targets: list[ast.Expr], span: Span) -> None:
        self.kind, self.span = kind, span
        self.targets = targets  # bound once before the arguments are taken (OCaml evaluates them first)
        self.target_names = [f"%format_target{i + 1}" for i in range(len(targets))]
        self.arguments = _Arguments(span)
        self.ppf = ast.Var("%ppf", span)
        self.size: ast.Expr | None = None  # the size `@<n>` gives the next text

    def target(self, index: int) -> ast.Expr:
        return ast.Var(self.target_names[index], self.span)

    def of(self, fmt: ast.Expr) -> ast.Expr:
        if isinstance(fmt, ast.Const) and fmt.kind == "string":
            body = self.arguments.around(self.result(self.steps(format_items(str(fmt.value), fmt.span))))
        else:  # a format value (see `format_value`)
            body = format_printing(fmt, lambda pieces: self.result(
                [call("Format.fl_print_pieces", [self.ppf, self.delay(), pieces], self.span)]), self.span)
        for name, value in reversed(list(zip(self.target_names, self.targets))):
            body = let_binding(name, value, body, self.span)
        return body

    def delay(self) -> ast.Expr:
        """How a format value's `%a` prints: on the formatter, or as the string it makes."""
        span, printer = self.span, ast.Var("%printer", self.span)
        if self.kind in ("string", "kstring"):
            printed = call("Format.pp_print_string", [self.ppf, call_expr(printer, [_unit(span)], span)], span)
        else:
            printed = call_expr(printer, [self.ppf], span)
        return ast.Fun(ast.PVar(printer.name, span), printed, span)

    def steps(self, items: list[_Item]) -> list[ast.Expr]:
        """The calls that print the items on `%ppf`, in order."""
        steps: list[ast.Expr] = []
        literal: list[str] = []
        for item in items:
            if isinstance(item, _Text):
                literal.append(item.text)
                continue
            if literal:
                steps.append(self.text(ast.Const("".join(literal), "string", self.span)))
                literal.clear()
            if isinstance(item, _Conversion):
                steps.extend(self.conversion(item.spec, item.conversion))
            elif item.action == "size":
                self.size = ast.Const(item.numbers[0], "int", self.span)
            else:
                steps.append(self.directive(item))
        if literal:
            steps.append(self.text(ast.Const("".join(literal), "string", self.span)))
        return steps

    def text(self, value: ast.Expr) -> ast.Expr:
        """Print a string: `@<n>` before it gives its size."""
        if self.size is not None:
            size, self.size = self.size, None
            return call("Format.pp_print_as", [self.ppf, size, value], self.span)
        return call("Format.pp_print_string", [self.ppf, value], self.span)

    def conversion(self, spec: str, conversion: str) -> list[ast.Expr]:
        span = self.span
        if conversion == "!":
            self.size = None
            return [call("Format.pp_print_flush", [self.ppf, _unit(span)], span)]
        if conversion in "at":
            printer = self.arguments.param()
            arguments = [printer] if conversion == "t" else [printer, self.arguments.param()]
            if self.kind in ("string", "kstring"):  # the printer makes a string, from ()
                return [self.text(call_expr(printer, [_unit(span), *arguments[1:]], span))]
            self.size = None
            return [call_expr(printer, [self.ppf, *arguments[1:]], span)]
        return [self.text(value_conversion(spec, conversion, self.arguments.param, span))]

    def directive(self, item: _At) -> ast.Expr:
        self.size = None  # (a size is the next text's only, and `@@` takes none)
        span = self.span
        if item.action == "text":
            return call("Format.pp_print_string", [self.ppf, ast.Const(str(item.description), "string", span)], span)
        if item.action in ("open_box", "open_tag"):
            name = "Format.fl_open_box_of_string" if item.action == "open_box" else "Format.pp_open_tag"
            return call(name, [self.ppf, self.arguments.description(str(item.description))], span)
        name = {"close_box": "Format.pp_close_box", "close_tag": "Format.pp_close_tag", "break": "Format.pp_print_break",
                "flush": "Format.pp_print_flush", "force_newline": "Format.pp_force_newline",
                "newline": "Format.pp_print_newline"}[item.action]
        arguments: list[ast.Expr] = [ast.Const(n, "int", span) for n in item.numbers] or [_unit(span)]
        return call(name, [self.ppf, *arguments], span)

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
            return let_binding(self.ppf.name, formatter, _sequence(steps, done), span)
        if kind == "buffer":
            formatter = call("Format.fl_buffer_formatter", [self.target(0)], span)
            return let_binding(self.ppf.name, formatter, _sequence(steps, call("Format.fl_flush_queue_of", [self.ppf], span)),
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


# ---------------------------------------------------------------- a format as a value
def format_value(fmt: ast.Const) -> ast.Expr:
    """A literal where a format is expected: `Fl_format ((fun k -> fun %fmt1 -> ... -> k [pieces]), text)`,
    the pieces (`fl_piece`: text, a `%a`'s printing delayed, `%!`, an `@` directive) made once
    every argument is given."""
    span = fmt.span
    arguments = _Arguments(span)
    pieces: list[ast.Expr] = []
    for item in format_items(str(fmt.value), span):
        if isinstance(item, _Text):
            pieces.append(ast.Construct("Fl_piece_text", (ast.Const(item.text, "string", span),), span))
        elif isinstance(item, _Conversion):
            pieces.extend(_conversion_piece(item, arguments, span))
        else:
            pieces.append(_directive_piece(item, arguments, span))
    made = call_expr(ast.Var("%k", span), [_list(pieces, span)], span)
    function = ast.Fun(ast.PVar("%k", span), arguments.around(made), span)
    return ast.Construct("Fl_format", (ast.Tuple((function, ast.Const(str(fmt.value), "string", span)), span),), span)


def _conversion_piece(item: _Conversion, arguments: _Arguments, span: Span) -> list[ast.Expr]:
    if item.conversion == "!":
        return [ast.Construct("Fl_piece_flush", (), span)]
    if item.conversion in "at":
        printer = arguments.param()
        if item.conversion == "t":
            return [ast.Construct("Fl_piece_delay", (printer,), span)]
        value = arguments.param()
        delayed = ast.Fun(ast.PVar("%target", span), call_expr(printer, [ast.Var("%target", span), value], span), span)
        return [ast.Construct("Fl_piece_delay", (delayed,), span)]
    return [ast.Construct("Fl_piece_text", (value_conversion(item.spec, item.conversion, arguments.param, span),),
                          span)]


def _directive_piece(item: _At, arguments: _Arguments, span: Span) -> ast.Expr:
    """`Fl_piece_at (text, directive)`; a box's or tag's text shows its description as made."""
    source: ast.Expr = ast.Const(item.source, "string", span)
    constructor = {"open_box": "Fl_at_open_box", "open_tag": "Fl_at_open_tag", "close_box": "Fl_at_close_box",
                   "close_tag": "Fl_at_close_tag", "break": "Fl_at_break", "flush": "Fl_at_flush",
                   "force_newline": "Fl_at_force_newline", "newline": "Fl_at_newline", "size": "Fl_at_size",
                   "text": "Fl_at_text"}[item.action]
    args: tuple[ast.Expr, ...] = tuple(ast.Const(n, "int", span) for n in item.numbers)
    if item.action in ("open_box", "open_tag"):
        description = arguments.description(str(item.description))
        args = (description,)
        if item.description:
            source = _joined([source, ast.Const("<", "string", span), description, ast.Const(">", "string", span)],
                             span)
    elif item.action == "text":
        args = (ast.Const(str(item.description), "string", span),)
    directive = ast.Construct(constructor, args if len(args) < 2 else (ast.Tuple(args, span),), span)
    return ast.Construct("Fl_piece_at", (ast.Tuple((source, directive), span),), span)


def _joined(parts: list[ast.Expr], span: Span) -> ast.Expr:
    result = parts[0] if parts else ast.Const("", "string", span)
    for part in parts[1:]:
        result = call("^", [result, part], span)
    return result


def _list(items: list[ast.Expr], span: Span) -> ast.Expr:
    result: ast.Expr = ast.Construct("[]", (), span)
    for item in reversed(items):
        result = ast.Construct("::", (ast.Tuple((item, result), span),), span)
    return result


def _sequence(steps: list[ast.Expr], last: ast.Expr) -> ast.Expr:
    body = last
    for step in reversed(steps):
        body = ast.Seq(step, body, step.span)
    return body


def _unit(span: Span) -> ast.Expr:
    return ast.Const(None, "unit", span)

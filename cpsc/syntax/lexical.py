"""What the parser's lexer does not: comments and attributes taken out, text outside FL refused,
escapes decoded, numeric literals read, and lexical errors worded as OCaml words them."""

from __future__ import annotations

import re

from cpsc.syntax.diagnostics import CompileError, Span

# What the comment scanner steps over or acts on: string and char literals (a `(*` inside them
# opens no comment) and comment brackets.
_COMMENT_SCAN = re.compile(r"""
    "(?:[^"\\]|\\.)*"                                   # string literal
  | \{(?P<quoted>[a-z_]*)\|.*?\|(?P=quoted)\}           # quoted string literal
  | '(?:[^\\'\n]|\\(?:[\\'"ntbr ]|[0-9]{3}|x[0-9a-fA-F]{2}|o[0-7]{3}))'   # char literal
  | \(\*                                                  # comment opens (`(*)` too, as OCaml's)
  | \*\)                                                  # comment closes
""", re.VERBOSE | re.DOTALL)


def strip_comments(text: str, file: str) -> str:
    """Blank out nested `(* ... *)` comments, keeping every line and column in place."""
    if "(*" not in text:
        return text
    out: list[str] = []
    depth = 0
    copied = 0  # text[:copied] is already in `out`
    opened = 0
    for match in _COMMENT_SCAN.finditer(text):
        token = match.group()
        if token == "(*":
            if depth == 0:
                out.append(text[copied:match.start()])
                copied, opened = match.start(), match.start()
            depth += 1
        elif token == "*)" and depth > 0:
            depth -= 1
            if depth == 0:
                out.append(_blank(text[copied:match.end()]))
                copied = match.end()
    if depth > 0:
        line = text.count("\n", 0, opened) + 1
        col = opened - text.rfind("\n", 0, opened)
        hint = " (`(*)` starts a comment, as in OCaml: the operator is `( * )`)" if text.startswith("(*)", opened) else ""
        raise CompileError(Span(file, line, col, line, col + 2), "this comment is not terminated" + hint)
    out.append(text[copied:])
    return "".join(out)


# String, quoted string and char literals, which the scanners below step over
_LITERALS = r"""
    "(?:[^"\\]|\\.)*"                                   # string literal
  | \{(?P<quoted>[a-z_]*)\|(?:.|\n)*?\|(?P=quoted)\}     # quoted string literal
  | '(?:[^\\'\n]|\\(?:[\\'"ntbr ]|[0-9]{3}|x[0-9a-fA-F]{2}|o[0-7]{3}))'   # char literal
"""
# The constructs of OCaml that FL leaves out, found by the word or sign that starts them (all
# OCaml keywords or signs FL does not use, so no FL program contains them otherwise).
_OUTSIDE_FL = re.compile(_LITERALS + r"""
  | (?P<objects>\b(?:object|class|method|new|inherit|initializer|virtual)\b|\#(?=[a-z_]))
  | (?P<recursive_modules>\bmodule\s+rec\b)
  | (?P<module_type_of>\bmodule\s+type\s+of\b)
  | (?P<first_class_modules>\(\s*(?:module|val)\b)
  | (?P<variants>`[A-Za-z])
  | (?P<other>\bconstraint\b)
""", re.VERBOSE)

# What each construct above contains (the words as words): a text without any holds none of them.
_OUTSIDE_FL_SIGNS = ("object", "class", "method", "new", "inherit", "initializer", "virtual",
                     "module", "val", "`", "#",
                     "constraint", "exception")


def _holds_outside_fl_sign(text: str) -> bool:
    for sign in _OUTSIDE_FL_SIGNS:
        start = text.find(sign)
        while start >= 0:
            end = start + len(sign)
            if not sign.isalpha() or (not _is_word_character(text, start - 1) and not _is_word_character(text, end)):
                return True
            start = text.find(sign, end)
    return False


def _is_word_character(text: str, index: int) -> bool:
    """Whether `text[index]` is one of `re`'s `\\w` (out of the text: no)."""
    return 0 <= index < len(text) and (text[index].isalnum() or text[index] == "_")


_OUTSIDE_FL_MESSAGES = {
    "objects": "objects are not part of FL",
    "recursive_modules": "recursive modules (`module rec`) are not part of FL",
    "module_type_of": "`module type of` is not part of FL",
    "first_class_modules": "first-class modules are not part of FL",
    "variants": "polymorphic variants are not part of FL",
    "other": "this construct ({}) is not part of FL",
}


def reject_outside_fl(text: str, file: str) -> None:
    """A located diagnostic on the first construct of OCaml that FL leaves out (objects,
    polymorphic variants, ...), rather than a parse error further on."""
    if not _holds_outside_fl_sign(text):  # most programs: a few `str.find`s, not the expression
        return  # below, whose every alternative is tried at every position (14 ms at 2,000 lines)
    for match in _OUTSIDE_FL.finditer(text):
        kind = match.lastgroup
        if kind not in _OUTSIDE_FL_MESSAGES:  # a literal stepped over (a quoted string's group is its id)
            continue
        start = match.start(kind)
        line = text.count("\n", 0, start) + 1
        col = start - text.rfind("\n", 0, start)
        word = match.group(kind)
        span = Span(file, line, col, line, col + len(word.strip()))
        raise CompileError(span, _OUTSIDE_FL_MESSAGES[kind].format(word.strip()))


# What the attribute scanner steps over or acts on: literals, attribute openings, brackets.
_ATTRIBUTE_SCAN = re.compile(r"""
    "(?:[^"\\]|\\.)*"
  | \{(?P<quoted>[a-z_]*)\|(?:.|\n)*?\|(?P=quoted)\}
  | '(?:[^\\'\n]|\\(?:[\\'"ntbr ]|[0-9]{3}|x[0-9a-fA-F]{2}|o[0-7]{3}))'
  | \[@{1,3}
  | [\[\]]
""", re.VERBOSE)


# Identifiers, and the literals in which letters are no identifier (skipped)
_LATIN1_SCAN = re.compile(_LITERALS + r"""
  | (?P<identifier>[A-Za-z_\xc0-\xd6\xd8-\xf6\xf8-\xff][A-Za-z0-9_'\xc0-\xd6\xd8-\xf6\xf8-\xff]*)
""", re.VERBOSE)
_LATIN1_LETTER = re.compile(r"[\xc0-\xff]")


def latin1_alerts(text: str, file: str) -> list[CompileError]:
    """OCaml 4.13's alert at each identifier holding ISO-Latin1 letters (`café`), which it
    accepts, deprecated (none in comments; most texts hold no such letter: nothing is done)."""
    if not _LATIN1_LETTER.search(text):
        return []
    text = strip_comments(text, file)
    alerts = []
    for match in _LATIN1_SCAN.finditer(text):
        name = match.group("identifier")
        if name is not None and _LATIN1_LETTER.search(name):
            line = text.count("\n", 0, match.start()) + 1
            col = match.start() - text.rfind("\n", 0, match.start())
            alerts.append(CompileError(Span(file, line, col, line, col + len(name)),
                                       "Alert deprecated: ISO-Latin1 characters in identifiers"))
    return alerts


def strip_attributes(text: str) -> str:
    """Blank out attributes `[@...]`, `[@@...]` and `[@@@...]` (nested brackets and strings
    included), which FL accepts and ignores, keeping every line and column in place."""
    if "[@" not in text:
        return text
    out: list[str] = []
    copied = 0
    opened = -1  # where the attribute being skipped starts
    depth = 0
    for match in _ATTRIBUTE_SCAN.finditer(text):
        token = match.group()
        if opened < 0:
            if token.startswith("[@"):
                opened, depth = match.start(), 1
            continue
        if token.startswith("["):
            depth += 1
        elif token == "]":
            depth -= 1
            if depth == 0:
                out.append(text[copied:opened])
                out.append(_blank(text[opened:match.end()]))
                copied, opened = match.end(), -1
    out.append(text[copied:])
    return "".join(out)


def _blank(comment: str) -> str:
    return re.sub(r"[^\n]", " ", comment)


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "\\": "\\", "'": "'", '"': '"', " ": " "}
_NUMERIC_ESCAPE = re.compile(r"[0-9]{3}|x[0-9a-fA-F]{2}|o[0-7]{3}|u\{[0-9a-fA-F]{1,6}\}")


class IllegalEscape(Exception):
    """An escape OCaml's lexer rejects: the message, and the escape's offset in the literal."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


def decode_escapes(body: str) -> str:
    """Decode OCaml escape sequences (`\\n`, `\\065`, `\\x41`, `\\o101`, `\\u{e9}` as UTF-8, a
    backslash-newline and the blanks after it); strings are byte strings held as latin-1 text.
    An escape OCaml does not know stays as written (OCaml warns); one out of range raises."""
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\" or i + 1 == len(body):
            out.append(c)
            i += 1
            continue
        nxt = body[i + 1]
        numeric = _NUMERIC_ESCAPE.match(body, i + 1)
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif numeric is not None:
            out.append(_numeric_escape(numeric.group(), i))
            i = numeric.end()
        elif nxt == "\n":
            i += 2
            while i < len(body) and body[i] in " \t":
                i += 1
        else:
            out.append("\\" + nxt)
            i += 2
    return "".join(out)


def _numeric_escape(escape: str, offset: int) -> str:
    if escape[0] == "u":
        code = int(escape[2:-1], 16)
        if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            raise IllegalEscape(f"Illegal backslash escape in string or character (\\{escape}): "
                                f"{escape[2:-1].upper()} is not a Unicode scalar value", offset)
        return chr(code).encode("utf-8").decode("latin-1")
    code = int(escape[1:], 16) if escape[0] == "x" else int(escape[1:], 8) if escape[0] == "o" else int(escape)
    if code > 255:
        raise IllegalEscape(f"Illegal backslash escape in string or character (\\{escape}): "
                            f"{code} is outside the range of legal characters (0-255)", offset)
    return chr(code)


def lexical_error(text: str, position: int) -> str:
    """OCaml's lexer's message for the text at `position`, which no token matches."""
    char = text[position] if position < len(text) else ""
    if char == '"':
        return "String literal not terminated"
    if char == "'" and text.startswith("\\", position + 1):
        return f"Illegal backslash escape in string or character ({text[position + 1:position + 3]})"
    if not char.isprintable() or not char.isascii():
        return f"Illegal character (\\{ord(char):03d})" if char else "Syntax error: unexpected end of file"
    return f"Illegal character ({char})"


def parse_float_literal(text: str) -> float:
    """A float literal: decimal (`1e9`, `2.`) or hexadecimal (`0x1.8p1`), with `_`s anywhere."""
    digits = text.replace("_", "")
    return float.fromhex(digits) if digits[:2].lower() == "0x" else float(digits)


def parse_int_literal(text: str) -> int:
    digits = text.replace("_", "")
    value = int(digits, 0) if digits[:2].lower() in ("0x", "0b", "0o") else int(digits)
    return value

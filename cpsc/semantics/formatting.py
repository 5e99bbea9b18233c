"""OCaml's Printf conversions (with FL's 64-bit ints) and its literal syntax for strings and
chars: what `%d`, `%.3f`, `%S` ... make of a value, for the interpreters and the toplevel."""

from __future__ import annotations

import math
import re
from typing import Any

_CONVERSION = re.compile(r"%([-0+ #]*)([0-9]*)(?:\.([0-9]*))?([a-zA-Z%])")

_MASK = (1 << 64) - 1


def format_value(spec: str, value: Any) -> str:
    """One conversion of OCaml's Printf (with FL's 64-bit ints) applied to `value`."""
    match = _CONVERSION.fullmatch(spec)
    assert match is not None, spec
    flags, width, precision, conversion = match.groups()
    if conversion in "diuxXo":
        return _format_int(flags, width, precision, conversion, value)
    if conversion in "feEgGF":
        return _format_float(flags, width, precision, conversion, value)
    if conversion == "S":
        return _pad(ocaml_string_literal(value), flags, width)
    if conversion == "c":  # OCaml pads no character
        return str(value)
    if conversion == "C":
        return ocaml_char_literal(value)
    return ("%" + flags + width + ("." + precision if precision is not None else "") + "s") % value


def _format_int(flags: str, width: str, precision: str | None, conversion: str, value: int) -> str:
    if conversion in "uxXo":  # unsigned: no sign to show
        return _format_unsigned(flags, width, precision, conversion, value & _MASK)
    if precision is not None:  # C ignores the 0 flag of an integer given a precision
        flags = flags.replace("0", "")
    c_conversion = "d" if conversion in "iu" else conversion
    c_flags = flags.replace("#", "") if conversion in "diu" else flags
    text = ("%" + c_flags + width + ("." + precision if precision is not None else "") + c_conversion) % value
    if conversion == "o" and "#" in flags:  # C's alternate octal form is a leading 0, Python's 0o
        text = text.replace("0o", "0", 1)
    if conversion in "diu" and "#" in flags:
        text = group_digits(text)
    return text


def _format_unsigned(flags: str, width: str, precision: str | None, conversion: str, value: int) -> str:
    """As C: `#` puts 0x before a nonzero hexadecimal number, a 0 before an octal one."""
    digits = ("%" + ("." + precision if precision is not None else "") + ("d" if conversion == "u" else conversion)) % value
    prefix = ""
    if "#" in flags and conversion == "o" and not digits.startswith("0"):
        digits = "0" + digits
    elif "#" in flags and conversion in "xX" and value != 0:
        prefix = "0" + conversion
    if conversion == "u" and "#" in flags:
        digits = group_digits(digits)
    size = int(width) if width else 0
    if "-" in flags:
        return (prefix + digits).ljust(size)
    if "0" in flags and precision is None:
        text = prefix + digits.rjust(size - len(prefix), "0")
        return group_digits(text.replace("_", "")) if conversion == "u" and "#" in flags else text
    return (prefix + digits).rjust(size)


def group_digits(text: str) -> str:
    """OCaml's `%#d`: an underscore between groups of three digits (zero padding included)."""
    digits = sum(c.isdigit() for c in text)
    left = (digits - 1) % 3 + 1
    out = []
    for c in text:
        if c.isdigit():
            if left == 0:
                out.append("_")
                left = 3
            left -= 1
        out.append(c)
    return "".join(out)


def _format_float(flags: str, width: str, precision: str | None, conversion: str, value: float) -> str:
    if conversion == "F":
        return _pad(_ocaml_float(flags, precision, value), flags, width, zeros="0" in flags)
    flags = flags.replace("#", "")  # OCaml ignores it here
    if math.isnan(value) or math.isinf(value):
        # The sign of a NaN shows too (x86-64's default NaN: "-nan"); OCaml pads with zeros
        body = "nan" if math.isnan(value) else "inf"
        text = _sign(flags, value) + (body.upper() if conversion.isupper() else body)
        return _pad(text, flags, width, zeros="0" in flags)
    return ("%" + flags + width + ("." + precision if precision is not None else "") + conversion) % value


def _sign(flags: str, value: float) -> str:
    return "-" if math.copysign(1.0, value) < 0 else "+" if "+" in flags else " " if " " in flags else ""


def _ocaml_float(flags: str, precision: str | None, value: float) -> str:
    """`%F`: a float as OCaml source writes it (`%#F`: in hexadecimal)."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "infinity" if value > 0 else "neg_infinity"
    if "#" in flags:
        return _sign(flags, value) + _hex_float(abs(value), None if precision is None else int(precision))
    text = ("%." + (precision or "12") + "g") % abs(value)
    if all(c in "0123456789" for c in text):
        text += "."
    return _sign(flags, value) + text


def _hex_float(value: float, precision: int | None) -> str:
    """C's `%a` of a number >= 0 (`0x1.8p+1`; without a precision, no trailing zeros)."""
    if value == 0:
        return "0x0" + ("." + "0" * precision if precision else "") + "p+0"
    mantissa, exponent = math.frexp(value)  # value = mantissa * 2^exponent, 0.5 <= mantissa < 1
    fraction = int(mantissa * (1 << 53)) - (1 << 52)  # 52 bits after the leading 1
    exponent -= 1
    lead = 1
    if precision is None:
        digits = f"{fraction:013x}".rstrip("0")
    else:
        shift = 52 - 4 * precision
        if shift > 0:  # round to nearest, ties to even, as glibc
            kept, rest = divmod(fraction, 1 << shift)
            half = 1 << (shift - 1)
            if rest > half or rest == half and kept & 1:
                kept += 1
            if kept >> (4 * precision):
                lead, kept = lead + 1, 0
        else:
            kept = fraction << -shift
        digits = f"{kept:0{precision}x}" if precision else ""
    return f"0x{lead}" + ("." + digits if digits else "") + f"p{exponent:+d}"


def _pad(text: str, flags: str, width: str, zeros: bool = False) -> str:
    size = int(width) if width else 0
    if "-" in flags:
        return text.ljust(size)
    if zeros and text[:1] in "+- ":
        return text[0] + text[1:].rjust(size - 1, "0")
    return text.rjust(size, "0" if zeros else " ")


def ocaml_string_literal(text: str) -> str:
    """`%S`: OCaml's String.escaped, in double quotes."""
    return '"' + "".join(_escape(c, '"') for c in text) + '"'


def ocaml_char_literal(c: str) -> str:
    """`%C`: OCaml's Char.escaped, in single quotes."""
    return "'" + _escape(c, "'") + "'"


def _escape(c: str, quote: str) -> str:
    special = {"\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", quote: "\\" + quote}
    if c in special:
        return special[c]
    return c if " " <= c <= "~" else f"\\{ord(c):03d}"

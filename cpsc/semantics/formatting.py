"""OCaml's Printf conversions (with FL's 64-bit ints) and its literal syntax for strings and
chars: what `%d`, `%.3f`, `%S` ... make of a value, for the interpreters and the toplevel."""

from __future__ import annotations

import math
import re
import struct
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
    if conversion in "hH":
        text = hex_float(value, -1 if precision is None else int(precision), _sign_style(flags))
        return _pad(text.upper() if conversion == "H" else text, flags, width, zeros="0" in flags)
    if conversion in "feEgGF":
        return _format_float(flags, width, precision, conversion, value)
    if conversion in "sS":  # a precision cuts nothing; without a width it is the width
        text = ocaml_string_literal(value) if conversion == "S" else value
        return _pad(text, flags, width or precision or "")
    if conversion == "c":  # OCaml pads no character
        return str(value)
    if conversion == "C":
        return ocaml_char_literal(value)
    raise AssertionError(spec)


def _format_int(flags: str, width: str, precision: str | None, conversion: str, value: int) -> str:
    if "#" in flags and conversion in "diu":
        if conversion == "u" or not ("+" in flags or " " in flags):  # (OCaml drops # beside a sign flag)
            return _grouped_int(flags, width, precision, value & _MASK if conversion == "u" else value)
        flags = flags.replace("#", "")
    if conversion in "uxXo":  # unsigned: no sign to show
        return _format_unsigned(flags, width, precision, conversion, value & _MASK)
    if precision is not None:  # C ignores the 0 flag of an integer given a precision
        flags = flags.replace("0", "")
    c_conversion = "d" if conversion in "iu" else conversion
    c_flags = flags.replace("#", "") if conversion in "diu" else flags
    text = ("%" + c_flags + width + ("." + precision if precision is not None else "") + c_conversion) % value
    if conversion == "o" and "#" in flags:  # C's alternate octal form is a leading 0, Python's 0o
        text = text.replace("0o", "0", 1)
    return text


def _format_unsigned(flags: str, width: str, precision: str | None, conversion: str, value: int) -> str:
    """As C: `#` puts 0x before a nonzero hexadecimal number, a 0 before an octal one."""
    digits = ("%" + ("." + precision if precision is not None else "") + ("d" if conversion == "u" else conversion)) % value
    prefix = ""
    if "#" in flags and conversion == "o" and not digits.startswith("0"):
        digits = "0" + digits
    elif "#" in flags and conversion in "xX" and value != 0:
        prefix = "0" + conversion
    size = int(width) if width else 0
    if "-" in flags:
        return (prefix + digits).ljust(size)
    if "0" in flags and precision is None:
        return prefix + digits.rjust(size - len(prefix), "0")
    return (prefix + digits).rjust(size)


def _grouped_int(flags: str, width: str, precision: str | None, value: int) -> str:
    """`%#d`, as OCaml makes it: the digits grouped first, then zeros up to the precision
    (counting the underscores), then the padding."""
    text = group_digits(str(value))
    if precision is not None:
        size = int(precision or "0")
        if text[0] == "-" and size + 1 > len(text):
            text = "-" + text[1:].rjust(size, "0")
        elif size > len(text):
            text = text.rjust(size, "0")
    return _pad(text, flags, width, zeros="0" in flags and precision is None)


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
        return hex_float(value, -1 if precision is None else int(precision), _sign_style(flags))
    text = ("%." + (precision or "12") + "g") % abs(value)
    if all(c in "0123456789" for c in text):
        text += "."
    return _sign(flags, value) + text


def _sign_style(flags: str) -> str:
    return "+" if "+" in flags else " " if " " in flags else "-"


def hex_float(value: float, precision: int, sign_style: str) -> str:
    """OCaml's hexadecimal float (`%h`, `%#F`; its runtime's caml_hexstring_of_float): the
    leading digit and the exponent as the bits have them (a subnormal `0x0.8p-1022`), with
    `precision` digits rounded to nearest even, or as many as needed when it is negative."""
    bits = struct.unpack("<Q", struct.pack("<d", value))[0]
    exponent, mantissa = (bits >> 52) & 0x7FF, bits & ((1 << 52) - 1)
    text = "-" if bits >> 63 else sign_style if sign_style in "+ " else ""
    if exponent == 0x7FF:
        return text + ("infinity" if mantissa == 0 else "nan")
    if exponent == 0:
        exponent = -1022 if mantissa else 0
    else:
        exponent, mantissa = exponent - 1023, mantissa | 1 << 52
    if 0 <= precision < 13:
        unit = 1 << (52 - 4 * precision)
        fraction = mantissa & (unit - 1)
        mantissa &= ~(unit - 1)
        if fraction > unit >> 1 or fraction == unit >> 1 and mantissa & unit:
            mantissa += unit
    digits = [mantissa >> 52]
    mantissa = (mantissa << 4) & ((1 << 56) - 1)
    while precision < 0 and mantissa or precision > 0:
        digits.append(mantissa >> 52)
        mantissa = (mantissa << 4) & ((1 << 56) - 1)
        precision -= 1
    hexadecimal = "".join("0123456789abcdef"[d] for d in digits)
    return f"{text}0x{hexadecimal[0]}" + (f".{hexadecimal[1:]}" if len(digits) > 1 else "") + f"p{exponent:+d}"


def _pad(text: str, flags: str, width: str, zeros: bool = False) -> str:
    size = int(width) if width else 0
    if "-" in flags:
        return text.ljust(size)
    if zeros and text[:1] in "+- " and text:
        return text[0] + text[1:].rjust(size - 1, "0")
    if zeros and text[:2] in ("0x", "0X"):  # (OCaml's fix_padding)
        return text[:2] + text[2:].rjust(size - 2, "0")
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

"""The primitives FL programs see, with their OCaml types, and their meaning on Python values.

The three interpreters share these definitions, so that they agree with each other by
construction, and the native runtime (`cpsc/runtime/runtime.c`) implements the same contract.
"""

from __future__ import annotations

import math

# Source-level primitives: name -> OCaml type. Everything else in the prelude is FL (`lang/prelude.fl`).
PRIMITIVE_TYPES: dict[str, str] = {
    "+": "int -> int -> int", "-": "int -> int -> int", "*": "int -> int -> int",
    "/": "int -> int -> int", "mod": "int -> int -> int", "land": "int -> int -> int",
    "lor": "int -> int -> int", "lxor": "int -> int -> int", "lsl": "int -> int -> int",
    "lsr": "int -> int -> int", "asr": "int -> int -> int", "~-": "int -> int",
    "+.": "float -> float -> float", "-.": "float -> float -> float",
    "*.": "float -> float -> float", "/.": "float -> float -> float",
    "**": "float -> float -> float", "~-.": "float -> float",
    "=": "'a -> 'a -> bool", "<>": "'a -> 'a -> bool", "<": "'a -> 'a -> bool",
    ">": "'a -> 'a -> bool", "<=": "'a -> 'a -> bool", ">=": "'a -> 'a -> bool",
    "==": "'a -> 'a -> bool", "!=": "'a -> 'a -> bool", "compare": "'a -> 'a -> int",
    "not": "bool -> bool", "^": "string -> string -> string",
    "print_int": "int -> unit", "print_float": "float -> unit", "print_string": "string -> unit",
    "print_char": "char -> unit", "string_of_int": "int -> string",
    "string_of_float": "float -> string", "float_of_int": "int -> float",
    "int_of_float": "float -> int", "sqrt": "float -> float", "exp": "float -> float",
    "log": "float -> float", "sin": "float -> float", "cos": "float -> float",
    "floor": "float -> float", "abs_float": "float -> float", "exit": "int -> 'a",
    "flush_stdout": "unit -> unit",
}

COMPARISONS = ("=", "<>", "<", ">", "<=", ">=", "==", "!=", "compare")

MASK = (1 << 64) - 1


def wrap(value: int) -> int:
    """Two's complement 64-bit wrap-around (FL's int)."""
    value &= MASK
    return value - (1 << 64) if value >> 63 else value


class FlRuntimeError(Exception):
    """An uncaught FL exception, e.g. `Division_by_zero`; the program dies with status 2."""

    def __init__(self, description: str) -> None:
        super().__init__(description)
        self.description = description


class FlExit(Exception):
    """`exit n` was called."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def int_div(a: int, b: int) -> int:
    if b == 0:
        raise FlRuntimeError("Division_by_zero")
    q = abs(a) // abs(b)
    return wrap(q if (a >= 0) == (b >= 0) else -q)


def int_mod(a: int, b: int) -> int:
    if b == 0:
        raise FlRuntimeError("Division_by_zero")
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def shift_left(a: int, b: int) -> int:
    return wrap(a << b) if 0 <= b < 64 else 0


def shift_right_logical(a: int, b: int) -> int:
    return wrap((a & MASK) >> b) if 0 <= b < 64 else 0


def shift_right_arith(a: int, b: int) -> int:
    return a >> b if 0 <= b < 64 else (-1 if a < 0 else 0)


def format_float(x: float) -> str:
    """OCaml's `string_of_float`: "%.12g", then a trailing '.' if it looks like an integer."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    text = "%.12g" % x
    if all(c in "0123456789-" for c in text):
        text += "."
    return text


def float_pow(a: float, b: float) -> float:
    try:
        return math.pow(a, b)
    except (OverflowError, ValueError):
        if a == 0.0 and b < 0:
            return math.inf
        return math.nan if a < 0 else math.inf


def float_div(a: float, b: float) -> float:
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def float_unary(name: str, x: float) -> float:
    """sqrt, exp, log, sin, cos with IEEE results where Python's math module would raise."""
    try:
        if name == "sqrt":
            return math.sqrt(x) if x >= 0 else math.nan
        if name == "log":
            if x == 0:
                return -math.inf
            return math.log(x) if x > 0 else math.nan
        if name == "exp":
            return math.exp(x)
        if name in ("sin", "cos"):
            return math.sin(x) if name == "sin" else math.cos(x)
    except OverflowError:
        return math.inf
    except ValueError:
        return math.nan
    raise ValueError(name)


def float_floor(x: float) -> float:
    return float(math.floor(x)) if math.isfinite(x) else x


def int_of_float(x: float) -> int:
    if not -(2.0**63) <= x < 2.0**63:  # nan, inf, out of range: what cvttsd2si gives
        return -(1 << 63)
    return int(x)


def compare_values(a: object, b: object) -> int:
    """OCaml's polymorphic `compare` on FL's first-order values (tuples compare left to right)."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        for x, y in zip(a, b):
            c = compare_values(x, y)
            if c != 0:
                return c
        return 0
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a):
            return 0 if math.isnan(b) else -1
        if math.isnan(b):
            return 1
    return -1 if a < b else (1 if a > b else 0)  # type: ignore[operator]


def equal_values(a: object, b: object) -> bool:
    """OCaml's structural `=` (nan is not equal to itself)."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return all(equal_values(x, y) for x, y in zip(a, b))
    return a == b

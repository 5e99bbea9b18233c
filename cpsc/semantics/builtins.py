"""The primitives FL programs see, with their OCaml types, and their meaning on Python values.

The three interpreters share these definitions, so that they agree with each other by
construction, and the native runtime (`cpsc/runtime/runtime.c`) implements the same contract.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from cpsc.semantics import channels
from cpsc.semantics.formatting import format_value
from cpsc.semantics.hashing import hash_value

# Source-level primitives: name -> OCaml type. Everything else in the prelude is FL (`cpsc/stdlib/`).
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
    "tan": "float -> float", "atan": "float -> float", "ceil": "float -> float", "log10": "float -> float",
    "atan2": "float -> float -> float", "mod_float": "float -> float -> float",
    **{source: "float -> float" for source in ("asin", "acos", "sinh", "cosh", "tanh", "acosh", "asinh",
                                                "atanh", "expm1", "log1p",
                                                "fl_exp2", "fl_log2", "fl_cbrt", "fl_trunc", "fl_round", "fl_erf", "fl_erfc")},
    "hypot": "float -> float -> float", "copysign": "float -> float -> float",
    "fl_fma": "float -> float -> float -> float",
    "prerr_string": "string -> unit", "read_line": "unit -> string", "int_of_string": "string -> int", "float_of_string": "string -> float",
    "flush_stdout": "unit -> unit",
    "Array.make": "int -> 'a -> 'a array", "Array.length": "'a array -> int",
    "Array.get": "'a array -> int -> 'a", "Array.set": "'a array -> int -> 'a -> unit",
    "Array.unsafe_get": "'a array -> int -> 'a", "Array.unsafe_set": "'a array -> int -> 'a -> unit",
    "String.length": "string -> int", "String.get": "string -> int -> char",
    "String.unsafe_get": "string -> int -> char", "String.make": "int -> char -> string",
    "String.sub": "string -> int -> int -> string", "string_of_char_array": "char array -> string",
    "Char.code": "char -> int", "Char.chr": "int -> char",
    "raise": "exn -> 'a", "fl_int_of_string_ok": "string -> bool", "fl_float_of_string_ok": "string -> bool",
    "fl_at_eof": "unit -> bool",
    # a float's bits as an int64 (or its nearest single's as an int32), and back
    "fl_int64_bits_of_float": "float -> int", "fl_int64_float_of_bits": "int -> float",
    "fl_int32_bits_of_float": "float -> int", "fl_int32_float_of_bits": "int -> float",
    # channels of files (cpsc.semantics.channels): a handle, 0 for stdin
    "fl_open_channel": "string -> int -> int", "fl_channel_error": "unit -> string",
    "fl_close_channel": "int -> unit", "fl_channel_write": "int -> string -> unit",
    "fl_channel_flush": "int -> unit", "fl_channel_read_char": "int -> int",
    "fl_channel_read_available": "int -> int -> string",
    "fl_channel_at_eof": "int -> bool", "fl_channel_read_line": "int -> string",
    "fl_remove_file": "string -> bool", "fl_file_exists": "string -> bool",
    # Sys's file system and shell (cpsc.semantics.channels): an error's text is channel_error's
    "fl_is_directory": "string -> int", "fl_rename": "string -> string -> bool", "fl_getcwd": "unit -> string",
    "fl_executable_name": "unit -> string",
    "fl_chdir": "string -> bool", "fl_mkdir": "string -> int -> bool", "fl_rmdir": "string -> bool", "fl_readdir": "string -> string array", "fl_command": "string -> int",
    "fl_channel_length": "int -> int", "fl_channel_pos": "int -> int", "fl_channel_seek": "int -> int -> bool",
    "fl_cpu_time": "unit -> float", "fl_gc_counter": "int -> float", "fl_has_env": "string -> bool", "fl_getenv": "string -> string",
    # Hashtbl.hash: monomorphisation gives each use the descriptor of its type (cpsc.semantics.hashing)
    "fl_hash": "'a -> int", "fl_hash_param": "int -> int -> int -> 'a -> int",
    "fl_hash_with": "string -> int -> int -> int -> 'a -> int",
    "fl_argv": "unit -> string array", "fl_random_seed": "unit -> int array", "fl_exn_to_string": "exn -> string",
    "fl_raise_at": "exn -> string -> unit", "fl_frame_at": "exn -> string -> unit", "fl_backtrace_record": "bool -> unit",
    "fl_backtrace_status": "unit -> bool", "fl_backtrace_slots": "unit -> string",
    "fl_backtrace_restore": "exn -> string -> unit", "fl_callstack": "int -> string",
    "fl_char_array_of_string": "string -> char array",
    "fl_format_int": "string -> int -> string", "fl_format_float": "string -> float -> string",
    "fl_format_string": "string -> string -> string", "fl_format_char": "string -> char -> string",
}

COMPARISONS = ("=", "<>", "<", ">", "<=", ">=", "==", "!=", "compare")

MASK = (1 << 64) - 1


def wrap(value: int) -> int:
    """Two's complement 64-bit wrap-around (FL's int)."""
    value &= MASK
    return value - (1 << 64) if value >> 63 else value


@dataclass(frozen=True)
class ExceptionId:
    """The identity of an exception constructor: slot 0 of every exception value (the rest of
    the slots are its arguments). `key` is unique in a program (`Prog.E`, or `Prog.E/2` for a
    second exception declared E); `kinds` says how an uncaught exception prints each argument,
    as OCaml's runtime does without types: `i` an immediate printed as an integer (int, char,
    bool, unit), `s` a string in quotes, `d` a data value (its number if it is a constant
    constructor, else `_`), `_` anything else; `T` is the one tuple of Match_failure and
    Assert_failure, printed as its three components; `R` before the kinds of an inline
    record's fields (`exception E of { ... }`) prints the fields as E's arguments."""

    key: str
    kinds: str
    # 0 for a declared exception; a `let exception`'s evaluations are told apart by theirs
    serial: int = 0

    @property
    def name(self) -> str:
        return self.key.split("/")[0]

    @property
    def order(self) -> int:
        """Where `compare` places the exceptions of this identity among others', the same at
        every level: a declared one by a hash of its key, then a local one's evaluations in
        the order they were made (the runtime's `fl_fresh_exception` counts from 2^56 too)."""
        if self.serial:
            return self.serial
        return int.from_bytes(hashlib.sha256(self.key.encode()).digest()[:7], "little")

    @property
    def declared(self) -> ExceptionId:
        """The identity declared, of which a local exception's evaluations are copies."""
        return replace(self, serial=0)


FIRST_FRESH_EXCEPTION = 1 << 56
_EXCEPTION_SERIALS = itertools.count(FIRST_FRESH_EXCEPTION)


def fresh_exception(declared: ExceptionId) -> ExceptionId:
    """The identity of a local exception made by one evaluation of its `let exception`."""
    return replace(declared, serial=next(_EXCEPTION_SERIALS))


PREDEFINED_EXCEPTIONS: dict[str, ExceptionId] = {name: ExceptionId(name, kinds) for name, kinds in [
    ("Failure", "s"), ("Invalid_argument", "s"), ("Not_found", ""), ("Division_by_zero", ""),
    ("End_of_file", ""), ("Match_failure", "T"), ("Assert_failure", "T"),
    ("Stack_overflow", ""), ("Sys_error", "s"), ("Out_of_memory", "")]}
EXCEPTION_FORMATS = {"Match_failure", "Assert_failure"}  # their argument prints as (file, line, column)


class FlRaise(Exception):
    """An FL exception on its way to a handler: `value` is the exception, a tuple whose slot 0
    is its `ExceptionId`."""

    def __init__(self, value: tuple[Any, ...]) -> None:
        super().__init__(value)
        self.value = value

    @property
    def description(self) -> str:
        return format_exception(self.value)


def fail(name: str, *args: Any) -> FlRaise:
    """A predefined exception (to raise), e.g. `fail("Failure", "hd")`."""
    return FlRaise((PREDEFINED_EXCEPTIONS[name],) + args)


def format_exception(value: tuple[Any, ...], printexc: bool = False) -> str:
    """What OCaml's runtime prints for an uncaught exception (`caml_format_exception`); with
    `printexc`, the arguments as Printexc.to_string prints them (strings as %S, floats)."""
    exception_id: ExceptionId = value[0]
    args, kinds = list(value[1:]), exception_id.kinds
    if kinds == "T":
        args, kinds = list(args[0]), "sii"
    elif kinds.startswith("R"):  # an inline record's fields
        args, kinds = list(args[0]), kinds[1:]
    if not args:
        return exception_id.name
    arguments = (_format_argument(a, k, printexc) for a, k in zip(args, kinds))
    return exception_id.name + "(" + ", ".join(arguments) + ")"


def _format_argument(value: Any, kind: str, printexc: bool) -> str:
    if kind == "i":
        return str(ord(value) if isinstance(value, str) else 0 if value is None else int(value))
    if kind == "s":
        return format_value("%S", value) if printexc else f'"{value}"'
    if kind == "f" and printexc:
        return format_float(value)
    if kind == "d" and isinstance(value, int):
        return str(value)
    return "_"


def exception_to_string(value: tuple[Any, ...]) -> str:
    """Printexc.to_string (OCaml 4.13's `to_string_default`; the runtime's `fl_exn_to_string`)."""
    name = value[0].name
    if name == "Stack_overflow":
        return "Stack overflow"
    if name == "Out_of_memory":
        return "Out of memory"
    if value[0].kinds == "T":
        file, line, column = value[1]
        matching = name == "Match_failure"
        what = "Pattern matching failed" if matching else "Assertion failed"
        return f'File "{file}", line {line}, characters {column}-{column + (5 if matching else 6)}: {what}'
    return format_exception(value, printexc=True)


class FlExit(Exception):
    """`exit n` was called."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def int_div(a: int, b: int) -> int:
    if b == 0:
        raise fail("Division_by_zero")
    q = abs(a) // abs(b)
    return wrap(q if (a >= 0) == (b >= 0) else -q)


def int_mod(a: int, b: int) -> int:
    if b == 0:
        raise fail("Division_by_zero")
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def shift_left(a: int, b: int) -> int:
    return wrap(a << b) if 0 <= b < 64 else 0


def shift_right_logical(a: int, b: int) -> int:
    return wrap((a & MASK) >> b) if 0 <= b < 64 else 0


def shift_right_arith(a: int, b: int) -> int:
    return a >> b if 0 <= b < 64 else (-1 if a < 0 else 0)


# The NaN an invalid operation (0/0, inf - inf, sqrt of a negative...) gives on x86-64: its
# sign bit is set, and OCaml prints it "-nan" (Python's `math.nan` is positive: "nan").
DEFAULT_NAN = -math.nan


def format_float(x: float) -> str:
    """OCaml's `string_of_float`: "%.12g", then a trailing '.' if it looks like an integer."""
    if math.isnan(x):
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    text = "%.12g" % x
    if all(c in "0123456789-" for c in text):
        text += "."
    return text


def float_div(a: float, b: float) -> float:
    if b == 0.0:
        if math.isnan(a):
            return a
        if a == 0.0:
            return DEFAULT_NAN
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


# C's mathematical functions that OCaml's Stdlib and Float call, by FL's source name, with the C
# name and the arity: the interpreters and constant folding call the C library itself (through
# ctypes), so that they give native code's results bit for bit (the sign of a NaN, -0., the last
# digit). `C_MATH` are the operators the CPS IR names apart (`pow_float`, `mod_float`, ...);
# `LIBM_FUNCTIONS` are primitives named as their C function is, in the IR and in LLVM alike.
C_MATH: dict[str, tuple[str, int]] = {
    "sqrt": ("sqrt", 1), "exp": ("exp", 1), "log": ("log", 1), "sin": ("sin", 1), "cos": ("cos", 1),
    "floor": ("floor", 1), "ceil": ("ceil", 1), "tan": ("tan", 1), "atan": ("atan", 1), "log10": ("log10", 1),
    "atan2": ("atan2", 2), "mod_float": ("fmod", 2), "**": ("pow", 2),
}
LIBM_FUNCTIONS: dict[str, tuple[str, int]] = {
    "asin": ("asin", 1), "acos": ("acos", 1), "sinh": ("sinh", 1), "cosh": ("cosh", 1), "tanh": ("tanh", 1),
    "acosh": ("acosh", 1), "asinh": ("asinh", 1), "atanh": ("atanh", 1),
    "expm1": ("expm1", 1), "log1p": ("log1p", 1), "fl_exp2": ("exp2", 1), "fl_log2": ("log2", 1),
    "fl_cbrt": ("cbrt", 1), "fl_trunc": ("trunc", 1), "fl_round": ("round", 1), "fl_erf": ("erf", 1),
    "fl_erfc": ("erfc", 1),
    "hypot": ("hypot", 2), "copysign": ("copysign", 2), "fl_fma": ("fma", 3),
}


def _c_function(name: str, arity: int) -> Callable[..., float]:
    import ctypes
    import ctypes.util

    library = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
    function = getattr(library, name)
    function.restype = ctypes.c_double
    function.argtypes = [ctypes.c_double] * arity
    return function  # type: ignore[no-any-return]


LIBM: dict[str, Callable[..., float]] = {source: _c_function(c_name, arity)
                                         for source, (c_name, arity) in {**C_MATH, **LIBM_FUNCTIONS}.items()}
LIBM_UNARY: dict[str, Callable[..., float]] = {source: function for source, function in LIBM.items()
                                               if {**C_MATH, **LIBM_FUNCTIONS}[source][1] == 1}


def int_of_float(x: float) -> int:
    if not -(2.0**63) <= x < 2.0**63:  # nan, inf, out of range: what cvttsd2si gives
        return -(1 << 63)
    return int(x)


class FlArray(list):  # type: ignore[type-arg]
    """An FL array in the interpreters: a list (mutable), told apart from records so that
    comparison orders arrays by length first, as OCaml does (records and constructor blocks
    compare slot by slot, their tag first)."""


UNORDERED = -(1 << 63)  # what a comparison that meets nan gives when not total (OCaml's UNORDERED)


class FunctionValue:
    """What the interpreters' function values are (a marker): comparing one raises, as in
    OCaml (FL rejects a comparison of functions when their type says so: here, the arguments
    of an exception)."""


def compare_values(a: object, b: object, total: bool = True) -> int:
    """OCaml's `compare_val` on FL values as the interpreters hold them: immediates (ints,
    bools, chars...) before blocks; arrays by length, then element by element; other blocks
    (tuples, records, constructors with their tag first) slot by slot. Not `total`, a comparison involving
    nan is `UNORDERED` (what `=`, `<`, ... build on); `compare` itself is total."""
    blocks = (tuple, list)
    if total and a is b and isinstance(a, blocks):
        return 0  # as OCaml's compare_val: a value is equal to itself at once, cyclic or not
    if isinstance(a, blocks) or isinstance(b, blocks):
        if not isinstance(a, blocks):
            return -1
        if not isinstance(b, blocks):
            return 1
        if isinstance(a, FlArray) and len(a) != len(b):
            return -1 if len(a) < len(b) else 1
        for x, y in zip(a, b):
            c = compare_values(x, y, total)
            if c != 0:
                return c
        return 0
    if isinstance(a, float) and isinstance(b, float) and (math.isnan(a) or math.isnan(b)):
        if not total:
            return UNORDERED
        if math.isnan(a):
            return 0 if math.isnan(b) else -1
        return 1
    if a is None:
        return 0
    if isinstance(a, ExceptionId):
        a, b = a.order, b.order  # type: ignore[attr-defined]
    if isinstance(a, FunctionValue) or isinstance(b, FunctionValue):
        raise fail("Invalid_argument", "compare: functional value")
    return -1 if a < b else (1 if a > b else 0)  # type: ignore[operator]


def equal_values(a: object, b: object) -> bool:
    """OCaml's structural `=` (nan is not equal to itself)."""
    return compare_values(a, b, total=False) == 0


def physically_equal(a: object, b: object) -> bool:
    """`==`: the same block, or equal immediates."""
    if isinstance(a, (tuple, list, str)):
        return a is b
    return a == b


class RecursiveBlock(list):  # type: ignore[type-arg]
    """A `let rec` value's block in the interpreters, made before its value and then given its
    slots: a list, so that it can be, while it keeps its identity (`==`)."""


def dummy_block(size: int) -> list[object]:
    return RecursiveBlock([0] * size)


def dummy_array(size: int) -> list[object]:
    return FlArray([0] * (size - 1))  # (the length slot is the list's length)


def update_dummy(dummy: list[object], value: Any, size: int) -> None:
    dummy[:] = value


def check_index(length: int, index: int) -> None:
    if not 0 <= index < length:
        raise fail("Invalid_argument", "index out of bounds")


def array_make(n: int, x: object) -> list[object]:
    if n < 0:
        raise fail("Invalid_argument", "Array.make")
    return FlArray([x] * n)


def array_get(a: list[object], i: int) -> object:
    check_index(len(a), i)
    return a[i]


def array_set(a: list[object], i: int, x: object) -> None:
    check_index(len(a), i)
    a[i] = x


def string_get(s: str, i: int) -> str:
    check_index(len(s), i)
    return s[i]


def string_make(n: int, c: str) -> str:
    if n < 0:
        raise fail("Invalid_argument", "Bytes.create")
    return c * n


def string_sub(s: str, start: int, length: int) -> str:
    if start < 0 or length < 0 or start > len(s) - length:
        raise fail("Invalid_argument", "String.sub / Bytes.sub")
    return s[start:start + length]


def char_chr(n: int) -> str:
    if not 0 <= n < 256:
        raise fail("Invalid_argument", "Char.chr")
    return chr(n)


def _unsafe_set(a: list[object], i: int, x: object) -> None:
    a[i] = x


def failwith(message: str) -> None:
    raise fail("Failure", message)


def raise_exception(value: tuple[Any, ...]) -> None:
    raise FlRaise(value)


def int_of_string(text: str) -> int:
    """OCaml's int_of_string at 64 bits: a sign, then decimal, or 0x/0o/0b/0u digits (which
    may fill all 64 bits, as OCaml's do its 63: 0u is decimal read unsigned), underscores after
    the first digit; anything else, or a decimal out of range, fails with Failure
    "int_of_string"."""
    body, negative = text, False
    if body[:1] in "+-" and body:
        negative, body = body[0] == "-", body[1:]
    prefixed = body[:2] in ("0x", "0X", "0o", "0O", "0b", "0B", "0u", "0U")
    base = {"0x": 16, "0X": 16, "0o": 8, "0O": 8, "0b": 2, "0B": 2}.get(body[:2], 10)
    digits = body[2:] if prefixed else body
    valid = "0123456789abcdefABCDEF"[:base + (6 if base == 16 else 0)]
    if not digits or digits[0] == "_" or any(c not in valid + "_" for c in digits):
        failwith("int_of_string")
    value = int(digits.replace("_", ""), base)
    if not prefixed and value > (1 << 63) - (0 if negative else 1) or prefixed and value >= 1 << 64:
        failwith("int_of_string")
    return wrap(-value if negative else value)


def float_of_string(text: str) -> float:
    """OCaml's float_of_string: what C's strtod reads, underscores allowed, the whole string."""
    cleaned = text.replace("_", "")
    try:
        if cleaned.strip().lower().lstrip("+-").startswith("0x"):
            return float.fromhex(cleaned.strip())
        if cleaned.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
            return float(cleaned)
        if not cleaned or cleaned != cleaned.lstrip() and not cleaned.strip():
            raise ValueError(text)
        if any(c not in "0123456789+-.eE \t\n" for c in cleaned) or cleaned != cleaned.rstrip():
            raise ValueError(text)
        return float(cleaned)
    except ValueError:
        failwith("float_of_string")
        raise


# Sys.argv in the interpreters: the program's file name (`cpsc interp` sets it), as `ocaml prog.fl`
PROGRAM_ARGUMENTS: list[str] = ["prog"]


def _succeeds(convert: Callable[[str], object], text: str) -> bool:
    try:
        convert(text)
        return True
    except FlRaise:
        return False


# Primitives on data (arrays, strings, chars): name -> (arity, meaning).
DATA_PRIMITIVES: dict[str, tuple[int, Callable[..., Any]]] = {
    "Array.make": (2, array_make), "Array.length": (1, len), "Array.get": (2, array_get),
    "Array.set": (3, array_set), "Array.unsafe_get": (2, lambda a, i: a[i]),
    "Array.unsafe_set": (3, _unsafe_set), "String.length": (1, len), "String.get": (2, string_get),
    "String.unsafe_get": (2, lambda s, i: s[i]), "String.make": (2, string_make),
    "String.sub": (3, string_sub), "string_of_char_array": (1, "".join),
    "Char.code": (1, ord), "Char.chr": (1, char_chr),
    "raise": (1, raise_exception), "fl_hash_with": (5, hash_value),
    "fl_argv": (1, lambda _: FlArray(PROGRAM_ARGUMENTS)),
    "fl_random_seed": (1, lambda _: FlArray(int.from_bytes(os.urandom(4), "big") for _ in range(12))),
    "fl_format_int": (2, format_value), "fl_format_float": (2, format_value),
    "fl_format_string": (2, format_value), "fl_format_char": (2, format_value),
    "fl_exn_to_string": (1, exception_to_string), "fl_char_array_of_string": (1, lambda s: FlArray(s)),
    "int_of_string": (1, int_of_string), "float_of_string": (1, float_of_string),
    "fl_int_of_string_ok": (1, lambda s: _succeeds(int_of_string, s)),
    "fl_float_of_string_ok": (1, lambda s: _succeeds(float_of_string, s)),
    "fl_open_channel": (2, channels.open_channel), "fl_channel_error": (1, channels.channel_error),
    "fl_close_channel": (1, channels.close_channel), "fl_channel_write": (2, channels.write),
    "fl_channel_flush": (1, channels.flush), "fl_remove_file": (1, channels.remove_file),
    "fl_is_directory": (1, channels.is_directory), "fl_rename": (2, channels.rename), "fl_getcwd": (1, channels.getcwd),
    "fl_executable_name": (1, channels.executable_name),
    "fl_chdir": (1, channels.chdir), "fl_mkdir": (2, channels.mkdir), "fl_rmdir": (1, channels.rmdir), "fl_readdir": (1, lambda path: FlArray(channels.readdir(path))), "fl_command": (1, channels.command),
    "fl_file_exists": (1, channels.file_exists), "fl_channel_length": (1, channels.length),
    "fl_channel_pos": (1, channels.position), "fl_channel_seek": (2, channels.seek), "fl_cpu_time": (1, lambda _: time.process_time()),
    # the interpreters' values live in Python's heap: no figures of the collector's to give
    "fl_gc_counter": (1, lambda _: 0.0),
    "fl_fma": (3, LIBM["fl_fma"]),
    "fl_has_env": (1, lambda name: name in os.environ), "fl_getenv": (1, lambda name: os.environ.get(name, "")),
    # the interpreters record no backtrace (as a program built without -g), but say whether
    # OCAMLRUNPARAM asks for them, as the runtime does
    "fl_raise_at": (2, lambda exception, where: ()), "fl_frame_at": (2, lambda exception, where: ()), "fl_backtrace_record": (1, lambda on: ()),
    "fl_backtrace_status": (1, lambda _: backtraces_asked()), "fl_backtrace_slots": (1, lambda _: ""),
    "fl_backtrace_restore": (2, lambda exception, slots: ()), "fl_callstack": (1, lambda count: ""),
}


def backtraces_asked() -> bool:
    """Whether OCAMLRUNPARAM (or CAMLRUNPARAM) has `b` (or `b=1`) among its options."""
    settings = os.environ.get("OCAMLRUNPARAM", os.environ.get("CAMLRUNPARAM", ""))
    options = [option.strip() for option in settings.split(",")]
    return any(option == "b" or option.startswith("b=") and option[2:] not in ("", "0") for option in options)


def int64_bits_of_float(x: float) -> int:
    return int(struct.unpack("<q", struct.pack("<d", x))[0])


def int64_float_of_bits(n: int) -> float:
    return float(struct.unpack("<d", struct.pack("<q", wrap(n)))[0])


def int32_bits_of_float(x: float) -> int:
    """The bits of the single nearest x (as C converts it: out of range, an infinity)."""
    try:
        single = struct.pack("<f", x)
    except OverflowError:
        single = struct.pack("<f", math.copysign(math.inf, x))
    return int(struct.unpack("<i", single)[0])


def int32_float_of_bits(n: int) -> float:
    return float(struct.unpack("<f", struct.pack("<I", n & 0xFFFFFFFF))[0])

"""The primitive operations of the CPS IR: their types, purity and meaning on Python values.

Comparisons exist per ground type (`lt_int`, `eq_string`, ...): monomorphisation made every
type known, so no operation needs to inspect a value's representation at run time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cpsc.semantics import builtins
from cpsc.semantics.values import binary, unary
from cpsc.types.types import BOOL, CHAR, EXN, EXNID, FLOAT, INT, STRING, UNIT, TCon


@dataclass(frozen=True)
class PrimOp:
    name: str
    params: tuple[TCon, ...]
    result: TCon
    pure: bool  # no effect and cannot fail: removable when unused, foldable on constants
    source: str  # the FL primitive it implements (for the interpreters' shared semantics)


PRIMOPS: dict[str, PrimOp] = {}


def _add(name: str, params: tuple[TCon, ...], result: TCon, source: str, pure: bool = True) -> None:
    PRIMOPS[name] = PrimOp(name, params, result, pure, source)


for _name, _src in [("add", "+"), ("sub", "-"), ("mul", "*"), ("and", "land"), ("or", "lor"),
                    ("xor", "lxor"), ("lsl", "lsl"), ("lsr", "lsr"), ("asr", "asr")]:
    _add(f"{_name}_int", (INT, INT), INT, _src)
# The CPS conversion tests the divisor first (raising Division_by_zero), so these never fail;
# but they must not be hoisted above that test.
_add("div_int", (INT, INT), INT, "/", pure=False)
_add("mod_int", (INT, INT), INT, "mod", pure=False)
_add("neg_int", (INT,), INT, "~-")
for _name, _src in [("add", "+."), ("sub", "-."), ("mul", "*."), ("div", "/."), ("pow", "**")]:
    _add(f"{_name}_float", (FLOAT, FLOAT), FLOAT, _src)
_add("neg_float", (FLOAT,), FLOAT, "~-.")
_add("atan2", (FLOAT, FLOAT), FLOAT, "atan2")
_add("mod_float", (FLOAT, FLOAT), FLOAT, "mod_float")
for _name in ("sqrt", "exp", "log", "sin", "cos", "floor", "abs_float", "tan", "atan", "ceil", "log10"):
    _add(_name, (FLOAT,), FLOAT, _name)
for _source, (_name, _arity) in builtins.LIBM_FUNCTIONS.items():  # the C library's name is the op's
    _add(_name, (FLOAT,) * _arity, FLOAT, _source)
_add("float_of_int", (INT,), FLOAT, "float_of_int")
_add("int_of_float", (FLOAT,), INT, "int_of_float")
for _bits in ("int64", "int32"):
    _add(f"{_bits}_bits_of_float", (FLOAT,), INT, f"fl_{_bits}_bits_of_float")
    _add(f"{_bits}_float_of_bits", (INT,), FLOAT, f"fl_{_bits}_float_of_bits")
_add("string_of_int", (INT,), STRING, "string_of_int")
_add("string_of_float", (FLOAT,), STRING, "string_of_float")
_add("concat_string", (STRING, STRING), STRING, "^")
_add("not", (BOOL,), BOOL, "not")
for _name, _t in [("print_int", INT), ("print_float", FLOAT), ("print_string", STRING),
                  ("print_char", CHAR), ("flush_stdout", UNIT), ("prerr_string", STRING)]:
    _add(_name, (_t,), UNIT, _name, pure=False)

COMPARISON_NAMES = {"=": "eq", "<>": "ne", "<": "lt", ">": "gt", "<=": "le", ">=": "ge",
                    "compare": "compare"}
COMPARABLE = {"int": INT, "float": FLOAT, "bool": BOOL, "char": CHAR, "string": STRING, "unit": UNIT}
for _src, _short in COMPARISON_NAMES.items():
    for _tname, _t in COMPARABLE.items():
        _add(f"{_short}_{_tname}", (_t, _t), INT if _short == "compare" else BOOL, _src)
_add("select_compare", (INT, INT), INT, "select_compare")  # c1 if c1 <> 0 else c2 (tuples)
_add("and_bool", (BOOL, BOOL), BOOL, "and_bool")  # non-short-circuit, for tuple equality


# `exit` never returns, so its result may have any type (the verifier knows).
_add("exit", (INT,), UNIT, "exit", pure=False)

# Strings and chars.
_add("string_length", (STRING,), INT, "String.length")
_add("string_unsafe_get", (STRING, INT), CHAR, "String.unsafe_get")
_add("string_make", (INT, CHAR), STRING, "String.make", pure=False)
_add("string_sub", (STRING, INT, INT), STRING, "String.sub", pure=False)
_add("string_of_char_array", (TCon("array", (CHAR,)),), STRING, "string_of_char_array", pure=False)
_add("char_array_of_string", (STRING,), TCon("array", (CHAR,)), "fl_char_array_of_string", pure=False)
_add("exn_to_string", (EXN,), STRING, "fl_exn_to_string")
_add("char_code", (CHAR,), INT, "Char.code")
_add("char_chr", (INT,), CHAR, "Char.chr", pure=False)
_add("compare_partial_float", (FLOAT, FLOAT), INT, "compare_partial_float")
# The prelude tests that a string converts (`*_ok`) before converting it, and raises Failure.
_add("int_of_string", (STRING,), INT, "int_of_string")
_add("float_of_string", (STRING,), FLOAT, "float_of_string")
_add("int_of_string_ok", (STRING,), BOOL, "fl_int_of_string_ok")
_add("float_of_string_ok", (STRING,), BOOL, "fl_float_of_string_ok")
_add("read_line", (UNIT,), STRING, "read_line", pure=False)
_add("argv", (UNIT,), TCon("array", (STRING,)), "fl_argv", pure=False)
_add("random_seed", (UNIT,), TCon("array", (INT,)), "fl_random_seed", pure=False)
for _name, _t in [("int", INT), ("float", FLOAT), ("string", STRING), ("char", CHAR)]:
    _add(f"format_{_name}", (STRING, _t), STRING, f"fl_format_{_name}")  # one Printf conversion
_add("at_eof", (UNIT,), BOOL, "fl_at_eof", pure=False)
# Channels of files, by handle (0: stdin)
_add("open_channel", (STRING, INT), INT, "fl_open_channel", pure=False)
_add("channel_error", (UNIT,), STRING, "fl_channel_error", pure=False)
_add("close_channel", (INT,), UNIT, "fl_close_channel", pure=False)
_add("channel_write", (INT, STRING), UNIT, "fl_channel_write", pure=False)
_add("channel_flush", (INT,), UNIT, "fl_channel_flush", pure=False)
_add("channel_read_char", (INT,), INT, "fl_channel_read_char", pure=False)
_add("channel_read_available", (INT, INT), STRING, "fl_channel_read_available", pure=False)
_add("channel_at_eof", (INT,), BOOL, "fl_channel_at_eof", pure=False)
_add("channel_read_line", (INT,), STRING, "fl_channel_read_line", pure=False)
_add("remove_file", (STRING,), BOOL, "fl_remove_file", pure=False)
_add("file_exists", (STRING,), BOOL, "fl_file_exists", pure=False)
_add("is_directory", (STRING,), INT, "fl_is_directory", pure=False)
_add("rename", (STRING, STRING), BOOL, "fl_rename", pure=False)
_add("getcwd", (UNIT,), STRING, "fl_getcwd", pure=False)
_add("executable_name", (UNIT,), STRING, "fl_executable_name", pure=False)
_add("chdir", (STRING,), BOOL, "fl_chdir", pure=False)
_add("mkdir", (STRING, INT), BOOL, "fl_mkdir", pure=False)
_add("rmdir", (STRING,), BOOL, "fl_rmdir", pure=False)
_add("readdir", (STRING,), TCon("array", (STRING,)), "fl_readdir", pure=False)
_add("command", (STRING,), INT, "fl_command", pure=False)
_add("channel_length", (INT,), INT, "fl_channel_length", pure=False)  # -1: not a file's channel
_add("channel_pos", (INT,), INT, "fl_channel_pos", pure=False)
# Backtraces (Printexc): a raise's place (-g only, `cpsc.to_cps.debug`), recording on or off, and
# the slots recorded, one a line (none in the interpreters, which record nothing)
_add("raise_at", (EXN, STRING), UNIT, "fl_raise_at", pure=False)
_add("frame_at", (EXN, STRING), UNIT, "fl_frame_at", pure=False)  # an inlined call's frame (`Call.loc`)
_add("backtrace_record", (BOOL,), UNIT, "fl_backtrace_record", pure=False)
_add("backtrace_status", (UNIT,), BOOL, "fl_backtrace_status", pure=False)
_add("backtrace_slots", (UNIT,), STRING, "fl_backtrace_slots", pure=False)
_add("backtrace_restore", (EXN, STRING), UNIT, "fl_backtrace_restore", pure=False)
_add("callstack", (INT,), STRING, "fl_callstack", pure=False)
_add("channel_seek", (INT, INT), BOOL, "fl_channel_seek", pure=False)
_add("cpu_time", (UNIT,), FLOAT, "fl_cpu_time", pure=False)
_add("gc_counter", (INT,), FLOAT, "fl_gc_counter", pure=False)
_add("has_env", (STRING,), BOOL, "fl_has_env", pure=False)
_add("getenv", (STRING,), STRING, "fl_getenv", pure=False)


@dataclass(frozen=True)
class GenericOp:
    """A primitive at many types (data representation, arrays): `check(args, result)` says
    what is wrong with a use, or None."""

    name: str
    pure: bool
    check: Any


def is_data(t: TCon) -> bool:
    """A data type (variant, record): what blocks, immediates and their fields have."""
    return t.name not in COMPARABLE and t.name not in ("->", "*", "array")


def _array_of(t: TCon) -> TCon | None:
    return t.args[0] if t.name == "array" else None  # type: ignore[return-value]


GENERIC: dict[str, GenericOp] = {op.name: op for op in [
    # constant constructor number k of a data type (an immediate)
    GenericOp("immediate", True, lambda a, r: None if [x.name for x in a] == ["int"] and is_data(r)
              else "takes an int and makes a data value"),
    GenericOp("is_block", True, lambda a, r: None if len(a) == 1 and is_data(a[0]) and r == BOOL
              else "takes a data value and gives a bool"),
    GenericOp("immediate_value", True, lambda a, r: None if len(a) == 1 and is_data(a[0]) and r == INT
              else "takes a data value and gives an int"),
    GenericOp("phys_eq", True, lambda a, r: None if len(a) == 2 and a[0] == a[1] and r == BOOL
              else "compares two values of one type"),
    GenericOp("array_make", False, lambda a, r: None if len(a) == 2 and a[0] == INT and _array_of(r) == a[1]
              else "takes a length and an element and makes an array of it"),
    GenericOp("array_empty", True, lambda a, r: None if not a and _array_of(r) is not None
              else "takes nothing and makes an array"),
    GenericOp("array_length", True, lambda a, r: None if len(a) == 1 and _array_of(a[0]) and r == INT
              else "takes an array and gives an int"),
    GenericOp("array_unsafe_get", False, lambda a, r: None if len(a) == 2 and _array_of(a[0]) == r and a[1] == INT
              else "takes an array and an index and gives an element"),
    GenericOp("array_unsafe_set", False, lambda a, r: None if len(a) == 3 and _array_of(a[0]) == a[2]
              and a[1] == INT and r == UNIT else "takes an array, an index and an element"),
    # a `let rec` value's block before it is built, and its building (cpsc.syntax.recursive_values):
    # a block of n zero slots (an array's: its length slot too), then n slots copied into it
    GenericOp("dummy_block", False, lambda a, r: None if a == [INT] and (is_data(r) or r.name == "*")
              else "takes a size and makes a tuple or data block"),
    GenericOp("dummy_array", False, lambda a, r: None if a == [INT] and _array_of(r) is not None
              else "takes a size and makes an array"),
    GenericOp("update_dummy", False, lambda a, r: None if len(a) == 3 and a[0] == a[1] and a[2] == INT
              and r == UNIT else "takes a dummy, its value and a size"),
    # `let exception`: a new identity for the exception declared (a copy of its declared one)
    GenericOp("fresh_exception", False, lambda a, r: None if a == [EXNID] and r == EXNID
              else "takes an exception identity and makes a new one"),
    # an exception identity's place in `compare`'s order, and the identity it was copied from
    GenericOp("exception_order", True, lambda a, r: None if a == [EXNID] and r == INT
              else "takes an exception identity and gives an int"),
    GenericOp("declared_exception", True, lambda a, r: None if a == [EXNID] and r == EXNID
              else "takes an exception identity and gives one"),
    # Hashtbl.hash of a value of any type, guided by its type's descriptor (cpsc.semantics.hashing)
    # (Hashtbl.seeded_hash_param's meaningful, total and seed before the value)
    GenericOp("hash", True, lambda a, r: None if len(a) == 5 and a[0] == STRING and a[1:4] == [INT] * 3
              and r == INT else "takes a descriptor, three ints and a value and gives an int"),
    # SSA only: the exception that made control reach a handler (`cpsc.ssa.from_cps`)
    GenericOp("caught_exception", False, lambda a, r: None if not a and r == EXN
              else "takes nothing and gives an exn"),
]}


def is_pure(op: str) -> bool:
    return GENERIC[op].pure if op in GENERIC else PRIMOPS[op].pure


def never_returns(op: str) -> bool:
    return op in NEVER_RETURN


NEVER_RETURN = frozenset({"exit"})


def _compare_partial_float(a: float, b: float) -> int:
    return builtins.compare_values(a, b, total=False)


_GENERIC_SEMANTICS: dict[str, Any] = {
    "immediate": lambda k: k, "is_block": lambda v: isinstance(v, (tuple, list)),
    "immediate_value": lambda v: v, "phys_eq": builtins.physically_equal,
    "array_make": builtins.array_make, "array_empty": builtins.FlArray, "array_length": len,
    "array_unsafe_get": lambda a, i: a[i], "array_unsafe_set": builtins.DATA_PRIMITIVES["Array.unsafe_set"][1],
    "compare_partial_float": _compare_partial_float, "dummy_block": builtins.dummy_block,
    "dummy_array": builtins.dummy_array, "update_dummy": builtins.update_dummy,
    "fresh_exception": builtins.fresh_exception, "exception_order": lambda e: e.order,
    "declared_exception": lambda e: e.declared, "hash": builtins.DATA_PRIMITIVES["fl_hash_with"][1],
}


def evaluate(op: str, args: list[Any], out: list[str]) -> Any:
    """Apply a primitive to Python values: the source-level semantics every interpreter shares."""
    if op in _GENERIC_SEMANTICS:
        return _GENERIC_SEMANTICS[op](*args)
    source = PRIMOPS[op].source
    if source in builtins.DATA_PRIMITIVES:
        return builtins.DATA_PRIMITIVES[source][1](*args)
    if source == "select_compare":
        return args[0] if args[0] != 0 else args[1]
    if source == "and_bool":
        return args[0] and args[1]
    if len(args) == 1:
        return unary(out, source, args[0])
    return binary(source, args[0], args[1], out)


# The impure primitives that write no block or array the program already has (they read, make
# new ones, or act outside the heap): what a load before them holds, it holds after them. A
# primitive missing here is taken to write anything.
PRIMITIVES_THAT_KEEP_THE_HEAP = frozenset({
    "argv", "array_make", "backtrace_record", "backtrace_restore", "backtrace_slots", "backtrace_status", "callstack", "array_unsafe_get", "at_eof", "caught_exception", "channel_at_eof", "channel_error",
    "channel_flush", "channel_length", "channel_pos", "channel_read_available", "channel_read_char",
    "channel_read_line", "channel_seek",
    "channel_write", "char_array_of_string", "char_chr", "close_channel", "cpu_time", "div_int", "exit",
    "file_exists", "flush_stdout", "getenv", "has_env", "mod_int", "open_channel", "prerr_string", "print_char",
    "print_float", "print_int", "print_string", "raise_at", "frame_at", "random_seed", "read_line", "remove_file", "string_make",
    "string_of_char_array", "string_sub"})

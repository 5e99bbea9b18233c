"""The primitive operations of the CPS IR: their types, purity and meaning on Python values.

Comparisons exist per ground type (`lt_int`, `eq_string`, ...): monomorphisation made every
type known, so no operation needs to inspect a value's representation at run time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cpsc.syntax.values import binary, unary
from cpsc.types.types import BOOL, CHAR, FLOAT, INT, STRING, UNIT, TCon


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
_add("div_int", (INT, INT), INT, "/", pure=False)
_add("mod_int", (INT, INT), INT, "mod", pure=False)
_add("neg_int", (INT,), INT, "~-")
for _name, _src in [("add", "+."), ("sub", "-."), ("mul", "*."), ("div", "/."), ("pow", "**")]:
    _add(f"{_name}_float", (FLOAT, FLOAT), FLOAT, _src)
_add("neg_float", (FLOAT,), FLOAT, "~-.")
for _name in ("sqrt", "exp", "log", "sin", "cos", "floor", "abs_float"):
    _add(_name, (FLOAT,), FLOAT, _name)
_add("float_of_int", (INT,), FLOAT, "float_of_int")
_add("int_of_float", (FLOAT,), INT, "int_of_float")
_add("string_of_int", (INT,), STRING, "string_of_int")
_add("string_of_float", (FLOAT,), STRING, "string_of_float")
_add("concat_string", (STRING, STRING), STRING, "^")
_add("not", (BOOL,), BOOL, "not")
for _name, _t in [("print_int", INT), ("print_float", FLOAT), ("print_string", STRING),
                  ("print_char", CHAR), ("flush_stdout", UNIT)]:
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


def evaluate(op: str, args: list[Any], out: list[str]) -> Any:
    """Apply a primitive to Python values: the source-level semantics every interpreter shares."""
    source = PRIMOPS[op].source
    if source == "select_compare":
        return args[0] if args[0] != 0 else args[1]
    if source == "and_bool":
        return args[0] and args[1]
    if len(args) == 1:
        return unary(out, source, args[0])
    return binary(source, args[0], args[1])

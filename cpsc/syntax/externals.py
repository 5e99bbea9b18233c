"""`external name : t = "primitive"`: OCaml's primitives that FL has, by the value of FL's
that is each (`"%addint"` is `( + )`). A program's own C functions cannot be linked into an FL
program, so a primitive not listed here is an error."""

from __future__ import annotations

# OCaml's `%` primitives (the compiler's own, `bytecomp/translprim.ml`) and the C functions of
# its runtime that the standard library declares, as FL's values of the same types
PRIMITIVES = {
    "%identity": "Fun.id", "%ignore": "ignore", "%raise": "raise", "%reraise": "raise",
    "%raise_notrace": "raise_notrace", "%apply": "@@", "%revapply": "|>",
    "%addint": "+", "%subint": "-", "%mulint": "*", "%divint": "/", "%modint": "mod", "%negint": "~-",
    "%succint": "succ", "%predint": "pred", "%andint": "land", "%orint": "lor", "%xorint": "lxor",
    "%lslint": "lsl", "%lsrint": "lsr", "%asrint": "asr",
    "%addfloat": "+.", "%subfloat": "-.", "%mulfloat": "*.", "%divfloat": "/.", "%negfloat": "~-.",
    "%absfloat": "abs_float", "%floatofint": "float_of_int", "%intoffloat": "int_of_float",
    "%equal": "=", "%notequal": "<>", "%lessthan": "<", "%lessequal": "<=", "%greaterthan": ">",
    "%greaterequal": ">=", "%compare": "compare", "%eq": "==", "%noteq": "!=",
    "%boolnot": "not", "%sequand": "&&", "%sequor": "||",
    "%makemutable": "ref", "%field0": "fst", "%field1": "snd", "%incr": "incr", "%decr": "decr",
    "%string_length": "String.length", "%bytes_length": "Bytes.length", "%array_length": "Array.length",
    "%string_safe_get": "String.get", "%string_unsafe_get": "String.unsafe_get",
    "%bytes_safe_get": "Bytes.get", "%bytes_unsafe_get": "Bytes.unsafe_get",
    "%bytes_safe_set": "Bytes.set", "%bytes_unsafe_set": "Bytes.unsafe_set",
    "%array_safe_get": "Array.get", "%array_unsafe_get": "Array.unsafe_get",
    "%array_safe_set": "Array.set", "%array_unsafe_set": "Array.unsafe_set",
    "%bytes_to_string": "Bytes.to_string", "%bytes_of_string": "Bytes.of_string",
    "caml_int_of_string": "int_of_string", "caml_float_of_string": "float_of_string",
    "caml_string_of_float": "string_of_float", "caml_sys_exit": "exit", "caml_sqrt_float": "sqrt",
    "caml_exp_float": "exp", "caml_log_float": "log", "caml_sin_float": "sin", "caml_cos_float": "cos",
    "caml_tan_float": "tan", "caml_atan2_float": "atan2", "caml_power_float": "**",
    "caml_floor_float": "floor", "caml_ceil_float": "ceil", "caml_fmod_float": "mod_float",
    "caml_hash": "Hashtbl.hash_param", "caml_string_compare": "String.compare",
    "caml_string_equal": "String.equal", "caml_create_bytes": "Bytes.create",
    "caml_make_vect": "Array.make", "caml_sys_time": "Sys.time",
}


def primitive_value(names: tuple[str, ...]) -> str | None:
    """The FL value an `external`'s primitive names are (the first, OCaml's bytecode one,
    decides; a native one and `[@unboxed]` variants only speed OCaml up), or None."""
    return PRIMITIVES.get(names[0]) if names else None

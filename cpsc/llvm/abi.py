"""How FL values and calls look to LLVM and to the C runtime: the LLVM type of each FL type, the
runtime's functions and their signatures, which arguments travel in registers (the others in
the runtime's `fl_extra_args`), and the layout of byte arrays."""

from __future__ import annotations

from cpsc.llvm import text as ll
from cpsc.semantics.builtins import LIBM_FUNCTIONS
from cpsc.types.types import TCon

I64, I32, I8, I1 = ll.IntType(64), ll.IntType(32), ll.IntType(8), ll.IntType(1)
F64 = ll.DoubleType()
F32 = ll.FloatType()
PTR = ll.PointerType()
VOID = ll.VoidType()

RUNTIME = {
    "fl_alloc": (PTR, [I64]), "fl_alloc_zeroed": (PTR, [I64]), "fl_print_int": (VOID, [I64]), "fl_print_char": (VOID, [I8]),
    "fl_print_string": (VOID, [PTR]), "fl_prerr_string": (VOID, [PTR]), "fl_print_float": (VOID, [F64]), "fl_flush": (VOID, []),
    "fl_string_of_int": (PTR, [I64]), "fl_string_of_float": (PTR, [F64]),
    "fl_concat": (PTR, [PTR, PTR]), "fl_compare_string": (I64, [PTR, PTR]),
    "fl_compare_float": (I64, [F64, F64]), "fl_int_of_float": (I64, [F64]),
    "fl_exit": (VOID, [I64]),
    "fl_alloc_atomic": (PTR, [I64]), "fl_array_make": (PTR, [I64, I64, I64]),
    "fl_string_make": (PTR, [I64, I8]), "fl_string_sub": (PTR, [PTR, I64, I64]),
    "fl_compare_float_partial": (I64, [F64, F64]),
    "fl_int_of_string": (I64, [PTR]), "fl_float_of_string": (F64, [PTR]), "fl_read_line": (PTR, []),
    "fl_format_int": (PTR, [PTR, I64]), "fl_format_float": (PTR, [PTR, F64]),
    "fl_format_string": (PTR, [PTR, PTR]), "fl_exn_to_string": (PTR, [PTR]), "fl_format_char": (PTR, [PTR, I8]),
    "fl_hash": (I64, [PTR, I64, I64, I64, I64]), "fl_argv": (PTR, []), "fl_random_seed": (PTR, []), "fl_int_of_string_ok": (I64, [PTR]), "fl_float_of_string_ok": (I64, [PTR]), "fl_at_eof": (I64, []),
    "fl_open_channel": (I64, [PTR, I64]), "fl_channel_error": (PTR, []), "fl_close_channel": (VOID, [I64]),
    "fl_channel_write": (VOID, [I64, PTR]), "fl_channel_flush": (VOID, [I64]), "fl_channel_read_char": (I64, [I64]),
    "fl_channel_read_available": (PTR, [I64, I64]),
    "fl_channel_at_eof": (I64, [I64]), "fl_channel_read_line": (PTR, [I64]),
    "fl_remove_file": (I64, [PTR]), "fl_file_exists": (I64, [PTR]),
    "fl_is_directory": (I64, [PTR]), "fl_rename": (I64, [PTR, PTR]), "fl_getcwd": (PTR, []), "fl_executable_name": (PTR, []), "fl_chdir": (I64, [PTR]), "fl_mkdir": (I64, [PTR, I64]), "fl_rmdir": (I64, [PTR]),
    "fl_readdir": (PTR, [PTR]), "fl_command": (I64, [PTR]), "fl_cpu_time": (F64, []), "fl_gc_counter": (F64, [I64]),
    "fl_channel_length": (I64, [I64]), "fl_channel_pos": (I64, [I64]), "fl_channel_seek": (I64, [I64, I64]),
    "fl_has_env": (I64, [PTR]), "fl_getenv": (PTR, [PTR]), "fl_update_dummy": (VOID, [PTR, PTR, I64]),
    "fl_fresh_exception": (PTR, [PTR]),
    "fl_debug_info": (VOID, []), "fl_raise_at": (VOID, [PTR, PTR]), "fl_inlined_frame": (VOID, [PTR, PTR]), "fl_called_from": (VOID, [PTR, PTR]), "fl_backtrace_record": (VOID, [I64]),
    "fl_backtrace_status": (I64, []), "fl_backtrace_slots": (PTR, []), "fl_backtrace_restore": (VOID, [PTR, PTR]),
    "fl_callstack": (PTR, [I64]),
    "sqrt": (F64, [F64]), "exp": (F64, [F64]), "log": (F64, [F64]), "sin": (F64, [F64]),
    "cos": (F64, [F64]), "floor": (F64, [F64]), "fabs": (F64, [F64]), "pow": (F64, [F64, F64]),
    "tan": (F64, [F64]), "atan": (F64, [F64]), "ceil": (F64, [F64]), "log10": (F64, [F64]),
    "atan2": (F64, [F64, F64]), "fmod": (F64, [F64, F64]),
    **{name: (F64, [F64] * arity) for name, arity in LIBM_FUNCTIONS.values()},
}

# Operations that are one call of the C function of the same name.
C_CALLS = frozenset(["sqrt", "exp", "log", "sin", "cos", "floor", "tan", "atan", "ceil", "log10", "atan2"]
                    + [name for name, _ in LIBM_FUNCTIONS.values()])

ICMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


# x86-64 passes the first 6 integer or pointer arguments and the first 8 floats in registers; an
# FL call passes the others in the runtime's `fl_extra_args` (see runtime.c), never on the stack.
INTEGER_REGISTERS, FLOAT_REGISTERS = 6, 8
EXTRA_ARGS = 4096  # the size of `fl_extra_args`


def in_registers(types: list[ll.Type]) -> list[bool]:
    """For each argument of a call (or parameter of a function) of these types, whether it is
    passed in a register; the others go through `fl_extra_args`, in order."""
    integers = floats = 0
    placed = []
    for t in types:
        if t == F64:
            floats += 1
            placed.append(floats <= FLOAT_REGISTERS)
        else:
            integers += 1
            placed.append(integers <= INTEGER_REGISTERS)
    return placed


def lltype(t: TCon) -> ll.Type:
    return {"int": I64, "float": F64, "bool": I1, "char": I8, "unit": I8}.get(t.name, PTR)


def function_type(params: list[TCon], result: TCon) -> ll.FunctionType:
    """The LLVM type of a function or closure code taking `params`: those passed in registers."""
    types = [lltype(p) for p in params]
    return ll.FunctionType(lltype(result), [t for t, kept in zip(types, in_registers(types)) if kept])


def arity_matches(b: ll.IRBuilder, arity: ll.Value, count: int) -> ll.Value:
    """Whether a closure of this arity takes `count` arguments at once."""
    return b.icmp_unsigned("==", arity, I64(count))


def is_byte_array(element: ll.Type) -> bool:
    """Arrays of bools and chars hold a byte an element, laid out as a string is (the length,
    then the bytes): a sieve's `bool array` takes an eighth of the memory of 8-byte slots."""
    return element in (I1, I8)

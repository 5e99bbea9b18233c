"""Run-time support shared by the three interpreters: output buffering, primitive semantics."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cpsc.semantics import builtins as b
from cpsc.semantics import channels
from cpsc.support import deep_stack
from cpsc.support.deep_stack import call_with_deep_stack, with_recursion_limit


@dataclass
class Outcome:
    """What running a program did: its stdout bytes (as latin-1 text), stderr and exit status."""

    stdout: str
    stderr: str = ""
    status: int = 0


class Output(list):  # type: ignore[type-arg]
    """What a program prints on stdout (the list), with what it prints on stderr and the
    input it reads (the process's stdin unless a test gives one) beside, buffered as OCaml's
    stdin is (`channels.InputBuffer`: from a terminal, the line typed at once; from a pipe,
    what was written), so that what `input` and Scanf take at once is what they take in OCaml."""

    def __init__(self, stdin: str | None = None) -> None:
        super().__init__()
        self.err: list[str] = []
        given = [stdin.encode("latin-1")] if stdin is not None else None
        self.stdin = channels.InputBuffer(
            (lambda: given.pop() if given else b"") if given is not None
            else (lambda: os.read(sys.stdin.fileno(), channels.BUFFER_BYTES)))

    def at_eof(self) -> bool:
        return self.stdin.at_eof()

    def read_line(self) -> str:
        """The next line without its newline (the prelude's read_line tests `at_eof` first)."""
        return self.stdin.read_line().decode("latin-1")

    def read_available(self, most: int) -> str:
        """OCaml's `input` on stdin: what the buffer holds (read once if it is empty), at most
        `most` characters."""
        return "" if most <= 0 or self.at_eof() else self.stdin.take(most).decode("latin-1")

    def read_char(self) -> int:
        """The next character's code, or -1 at the end."""
        return -1 if self.at_eof() else self.stdin.take(1)[0]


@dataclass
class Machine:
    """The state an interpreted program prints to."""

    out: Output = field(default_factory=Output)

    def finish(self, run: Callable[[], Any]) -> Outcome:
        try:
            try:
                run()
            finally:
                channels.flush_all()
        except b.FlExit as done:
            return self.outcome("", done.status)
        except b.FlRaise as err:
            return self.outcome(f"Fatal error: exception {err.description}\n", 2)
        except RecursionError:
            return self.outcome("Fatal error: exception Stack_overflow\n", 2)
        except MemoryError:  # (as the runtime's `out_of_memory`: not an exception the program catches)
            return self.outcome("Fatal error: exception Out_of_memory\n", 2)
        return self.outcome("", 0)

    def outcome(self, fatal: str, status: int) -> Outcome:
        return Outcome("".join(self.out), "".join(self.out.err) + fatal, status)


def machine(stdin: str | None = None) -> Machine:
    """An interpreter's machine, reading `stdin` when given (else the process's stdin)."""
    return Machine(Output(stdin))


def run_deep(function: Callable[[], Outcome]) -> Outcome:
    """Run an interpreter with a deep Python stack, so that deep FL recursion works."""
    return call_with_deep_stack(lambda: with_recursion_limit(deep_stack.INTERPRETER_RECURSION_LIMIT, function))


def float_op(name: str, a: float, c: float) -> float:
    if name == "+.":
        return a + c
    if name == "-.":
        return a - c
    if name == "*.":
        return a * c
    if name == "/.":
        return b.float_div(a, c)
    return b.LIBM[name](a, c)  # atan2, mod_float, **, hypot, copysign


INT_BINARY: dict[str, Callable[[int, int], int]] = {
    "+": lambda x, y: b.wrap(x + y), "-": lambda x, y: b.wrap(x - y),
    "*": lambda x, y: b.wrap(x * y), "/": b.int_div, "mod": b.int_mod,
    "land": lambda x, y: x & y, "lor": lambda x, y: x | y, "lxor": lambda x, y: x ^ y,
    "lsl": b.shift_left, "lsr": b.shift_right_logical, "asr": b.shift_right_arith,
}

def _partial(x: Any, y: Any) -> int:
    return b.compare_values(x, y, total=False)


# As OCaml's caml_lessthan etc.: a comparison that meets nan (UNORDERED, a negative number)
# makes <, <=, >, >= false.
COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "=": b.equal_values, "<>": lambda x, y: not b.equal_values(x, y),
    "<": lambda x, y: (c := _partial(x, y)) < 0 and c != b.UNORDERED,
    ">": lambda x, y: _partial(x, y) > 0,
    "<=": lambda x, y: (c := _partial(x, y)) <= 0 and c != b.UNORDERED,
    ">=": lambda x, y: _partial(x, y) >= 0,
    "==": b.physically_equal, "!=": lambda x, y: not b.physically_equal(x, y),
    "compare": b.compare_values,
}


def unary(out: list[str], name: str, x: Any) -> Any:
    """The one-argument primitives, including the ones that print to `out`."""
    if name == "print_int":
        out.append(str(x))
    elif name == "print_float":
        out.append(b.format_float(x))
    elif name in ("print_string", "print_char"):
        out.append(x)
    elif name == "prerr_string":
        out.err.append(x)  # type: ignore[attr-defined]
    elif name == "read_line":
        return out.read_line()  # type: ignore[attr-defined]
    elif name == "fl_at_eof":
        return out.at_eof()  # type: ignore[attr-defined]
    elif name == "flush_stdout":
        pass
    elif name in _CHANNEL_READS:  # a handle: 0 is stdin
        return _CHANNEL_READS[name](out, x) if x == 0 else getattr(channels, name.removeprefix("fl_channel_"))(x)
    elif name == "exit":
        raise b.FlExit(x)
    else:
        return PURE_UNARY[name](x)
    return None


_CHANNEL_READS: dict[str, Callable[[Any, int], Any]] = {
    "fl_channel_read_char": lambda out, _: out.read_char(), "fl_channel_at_eof": lambda out, _: out.at_eof(),
    "fl_channel_read_line": lambda out, _: out.read_line(),
}


PURE_UNARY: dict[str, Callable[[Any], Any]] = {
    "~-": lambda x: b.wrap(-x), "~-.": lambda x: -x, "not": lambda x: not x,
    "string_of_int": str, "string_of_float": b.format_float, "float_of_int": float,
    "int_of_float": b.int_of_float, "abs_float": abs, **b.LIBM_UNARY,
    "fl_int64_bits_of_float": b.int64_bits_of_float, "fl_int64_float_of_bits": b.int64_float_of_bits,
    "fl_int32_bits_of_float": b.int32_bits_of_float, "fl_int32_float_of_bits": b.int32_float_of_bits,
}


def binary(name: str, x: Any, y: Any, out: Any = None) -> Any:
    if name == "fl_channel_read_available":  # (a handle: 0 is stdin, which `out` reads)
        return out.read_available(y) if x == 0 else channels.read_available(x, y)
    if name in INT_BINARY:
        return INT_BINARY[name](x, y)
    if name in COMPARE:
        return COMPARE[name](x, y)
    if name == "^":
        return x + y
    return float_op(name, x, y)


BINARY_NAMES = (frozenset(INT_BINARY) | frozenset(COMPARE) | {"^", "+.", "-.", "*.", "/.", "**", "atan2", "mod_float",
                                                               "fl_channel_read_available"}
                | {source for source, (_, arity) in b.LIBM_FUNCTIONS.items() if arity == 2})
UNARY_NAMES = frozenset(PURE_UNARY) | {"print_int", "print_float", "print_string", "print_char",
                                       "flush_stdout", "exit", "prerr_string", "read_line", "fl_at_eof"} \
    | frozenset(_CHANNEL_READS)

"""The text form of the CPS IR; `cpsc.cps.parser` reads it back (the round trip is identity).

    main main
    fun sq(x: int) -> int = callc sq.entry() ret (ret sq)
      cont sq.entry() =
        let y: int = mul_int(x, x)
        jump (ret sq)(y)

Nested functions name their parent: `fun g(y: int) -> int in f = ...`.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

from cpsc.cps import ir
from cpsc.cps.program import Program, function_conts
from cpsc.types.types import TCon


def show_type(t: TCon) -> str:
    if t.name == "->":
        return f"({show_type(t.args[0])} -> {show_type(t.args[1])})"  # type: ignore[arg-type]
    if t.name == "*":
        return "(" + " * ".join(show_type(a) for a in t.args) + ")"  # type: ignore[arg-type]
    if t.args:
        return t.name + "<" + ", ".join(show_type(a) for a in t.args) + ">"  # type: ignore[arg-type]
    return t.name


def escape(text: str) -> str:
    out = []
    for c in text:
        if c in "\\\"'":
            out.append("\\" + c)
        elif 32 <= ord(c) < 127:
            out.append(c)
        else:
            out.append(f"\\x{ord(c):02x}")
    return "".join(out)


def show_const(c: ir.Const) -> str:
    name = c.type.name
    if name == "unit":
        return "()"
    if name == "bool":
        return "true" if c.value else "false"
    if name == "char":
        return f"'{escape(str(c.value))}'"
    if name == "string":
        return f'"{escape(str(c.value))}"'
    if name == "exnid":
        return f'exception("{escape(c.value.key)}", "{c.value.kinds}")'  # type: ignore[attr-defined]
    if name == "float":
        x = float(c.value)  # type: ignore[arg-type]
        if math.isnan(x):  # the default NaNs by name, any other by its bits
            bits = struct.unpack("<Q", struct.pack("<d", x))[0]
            return _NANS.get(bits, f"#nan(0x{bits:016x})")
        if math.isinf(x):
            return "#inf" if x > 0 else "#-inf"
        return repr(x)
    return str(c.value)


_NANS = {0x7FF8000000000000: "#nan", 0xFFF8000000000000: "#-nan"}


def show_operand(o: ir.Operand) -> str:
    return o.name if isinstance(o, ir.Var) else show_const(o)


OperandFormat = Callable[[ir.Operand], str]


def _args(args: tuple[ir.Operand, ...], fmt: OperandFormat = show_operand) -> str:
    return "(" + ", ".join(fmt(a) for a in args) + ")"


def show_target(target: ir.Target) -> str:
    if isinstance(target, ir.Ret):
        return f"(ret {target.function})"
    return f"(exn {target.function})" if isinstance(target, ir.Exn) else target


def _handler(label: str | None, show_label: Callable[[str], str]) -> str:
    return "" if label is None else f" handler {show_label(label)}"


def _loc(loc: str | None) -> str:
    return "" if loc is None else f" @{loc}"


def show_value(v: ir.Value, fmt: OperandFormat = show_operand, show_label: Callable[[str], str] = str) -> str:
    if isinstance(v, ir.Prim):
        return f"{v.op}{_args(v.args, fmt)}"
    if isinstance(v, ir.Call):
        return f"call {v.function}{_args(v.args, fmt)}{_handler(v.handler, show_label)}{_loc(v.loc)}"
    if isinstance(v, ir.Apply):
        return f"apply {fmt(v.closure)}{_args(v.args, fmt)}{_handler(v.handler, show_label)}{_loc(v.loc)}"
    if isinstance(v, ir.MakeClosure):
        full = f" full {v.full}" if v.full else ""
        return f"closure {v.function}{_args(v.captured, fmt)}{full}"
    if isinstance(v, ir.MakeTuple):
        return f"tuple{_args(v.items, fmt)}"
    if isinstance(v, ir.Field):
        return f"field {fmt(v.record)} #{v.index}"
    if isinstance(v, ir.MakeBlock):
        return f"block{' mutable' if v.mutable else ''}{_args(v.items, fmt)}"
    if isinstance(v, ir.SetField):
        return f"set_field {fmt(v.record)} #{v.index} {fmt(v.value)}"
    if isinstance(v, ir.GlobalLoad):
        return f"global_load {v.name}"
    if isinstance(v, ir.GlobalStore):
        return f"global_store {v.name}({fmt(v.value)})"
    return f"callc {v.target}{_args(v.args, fmt)} ret {v.ret}"


def show_terminator(t: ir.Terminator) -> str:
    if isinstance(t, ir.Jump):
        return f"jump {show_target(t.target)}{_args(t.args)}"
    if isinstance(t, ir.Branch):
        return f"br {show_operand(t.condition)}, {t.if_true}, {t.if_false}"
    if isinstance(t, ir.TailCall):
        return f"tailcall {t.function}{_args(t.args)}{_loc(t.loc)}"
    if isinstance(t, ir.Switch):
        return f"switch {show_operand(t.value)} {show_cases(t, str)}"
    return f"tailapply {show_operand(t.closure)}{_args(t.args)}{_loc(t.loc)}"


def show_cases(t: ir.Switch, label: Callable[[str], str]) -> str:
    cases = ", ".join(f"{value}: {label(target)}" for value, target in t.cases)
    return f"[{cases}] default {label(t.default)}"


def _params(params: tuple[ir.Var, ...]) -> str:
    return "(" + ", ".join(f"{p.name}: {show_type(p.type)}" for p in params) + ")"


def print_cont(cont: ir.Cont, indent: str = "  ") -> list[str]:
    lines = [f"{indent}cont {cont.label}{_params(cont.params)} ="]
    for b in cont.bindings:
        lines.append(f"{indent}  let {b.var.name}: {show_type(b.var.type)} = {show_value(b.value)}")
    lines.append(f"{indent}  {show_terminator(cont.terminator)}")
    return lines


def print_function(program: Program, name: str) -> list[str]:
    f = program.functions[name]
    parent = f" in {f.parent}" if f.parent else ""
    noinline = " noinline" if f.noinline else ""
    full = f" full {f.full}" if f.full else ""
    lines = [f"fun {f.name}{_params(f.params)} -> {show_type(f.result)}{parent}{noinline}{full} = "
             f"callc {f.entry}() ret (ret {f.name})"]
    for label in function_order(program, name):
        lines.extend(print_cont(program.conts[label]))
    return lines


def function_order(program: Program, name: str) -> list[str]:
    """Reachable continuations in reverse postorder, then any unreachable ones by name."""
    reachable = function_conts(program, name)
    seen = set(reachable)
    rest = sorted(c.label for c in program.conts.values() if c.function == name and c.label not in seen)
    return reachable + rest


def functions_in_order(program: Program) -> list[str]:
    """Main first, then each function after its parent, siblings by name."""
    children: dict[str | None, list[str]] = {}
    for f in program.functions.values():
        children.setdefault(f.parent, []).append(f.name)
    order: list[str] = []

    def visit(name: str) -> None:
        order.append(name)
        for child in sorted(children.get(name, [])):
            visit(child)

    roots = sorted(children.get(None, []), key=lambda n: (n != program.main, n))
    for root in roots:
        visit(root)
    return order


def print_program(program: Program) -> str:
    lines = [f"main {program.main}" + (" closed" if program.closed else "")]
    lines.extend(f"global {name}: {show_type(t)}" for name, t in sorted(program.globals.items()))
    for name in functions_in_order(program):
        lines.append("")
        lines.extend(print_function(program, name))
    return "\n".join(lines) + "\n"

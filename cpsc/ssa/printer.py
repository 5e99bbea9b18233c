"""SSA text in the style of Julia's IR (seed 000): `%x = φ (#k1 => %a, #k2 => 0)`."""

from __future__ import annotations

from cpsc.cps import ir as cps
from cpsc.cps.printer import show_cases, show_const, show_type, show_value
from cpsc.ssa import ir


def _operand(o: cps.Operand) -> str:
    return f"%{o.name}" if isinstance(o, cps.Var) else show_const(o)


def _value(v: cps.Value) -> str:
    return show_value(v, _operand)


def _terminator(t: ir.Terminator) -> str:
    if isinstance(t, ir.Return):
        return f"return {_operand(t.value)}"
    if isinstance(t, ir.Goto):
        return f"goto #{t.target}"
    if isinstance(t, ir.CondBr):
        return f"br {_operand(t.condition)}, #{t.if_true}, #{t.if_false}"
    if isinstance(t, cps.Switch):
        return f"switch {_operand(t.value)} {show_cases(t, lambda label: '#' + label)}"
    if isinstance(t, ir.Invoke):
        var = t.binding.var
        return f"invoke %{var.name}: {show_type(var.type)} = {_value(t.binding.value)} to #{t.normal} unwind #{t.unwind}"
    if isinstance(t, ir.Raise):
        return f"raise {_operand(t.value)}"
    args = ", ".join(_operand(a) for a in t.args)
    if isinstance(t, cps.TailCall):
        return f"tailcall {t.function}({args})"
    return f"tailapply {_operand(t.closure)}({args})"


def print_function(f: ir.Function) -> list[str]:
    params = ", ".join(f"%{p.name}: {show_type(p.type)}" for p in f.params)
    lines = [f"function {f.name}({params}) -> {show_type(f.result)}" + (" noinline" if f.noinline else "")
             + (f" full {f.full}" if f.full else "")]
    preds = f.predecessors()
    for block in f.blocks:
        incoming = ", ".join(f"#{p}" for p in preds[block.label])
        lines.append(f"  #{block.label}:" + (f"  ← {incoming}" if incoming else ""))
        for phi in block.phis:
            edges = ", ".join(f"#{pred} => {_operand(v)}" for pred, v in phi.inputs)
            lines.append(f"    %{phi.var.name}: {show_type(phi.var.type)} = φ ({edges})")
        for b in block.instructions:
            lines.append(f"    %{b.var.name}: {show_type(b.var.type)} = {_value(b.value)}")
        lines.append(f"    {_terminator(block.terminator)}")
    return lines


def print_module(module: ir.Module) -> str:
    lines: list[str] = [f"; main: {module.main}"]
    lines.extend(f"global {name}: {show_type(t)}" for name, t in module.globals)
    for f in module.functions:
        lines.append("")
        lines.extend(print_function(f))
    return "\n".join(lines) + "\n"

"""A user's pass: multiplication by a power of two becomes a left shift (README, "Your own passes")."""

from dataclasses import replace

import cpsc
from cpsc.cps import ir
from cpsc.cps.program import Program


def reduce_binding(binding: ir.Binding) -> ir.Binding:
    value = binding.value
    if isinstance(value, ir.Prim) and value.op == "mul_int":
        for x, c in (value.args, value.args[::-1]):
            if isinstance(c, ir.Const) and isinstance(c.value, int) and c.value > 0 and c.value & (c.value - 1) == 0:
                shift = ir.Const(c.value.bit_length() - 1, c.type)
                return replace(binding, value=ir.Prim("lsl_int", (x, shift)))
    return binding


def strength_reduce(program: Program) -> Program:
    """x * 2^k becomes x lsl k."""
    changed = {label: replace(cont, bindings=tuple(map(reduce_binding, cont.bindings)))
               for label, cont in program.conts.items()}
    return program.with_conts(changed)


cpsc.register_pass("strength", strength_reduce)

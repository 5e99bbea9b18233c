"""Calls with more arguments than x86-64 passes in registers (6 integers or pointers, 8 floats):
the rest go through the runtime's `fl_extra_args`, never on the stack, where LLVM 22 drops the
stack arguments of a `musttail` call. Known, unknown, partial and tail calls at every -O level."""

from __future__ import annotations

import pytest

from cpsc.llvm import abi
from cpsc.llvm.text import DoubleType, IntType, PointerType
from tests.programs.harness import ROOT, Program, check_outcome, native

PROGRAM = Program(ROOT / "tests" / "programs" / "many_arguments.fl")


@pytest.mark.parametrize("opt", [0, 1, 2, 3])
def test_many_arguments_at_every_level(opt):
    check_outcome(PROGRAM, native(PROGRAM, opt), f"native -O{opt}")


def test_registers_are_counted_per_class():
    i64, f64, ptr = IntType(64), DoubleType(), PointerType()
    assert abi.in_registers([ptr] + [i64] * 6) == [True] * 6 + [False]
    assert abi.in_registers([f64] * 9 + [i64]) == [True] * 8 + [False, True]
    assert abi.in_registers([i64] * 5 + [f64] * 3 + [ptr, i64]) == [True] * 9 + [False]

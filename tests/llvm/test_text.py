"""LLVM IR text as `cpsc.llvm.text` writes it: LLVM parses and verifies it, and reads back the
constants, names and branch weights that were meant."""

from __future__ import annotations

import math
import struct

import llvmlite.binding as llvm

from cpsc.llvm import text as ll
from cpsc.llvm.text import F64, I1, I8, I64, PTR


def parsed(module: ll.Module) -> llvm.ModuleRef:
    ref = llvm.parse_assembly(str(module))
    ref.verify()
    return ref


def test_string_bytes_and_odd_names_survive_the_round_trip() -> None:
    module = ll.Module("m")
    data = b'say "hi"\\\n\x00\xff'
    g = ll.GlobalVariable(module, ll.ArrayType(I8, len(data)), 'odd "name"\\')
    g.initializer, g.global_constant, g.linkage = ll.Constant(ll.ArrayType(I8, len(data)), bytearray(data)), True, "private"
    fn = ll.Function(module, ll.FunctionType(I8, [I64]), "fl.f'")
    b = ll.IRBuilder(fn.append_basic_block("x.entry"))
    b.ret(b.load(g, typ=I8))
    ref = parsed(module)
    names = [f.name for f in ref.functions]
    assert names == ["fl.f'"]
    assert [g.name for g in ref.global_variables] == ['odd "name"\\']
    assert 'c"say \\22hi\\22\\\\\\0A\\00\\FF"' in str(ref)  # LLVM prints a backslash as `\\`


def test_a_named_value_that_clashes_with_a_block_gets_a_suffix() -> None:
    module = ll.Module()
    fn = ll.Function(module, ll.FunctionType(I64, [I64]), "f")
    entry, loop, out = fn.append_basic_block("entry"), fn.append_basic_block("loop"), fn.append_basic_block("out")
    b = ll.IRBuilder(entry)
    b.branch(loop)
    b.position_at_end(loop)
    phi = b.phi(I64, name="loop")
    phi.add_incoming(fn.args[0], entry)
    phi.add_incoming(phi, loop)
    done = b.icmp_signed("<", phi, I64(0))
    b.cbranch(done, out, loop).set_weights([1, 1000])
    b.position_at_end(out)
    b.ret(phi)
    text = str(parsed(module))
    assert "%loop.1 = phi i64 [ %.1, %entry ], [ %loop.1, %loop ]" in text
    assert '!{!"branch_weights", i32 1, i32 1000}' in text


def test_constants_are_exact() -> None:
    negative_nan = struct.unpack(">d", bytes.fromhex("fff8000000000000"))[0]
    values = [F64(0.1), F64(-0.0), F64(negative_nan), F64(math.inf), I64(-(2**63)), I1(1), I1(0), I8(255),
              ll.Constant(PTR, None), ll.Constant(I64, 7).inttoptr(PTR)]
    module = ll.Module()
    g = ll.GlobalVariable(module, PTR, "t")
    g.initializer = ll.Constant.literal_struct(values)
    g.global_constant, g.linkage = True, "private"
    text = str(parsed(module))
    for expected in ("double 1.000000e-01", "double -0.000000e+00", "double 0xFFF8000000000000",
                     "double 0x7FF0000000000000", "i64 -9223372036854775808", "i1 true", "i1 false",
                     "i8 -1", "ptr null", "ptr inttoptr (i64 7 to ptr)"):
        assert expected in text, expected

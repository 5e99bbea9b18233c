"""Read the text form of the CPS IR back (the inverse of `cpsc.cps.printer`)."""

from __future__ import annotations

import functools
import math
import struct
from typing import Any

from lark import Lark, Token, Transformer
from pyrsistent import pmap

from cpsc.cps import ir
from cpsc.cps.program import Program
from cpsc.semantics.builtins import ExceptionId
from cpsc.support.files import package_file
from cpsc.types.types import BASE_TYPES, BOOL, CHAR, EXNID, FLOAT, INT, STRING, UNIT, TCon


@functools.cache
def _parser() -> Lark:
    return Lark(package_file("cps/grammar.lark"), parser="lalr")


def unescape(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        if body[i] == "\\":
            if body[i + 1] == "x":
                out.append(chr(int(body[i + 2:i + 4], 16)))
                i += 4
            else:
                out.append(body[i + 1])
                i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def _label(token: Any) -> str:
    """A label as written: `k` in CPS text, `#k` in SSA text."""
    text = str(token)
    return text[1:] if text.startswith("#") else text


class _Location(str):
    """A call's source location, `@file:line:col` in the text."""


class _FullEntry(str):
    """`full f`: a closure's (or, closed, a code function's) function taking all its arguments."""


def full_entry_of(items: list[Any]) -> str | None:
    return next((str(i) for i in items if isinstance(i, _FullEntry)), None)


def _handler_and_location(items: list[Any]) -> tuple[str | None, str | None]:
    handler = next((str(i) for i in items if not isinstance(i, _Location)), None)
    location = next((str(i) for i in items if isinstance(i, _Location)), None)
    return handler, location


class PendingVariable:
    """A variable operand; its type is known only once every definition has been read."""

    def __init__(self, name: str) -> None:
        self.name = name


class TreeToIr(Transformer[Any, Any]):
    """The CPS text's parse tree made IR nodes; the SSA parser extends it (their texts share
    values and terminators)."""

    def start(self, items: list[Any]) -> Any:
        closed = len(items) > 1 and isinstance(items[1], Token) and items[1].type == "CLOSED"
        globals_: dict[str, TCon] = {i[1]: i[2] for i in items[1:] if isinstance(i, tuple) and i[0] == "global"}
        return str(items[0]), closed, globals_, [i for i in items[1:] if isinstance(i, tuple) and i[0] == "function"]

    def global_decl(self, items: list[Any]) -> Any:
        return ("global", str(items[0]), items[1])

    def global_load(self, items: list[Any]) -> Any:
        return ("global_load", str(items[0]))

    def global_store(self, items: list[Any]) -> Any:
        return ("global_store", str(items[0]), items[1])

    def function(self, items: list[Any]) -> Any:
        name, params, result = str(items[0]), items[1], items[2]
        tokens = [t for t in items[3:] if isinstance(t, Token)]
        names = [str(t) for t in tokens if t.type == "NAME"]  # [parent,] entry, ret
        parent = names[0] if len(names) == 3 else None
        noinline = any(t.type == "NOINLINE" for t in tokens)
        conts = [c for c in items[3:] if isinstance(c, dict)]
        function = ir.Function(name, params, result, names[-2], parent, noinline, full_entry_of(items[3:]))
        return ("function", function, conts)

    def cont(self, items: list[Any]) -> Any:
        return {"label": str(items[0]), "params": items[1], "bindings": items[2:-1], "terminator": items[-1]}

    def params(self, items: list[Any]) -> tuple[ir.Var, ...]:
        return tuple(i for i in items if i is not None)

    def param(self, items: list[Any]) -> ir.Var:
        return ir.Var(str(items[0]), items[1])

    def binding(self, items: list[Any]) -> Any:
        return (ir.Var(str(items[0]), items[1]), items[2])

    def args(self, items: list[Any]) -> tuple[Any, ...]:
        return tuple(i for i in items if i is not None)

    def prim(self, items: list[Any]) -> Any:
        return ("prim", str(items[0]), items[1])

    def call(self, items: list[Any]) -> Any:
        return ("call", str(items[0]), items[1], *_handler_and_location(items[2:]))

    def apply(self, items: list[Any]) -> Any:
        return ("apply", items[0], items[1], *_handler_and_location(items[2:]))

    def location(self, items: list[Any]) -> Any:
        return _Location(str(items[0])[1:])

    def handler(self, items: list[Any]) -> Any:
        return _label(items[0])

    def exn(self, items: list[Any]) -> Any:
        return ir.Exn(str(items[0]))

    def exception_id(self, items: list[Any]) -> Any:
        return ir.Const(ExceptionId(unescape(str(items[0])[1:-1]), unescape(str(items[1])[1:-1])), EXNID)

    def closure(self, items: list[Any]) -> Any:
        return ("closure", str(items[0]), items[1], full_entry_of(items[2:]))

    def full_entry(self, items: list[Any]) -> Any:
        return _FullEntry(str(items[0]))

    def tuple(self, items: list[Any]) -> Any:
        return ("tuple", items[0])

    def field(self, items: list[Any]) -> Any:
        return ("field", items[0], int(items[1]))

    def make_block(self, items: list[Any]) -> Any:
        return ("block", items[-1], len(items) == 2)

    def set_field(self, items: list[Any]) -> Any:
        return ("set_field", items[0], int(items[1]), items[2])

    def switch(self, items: list[Any]) -> Any:
        return ("switch", items[0], tuple(i for i in items[1:-1] if i is not None), _label(items[-1]))

    def case(self, items: list[Any]) -> Any:
        return int(items[0]), _label(items[1])

    def callc(self, items: list[Any]) -> Any:
        return ("callc", str(items[0]), items[1], str(items[2]))

    def jump(self, items: list[Any]) -> Any:
        return ("jump", items[0], items[1])

    def target(self, items: list[Any]) -> Any:
        return str(items[0])

    def ret(self, items: list[Any]) -> Any:
        return ir.Ret(str(items[0]))

    def branch(self, items: list[Any]) -> Any:
        return ("br", items[0], str(items[1]), str(items[2]))

    def tailcall(self, items: list[Any]) -> Any:
        return ("tailcall", str(items[0]), items[1], _handler_and_location(items[2:])[1])

    def tailapply(self, items: list[Any]) -> Any:
        return ("tailapply", items[0], items[1], _handler_and_location(items[2:])[1])

    def var(self, items: list[Any]) -> Any:
        return PendingVariable(str(items[0]))

    def int(self, items: list[Any]) -> Any:
        return ir.Const(int(items[0]), INT)

    def float(self, items: list[Any]) -> Any:
        return ir.Const(float(items[0]), FLOAT)

    def special_float(self, items: list[Any]) -> Any:
        text = str(items[0])
        if text.startswith("#nan("):  # a NaN by its bits
            return ir.Const(struct.unpack("<d", struct.pack("<Q", int(text[5:-1], 16)))[0], FLOAT)
        return ir.Const({"#nan": math.nan, "#-nan": -math.nan, "#inf": float("inf"), "#-inf": float("-inf")}[text], FLOAT)

    def true(self, items: list[Any]) -> Any:
        return ir.Const(True, BOOL)

    def false(self, items: list[Any]) -> Any:
        return ir.Const(False, BOOL)

    def unit(self, items: list[Any]) -> Any:
        return ir.Const(None, UNIT)

    def char(self, items: list[Any]) -> Any:
        return ir.Const(unescape(str(items[0])[1:-1]), CHAR)

    def string(self, items: list[Any]) -> Any:
        return ir.Const(unescape(str(items[0])[1:-1]), STRING)

    def base_type(self, items: list[Any]) -> TCon:
        name = str(items[0])
        return BASE_TYPES.get(name) or TCon(name)

    def named_type(self, items: list[Any]) -> TCon:
        return TCon(str(items[0]), tuple(items[1:]))

    def arrow_type(self, items: list[Any]) -> TCon:
        return TCon("->", (items[0], items[1]))

    def tuple_type(self, items: list[Any]) -> TCon:
        return TCon("*", tuple(items))


class Resolver:
    """Turns parsed operands and values into IR nodes once the types of all variables are known."""

    def __init__(self, types: dict[str, TCon]) -> None:
        self.types = types

    def operand(self, o: Any) -> ir.Operand:
        if isinstance(o, PendingVariable):
            if o.name not in self.types:
                raise ValueError(f"variable {o.name} is never bound")
            return ir.Var(o.name, self.types[o.name])
        return o  # type: ignore[no-any-return]

    def operands(self, os: tuple[Any, ...]) -> tuple[ir.Operand, ...]:
        return tuple(self.operand(o) for o in os)

    def value(self, v: Any) -> ir.Value:
        kind = v[0]
        if kind == "prim":
            return ir.Prim(v[1], self.operands(v[2]))
        if kind == "call":
            return ir.Call(v[1], self.operands(v[2]), v[3], v[4])
        if kind == "apply":
            return ir.Apply(self.operand(v[1]), self.operands(v[2]), v[3], v[4])
        if kind == "closure":
            return ir.MakeClosure(v[1], self.operands(v[2]), v[3])
        if kind == "tuple":
            return ir.MakeTuple(self.operands(v[1]))
        if kind == "field":
            return ir.Field(self.operand(v[1]), v[2])
        if kind == "block":
            return ir.MakeBlock(self.operands(v[1]), v[2])
        if kind == "set_field":
            return ir.SetField(self.operand(v[1]), v[2], self.operand(v[3]))
        if kind == "global_load":
            return ir.GlobalLoad(v[1])
        if kind == "global_store":
            return ir.GlobalStore(v[1], self.operand(v[2]))
        return ir.CallC(v[1], self.operands(v[2]), v[3])

    def tail_call(self, t: Any) -> ir.TailCall | ir.TailApply | ir.Switch:
        if t[0] == "switch":
            return ir.Switch(self.operand(t[1]), t[2], t[3])
        if t[0] == "tailcall":
            return ir.TailCall(t[1], self.operands(t[2]), t[3])
        return ir.TailApply(self.operand(t[1]), self.operands(t[2]), t[3])


def parse_program(text: str) -> Program:
    """Parse IR text; variable operands get the type of their (unique) binding."""
    main, closed, globals_, functions = TreeToIr().transform(_parser().parse(text))
    types: dict[str, TCon] = {}
    for _, f, conts in functions:
        types.update({p.name: p.type for p in f.params})
        for c in conts:
            types.update({p.name: p.type for p in c["params"]})
            types.update({var.name: var.type for var, _ in c["bindings"]})
    resolve = Resolver(types)

    def terminator(t: Any) -> ir.Terminator:
        if t[0] == "jump":
            return ir.Jump(t[1], resolve.operands(t[2]))
        if t[0] == "br":
            return ir.Branch(resolve.operand(t[1]), t[2], t[3])
        return resolve.tail_call(t)

    fns: dict[str, ir.Function] = {}
    all_conts: dict[str, ir.Cont] = {}
    for _, f, cs in functions:
        fns[f.name] = f
        for c in cs:
            bindings = tuple(ir.Binding(var, resolve.value(v)) for var, v in c["bindings"])
            all_conts[c["label"]] = ir.Cont(c["label"], f.name, c["params"], bindings, terminator(c["terminator"]))
    return Program(pmap(fns), pmap(all_conts), main, closed, pmap(globals_))

"""Read SSA text back (the inverse of `cpsc.ssa.printer`), explicit CFG included, so that SSA
tests and bug reports can be written as text too."""

from __future__ import annotations

import functools
from typing import Any

from lark import Lark, Token

from cpsc.cps import ir as cps
from cpsc.cps.parser import PendingVariable, Resolver, TreeToIr, full_entry_of
from cpsc.ssa import ir
from cpsc.support.files import package_file
from cpsc.types.types import TCon


@functools.cache
def _parser() -> Lark:
    return Lark(package_file("ssa/grammar.lark"), parser="lalr")


class SsaTreeToIr(TreeToIr):
    """The CPS text's operands, values and types, plus SSA's functions, blocks and phis."""

    def start(self, items: list[Any]) -> Any:
        def is_global(i: Any) -> bool:  # ("global", name, type); a function is a 5-tuple
            return isinstance(i, tuple) and len(i) == 3 and i[0] == "global"

        globals_ = tuple(i[1:] for i in items[1:] if is_global(i))
        return str(items[0]), globals_, [i for i in items[1:] if not is_global(i)]

    def var(self, items: list[Any]) -> Any:
        return PendingVariable(str(items[0])[1:])

    def param(self, items: list[Any]) -> cps.Var:
        return cps.Var(str(items[0])[1:], items[1])

    def ssa_function(self, items: list[Any]) -> Any:
        name = str(items[0])
        params = tuple(i for i in items[1:] if isinstance(i, cps.Var))
        rest = [i for i in items[1:] if not isinstance(i, cps.Var) and i is not None]
        noinline = any(isinstance(i, Token) and i.type == "NOINLINE" for i in rest)
        full = full_entry_of(rest)
        rest = [i for i in rest if not isinstance(i, (Token, str))]
        return name, params, rest[0], rest[1:], noinline, full

    def block(self, items: list[Any]) -> Any:
        label = str(items[0])[1:]
        has_preds = isinstance(items[1], list)
        preds = items[1] if has_preds else []
        body = items[2:] if has_preds else items[1:]
        phis = [i for i in body[:-1] if i[0] == "phi"]
        instructions = [i for i in body[:-1] if i[0] == "instruction"]
        return label, preds, phis, instructions, body[-1]

    def preds(self, items: list[Any]) -> list[str]:
        return [str(i)[1:] for i in items]

    def phi(self, items: list[Any]) -> Any:
        return ("phi", cps.Var(str(items[0])[1:], items[1]), [i for i in items[2:] if i is not None])

    def phi_input(self, items: list[Any]) -> Any:
        return str(items[0])[1:], items[1]

    def instruction(self, items: list[Any]) -> Any:
        return ("instruction", cps.Var(str(items[0])[1:], items[1]), items[2])

    def ret_term(self, items: list[Any]) -> Any:
        return ("return", items[0])

    def goto(self, items: list[Any]) -> Any:
        return ("goto", str(items[0])[1:])

    def condbr(self, items: list[Any]) -> Any:
        return ("br", items[0], str(items[1])[1:], str(items[2])[1:])

    def invoke(self, items: list[Any]) -> Any:
        return ("invoke", cps.Var(str(items[0])[1:], items[1]), items[2], str(items[3])[1:], str(items[4])[1:])

    def raise_term(self, items: list[Any]) -> Any:
        return ("raise", items[0])


def parse_module(text: str) -> ir.Module:
    main, globals_, functions = SsaTreeToIr().transform(_parser().parse(text))
    return ir.Module(tuple(_function(*f) for f in functions), main, globals_)


def _function(name: str, params: tuple[cps.Var, ...], result: TCon, blocks: list[Any],
              noinline: bool, full: str | None) -> ir.Function:
    types = {p.name: p.type for p in params}
    for _, _, phis, instructions, term in blocks:
        types.update({var.name: var.type for _, var, _ in phis + instructions})
        if term[0] == "invoke":
            types[term[1].name] = term[1].type
    resolve = Resolver(types)

    def terminator(t: Any) -> ir.Terminator:
        if t[0] == "return":
            return ir.Return(resolve.operand(t[1]))
        if t[0] == "goto":
            return ir.Goto(t[1])
        if t[0] == "br":
            return ir.CondBr(resolve.operand(t[1]), t[2], t[3])
        if t[0] == "invoke":
            return ir.Invoke(cps.Binding(t[1], resolve.value(t[2])), t[3], t[4])
        if t[0] == "raise":
            return ir.Raise(resolve.operand(t[1]))
        return resolve.tail_call(t)

    out = []
    for label, _, phis, instructions, term in blocks:
        out.append(ir.Block(
            label,
            tuple(ir.Phi(var, tuple((pred, resolve.operand(v)) for pred, v in inputs)) for _, var, inputs in phis),
            tuple(cps.Binding(var, resolve.value(v)) for _, var, v in instructions),
            terminator(term)))
    preds = tuple((label, tuple(p)) for label, p, _, _, _ in blocks)
    return ir.Function(name, params, result, tuple(out), preds, noinline, full)

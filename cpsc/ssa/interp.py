"""An interpreter for SSA modules: phis are read in parallel on the edge taken."""

from __future__ import annotations

from typing import Any

from cpsc.cps import ir as cps
from cpsc.cps.interp import ClosureValue
from cpsc.cps.primops import evaluate
from cpsc.semantics.builtins import FlRaise
from cpsc.semantics.values import Machine, Outcome, machine, run_deep
from cpsc.ssa import ir


class SsaInterpreter:
    def __init__(self, module: ir.Module) -> None:
        self.functions = {f.name: f for f in module.functions}
        self.blocks = {f.name: {b.label: b for b in f.blocks} for f in module.functions}
        self.main = module.main
        self.machine = Machine()
        self.globals: dict[str, Any] = {}
        self.caught: Any = None  # the exception an invoke's call raised (read by its landing block)

    def call(self, name: str, args: list[Any]) -> Any:
        while True:
            f = self.functions[name]
            env: dict[str, Any] = dict(zip((p.name for p in f.params), args))
            blocks = self.blocks[name]
            block, previous = f.blocks[0], ""
            while True:
                if block.phis:
                    incoming = [self.operand(dict(phi.inputs)[previous], env) for phi in block.phis]
                    env.update(zip((phi.var.name for phi in block.phis), incoming))
                for x in block.instructions:
                    env[x.var.name] = self.value(x.value, env)
                term = block.terminator
                if isinstance(term, ir.Goto):
                    previous, block = block.label, blocks[term.target]
                elif isinstance(term, ir.CondBr):
                    target = term.if_true if self.operand(term.condition, env) else term.if_false
                    previous, block = block.label, blocks[target]
                elif isinstance(term, cps.Switch):
                    previous, block = block.label, blocks[term.target(self.operand(term.value, env))]
                elif isinstance(term, ir.Invoke):
                    previous, block = block.label, blocks[self.invoke(term, env)]
                elif isinstance(term, ir.Raise):
                    raise FlRaise(self.operand(term.value, env))
                else:
                    break
            if isinstance(term, ir.Return):
                return self.operand(term.value, env)
            args = [self.operand(a, env) for a in term.args]
            if isinstance(term, cps.TailCall):
                name = term.function
            else:
                name, args = self.saturate(self.operand(term.closure, env), args)

    def saturate(self, closure: ClosureValue, args: list[Any]) -> tuple[str, list[Any]]:
        """The call an apply comes to (see `cpsc.cps.interp.CpsInterpreter.saturate`)."""
        while True:
            full = self.functions[closure.function].full
            if full is not None and len(self.functions[full].params) == 1 + len(args):
                return full, [closure] + args
            if len(args) == 1:
                return closure.function, [closure] + args
            closure = self.call(closure.function, [closure, args[0]])
            args = args[1:]

    def invoke(self, term: ir.Invoke, env: dict[str, Any]) -> str:
        """Run an invoke's call; the block control goes to next."""
        try:
            env[term.binding.var.name] = self.value(term.binding.value, env)
        except FlRaise as raised:
            self.caught = raised.value
            return term.unwind
        return term.normal

    def operand(self, o: cps.Operand, env: dict[str, Any]) -> Any:
        return o.value if isinstance(o, cps.Const) else env[o.name]

    def value(self, v: cps.Value, env: dict[str, Any]) -> Any:
        ops = [self.operand(o, env) for o in cps.value_operands(v)]
        if isinstance(v, cps.Prim):
            if v.op == "caught_exception":
                return self.caught
            return evaluate(v.op, ops, self.machine.out)
        if isinstance(v, cps.Call):
            return self.call(v.function, ops)
        if isinstance(v, cps.Apply):
            return self.call(*self.saturate(ops[0], ops[1:]))
        if isinstance(v, cps.MakeClosure):
            return ClosureValue(v.function, None, tuple(ops))
        if isinstance(v, cps.MakeTuple):
            return tuple(ops)
        if isinstance(v, cps.Field):
            record = ops[0]
            return record.captured[v.index] if isinstance(record, ClosureValue) else record[v.index]
        if isinstance(v, cps.MakeBlock):
            return list(ops) if v.mutable else tuple(ops)
        if isinstance(v, cps.SetField):
            ops[0][v.index] = ops[1]
            return None
        if isinstance(v, cps.GlobalLoad):
            return self.globals[v.name]
        if isinstance(v, cps.GlobalStore):
            self.globals[v.name] = ops[0]
            return None
        raise AssertionError(f"callc in SSA: {v}")


def run_ssa(module: ir.Module, stdin: str | None = None) -> Outcome:
    interpreter = SsaInterpreter(module)
    interpreter.machine = machine(stdin)
    return run_deep(lambda: interpreter.machine.finish(lambda: interpreter.call(module.main, [])))

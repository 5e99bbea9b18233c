"""The SSA verifier: CFG and terminators agree, one phi input per predecessor, no critical edge
into a block with phis, every use dominated by its definition (via the dominator tree)."""

from __future__ import annotations

from cpsc.cps import ir as cps
from cpsc.cps.dominance import Dominators
from cpsc.ssa import ir


class SsaVerifyError(Exception):
    pass


def function_dominators(f: ir.Function) -> Dominators:
    return Dominators([b.label for b in f.blocks], f.predecessors())


def verify_function(f: ir.Function) -> None:
    def fail(message: str) -> None:
        raise SsaVerifyError(f"in function {f.name}: {message}")

    blocks = {b.label: b for b in f.blocks}
    if len(blocks) != len(f.blocks):
        fail("two blocks have the same label")
    preds = f.predecessors()
    actual: dict[str, list[str]] = {label: [] for label in blocks}
    for b in f.blocks:
        for s in ir.block_successors(b.terminator):
            if s not in blocks:
                fail(f"block #{b.label} jumps to unknown block #{s}")
            actual[s].append(b.label)
    for label in blocks:
        if sorted(actual[label]) != sorted(preds.get(label, ())):
            fail(f"the CFG says #{label} has predecessors {list(preds.get(label, ()))} but the "
                 f"terminators say {actual[label]}")
    defined_in: dict[str, tuple[str, int]] = {p.name: (f.blocks[0].label, -1) for p in f.params}
    invoked: dict[str, str] = {}  # an invoke's result -> the block where it is available
    for b in f.blocks:
        defined = [p.var for p in b.phis] + [x.var for x in b.instructions]
        if isinstance(b.terminator, ir.Invoke):
            defined.append(b.terminator.binding.var)
            invoked[b.terminator.binding.var.name] = b.terminator.normal
        for i, d in enumerate(defined):
            if d.name in defined_in:
                fail(f"%{d.name} is defined twice")
            defined_in[d.name] = (b.label, i - len(b.phis))
    dom = function_dominators(f)

    def check_use(name: str, label: str, position: int) -> None:
        if name not in defined_in:
            fail(f"%{name} is used in #{label} but never defined")
        where, index = defined_in[name]
        if name in invoked:  # only where the call returned
            where, index = invoked[name], -1 - len(blocks[invoked[name]].phis)
        if where == label and index >= position or where != label and not dom.dominates(where, label):
            fail(f"the definition of %{name} does not dominate its use in #{label}")

    for b in f.blocks:
        for phi in b.phis:
            sources = [pred for pred, _ in phi.inputs]
            if sorted(sources) != sorted(preds[b.label]):
                fail(f"phi %{phi.var.name} in #{b.label} has inputs from {sources} but the block's "
                     f"predecessors are {list(preds[b.label])}")
            for pred, value in phi.inputs:
                if len(ir.block_successors(blocks[pred].terminator)) > 1:
                    fail(f"critical edge #{pred} -> #{b.label} into a block with phis is not split")
                if isinstance(value, cps.Var):
                    check_use(value.name, pred, len(blocks[pred].instructions))
        for i, x in enumerate(b.instructions):
            for o in cps.value_operands(x.value):
                if isinstance(o, cps.Var):
                    check_use(o.name, b.label, i)
        for o in ir.terminator_operands(b.terminator):
            if isinstance(o, cps.Var):
                check_use(o.name, b.label, len(b.instructions))


def verify_module(module: ir.Module) -> None:
    for f in module.functions:
        verify_function(f)

"""CPS (closure-converted) to basic-block SSA: each continuation becomes a block, its parameters
phis, `jump k(args)` a goto plus one phi input per parameter, `jump (ret f)(v)` a return.
Branch targets take no arguments, so every phi input sits on an edge of its own (no critical
edge into a block with phis); the SSA verifier checks it."""

from __future__ import annotations

from cpsc.cps import ir as cps
from cpsc.ssa import ir


def convert_function(program: cps.Program, name: str) -> ir.Function:
    f = program.functions[name]
    order = cps.function_conts(program, name)
    inputs: dict[str, list[tuple[str, tuple[cps.Operand, ...]]]] = {label: [] for label in order}
    blocks: dict[str, tuple[tuple[cps.Binding, ...], ir.Terminator]] = {}
    for label in order:
        cont = program.conts[label]
        term: cps.Terminator = cont.terminator
        new_term: ir.Terminator
        if isinstance(term, cps.Jump):
            if isinstance(term.target, cps.Ret):
                new_term = ir.Return(term.args[0])
            else:
                new_term = ir.Goto(term.target)
                inputs[term.target].append((label, term.args))
        elif isinstance(term, cps.Branch):
            # Branch targets take no arguments (the verifier's rule), so no edge carries a phi
            # input out of a two-way block: no critical edge needs splitting.
            new_term = ir.CondBr(term.condition, term.if_true, term.if_false)
        else:
            assert isinstance(term, (cps.TailCall, cps.TailApply, cps.Switch))
            new_term = term  # a switch's targets, as a branch's, take no arguments
        blocks[label] = (cont.bindings, new_term)
    out = []
    for label in order:
        cont = program.conts[label]
        phis = tuple(ir.Phi(p, tuple((pred, args[i]) for pred, args in inputs[label]))
                     for i, p in enumerate(cont.params))
        bindings, block_term = blocks[label]
        out.append(ir.Block(label, phis, bindings, block_term))
    preds: dict[str, list[str]] = {b.label: [] for b in out}
    for b in out:
        for s in ir.block_successors(b.terminator):
            preds[s].append(b.label)
    return ir.Function(name, f.params, f.result, tuple(out), tuple((k, tuple(v)) for k, v in preds.items()),
                       f.noinline)


def to_ssa(program: cps.Program) -> ir.Module:
    """Requires a closed program (after `closure_convert`): no callc, no free variables."""
    assert program.closed, "closure-convert first"
    return ir.Module(tuple(convert_function(program, name) for name in sorted(program.functions)), program.main,
                     tuple(sorted(program.globals.items())))

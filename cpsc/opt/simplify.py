"""`simplify`: shrinking reductions to a fixed point.

Each reduction only ever makes the program smaller or leaves it alone, so the fixed point is
reached quickly. Relies on: unique names (so substitutions can be applied program-wide) and
a verified input (so a value passed on every incoming edge dominates the continuation).

- callc splitting: a `callc` region's return point becomes a block (`ret r` becomes `r(x)`)
- constant folding of pure primitives and of fields of tuples built in sight, branch folding
- case of a known constructor: the constructor tests of a value built in sight fold
- dead values (pure bindings nobody uses), unreachable continuations, unreferenced functions
- inlining of continuations jumped to exactly once (block merging)
- eta-reduction of forwarding continuations `k(xs) = jump j(xs)` (jump threading), and jumps
  to a branch on the parameter `k(v) = br v, t, f` made branches (`a && b`)
- parameter (phi) copy propagation `phi(v, v) = v`, and dead-parameter elimination
- applications of a closure made in sight become known calls
- a call whose value the function returns (or unit, after a call returning unit) a tail call

A branch on a constant, then the continuation jumped to once merged into its predecessor:

    cont f.entry() =                            cont f.entry() =
      br true, yes, no                            let t: int = add_int(x, 1)
    cont yes() =                         =>       jump (ret f)(t)
      let t: int = add_int(x, 1)
      jump (ret f)(t)
    cont no() =
      jump (ret f)(x)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from cpsc.cps import ir
from cpsc.cps.analysis import fold_primitive, incoming_arguments, name_supply
from cpsc.cps.names import NameSupply
from cpsc.cps.primops import is_pure
from cpsc.cps.program import Program, function_conts
from cpsc.cps.rewrite import (
    label_census,
    live_functions,
    relabel_terminator,
    rename_program,
    rename_terminator,
    rename_value,
    split_callc,
    use_census,
)
from cpsc.opt.context import PassContext
from cpsc.opt.parts import independent_parts
from cpsc.types.types import BOOL

Stats = Counter[str]


class LazyNames:
    """Fresh names for the whole program a part belongs to (a part's own names would clash
    with other parts'), gathered only when first asked for: few sweeps make a name. A name's
    hint is what it stands beside, so that the names do not depend on the order in which the
    parts are swept."""

    def __init__(self, program: Program, context: PassContext | None) -> None:
        self.program = program
        self.context = context
        self.supply: NameSupply | None = None

    def fresh(self, hint: str) -> str:
        if self.supply is None:
            self.supply = name_supply(self.program) if self.context is None else self.context.name_supply(self.program)
        return self.supply.fresh(hint)


@dataclass(frozen=True)
class Region:
    """What the reductions see: the whole program, or one of its independent parts
    (`cpsc.opt.parts`) standing alone as a program of its own functions and continuations.

    - `roots`: the functions kept whether or not anything names them: main, or every function
      of a part (the rest of the program may call them; the sweep of the whole program removes
      those nothing names);
    - `functions`: every function of the program, for a part's closures of functions outside
      it (None: the program's own);
    - `names`: fresh names for the whole program."""

    roots: tuple[str, ...]
    names: LazyNames
    functions: Mapping[str, ir.Function] | None = None

    def function(self, program: Program, name: str) -> ir.Function:
        return (program.function_table if self.functions is None else self.functions)[name]


def fold_constants(program: Program, stats: Stats, region: Region) -> Program:
    """Fold pure primitives of constants, fields of tuples built in sight, constant branches.

    Each function's continuations are visited in reverse postorder, so a definition is seen
    before the uses it dominates, and a folded value is substituted into the values after it
    as the sweep goes: a chain `t1 = 1 + 2; t2 = t1 + 3; ...` folds in one sweep, not one
    link per round."""
    table = program.cont_table
    facts = {label: cont.memo("simplify.fold", _FoldFacts.of) for label, cont in table.items()}
    tuples = {name: value for f in facts.values() for name, value in f.blocks}
    constructors = {name: number for f in facts.values() for name, number in f.constructors}
    renaming: dict[str, ir.Operand] = {}
    changed: dict[str, ir.Cont] = {}
    for function in program.function_table:
        for label in function_conts(program, function, table):
            cont = table[label]
            if not facts[label].may_fold(cont, tuples, constructors, renaming):
                continue  # most continuations, after the first sweep
            bindings = _fold_bindings(cont.bindings, tuples, constructors, renaming, stats)
            term = cont.terminator
            if not renaming.keys().isdisjoint(ir.terminator_uses(term)):
                term = rename_terminator(term, renaming)
            if isinstance(term, ir.Branch) and isinstance(term.condition, ir.Const):
                term = ir.Jump(branch_taken(term), ())
                stats["branches folded"] += 1
            elif isinstance(term, ir.Switch) and isinstance(term.value, ir.Const):
                term = ir.Jump(term.target(term.value.value), ())  # type: ignore[arg-type]
                stats["branches folded"] += 1
            if bindings is not cont.bindings or term is not cont.terminator:
                changed[label] = ir.Cont(label, cont.function, cont.params, bindings, term)
    return rename_program(program.with_conts(changed), renaming)


@dataclass(unsafe_hash=True)  # not frozen, its own __init__: see cpsc.cps.ir
class _FoldFacts:
    """What `fold_constants` asks of one continuation, found once per continuation.

    - `blocks`: the tuples and immutable blocks it builds (their fields fold);
    - `constructors`: the data values it builds in sight: a block (None) or a constant
      constructor (its number);
    - `looked_at`: the variables whose fields or constructor it reads (folding if built in sight);
    - `foldable`: a primitive of constants, or a branch or switch on a constant, is there."""

    blocks: tuple[tuple[str, ir.MakeTuple | ir.MakeBlock], ...]
    constructors: tuple[tuple[str, ir.Const | None], ...]
    looked_at: tuple[str, ...]
    foldable: bool

    def __init__(self, blocks: tuple[tuple[str, ir.MakeTuple | ir.MakeBlock], ...],
                 constructors: tuple[tuple[str, ir.Const | None], ...], looked_at: tuple[str, ...], foldable: bool) -> None:
        self.blocks = blocks
        self.constructors = constructors
        self.looked_at = looked_at
        self.foldable = foldable

    def may_fold(self, cont: ir.Cont, tuples: dict[str, ir.MakeTuple | ir.MakeBlock],
                 constructors: dict[str, ir.Const | None], renaming: dict[str, ir.Operand]) -> bool:
        """Whether anything in `cont` could fold, given the blocks built in sight and the
        variables folded so far (False: the sweep can pass it by)."""
        if self.foldable:
            return True
        if self.looked_at and not (tuples.keys().isdisjoint(self.looked_at)
                                   and constructors.keys().isdisjoint(self.looked_at)):
            return True
        return bool(renaming) and not renaming.keys().isdisjoint(cont.used_names)

    @staticmethod
    def of(cont: ir.Cont) -> _FoldFacts:
        blocks: list[tuple[str, ir.MakeTuple | ir.MakeBlock]] = []
        constructors: list[tuple[str, ir.Const | None]] = []
        looked_at: list[str] = []
        foldable = isinstance(cont.terminator, (ir.Branch, ir.Switch)) and isinstance(
            cont.terminator.condition if isinstance(cont.terminator, ir.Branch) else cont.terminator.value, ir.Const)
        for b in cont.bindings:
            v = b.value
            if isinstance(v, ir.MakeTuple) or isinstance(v, ir.MakeBlock) and not v.mutable:
                blocks.append((b.var.name, v))
            if isinstance(v, ir.MakeBlock):
                constructors.append((b.var.name, None))
            elif isinstance(v, ir.Prim) and v.op == "immediate" and isinstance(v.args[0], ir.Const):
                constructors.append((b.var.name, v.args[0]))
            if isinstance(v, ir.Field) and isinstance(v.record, ir.Var):
                looked_at.append(v.record.name)
            elif isinstance(v, ir.Prim) and v.op in ("is_block", "immediate_value") and isinstance(v.args[0], ir.Var):
                looked_at.append(v.args[0].name)
            elif not foldable and isinstance(v, ir.Prim) and all(isinstance(a, ir.Const) for a in v.args):
                foldable = True  # perhaps (`fold_primitive` says, when the sweep gets there)
        return _FoldFacts(tuple(blocks), tuple(constructors), tuple(looked_at), foldable)


def _fold_constructor_test(v: ir.Value, constructors: dict[str, ir.Const | None]) -> ir.Const | None:
    """Case of a known constructor: `is_block` and `immediate_value` of a value built in sight
    (its tag, a field, is folded with the other fields; the switch on it then folds)."""
    if not (isinstance(v, ir.Prim) and v.op in ("is_block", "immediate_value")
            and isinstance(v.args[0], ir.Var) and v.args[0].name in constructors):
        return None
    number = constructors[v.args[0].name]
    if v.op == "is_block":
        return ir.Const(number is None, BOOL)
    return number


def branch_taken(branch: ir.Branch) -> str:
    """The target a branch on a constant condition goes to."""
    assert isinstance(branch.condition, ir.Const)
    return branch.if_true if branch.condition.value else branch.if_false


def known_field(items: tuple[ir.Operand, ...], index: int, type_: ir.Type) -> ir.Operand | None:
    """What slot `index` of a block built in sight of `items` holds, read as a `type_`. On a
    path that tests for another constructor (dead, then) the slot may not exist or have another
    type: only a slot that is there is known."""
    if index < len(items) and items[index].type == type_:
        return items[index]
    return None


def _fold_bindings(bindings: tuple[ir.Binding, ...], tuples: dict[str, ir.MakeTuple | ir.MakeBlock],
                   constructors: dict[str, ir.Const | None], renaming: dict[str, ir.Operand],
                   stats: Stats) -> tuple[ir.Binding, ...]:
    """The bindings with known values folded away (recorded in `renaming`) and earlier folds
    substituted; the same tuple object when nothing changed."""
    out: list[ir.Binding] = []
    for b in bindings:
        v = b.value
        if renaming and not renaming.keys().isdisjoint(ir.uses_of_value(v)):
            v = rename_value(v, renaming)
        if isinstance(v, ir.Field) and isinstance(v.record, ir.Var) and v.record.name in tuples:
            item = known_field(tuples[v.record.name].items, v.index, b.var.type)
            if item is not None:
                renaming[b.var.name] = item
                stats["fields of known blocks"] += 1
                continue
        known = _fold_constructor_test(v, constructors)
        if known is not None:
            renaming[b.var.name] = known
            stats["cases of known constructors"] += 1
            continue
        folded = fold_primitive(v, b.var.type)
        if folded is not None:
            renaming[b.var.name] = folded
            stats["constants folded"] += 1
            continue
        out.append(b if v is b.value else ir.Binding(b.var, v))
    if len(out) == len(bindings) and all(new is old for new, old in zip(out, bindings)):
        return bindings
    return tuple(out)


def removable(value: ir.Value) -> bool:
    """Whether a binding of `value` may go when nothing uses its variable: it has no effect."""
    if isinstance(value, ir.Prim):
        return is_pure(value.op)
    return isinstance(value, (ir.MakeTuple, ir.Field, ir.MakeClosure, ir.MakeBlock))


def _removable_names(cont: ir.Cont) -> tuple[str, ...]:
    """The variables of the bindings that go if nothing uses them."""
    return tuple(b.var.name for b in cont.bindings if removable(b.value))


def remove_dead(program: Program, stats: Stats, region: Region) -> Program:
    uses = use_census(program)
    changed: dict[str, ir.Cont] = {}
    for cont in program.cont_table.values():
        names = cont.memo("simplify.removable", _removable_names)
        if not names or all(uses[name] for name in names):
            continue
        kept = tuple(b for b in cont.bindings if uses[b.var.name] or not removable(b.value))
        if len(kept) != len(cont.bindings):
            stats["dead values removed"] += len(cont.bindings) - len(kept)
            changed[cont.label] = ir.Cont(cont.label, cont.function, cont.params, kept, cont.terminator)
    program = program.with_conts(changed)
    live, reachable = _live_code(program, region.roots)
    dead_functions = {f for f in program.function_table if f not in live}
    dead_conts = {label for label in program.cont_table if label not in reachable}
    if dead_functions or dead_conts:
        stats["dead functions removed"] += len(dead_functions)
        stats["dead continuations removed"] += len(dead_conts)
        program = program.with_conts({}, dead_conts, removed_functions=dead_functions)
    return program


def _live_code(program: Program, roots: tuple[str, ...]) -> tuple[set[str], set[str]]:
    """The functions the `roots` reach (`live_functions`) and their reachable continuations."""
    table = program.cont_table
    reachable: set[str] = set()

    def named(function: str) -> list[str]:
        labels = function_conts(program, function, table)
        reachable.update(labels)
        return [g for label in labels for g in table[label].memo("simplify.named", ir.functions_named)]

    return live_functions(roots, named, program.function_table), reachable


def _entries(program: Program) -> set[str]:
    return {f.entry for f in program.function_table.values()}


def merge_single_jumps(program: Program, stats: Stats, region: Region) -> Program:
    """`jump k(a)` where nothing else names `k`: append k's body (params := args)."""
    census = label_census(program)
    entries = _entries(program)
    renaming: dict[str, ir.Operand] = {}
    conts = dict(program.cont_table)
    removed: set[str] = set()
    merged: dict[str, ir.Cont] = {}
    for label in list(conts):
        if label in removed:
            continue
        cont = original = conts[label]
        while True:
            term = cont.terminator
            if not (isinstance(term, ir.Jump) and isinstance(term.target, str)):
                break
            target = term.target
            if target in entries or census[target] != 1 or target == cont.label or target in removed \
                    or target not in conts:
                break
            callee = conts[target]
            renaming.update({p.name: a for p, a in zip(callee.params, term.args)})
            cont = ir.Cont(cont.label, cont.function, cont.params, cont.bindings + callee.bindings,
                           callee.terminator)
            removed.add(target)
            stats["continuations merged"] += 1
        if cont is not original:
            conts[label] = merged[label] = cont
    if not removed:
        return program
    return rename_program(program.with_conts(merged, removed), renaming)


def eta_reduce(program: Program, stats: Stats, region: Region) -> Program:
    """Continuations `k(xs) = jump j(xs)`: every transfer to `k` goes to `j` instead. Only where
    the jump is the one use of `xs`: code that `k` dominates (the return point of a loop
    contified after `k`, say) may name them too, and would be left without a definition."""
    entries = _entries(program)
    forward: dict[str, str] = {}
    uses: Counter[str] | None = None
    for cont in program.cont_table.values():
        term = cont.terminator
        if (cont.label not in entries and not cont.bindings and isinstance(term, ir.Jump)
                and isinstance(term.target, str) and term.target != cont.label
                and term.args == cont.params):
            uses = uses if uses is not None else use_census(program)
            if all(uses[p.name] == 1 for p in cont.params):
                forward[cont.label] = term.target

    def final(label: str) -> str:
        hops = 0
        while label in forward and hops < 100:
            label, hops = forward[label], hops + 1
        return label

    if not forward:
        return program
    changed = {}
    for cont in program.cont_table.values():
        term = cont.terminator
        new_term = relabel_terminator(term, final)
        bindings = tuple(
            ir.Binding(b.var, ir.CallC(final(b.value.target), b.value.args, b.value.ret))
            if isinstance(b.value, ir.CallC) and b.value.target in forward else b for b in cont.bindings)
        if new_term is not term or bindings != cont.bindings:
            changed[cont.label] = ir.Cont(cont.label, cont.function, cont.params, bindings, new_term)
            stats["jumps threaded"] += 1
    return program.with_conts(changed)


def thread_branches(program: Program, stats: Stats, region: Region) -> Program:
    """A jump to `k(v) = br v, t, f` (what `a && b` and `a || b` leave) branches itself: a
    constant `v` jumps to `t` or `f`, another `br`s on it. Only where nothing else uses `k`'s
    parameters, which `t` and `f` could otherwise name. `k` is then dead when every jump went."""
    entries = _entries(program)
    uses: Counter[str] | None = None
    branching: dict[str, tuple[int, ir.Branch]] = {}
    for cont in program.cont_table.values():
        term = cont.terminator
        if (isinstance(term, ir.Branch) and isinstance(term.condition, ir.Var) and not cont.bindings
                and cont.label not in entries and term.condition in cont.params):
            uses = uses if uses is not None else use_census(program)
            if all(uses[p.name] == (p == term.condition) for p in cont.params):
                branching[cont.label] = (cont.params.index(term.condition), term)
    if not branching:
        return program
    changed = {}
    for cont in program.cont_table.values():
        term = cont.terminator
        if isinstance(term, ir.Jump) and isinstance(term.target, str) and term.target in branching:
            index, branch = branching[term.target]
            condition = term.args[index]
            threaded: ir.Terminator = (ir.Jump(branch_taken(ir.Branch(condition, branch.if_true, branch.if_false)), ())
                                       if isinstance(condition, ir.Const) else
                                       ir.Branch(condition, branch.if_true, branch.if_false))
            changed[cont.label] = ir.Cont(cont.label, cont.function, cont.params, cont.bindings, threaded)
            stats["branches threaded"] += 1
    return program.with_conts(changed) if changed else program


def simplify_parameters(program: Program, stats: Stats, region: Region) -> Program:
    """Drop parameters that are unused or receive one value on every edge (`phi(v, v) = v`)."""
    uses = use_census(program)
    renaming: dict[str, ir.Operand] = {}
    drop: dict[str, list[int]] = {}
    for label, args_list in incoming_arguments(program).items():
        if not args_list:
            continue
        cont = program.cont_table[label]
        for i, p in enumerate(cont.params):
            values = {a[i] for a in args_list} - {p}
            if not uses[p.name]:
                drop.setdefault(label, []).append(i)
                stats["dead parameters removed"] += 1
            elif len(values) == 1:
                renaming[p.name] = next(iter(values))
                drop.setdefault(label, []).append(i)
                stats["parameters propagated"] += 1
    if not drop:
        return program

    def keep(args: tuple[ir.Operand, ...], label: str) -> tuple[ir.Operand, ...]:
        return tuple(a for i, a in enumerate(args) if i not in drop.get(label, ()))

    changed = {}
    for cont in program.cont_table.values():
        bindings = tuple(ir.Binding(b.var, ir.CallC(b.value.target, keep(b.value.args, b.value.target), b.value.ret))
                         if isinstance(b.value, ir.CallC) else b for b in cont.bindings)
        term = cont.terminator
        if isinstance(term, ir.Jump) and isinstance(term.target, str):
            term = ir.Jump(term.target, keep(term.args, term.target))
        changed[cont.label] = ir.Cont(cont.label, cont.function, keep(cont.params, cont.label),  # type: ignore[arg-type]
                                      bindings, term)
    return rename_program(program.with_conts(changed), renaming)


def call_known_closures(program: Program, stats: Stats, region: Region) -> Program:
    """`apply c(args)` where `c` is `closure g` becomes the known call `call g(args)` (and a
    tail apply a tail call): no closure needs to be entered, and the inliner can then see the
    callee. A closure made with `full f` applied to at least f's arguments calls f; applied to
    more arguments than the function called takes, that call is split off, `apply` going on
    with the rest. Before closure conversion only, where a closure captures implicitly and a
    direct call of `g` can name whatever the closure could (the closure's definition dominates
    the apply, and f is g's sibling)."""
    if program.closed:
        return program
    closures = {b.var.name: b.value for c in program.cont_table.values() for b in c.bindings
                if isinstance(b.value, ir.MakeClosure)}
    if not closures:
        return program

    def known(closure: ir.Operand, args: tuple[ir.Operand, ...]) -> str | None:
        made = closures.get(closure.name) if isinstance(closure, ir.Var) else None
        if made is None:
            return None
        if made.full is not None and full_applies(region.function(program, made.full), args):
            return made.full
        return made.function if len(region.function(program, made.function).params) <= len(args) else None

    def split_off(callee: str, args: tuple[ir.Operand, ...], handler: str | None, loc: str | None, beside: str,
                  bindings: list[ir.Binding]) -> tuple[ir.Var, tuple[ir.Operand, ...]] | None:
        """When `callee` takes fewer than `args`: the binding of its call with those it takes,
        and what is left to apply its result to (None: it takes them all)."""
        f = region.function(program, callee)
        if len(f.params) == len(args):
            return None
        result = ir.Var(region.names.fresh(beside + ".partial"), f.result)
        bindings.append(ir.Binding(result, ir.Call(callee, args[:len(f.params)], handler, loc)))
        return result, args[len(f.params):]

    changed: dict[str, ir.Cont] = {}
    for cont in program.cont_table.values():
        bindings: list[ir.Binding] = []
        for b in cont.bindings:
            v = b.value
            callee = known(v.closure, v.args) if isinstance(v, ir.Apply) else None
            if callee is None or not isinstance(v, ir.Apply):
                bindings.append(b)
                continue
            rest = split_off(callee, v.args, v.handler, v.loc, b.var.name, bindings)
            value = ir.Call(callee, v.args, v.handler, v.loc) if rest is None else ir.Apply(*rest, v.handler, v.loc)
            bindings.append(ir.Binding(b.var, value))
        term = cont.terminator
        if isinstance(term, ir.TailApply) and (callee := known(term.closure, term.args)) is not None:
            rest = split_off(callee, term.args, None, term.loc, cont.label, bindings)
            term = ir.TailCall(callee, term.args, term.loc) if rest is None else ir.TailApply(*rest, term.loc)
        if term is not cont.terminator or len(bindings) != len(cont.bindings) or any(
                b is not old for b, old in zip(bindings, cont.bindings)):
            stats["closure calls made known"] += 1
            changed[cont.label] = ir.Cont(cont.label, cont.function, cont.params, tuple(bindings), term)
    return program.with_conts(changed)


def full_applies(f: ir.Function, args: tuple[ir.Operand, ...]) -> bool:
    """Whether an apply of these arguments may call the closure's full function `f` (with as
    many as it takes, the result then applied to the rest)."""
    return len(f.params) <= len(args)


def form_tail_calls(program: Program, stats: Stats, region: Region) -> Program:
    """`x = call g(args); jump (ret f)(x)`, with no handler of f's own, is the tail call
    `tailcall g(args)` (an apply a tail apply); so is `call g(args); jump (ret f)(())` when g
    returns unit, which needs no value of its own (as `g x; ()` after inlining). Calls that
    inlining has left in tail position so run in constant stack, and LLVM never sees a
    recursive call followed by the return of a constant, which its tail recursion elimination
    rewrites into a loop whose returns no longer follow their `musttail` calls."""
    changed: dict[str, ir.Cont] = {}
    for cont in program.cont_table.values():
        tail = tail_call_of(cont)
        if tail is not None:
            changed[cont.label] = ir.Cont(cont.label, cont.function, cont.params, cont.bindings[:-1], tail)
            stats["tail calls formed"] += 1
    return program.with_conts(changed)


def tail_call_of(cont: ir.Cont) -> ir.Terminator | None:
    """The tail call that `cont`'s last call and its return make, if they make one."""
    term = cont.terminator
    if not cont.bindings or not isinstance(term, ir.Jump) or term.target != ir.Ret(cont.function) \
            or len(term.args) != 1:
        return None
    last = cont.bindings[-1]
    call = last.value
    if not isinstance(call, (ir.Call, ir.Apply)) or not returns_to_caller(call):
        return None
    if not returns_its_value(term.args[0], last.var):
        return None
    if isinstance(call, ir.Call):
        return ir.TailCall(call.function, call.args, call.loc)
    return ir.TailApply(call.closure, call.args, call.loc)


def returns_to_caller(call: ir.Call | ir.Apply) -> bool:
    """Whether what the call raises leaves the function (no handler of its own catches it)."""
    return call.handler is None


def returns_its_value(returned: ir.Operand, result: ir.Var) -> bool:
    """Whether returning `returned` is returning the call's `result`: it is, or both are unit."""
    return returned == result or isinstance(returned, ir.Const) and returned.value is None \
        and result.type == returned.type


REDUCTIONS = (fold_constants, call_known_closures, remove_dead, merge_single_jumps, eta_reduce, thread_branches,
              simplify_parameters, form_tail_calls)


def simplify_with_stats(program: Program, context: PassContext | None = None) -> tuple[Program, Stats]:
    """Simplify with counts of each reduction: each independent part of the program
    (`cpsc.opt.parts`) to its fixed point, as a program of its own whose sweeps stay in the
    cache; then the functions nothing names any more go, and the parts that lost one are
    simplified again. With limited fuel, the whole program at once: each sweep of a reduction
    that changes the program is one rewrite (the bisector's unit for this pass), in an order
    that does not depend on how the program falls into parts."""
    stats: Stats = Counter()
    program = split_callc(program)
    if context is not None and context.fuel is not None:
        return _to_fixed_point(program, Region((program.main,), LazyNames(program, context)), stats, context), stats
    names = LazyNames(program, context)
    parts = independent_parts(program)
    todo = list(range(len(parts)))
    named: dict[str, set[str]] = {}
    while todo:
        program = _simplify_parts(program, parts, todo, named, stats, names)
        program, todo = _remove_dead_functions(program, parts, named, stats)
    return program, stats


Part = tuple[list[str], list[str]]  # functions and the labels of their continuations


def _simplify_parts(program: Program, parts: list[Part], todo: list[int], named: dict[str, set[str]],
                    stats: Stats, names: LazyNames) -> Program:
    """The parts numbered `todo` simplified apart, each as a program of its own (`parts` then
    says what they hold); `named` learns the functions each of their functions names, found
    while the part is still in the cache (a later sweep of the whole program for them would
    run on cache misses)."""
    table, functions = program.cont_table, program.function_table
    changed: dict[str, ir.Cont] = {}
    removed: list[str] = []
    for number in todo:
        part_functions, labels = parts[number]
        part = Program.of_tables({name: functions[name] for name in part_functions},
                                    {label: table[label] for label in labels},
                                    program.main, program.closed, program.globals, like=program)
        reduced = _to_fixed_point(part, Region(tuple(part_functions), names, functions), stats, None)
        for name in part_functions:
            named[name] = {g for label in function_conts(reduced, name, reduced.cont_table)
                           for g in reduced.cont_table[label].memo("simplify.named", ir.functions_named)}
        if reduced is part:
            continue
        reduced_table = reduced.cont_table
        parts[number] = (part_functions, list(reduced_table))
        changed.update((label, cont) for label, cont in reduced_table.items() if table.get(label) is not cont)
        removed.extend(label for label in labels if label not in reduced_table)
    return program.with_conts(changed, removed)


def _remove_dead_functions(program: Program, parts: list[Part], named: dict[str, set[str]],
                           stats: Stats) -> tuple[Program, list[int]]:
    """The program without the functions main cannot reach (as `live_functions` finds them,
    from the functions each function names: `named`), and the numbers of the parts that lost
    some and keep others (their code may have used values nothing else uses)."""
    live = live_functions([program.main], named.__getitem__, program.function_table)
    if len(live) == len(program.function_table):
        return program, []
    table = program.cont_table
    dead_functions: list[str] = []
    dead_conts: list[str] = []
    touched: list[int] = []
    for number, (part_functions, labels) in enumerate(parts):
        if all(name in live for name in part_functions):
            continue
        dead_functions.extend(name for name in part_functions if name not in live)
        dead_conts.extend(label for label in labels if table[label].function not in live)
        parts[number] = ([name for name in part_functions if name in live],
                         [label for label in labels if table[label].function in live])
        if parts[number][0]:
            touched.append(number)
    for name in dead_functions:
        del named[name]
    stats["dead functions removed"] += len(dead_functions)
    stats["dead continuations removed"] += len(dead_conts)
    return program.with_conts({}, dead_conts, removed_functions=dead_functions), touched


def _to_fixed_point(program: Program, region: Region, stats: Stats, context: PassContext | None) -> Program:
    """The reductions in turn, round after round, until a whole round's worth of them in a
    row has changed nothing: each has then seen the final program and left it alone (one that
    ran after the last change need not run again). `context`: count each change as a rewrite."""
    unchanged = 0  # reductions in a row that changed nothing
    for step in range(50 * len(REDUCTIONS)):
        reduction = REDUCTIONS[step % len(REDUCTIONS)]
        reduced = reduction(program, stats, region)
        if reduced is program:  # each reduction returns its input when it changes nothing
            unchanged += 1
            if unchanged == len(REDUCTIONS):
                break
            continue
        unchanged = 0
        if context is not None and not context.allow(
                "simplify", f"{reduction.__name__} (round {step // len(REDUCTIONS) + 1})"):
            return program
        program = reduced
    return program

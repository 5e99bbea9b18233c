"""Return-continuation substitution: the one mechanism behind `inline` and `contify`.

A call `let x = call g(args) [handler h]; rest` in continuation `k` of `f` is replaced by a
jump into g's code, placed in `f`: the continuation `g.ret(x) = rest` receives what `g` would
have returned (`ret g` becomes `g.ret`, or `ret f` itself when `rest` only returns `x`), and
`exn g` becomes the handler in scope at the call (`h`, or `exn f`). A tail call site
`tailcall g(args)` returns to `ret f` directly. Calls in g's code without a handler of their
own raise to g's exception continuation, so they get the call site's handler.

`inline` copies g's code (with fresh names, and the functions nested in g with it);
`contify` moves it, when the call sites are all g has.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

from cpsc.cps import ir
from cpsc.cps.names import NameSupply
from cpsc.cps.program import Program
from cpsc.cps.rewrite import cont_definitions, relabel_terminator, rename_terminator, rename_value
from cpsc.types.types import EXN, STRING, UNIT


@dataclass(unsafe_hash=True)  # not frozen, its own __init__: see cpsc.cps.ir
class CallSite:
    """A direct call in `function`: binding number `binding` of continuation `label`, or its
    terminator (a tail call) when `binding` is None."""

    function: str
    label: str
    binding: int | None
    callee: str
    loc: str | None

    def __init__(self, function: str, label: str, binding: int | None, callee: str, loc: str | None) -> None:
        self.function = function
        self.label = label
        self.binding = binding
        self.callee = callee
        self.loc = loc

    def call(self, program: Program) -> ir.Call | ir.TailCall:
        cont = program.cont_table[self.label]
        if self.binding is None:
            assert isinstance(cont.terminator, ir.TailCall)
            return cont.terminator
        value = cont.bindings[self.binding].value
        assert isinstance(value, ir.Call)
        return value

    def position(self, program: Program) -> int:
        """Where the call is among the continuation's bindings (a tail call: after them all)."""
        return self.binding if self.binding is not None else len(program.cont_table[self.label].bindings)


def call_sites_in(program: Program, function: str, labels: list[str],
                  conts: Mapping[str, ir.Cont] | None = None) -> list[CallSite]:
    """The direct call sites of `function` in the continuations `labels`, in order (looked
    up in `conts`, by default the program's)."""
    table = program.cont_table if conts is None else conts
    sites: list[CallSite] = []
    for label in labels:
        cont = table[label]
        for i, b in enumerate(cont.bindings):
            if isinstance(b.value, ir.Call):
                sites.append(CallSite(function, label, i, b.value.function, b.value.loc))
        if isinstance(cont.terminator, ir.TailCall):
            sites.append(CallSite(function, label, None, cont.terminator.function, cont.terminator.loc))
    return sites


@dataclass(frozen=True)
class ReturnPoint:
    """Where the substituted code returns and raises to, and the continuation that receives
    its result (None when it returns straight to `ret f`)."""

    returns: ir.Target
    raises: ir.Target  # what `exn g` becomes: the call's handler, or `exn f`
    handler: str | None  # the handler calls in the code get (None: exn of the caller)
    continuation: ir.Cont | None
    before: tuple[ir.Binding, ...]  # what the calling continuation keeps

    @property
    def is_tail(self) -> bool:
        return self.continuation is None


def return_point(program: Program, site: CallSite, names: NameSupply) -> ReturnPoint:
    """Split the calling continuation at the call: what stays before it and where the
    callee's result goes. A callee that never returns (it always raises or exits) jumps to no
    receiving continuation, but what followed the call is kept in one, unreachable, until
    simplify removes it: a function nested in the caller may use the call's result or what
    follows it, and must stay well scoped until it goes too (found by random programs: a
    specialised closure naming the result of a call that inlining showed always raises)."""
    cont = program.cont_table[site.label]
    caller = cont.function
    if site.binding is None:
        return ReturnPoint(ir.Ret(caller), ir.Exn(caller), None, None, cont.bindings)
    binding = cont.bindings[site.binding]
    call = binding.value
    assert isinstance(call, ir.Call)
    rest = cont.bindings[site.binding + 1:]
    raises: ir.Target = call.handler if call.handler is not None else ir.Exn(caller)
    before = cont.bindings[:site.binding]
    if not rest and call.handler is None and cont.terminator == ir.Jump(ir.Ret(caller), (binding.var,)):
        return ReturnPoint(ir.Ret(caller), raises, None, None, before)
    label = names.fresh(f"{site.callee}.ret")
    receiver = ir.Cont(label, caller, (binding.var,), rest, cont.terminator)
    return ReturnPoint(label, raises, call.handler, receiver, before)


def framed(point: ReturnPoint, site: CallSite, names: NameSupply,
           statements: frozenset[str]) -> tuple[ReturnPoint, ir.Cont | None]:
    """With -g, where the code of a callee moved into its caller raises to: a continuation that
    notes the call as a frame of the exception's backtrace, then raises on as the call would
    have (the return point raising to it, and its calls given it as their handler). For
    `call g(x) @prog.ml:7:11`, not a tail call (a tail call leaves no frame):

        g.frame(e: exn) = let u = frame_at(e, "prog.ml:7:11") in jump h(e)

    (`h` the call's handler, or `exn f`). A tail call is a frame only in the code of a top-level
    statement (`statements`), as in ocamlopt's."""
    if site.loc is None or site.binding is None and site.function not in statements:
        return point, None
    exception = ir.Var(names.fresh("exn"), EXN)
    note = ir.Binding(ir.Var(names.fresh("u"), UNIT), ir.Prim("frame_at", (exception, ir.Const(site.loc, STRING))))
    frame = ir.Cont(names.fresh(f"{site.callee}.frame"), site.function, (exception,), (note,),
                    ir.Jump(point.raises, (exception,)))
    return replace(point, raises=frame.label, handler=frame.label), frame


def parameter_values(callee: ir.Function, args: tuple[ir.Operand, ...]) -> dict[str, ir.Operand]:
    """What each of the callee's parameters stands for in its substituted body: the call's
    argument in the same position."""
    return dict(zip((p.name for p in callee.params), args))


def fresh_copies(program: Program, names: NameSupply, subtree: list[str], conts_of: Callable[[str], list[str]],
                 variables: dict[str, ir.Operand]) -> dict[str, str]:
    """Fresh names for a copy of the functions `subtree` (a function and those nested in it):
    their continuations' labels and return points (returned), and every variable they define,
    the first function's parameters aside (added to `variables`)."""
    labels: dict[str, str] = {}
    for position, f in enumerate(subtree):
        if position:
            variables.update(fresh_variables(names, program.function_table[f].params))
        for label in conts_of(f):
            cont = program.cont_table[label]
            labels[label] = names.fresh_copy(label)
            variables.update(fresh_variables(names, cont_definitions(cont)))
            labels.update({b.value.ret: names.fresh_copy(b.value.ret) for b in cont.bindings
                           if isinstance(b.value, ir.CallC)})
    return labels


def fresh_variables(names: NameSupply, variables: Iterable[ir.Var]) -> dict[str, ir.Operand]:
    return {v.name: ir.Var(names.fresh_copy(v.name), v.type) for v in variables}


@dataclass
class Relocation:
    """How code of the function `source` becomes code of `target` at a return point:
    variables, labels and nested functions renamed, `ret`/`exn source` redirected."""

    source: str
    target: str
    point: ReturnPoint
    variables: dict[str, ir.Operand]
    labels: dict[str, str]
    functions: dict[str, str]  # nested functions (and `source` itself) to their new names
    names: NameSupply
    result: ir.Type

    def label(self, label: str) -> str:
        return self.labels.get(label, label)

    def function(self, name: str) -> str:
        """A function named in the copied code: a nested one's copy. The source itself stays
        (a recursive call in the copy still calls it: `functions` maps it to `target` only
        to re-parent the nested functions)."""
        return name if name == self.source else self.functions.get(name, name)

    def target_of(self, target: ir.Target, owner: str) -> ir.Target:
        if isinstance(target, str):
            return self.label(target)
        if target.function == self.source:
            if isinstance(target, ir.Ret):
                return self.point.returns
            return self.point.raises
        return type(target)(self.functions.get(target.function, target.function))

    def value(self, value: ir.Value, in_source: bool) -> ir.Value:
        value = rename_value(value, self.variables)
        if isinstance(value, ir.Call):
            handler = self.label(value.handler) if value.handler else (self.point.handler if in_source else None)
            return ir.Call(self.function(value.function), value.args, handler, value.loc)
        if isinstance(value, ir.Apply):
            handler = self.label(value.handler) if value.handler else (self.point.handler if in_source else None)
            return ir.Apply(value.closure, value.args, handler, value.loc)
        if isinstance(value, ir.MakeClosure):
            full = self.function(value.full) if value.full else None  # a sibling: copied with the function
            return ir.MakeClosure(self.function(value.function), value.captured, full)
        if isinstance(value, ir.CallC):
            return ir.CallC(self.label(value.target), value.args, self.label(value.ret))
        return value

    def cont(self, cont: ir.Cont, owner: str, params: tuple[ir.Var, ...]) -> ir.Cont:
        """`cont` (of `source` or a function nested in it) as a continuation of `owner`."""
        in_source = cont.function == self.source
        bindings = [ir.Binding(self.var(b.var), self.value(b.value, in_source)) for b in cont.bindings]
        term = rename_terminator(cont.terminator, self.variables)
        if isinstance(term, ir.Jump):
            term = ir.Jump(self.target_of(term.target, owner), term.args)
        elif isinstance(term, (ir.Branch, ir.Switch)):
            term = relabel_terminator(term, self.label)
        elif isinstance(term, ir.TailCall):
            term = ir.TailCall(self.function(term.function), term.args, term.loc)
        if in_source and isinstance(term, (ir.TailCall, ir.TailApply)) and not self.point.is_tail:
            term = self.returned_call(term, bindings)
        return ir.Cont(self.label(cont.label), owner, params, tuple(bindings), term)

    def copies(self, program: Program, subtree: list[str], conts_of: Callable[[str], list[str]]) -> list[ir.Cont]:
        """The continuations of the functions `subtree` (`source` and those nested in it),
        relocated."""
        return [self.cont(program.cont_table[label], self.functions[f],
                          tuple(self.var(p) for p in program.cont_table[label].params))
                for f in subtree for label in conts_of(f)]

    def nested_functions(self, program: Program, subtree: list[str]) -> dict[str, ir.Function]:
        """The copies of the functions nested in `source` (`subtree` but its first)."""
        copies = {}
        for f in subtree[1:]:
            old = program.function_table[f]
            copies[self.functions[f]] = ir.Function(
                self.functions[f], tuple(self.var(p) for p in old.params), old.result, self.labels[old.entry],
                self.functions[old.parent] if old.parent else None, old.noinline)
        return copies

    def var(self, var: ir.Var) -> ir.Var:
        renamed = self.variables.get(var.name, var)
        assert isinstance(renamed, ir.Var)
        return renamed

    def returned_call(self, term: ir.TailCall | ir.TailApply, bindings: list[ir.Binding]) -> ir.Jump:
        """A tail call of the substituted code is no longer one: its result goes to the
        return point."""
        result = ir.Var(self.names.fresh("r"), self.result)
        value: ir.Value
        if isinstance(term, ir.TailCall):
            value = ir.Call(term.function, term.args, self.point.handler, term.loc)
        else:
            value = ir.Apply(term.closure, term.args, self.point.handler, term.loc)
        bindings.append(ir.Binding(result, value))
        return ir.Jump(self.point.returns, (result,))

"""`specialise`: a function called with a known closure as an argument gets a copy made for
it, in which the closure is made afresh instead of passed, so that its calls become known calls
the inliner can see (Flambda's specialisation, GHC's SpecConstr, MLton's defunctionalisation).

    fun mul_mv(m: (int -> float), n: int) -> unit ...
      ... let r: float = apply m(i) ...
    fun g() -> unit ...
      cont g.entry() =                            cont g.entry() =
        let c: (int -> float) = closure eval_a      let c: (int -> float) = closure eval_a
        let u: unit = call mul_mv(c, 10)     =>     let u: unit = call mul_mv.spec(10)
        ...                                         ...
                                                fun mul_mv.spec(n.1: int) -> unit ...
                                                  cont mul_mv.entry.1() =
                                                    let m.1: (int -> float) = closure eval_a
                                                    ... let r.1: float = apply m.1(i.1) ...

(`simplify` then makes `apply m.1(i.1)` the known call `call eval_a(i.1)`, and `inline` may
inline it.) A closure of a closed function seen where the copy is, as here, is made as it is;
any other closure's function is copied too, nested in the copy, its free variables made
parameters of the copy that the call passes (`tests/opt/golden/apply_twice_*.cps`). A copy
is shared by every call with the same closures in the same places, the copy's own recursive
calls included, so a recursive function passing its function argument on (`List.map f`, a
fold) becomes one specialised loop. Only a parameter the function calls or passes on is
specialised, only for a function within the size budget, and only for a closure whose
function names no function a copy could not name; each decision can be printed as a remark
(`--remarks=specialise`).

Relies on a verified program before closure conversion (closures capture implicitly) with
unique names; the copy is made with fresh names from the pass context's supply.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from cpsc.cps import ir
from cpsc.cps.names import NameSupply
from cpsc.cps.program import Program
from cpsc.opt.call_graph import CallGraph
from cpsc.opt.context import PassContext
from cpsc.opt.substitute import Relocation, ReturnPoint, fresh_copies, fresh_variables

Stats = Counter[str]

# A function larger than this (bindings and terminators, nested functions included) is not
# copied; nor are more copies than `MAXIMUM_COPIES` made of one program.
SIZE_LIMIT = 300
MAXIMUM_COPIES = 64

Known = tuple[tuple[int, str, str | None], ...]  # (parameter position, the function its closure is of, its full)


@dataclass(frozen=True)
class _Closure:
    """What a variable bound to a closure is known to be: a closure of `function`, whose free
    variables (in the order of their names) are `captured` where the variable is in scope."""

    function: str
    captured: tuple[ir.Var, ...]
    full: str | None = None  # `MakeClosure.full`


class _Specialiser:
    def __init__(self, facts: CallGraph, context: PassContext, names: NameSupply, stats: Stats) -> None:
        self.facts = facts
        self.context = context
        self.names = names
        self.stats = stats
        self.copies: dict[tuple[str, Known], str] = {}
        self.free: dict[str, list[str] | None] = {}
        program = facts.program
        self.closures: dict[str, _Closure] = {}
        for cont in program.cont_table.values():
            for b in cont.bindings:
                if isinstance(b.value, ir.MakeClosure):
                    free = self._captured(b.value.function, b.value.full)
                    if free is not None:
                        self.closures[b.var.name] = _Closure(b.value.function, tuple(map(self._variable, free)),
                                                             b.value.full)

    def _captured(self, function: str, full: str | None) -> list[str] | None:
        """What a closure of `function` captures, in order: its free variables, and those of
        its full function, which a copy of the closure copies beside it (see `_free_variables`)."""
        free = self._free_variables(function)
        full_free = self._free_variables(full) if full is not None else None
        return sorted(set(free) | set(full_free)) if free is not None and full_free is not None else free

    def _free_variables(self, function: str) -> list[str] | None:
        """The free variables of `function`, in order (None: it has some and names itself; a
        copy of it would name the original, whose free variables are not in the copy's scope)."""
        if function not in self.free:
            free = sorted(self.facts.free_variables(function))
            named = free and any(function in self.facts.named_in(f) for f in self.facts.subtree(function))
            self.free[function] = None if named else free
        return self.free[function]

    def _variable(self, name: str) -> ir.Var:
        """The variable `name` as its definition gives it (with its type)."""
        binding = self.facts.binding_of(name)
        if binding is not None:
            return binding.var
        function = self.facts.defining_function(name)
        assert function is not None
        candidates = list(self.facts.program.function_table[function].params)
        candidates += [p for label in self.facts.owned(function) for p in self.facts.program.cont_table[label].params]
        return next(v for v in candidates if v.name == name)

    def run(self) -> None:
        work = sorted(self.facts.program.cont_table)
        while work:
            label = work.pop()
            cont = self.facts.program.cont_table.get(label)
            if cont is not None:
                work.extend(self._specialise_calls(cont))

    def _specialise_calls(self, cont: ir.Cont) -> list[str]:
        """Rewrite the calls of `cont` that have a specialised copy to make or reuse; the
        labels of the copies made, whose calls are to be looked at in turn."""
        made: list[str] = []
        bindings = list(cont.bindings)
        for i, b in enumerate(bindings):
            if isinstance(b.value, ir.Call):
                target = self._copy_for(b.value.function, b.value.args, b.value.loc, made)
                if target is not None:
                    name, args = target
                    bindings[i] = ir.Binding(b.var, ir.Call(name, args, b.value.handler, b.value.loc))
        term = cont.terminator
        if isinstance(term, ir.TailCall):
            target = self._copy_for(term.function, term.args, term.loc, made)
            if target is not None:
                term = ir.TailCall(target[0], target[1], term.loc)
        if term is not cont.terminator or any(new is not old for new, old in zip(bindings, cont.bindings)):
            changed = ir.Cont(cont.label, cont.function, cont.params, tuple(bindings), term)
            program = self.facts.program.with_conts({cont.label: changed})
            self.facts.changed(program, cont.function, [changed], [])
        return made

    def _copy_for(self, callee: str, args: tuple[ir.Operand, ...], loc: str | None,
                  made: list[str]) -> tuple[str, tuple[ir.Operand, ...]] | None:
        """The specialised copy to call instead of `callee` and the arguments it takes: those
        not known, then what the known closures capture (None: keep the call)."""
        function = self.facts.program.function_table[callee]
        known = {k: self.closures[a.name] for k, a in enumerate(args)
                 if isinstance(a, ir.Var) and a.name in self.closures
                 and self._used_as_function(callee, function.params[k].name)}
        if not known:
            return None
        key = copy_key(callee, known)
        name = self.copies.get(key)
        if name is None:
            closures = ", ".join(closure.function for closure in known.values())
            reason = self._refused(function, known)
            if reason is not None:
                self.context.remark("specialise", loc, f"{callee} not specialised to {closures}: {reason}")
                return None
            if not self.context.allow("specialise", f"{callee} to {closures} at {loc or '?'}"):
                return None
            name, labels = self._copy(function, known)
            self.copies[key] = name
            made.extend(labels)
            self.stats["functions specialised"] += 1
            self.context.remark("specialise", loc, f"{callee} specialised to {closures} as {name}")
        self.stats["calls specialised"] += 1
        kept = tuple(a for k, a in enumerate(args) if k not in known)
        return name, kept + captured_arguments(known)

    def _refused(self, function: ir.Function, known: dict[int, _Closure]) -> str | None:
        if function.noinline:
            return "it is noinline"
        for closure in known.values():
            hidden = self._hidden_functions(closure, function.parent)
            if hidden:
                return f"{closure.function} names {hidden}, which a copy beside {function.name} could not name"
        size = self.facts.size(function.name) + sum(self.facts.size(c.function) for c in known.values())
        if size > SIZE_LIMIT:
            return f"too big (size {size} > {SIZE_LIMIT})"
        if len(self.copies) >= MAXIMUM_COPIES:
            return f"the program has {MAXIMUM_COPIES} specialised copies already"
        return None

    def _used_as_function(self, function: str, parameter: str) -> bool:
        """Whether `function` (or a function nested in it) calls `parameter` or passes it to a
        call: what knowing it can improve."""
        program = self.facts.program
        for f in self.facts.subtree(function):
            for label in self.facts.conts_of(f):
                cont = program.cont_table[label]
                for b in cont.bindings:
                    if _calls_with(b.value, parameter):
                        return True
                if _calls_with(cont.terminator, parameter):
                    return True
        return False

    def _copy(self, function: ir.Function, known: dict[int, _Closure]) -> tuple[str, list[str]]:
        """A copy of `function` (with its nested functions) taking the parameters not in
        `known`, then the free variables of the known closures' functions; at its entry, the
        closures are made (of copies nested in it of those functions that have free variables).
        Its name and labels."""
        name = self.names.fresh(f"{function.name}.spec")
        variables = fresh_variables(self.names, function.params)
        copies, new_functions = self._relocated(function.name, name, function.parent, variables)
        made: list[ir.Binding] = []
        captured_params: list[ir.Var] = []
        for k, known_closure in sorted(known.items()):
            g = known_closure.function
            free = self._captured(g, known_closure.full)
            assert free is not None
            params = [ir.Var(self.names.fresh_copy(v.name), v.type) for v in map(self._variable, free)]
            inner, full = g, known_closure.full  # a closed function seen where the copy is means the same there
            if free or not self._visible_from(g, function.parent):
                # else a copy nested in this one (its free variables the copy's parameters), of
                # its full function too: a function is named only inside its parent, which may
                # go once it is dead
                renamed = {f: self.names.fresh_copy(f) for f in [full] if f is not None and self._copies_full(g, f)}
                inner, full = self.names.fresh_copy(g), full_in_copy(full, renamed)
                for source, target in [(g, inner)] + list(renamed.items()):
                    source_variables: dict[str, ir.Operand] = dict(zip(free, params))
                    source_variables.update(fresh_variables(self.names, self.facts.program.function_table[source].params))
                    source_copies, source_functions = self._relocated(source, target, name, source_variables, renamed)
                    copies += source_copies
                    new_functions.update(source_functions)
            closure = variables[function.params[k].name]
            assert isinstance(closure, ir.Var)
            made.append(ir.Binding(closure, replace(closure_in_copy(inner, g), full=full)))
            captured_params += params
            self.closures[closure.name] = _Closure(g, tuple(params), known_closure.full)  # (the key of this copy)
        entry_label = new_functions[name].entry
        entry = next(i for i, c in enumerate(copies) if c.label == entry_label)
        old = copies[entry]
        copies[entry] = ir.Cont(old.label, old.function, old.params, tuple(made) + old.bindings, old.terminator)
        kept = tuple(v for k, p in enumerate(function.params) if k not in known
                     for v in [variables[p.name]] if isinstance(v, ir.Var))
        new_functions[name] = replace(new_functions[name], params=kept + tuple(captured_params))
        program = self.facts.program.with_conts({c.label: c for c in copies}, functions=new_functions)
        self.facts.changed(program, name, copies, list(new_functions.values()))
        return name, [c.label for c in copies]

    def _hidden_functions(self, closure: _Closure, parent: str | None) -> str | None:
        """A function that the closure's function names and that code nested in `parent`
        could not name (None: there is none, or the function is not copied)."""
        g = closure.function
        if not closure.captured and self._visible_from(g, parent):
            return None  # (its closure is made as it is: the function stays where it is)
        named = self._named_by_copy(g)
        if closure.full is not None and self._copies_full(g, closure.full):
            named.discard(closure.full)  # (g's copy names the full function's copy)
            named |= self._named_by_copy(closure.full)
        return next((h for h in sorted(named) if not self._visible_from(h, parent)), None)

    def _named_by_copy(self, g: str) -> set[str]:
        """The functions a copy of g and those nested in it name, other than those copies
        (g itself too: a copy's recursive calls would still name the original)."""
        subtree = self.facts.subtree(g)
        return {h for f in subtree for h in self.facts.named_in(f)} - set(subtree[1:])

    def _visible_from(self, g: str, parent: str | None) -> bool:
        """Whether code nested in `parent` may name the function `g`: g is nested in it or in
        one of its ancestors."""
        owner = self.facts.program.function_table[g].parent
        return owner is None or parent is not None and (owner == parent or self.facts.is_ancestor(owner, parent))

    def _copies_full(self, g: str, full: str) -> bool:
        """Whether a copy of g's closure nested in a specialised copy gets a copy of its full
        function beside it (what it captures is then captured too): when each names itself
        only if it has nothing to capture."""
        return self._free_variables(full) is not None and self._free_variables(g) is not None

    def _relocated(self, source: str, target: str, parent: str | None, variables: dict[str, ir.Operand],
                   renamed: dict[str, str] | None = None) -> tuple[list[ir.Cont], dict[str, ir.Function]]:
        """A copy of the function `source` and those nested in it, named `target` and nested in
        `parent`: its continuations and functions (`variables` has the names for its
        parameters and free variables; `ret`, `exn source` become those of `target`)."""
        program, facts = self.facts.program, self.facts
        function = program.function_table[source]
        subtree = facts.subtree(source)
        functions = (renamed or {}) | {source: target} | {f: self.names.fresh_copy(f) for f in subtree[1:]}
        labels = fresh_copies(program, self.names, subtree, facts.conts_of, variables)
        point = ReturnPoint(ir.Ret(target), ir.Exn(target), None, None, ())
        relocation = Relocation(source, target, point, variables, labels, functions, self.names, function.result)
        params = tuple(relocation.var(p) for p in function.params)
        new_functions = {target: ir.Function(target, params, function.result, labels[function.entry], parent)}
        new_functions.update(relocation.nested_functions(program, subtree))
        return relocation.copies(program, subtree, facts.conts_of), new_functions


def copy_key(callee: str, known: dict[int, _Closure]) -> tuple[str, Known]:
    """What makes two calls share a specialised copy: the callee, and which function each known
    closure is of, in which position (what they capture is passed)."""
    return callee, tuple((k, closure.function, closure.full) for k, closure in known.items())


def captured_arguments(known: dict[int, _Closure]) -> tuple[ir.Operand, ...]:
    """The arguments a call of a specialised copy passes for what the closures capture."""
    return tuple(v for closure in known.values() for v in closure.captured)


def closure_in_copy(inner: str, original: str) -> ir.MakeClosure:
    """The closure a copy makes at its entry: of `inner`, its own copy of the `original`
    function, whose free variables are the copy's parameters."""
    return ir.MakeClosure(inner)


def full_in_copy(full: str | None, renamed: dict[str, str]) -> str | None:
    """The full function of a closure copied into a specialised copy: its own copy of the
    original's (a closure without it when the full function is not copied)."""
    return renamed.get(full) if full is not None else None


def _calls_with(node: ir.Value | ir.Terminator, parameter: str) -> bool:
    if isinstance(node, (ir.Apply, ir.TailApply)):
        return isinstance(node.closure, ir.Var) and node.closure.name == parameter
    if isinstance(node, (ir.Call, ir.TailCall)):
        return any(isinstance(a, ir.Var) and a.name == parameter for a in node.args)
    return False


def specialise_with_stats(program: Program, context: PassContext | None = None) -> tuple[Program, Stats]:
    context = context if context is not None else PassContext()
    stats: Stats = Counter()
    if program.closed:  # (a closure then lists its captures: made afresh, it would need them)
        return program, stats
    specialiser = _Specialiser(CallGraph(program), context, context.name_supply(program), stats)
    specialiser.run()
    return specialiser.facts.program, stats

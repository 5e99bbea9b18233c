"""Closure conversion.

Every function is lambda-lifted: its free variables (those of its own body and, transitively,
of the functions it calls or makes closures of) become extra leading parameters, renamed fresh
so that each variable stays bound once, and known calls pass them. A function that is used as a
value (`closure g`) also gets a code wrapper `g.code(env, params)` that loads the captured
variables from the closure record `env` and tail-calls `g`; `closure g` becomes
`closure g.code(captured...)`. A closure made with `full f` (f takes all n arguments of the
curried chain g starts) gives `g.code` a second entry, `f.full(env, x1..xn)`, loading f's free
variables from the same record: its `Function.full`, which an apply of n arguments calls. Main's own variables are the exception: those another function
uses become globals (`Program.globals`), stored by main right after their definition and
loaded at the entry of each function that uses them, so that top-level values are not passed
down every chain of calls. Relies on: unique names; free variables of a function come from
its ancestors (the verifier's scope rule). Produces a `closed` program with no `callc`.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyrsistent import pmap

from cpsc.cps import ir
from cpsc.cps.graphs import nodes_on_cycles, strongly_connected_components
from cpsc.cps.names import NameSupply
from cpsc.cps.program import Program
from cpsc.cps.rewrite import rename_cont, split_cont
from cpsc.types.types import UNIT


@dataclass
class _References:
    """What closure conversion asks of the program, gathered function by function in one sweep
    of its continuations, before callc is split (splitting keeps every definition, use and call).
    The tables are per function: one table of every variable of a large program, looked up in
    scattered order, made each continuation's cost grow with the program."""

    by_function: dict[str, list[ir.Cont]]
    defined: dict[str, dict[str, ir.Var]]  # each function's parameters and definitions, by name
    own_free: dict[str, set[str]]  # the variables each function's continuations use and it does not define
    referenced: dict[str, set[str]]  # the functions each function calls, tail calls or makes a closure of
    escaping: set[str]  # the functions something makes a closure of
    fulls: dict[str, set[str | None]]  # the `full` functions the closures of each escaping function name
    return_labels: set[str]  # the labels the split of callc gives its return points

    @staticmethod
    def of(program: Program) -> _References:
        by_function: dict[str, list[ir.Cont]] = {name: [] for name in program.function_table}
        for cont in program.cont_table.values():
            by_function[cont.function].append(cont)
        gathered = _References(by_function, {}, {}, {}, set(), {}, set())
        for name, f in program.function_table.items():
            gathered._gather(name, f)
        return gathered

    def _gather(self, name: str, f: ir.Function) -> None:
        defined = {p.name: p for p in f.params}
        used: set[str] = set()
        referenced: set[str] = set()
        for cont in self.by_function[name]:
            for v in cont.params:
                defined[v.name] = v
            for b in cont.bindings:
                defined[b.var.name] = b.var
                value = b.value
                if isinstance(value, ir.Call):
                    referenced.add(value.function)
                elif isinstance(value, ir.MakeClosure):
                    referenced.add(value.function)
                    self.escaping.add(value.function)
                    self.fulls.setdefault(value.function, set()).add(value.full)
                elif isinstance(value, ir.CallC):
                    self.return_labels.add(value.ret)
            if isinstance(cont.terminator, ir.TailCall):
                referenced.add(cont.terminator.function)
            used.update(cont.used_names)
        self.defined[name] = defined
        self.own_free[name] = used.difference(defined)
        self.referenced[name] = referenced

    def variables_named(self, names: set[str]) -> dict[str, ir.Var]:
        found: dict[str, ir.Var] = {}
        for defined in self.defined.values():
            for name in defined.keys() & names:
                found[name] = defined[name]
        return found

    def names_taken(self, program: Program) -> set[str]:
        taken = set(program.function_table)
        taken.update(program.cont_table, self.return_labels)
        for defined in self.defined.values():
            taken.update(defined)
        return taken


def captured_variables(program: Program, globals_: frozenset[str] = frozenset(),
                   gathered: _References | None = None) -> dict[str, list[ir.Var]]:
    """What each function's closure (or its extra parameters) must carry: its free variables
    and, transitively, those of the functions it references, leaving out `globals_` (main's
    variables that other functions load instead). (`cpsc.cps.analysis.free_variables` is the
    other meaning: what a function and those nested in it take from the functions around it.)

    A function needs, besides its own free variables, those of every function it calls or
    makes a closure of, minus what it defines itself. The reference graph is walked once with
    callees first (Tarjan's strongly connected components; only inside a component, a group of
    mutually recursive functions, is a fixed point iterated), so a chain of n functions costs
    n steps, not n rounds over all functions."""
    gathered = gathered if gathered is not None else _References.of(program)
    defined = gathered.defined
    references = {name: sorted(gathered.referenced[name]) for name in program.function_table}
    free: dict[str, set[str]] = {}
    for component in strongly_connected_components(sorted(program.function_table), references):
        members = set(component)
        for m in component:
            free[m] = (gathered.own_free[m] - globals_).union(
                *(free[g] for g in references[m] if g not in members)).difference(defined[m])
        changed = len(component) > 1
        while changed:  # mutual recursion: what one member needs, those calling it need too
            changed = False
            for m in component:
                extra = set().union(*(free[g] for g in references[m] if g in members)).difference(defined[m]) - free[m]
                if extra:
                    free[m] |= extra
                    changed = True
    variables = gathered.variables_named(set().union(*free.values()))
    return {name: sorted((variables[v] for v in vs), key=lambda v: v.name) for name, vs in free.items()}


def shared_globals(program: Program, gathered: _References) -> dict[str, ir.Var]:
    """Main's variables used by other functions: they become globals. (Lifted as parameters,
    they would be passed down every chain of calls: n top-level values used by a chain of n
    functions made parameter lists of length n, quadratic code in all.)

    Only those main defines once: a variable of a loop's body has a value per iteration, and a
    closure made in one iteration must keep its own after the next has stored another (five
    closures of `Array.init 5 (fun i -> let acc = ref i in fun x -> ...)` inlined into main
    would share the last `acc`). Those are captured and passed as any function's are."""
    main_defined = gathered.defined[program.main]
    main_params = {p.name for p in program.function_table[program.main].params}
    used = set().union(*(gathered.own_free[name] for name in program.function_table if name != program.main))
    repeated = _defined_repeatedly(gathered.by_function[program.main])
    return {name: main_defined[name] for name in sorted(used.intersection(main_defined) - main_params - repeated)}


def _defined_repeatedly(conts: list[ir.Cont]) -> set[str]:
    """The variables defined in continuations on a cycle of the control-flow graph (with each
    callc's return point a block of its own, so a loop through one is seen)."""
    pieces = [piece for cont in conts for piece in split_cont(cont)]
    on_cycle = nodes_on_cycles({piece.label: list(piece.successor_labels) for piece in pieces})
    return {name for piece in pieces if piece.label in on_cycle for name in piece.introduced_names}


def closure_convert(program: Program) -> Program:
    gathered = _References.of(program)
    shared = shared_globals(program, gathered)
    fvs = captured_variables(program, frozenset(shared), gathered)
    names = NameSupply(gathered.names_taken(program))
    code_names = {g: names.fresh(g + ".code") for g in sorted(gathered.escaping)}
    functions: dict[str, ir.Function] = {}
    conts: dict[str, ir.Cont] = {}
    for name, f in program.function_table.items():
        lifted = [ir.Var(names.fresh(v.name), v.type) for v in fvs[name]]
        renaming: dict[str, ir.Operand] = {v.name: new for v, new in zip(fvs[name], lifted)}
        loads = _load_globals(gathered.own_free[name], shared, names, renaming) if name != program.main else ()
        functions[name] = ir.Function(name, tuple(lifted) + f.params, f.result, f.entry, None, f.noinline)
        for original in gathered.by_function[name]:
            for cont in split_cont(original):
                cont = _pass_free_variables(rename_cont(cont, renaming), fvs, code_names, renaming)
                if name == program.main:
                    cont = _store_globals(cont, shared, names)
                elif cont.label == f.entry:
                    cont = ir.Cont(cont.label, cont.function, cont.params, loads + cont.bindings, cont.terminator)
                conts[cont.label] = cont
    for g, code in code_names.items():
        full = _full_entry(g, gathered, fvs)
        full_code = names.fresh(full + ".full") if full is not None else None
        f = program.function_table[g]
        closure_type = ir.curried_type(f.params, f.result)
        _add_wrapper(f, code, closure_type, [(v, i) for i, v in enumerate(fvs[g])], names, functions, conts,
                     full_code)
        if full is not None and full_code is not None:  # its free variables where g's record has them
            index = {v.name: i for i, v in enumerate(fvs[g])}
            _add_wrapper(program.function_table[full], full_code, closure_type,
                         [(v, index[v.name]) for v in fvs[full]], names, functions, conts)
    globals_ = pmap({name: v.type for name, v in shared.items()})
    return Program.of_tables(functions, conts, program.main, True, globals_)


def _load_globals(free: set[str], shared: dict[str, ir.Var], names: NameSupply,
                  renaming: dict[str, ir.Operand]) -> tuple[ir.Binding, ...]:
    """Loads of the globals a function uses (`free`: the variables it uses and does not define),
    for its entry (which dominates every use); `renaming` learns the loaded variables."""
    loads = []
    for name in sorted(name for name in free if name in shared):
        loaded = ir.Var(names.fresh(name), shared[name].type)
        renaming[name] = loaded
        loads.append(ir.Binding(loaded, ir.GlobalLoad(name)))
    return tuple(loads)


def _store_globals(cont: ir.Cont, shared: dict[str, ir.Var], names: NameSupply) -> ir.Cont:
    """Main stores each global right after defining it (before anything can call a user)."""
    def stores(defined: list[ir.Var]) -> list[ir.Binding]:
        return [ir.Binding(ir.Var(names.fresh("stored"), UNIT), ir.GlobalStore(v.name, v))
                for v in defined if v.name in shared]

    bindings = stores(list(cont.params))
    for b in cont.bindings:
        bindings.append(b)
        bindings.extend(stores([b.var]))
    if len(bindings) == len(cont.bindings):
        return cont
    return ir.Cont(cont.label, cont.function, cont.params, tuple(bindings), cont.terminator)


def _pass_free_variables(cont: ir.Cont, fvs: dict[str, list[ir.Var]], code_names: dict[str, str],
                         renaming: dict[str, ir.Operand]) -> ir.Cont:
    def captured(g: str) -> tuple[ir.Operand, ...]:
        return tuple(renaming.get(v.name, v) for v in fvs[g])

    bindings = []
    changed = False
    for b in cont.bindings:  # the bindings that pass nothing are kept, not copied
        value = b.value
        if isinstance(value, ir.Call) and fvs[value.function]:
            value = ir.Call(value.function, captured(value.function) + value.args, value.handler, value.loc)
        elif isinstance(value, ir.MakeClosure):
            value = ir.MakeClosure(code_names[value.function], captured(value.function))
        else:
            bindings.append(b)
            continue
        bindings.append(ir.Binding(b.var, value))
        changed = True
    term = cont.terminator
    if isinstance(term, ir.TailCall) and fvs[term.function]:
        term = ir.TailCall(term.function, captured(term.function) + term.args, term.loc)
        changed = True
    if not changed:
        return cont
    return ir.Cont(cont.label, cont.function, cont.params, tuple(bindings), term)


def _full_entry(g: str, gathered: _References, fvs: dict[str, list[ir.Var]]) -> str | None:
    """The function g's closures are applied to all their arguments through: the one they all
    name, if its free variables are in g's closure record (lost when an optimisation made
    g no longer need one of them, say)."""
    named = gathered.fulls.get(g, set())
    full = next(iter(named)) if len(named) == 1 else None
    if full is None or not set(v.name for v in fvs[full]) <= set(v.name for v in fvs[g]):
        return None
    return full


def _add_wrapper(f: ir.Function, name: str, env_type: ir.TCon, fields: list[tuple[ir.Var, int]],
                 names: NameSupply, functions: dict[str, ir.Function], conts: dict[str, ir.Cont],
                 full: str | None = None) -> None:
    """`name(env, xs) = let v = field env.i (for each (v, i) of fields) in tailcall f(v..., xs)`."""
    env = ir.Var(names.fresh("env"), env_type)
    params = tuple(ir.Var(names.fresh(p.name), p.type) for p in f.params)
    loads = tuple(ir.Binding(ir.Var(names.fresh(v.name), v.type), ir.Field(env, i)) for v, i in fields)
    entry = names.fresh(name + ".entry")
    functions[name] = ir.Function(name, (env,) + params, f.result, entry, None, full=full)
    conts[entry] = ir.Cont(entry, name, (), loads, ir.TailCall(f.name, tuple(b.var for b in loads) + params))

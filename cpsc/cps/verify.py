"""The CPS verifier (run after every pass in tests and with `--verify`).

Checks: every variable is bound once; every use is dominated by its definition (uses of a
variable of another function: only from a function nested in the defining one, and never once
the program is closed); continuations are second-class and belong to the function that names
them; `ret f` is used only inside `f`; jump arities and types match; every value is well typed.
Exceptions: `exn f` is used only inside `f` and is given one `exn`; a call's handler is a
continuation of the calling function taking one `exn`, and the handler's code uses no variable
the calling continuation defines at or after the call (an exception leaves before those exist).
Globals (closed programs): each is stored once, by main, in a continuation on no cycle, so
that every function loading it sees the one value it stands for (a variable of a loop's body
would give each closure made in it the last iteration's value).
"""

from __future__ import annotations

from cpsc.cps import ir
from cpsc.cps.dominance import Dominators
from cpsc.cps.graphs import nodes_on_cycles
from cpsc.cps.primops import GENERIC, PRIMOPS, is_data, never_returns
from cpsc.cps.printer import show_type
from cpsc.cps.program import Program, function_conts
from cpsc.types.types import BOOL, EXN, INT, UNIT, TCon


class VerifyError(Exception):
    pass


class Verifier:
    def __init__(self, program: Program) -> None:
        self.program = program
        self.defined_in: dict[str, tuple[str, str, int]] = {}  # var -> (function, label, index)
        self.returns: dict[str, tuple[str, TCon]] = {}  # callc return label -> (function, type)
        self.handled_calls: dict[str, list[tuple[int, str]]] = {}  # label -> its calls' (index, handler)

    def fail(self, where: str, message: str) -> None:
        raise VerifyError(f"{where}: {message}")

    def run(self) -> None:
        p = self.program
        if p.main not in p.functions:
            self.fail("program", f"main function {p.main} does not exist")
        self.collect_definitions()
        for f in p.functions.values():
            if f.parent is not None and f.parent not in p.functions:
                self.fail(f"function {f.name}", f"parent {f.parent} does not exist")
            if f.entry not in p.conts or p.conts[f.entry].function != f.name:
                self.fail(f"function {f.name}", f"entry {f.entry} is not a continuation of {f.name}")
            if p.conts[f.entry].params:
                self.fail(f"function {f.name}", "its entry continuation takes parameters")
            if f.full is not None and not p.closed:
                self.fail(f"function {f.name}", "full entry of a function before closure conversion")
            if f.full is not None:
                self.check_full(f"function {f.name}", f.name, f.full, f.params[0].type, True)
        for cont in p.conts.values():  # first: dominance needs each function's own continuations
            self.check_cont(cont)
        for name in p.functions:
            self.check_dominance(name)
        if p.globals:
            self.check_globals_stored_once()

    def collect_definitions(self) -> None:
        p = self.program

        def define(var: ir.Var, function: str, label: str, index: int) -> None:
            if var.name in self.defined_in:
                self.fail(f"continuation {label}", f"variable {var.name} is bound more than once")
            self.defined_in[var.name] = (function, label, index)

        for f in p.functions.values():
            for param in f.params:
                define(param, f.name, f.entry, -2)
        for cont in p.conts.values():
            if cont.function not in p.functions:
                self.fail(f"continuation {cont.label}", f"belongs to unknown function {cont.function}")
            for param in cont.params:
                define(param, cont.function, cont.label, -1)
            for i, b in enumerate(cont.bindings):
                define(b.var, cont.function, cont.label, i)
                handler = ir.handler_of(b.value)
                if handler is not None:
                    self.handled_calls.setdefault(cont.label, []).append((i, handler))
                if isinstance(b.value, ir.CallC):
                    if b.value.ret in p.conts or b.value.ret in self.returns:
                        self.fail(f"continuation {cont.label}", f"return point {b.value.ret} is not a fresh label")
                    self.returns[b.value.ret] = (cont.function, b.var.type)

    # ---------------------------------------------------------------- scope
    def check_dominance(self, function: str) -> None:
        labels = function_conts(self.program, function)
        preds: dict[str, list[str]] = {label: [] for label in labels}
        for label in labels:
            for s in ir.successors(self.program.conts[label]):
                if s in preds:
                    preds[s].append(label)
        dom = Dominators(labels, preds)
        for label in labels:
            cont = self.program.conts[label]
            for i, b in enumerate(cont.bindings):
                for o in ir.value_operands(b.value):
                    self.check_use(o, function, label, i, dom)
            for o in ir.terminator_operands(cont.terminator):
                self.check_use(o, function, label, len(cont.bindings), dom)
            if not self.program.closed:
                for named in ir.functions_named(cont):
                    self.check_naming(named, function, label)

    def check_naming(self, named: str, function: str, label: str) -> None:
        """A nested function is named (called, made a closure of) only inside its parent: its
        free variables are in scope there, and nowhere else."""
        if named not in self.program.functions:
            self.fail(f"continuation {label}", f"function {named} does not exist")
        parent = self.program.functions[named].parent
        if parent is not None and parent != function and not self.is_ancestor(parent, function):
            self.fail(f"continuation {label}", f"function {named}, nested in {parent}, is named in function "
                      f"{function}, which is not nested in {parent}")

    def check_use(self, o: ir.Operand, function: str, label: str, index: int, dom: Dominators) -> None:
        if not isinstance(o, ir.Var):
            return
        where = f"continuation {label}"
        if o.name not in self.defined_in:
            self.fail(where, f"variable {o.name} is used but never bound")
        def_function, def_label, def_index = self.defined_in[o.name]
        def_type = self.type_of(o.name)
        if def_type != o.type:
            self.fail(where, f"variable {o.name} is used at type {show_type(o.type)} but bound at "
                      f"type {show_type(def_type)}")
        if def_function != function:
            if self.program.closed or not self.is_ancestor(def_function, function):
                self.fail(where, f"variable {o.name} of function {def_function} is used in function "
                          f"{function}, which is not nested in it")
            return
        if def_index == -2:
            return
        if def_label == label and def_index >= index or def_label != label and not dom.dominates(def_label, label):
            self.fail(where, f"the definition of {o.name} (in {def_label}) does not dominate this use")
        for call_index, handler in self.handled_calls.get(def_label, []):
            if def_label != label and call_index <= def_index and (handler == label or dom.dominates(handler, label)):
                self.fail(where, f"{o.name} is used after handler {handler} took an exception raised in "
                          f"{def_label} before {o.name} was defined")

    def type_of(self, name: str) -> TCon:
        function, label, index = self.defined_in[name]
        if index == -2:
            return next(p.type for p in self.program.functions[function].params if p.name == name)
        cont = self.program.conts[label]
        if index == -1:
            return next(p.type for p in cont.params if p.name == name)
        return cont.bindings[index].var.type

    def is_ancestor(self, ancestor: str, function: str) -> bool:
        current: str | None = self.program.functions[function].parent
        while current is not None:
            if current == ancestor:
                return True
            current = self.program.functions[current].parent
        return False

    # ---------------------------------------------------------------- types and targets
    def check_args(self, where: str, what: str, params: list[TCon], args: tuple[ir.Operand, ...]) -> None:
        if len(params) != len(args):
            self.fail(where, f"{what} expects {len(params)} arguments but is given {len(args)}")
        for i, (t, a) in enumerate(zip(params, args)):
            if a.type != t:
                self.fail(where, f"argument {i + 1} of {what} has type {show_type(a.type)} but "
                          f"{show_type(t)} is expected")

    def check_label(self, where: str, cont: ir.Cont, label: str) -> ir.Cont:
        target = self.program.conts.get(label)
        if target is None:
            self.fail(where, f"jump to unknown continuation {label}")
            raise AssertionError
        if target.function != cont.function:
            self.fail(where, f"continuation {label} belongs to function {target.function}, not "
                      f"{cont.function}: continuations are local to their function")
        return target

    def check_cont(self, cont: ir.Cont) -> None:
        where = f"continuation {cont.label}"
        for b in cont.bindings:
            self.check_value(where, cont, b)
        term = cont.terminator
        function = self.program.functions[cont.function]
        if isinstance(term, ir.Jump):
            if isinstance(term.target, ir.Ret):
                if term.target.function != cont.function:
                    self.fail(where, f"ret {term.target.function} is used inside function {cont.function}; "
                              "a return continuation is only usable in its own function")
                self.check_args(where, f"ret {cont.function}", [function.result], term.args)
            elif isinstance(term.target, ir.Exn):
                if term.target.function != cont.function:
                    self.fail(where, f"exn {term.target.function} is used inside function {cont.function}; "
                              "an exception continuation is only usable in its own function")
                self.check_args(where, f"exn {cont.function}", [EXN], term.args)
            elif term.target in self.returns:
                owner, t = self.returns[term.target]
                if owner != cont.function:
                    self.fail(where, f"return point {term.target} belongs to function {owner}")
                self.check_args(where, f"return point {term.target}", [t], term.args)
            else:
                target = self.check_label(where, cont, term.target)
                self.check_args(where, f"continuation {target.label}", [p.type for p in target.params], term.args)
        elif isinstance(term, ir.Branch):
            if term.condition.type != BOOL:
                self.fail(where, f"branch condition has type {show_type(term.condition.type)}, not bool")
            for label in (term.if_true, term.if_false):
                if self.check_label(where, cont, label).params:
                    self.fail(where, f"branch target {label} takes parameters")
        elif isinstance(term, ir.Switch):
            if term.value.type != INT:
                self.fail(where, f"switch on a value of type {show_type(term.value.type)}, not int")
            values = [v for v, _ in term.cases]
            if len(set(values)) != len(values):
                self.fail(where, "a switch has two cases for one value")
            for label in term.labels:
                if self.check_label(where, cont, label).params:
                    self.fail(where, f"switch target {label} takes parameters")
        elif isinstance(term, ir.TailCall):
            callee = self.known(where, term.function)
            self.check_args(where, f"function {callee.name}", [p.type for p in callee.params], term.args)
            if callee.result != function.result:
                self.fail(where, f"tail call of {callee.name} returns {show_type(callee.result)} but "
                          f"{cont.function} returns {show_type(function.result)}")
        else:
            result = self.check_apply(where, term.closure, term.args)
            if result != function.result:
                self.fail(where, f"tail call returns {show_type(result)} but {cont.function} returns "
                          f"{show_type(function.result)}")

    def known(self, where: str, name: str) -> ir.Function:
        f = self.program.functions.get(name)
        if f is None:
            self.fail(where, f"call of unknown function {name}")
            raise AssertionError
        return f

    def check_apply(self, where: str, closure: ir.Operand, args: tuple[ir.Operand, ...]) -> TCon:
        """A curried application: each argument takes one arrow off the closure's type."""
        t, params = closure.type, []
        for _ in args:
            if t.name != "->":
                self.fail(where, f"apply of {show_type(closure.type)} to {len(args)} arguments")
            params.append(t.args[0])
            t = t.args[1]  # type: ignore[assignment]
        if not args:
            self.fail(where, "apply to no arguments")
        self.check_args(where, "closure", params, args)  # type: ignore[arg-type]
        return t

    def check_full(self, where: str, function: str, full: str, closure_type: TCon, closed: bool) -> None:
        """`full`: the function of n > 1 parameters calling which is applying a closure of
        `function` to them all (`MakeClosure.full`, `Function.full`)."""
        f = self.known(where, full)
        params = f.params[1:] if closed else f.params
        if len(params) < 2 or ir.curried_type(params, f.result) != closure_type:
            self.fail(where, f"full {full} of type {show_type(ir.curried_type(params, f.result))} does not take all the "
                      f"arguments of a {show_type(closure_type)}")
        if closed and f.params[0].type != closure_type:
            self.fail(where, f"full {full} does not take the closure record first")
        if not closed and f.parent != self.known(where, function).parent:
            self.fail(where, f"full {full} is not a sibling of {function}")

    def check_handler(self, where: str, cont: ir.Cont, handler: str) -> None:
        target = self.check_label(where, cont, handler)
        if [p.type for p in target.params] != [EXN]:
            self.fail(where, f"handler {handler} must take one parameter of type exn")

    def check_value(self, where: str, cont: ir.Cont, b: ir.Binding) -> None:
        v, t = b.value, b.var.type
        expected: TCon | None = None
        handler = ir.handler_of(v)
        if handler is not None:
            self.check_handler(where, cont, handler)
        if isinstance(v, ir.Prim) and v.op in GENERIC:
            problem = GENERIC[v.op].check([a.type for a in v.args], t)
            if problem is not None:
                self.fail(where, f"primitive {v.op} {problem}")
        elif isinstance(v, ir.Prim):
            op = PRIMOPS.get(v.op)
            if op is None:
                self.fail(where, f"unknown primitive {v.op}")
                return
            self.check_args(where, f"primitive {v.op}", list(op.params), v.args)
            expected = None if never_returns(v.op) else op.result
        elif isinstance(v, ir.MakeBlock):
            if not is_data(t):
                self.fail(where, f"a block of type {show_type(t)}, which is not a data type")
        elif isinstance(v, ir.SetField):
            if not is_data(v.record.type) and v.record.type.name != "array":
                self.fail(where, f"set_field of {show_type(v.record.type)}, which is not a data type")
            expected = UNIT
        elif isinstance(v, ir.Call):
            callee = self.known(where, v.function)
            self.check_args(where, f"function {callee.name}", [p.type for p in callee.params], v.args)
            expected = callee.result
        elif isinstance(v, ir.Apply):
            expected = self.check_apply(where, v.closure, v.args)
        elif isinstance(v, ir.MakeClosure):
            f = self.known(where, v.function)
            expected = f.params[0].type if self.program.closed else ir.curried_type(f.params, f.result)
            if not self.program.closed and (len(f.params) != 1 or v.captured):
                self.fail(where, f"closure of {f.name}: only unary functions are values, captures are implicit")
            if v.full is not None and self.program.closed:
                self.fail(where, "a closed program's closures have no full (their code function has)")
            if v.full is not None:
                self.check_full(where, v.function, v.full, expected, False)
        elif isinstance(v, ir.MakeTuple):
            expected = TCon("*", tuple(i.type for i in v.items))
        elif isinstance(v, ir.Field):
            if v.record.type.name == "*":
                if not 0 <= v.index < len(v.record.type.args):
                    self.fail(where, f"field {v.index} of a {len(v.record.type.args)}-tuple")
                expected = v.record.type.args[v.index]  # type: ignore[assignment]
            elif not (self.program.closed and v.record.type.name == "->") and not is_data(v.record.type):
                self.fail(where, f"field of {show_type(v.record.type)}, which is not a tuple or data")
        elif isinstance(v, (ir.GlobalLoad, ir.GlobalStore)):
            expected = self.check_global(where, v)
        else:
            target = self.check_label(where, cont, v.target)
            self.check_args(where, f"continuation {target.label}", [p.type for p in target.params], v.args)
        if expected is not None and expected != t:
            self.fail(where, f"{b.var.name} is declared {show_type(t)} but its value has type {show_type(expected)}")


    def check_global(self, where: str, v: ir.GlobalLoad | ir.GlobalStore) -> TCon:
        """A global exists (only closed programs have any) and is used at its type."""
        t = self.program.globals.get(v.name)
        if t is None:
            self.fail(where, f"global {v.name} is not declared")
            raise AssertionError
        if isinstance(v, ir.GlobalLoad):
            return t
        self.check_args(where, f"global_store {v.name}", [t], (v.value,))
        return UNIT


    def check_globals_stored_once(self) -> None:
        p = self.program
        conts = [p.conts[label] for label in function_conts(p, p.main)]
        on_cycle = nodes_on_cycles({c.label: list(c.successor_labels) for c in conts})
        stored: set[str] = set()
        for cont in p.conts.values():
            for b in cont.bindings:
                if not isinstance(b.value, ir.GlobalStore):
                    continue
                where = f"continuation {cont.label}"
                if cont.function != p.main:
                    self.fail(where, f"global {b.value.name} is stored outside main")
                if cont.label in on_cycle:
                    self.fail(where, f"global {b.value.name} is stored in a loop")
                if b.value.name in stored:
                    self.fail(where, f"global {b.value.name} is stored twice")
                stored.add(b.value.name)


def verify(program: Program) -> None:
    """Raise `VerifyError` with a message naming the place and the broken rule."""
    Verifier(program).run()

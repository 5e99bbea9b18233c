"""CPS conversion: the monomorphic typed AST to the CPS IR.

Control flow becomes continuations (`if` in tail position: a branch to two continuations; `if`
as a value: a `callc` whose branches jump to its return point); values stay direct style in ANF.
A `let`-bound `fun x y -> e` becomes a known two-parameter function: saturated calls are direct
`call`s (or `tailcall`s in tail position); using it as a value makes a curried closure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Union

from pyrsistent import pmap

from cpsc.cps import ir
from cpsc.cps.primops import COMPARABLE, COMPARISON_NAMES, NEVER_RETURN, PRIMOPS
from cpsc.cps.program import Program
from cpsc.cps.sites import DebugSites
from cpsc.mono.mono import EXIT_HOOK
from cpsc.semantics.builtins import PRIMITIVE_TYPES, UNORDERED
from cpsc.support.scope import Scope
from cpsc.syntax import ast, recursive_values
from cpsc.syntax.diagnostics import CompileError, Span
from cpsc.to_cps.builder import Builder
from cpsc.to_cps.compare import comparison_function
from cpsc.to_cps.debug import SiteRecorder
from cpsc.to_cps.match import convert_match
from cpsc.types.datatypes import DataTypes
from cpsc.types.prelude import PRELUDE_FILE
from cpsc.types.types import BOOL, EXN, EXNID, INT, STRING, UNIT, TCon, arrow

_SOURCE_TO_OP = {op.source: op.name for op in PRIMOPS.values()
                 if op.source not in COMPARISON_NAMES}
_SOURCE_TO_OP.update({"==": "eq", "!=": "ne", "Array.make": "array_make", "Array.length": "array_length",
                      "Array.get": "array_get", "Array.set": "array_set", "String.get": "string_get", "fl_hash_with": "hash", "Array.unsafe_get": "array_unsafe_get",
                      "Array.unsafe_set": "array_unsafe_set"})
# Operations that can fail: tested first (`Converter.check`), then done unchecked.
_CHECKED = {"div_int": "div_int", "mod_int": "mod_int", "array_get": "array_unsafe_get",
            "array_set": "array_unsafe_set", "string_get": "string_unsafe_get"}
_GENERIC_RESULT = {"hash", "array_make", "array_unsafe_get", "array_length", "array_unsafe_set"}


@dataclass(frozen=True)
class Known:
    """A `let`-bound function of `arity` parameters, called directly when saturated."""

    function: str
    param_types: tuple[TCon, ...]
    result: TCon

    @property
    def curried_type(self) -> TCon:
        t = self.result
        for p in reversed(self.param_types):
            t = arrow(p, t)
        return t


_Entry = Union[ir.Operand, Known]


def _arrow_parts(t: TCon, count: int) -> tuple[list[TCon], TCon]:
    params: list[TCon] = []
    for _ in range(count):
        params.append(t.args[0])  # type: ignore[arg-type]
        t = t.args[1]  # type: ignore[assignment]
    return params, t


def primitive_arity(name: str) -> int:
    return PRIMITIVE_TYPES[name].count("->")


class Converter(Builder):
    def __init__(self, datatypes: DataTypes | None = None, sites: DebugSites | None = None) -> None:
        super().__init__(datatypes or DataTypes())
        # with -g: where each call and raise is in the source, for backtraces and DWARF
        self.sites = SiteRecorder(sites) if sites is not None else None
        # the parents of a `let rec` group's functions, known before their bodies are converted:
        # in `let rec f () = g and g a b = ...`, f's body makes g's wrappers before g is defined
        self.group_parents: dict[str, str | None] = {}
        self.wrappers: dict[str, Known] = {}
        self.origins: dict[str, str] = {}  # each function made of the source: where it is written
        self.source_names: dict[str, str] = {}  # each function's name in the (monomorphic) source
        self.caught: set[str] = set()  # the names handlers give the exceptions they catch
        self.site: Span | None = None  # the application being converted (for `note_raise`)
        self.raise_argument: ast.Expr | None = None  # and its first argument

    # ---------------------------------------------------------------- functions
    def define(self, known: Known, fun: ast.Expr, env: Scope[_Entry], parent: str | None,
               noinline: bool = False) -> None:
        patterns, body = ast.fun_params(fun)
        patterns = patterns[:len(known.param_types)]
        params, binds = [], []
        for pattern, t in zip(patterns, known.param_types):
            name = ast.pattern_names(pattern)[0] if isinstance(pattern, ast.PVar) else "p"
            var = ir.Var(self.names.fresh(name), t)
            params.append(var)
            binds.append((pattern, var))
        entry = self.names.fresh(known.function + ".entry")
        # With -g, Printexc.get_callstack stays a call, whose place is the call stack's first
        if self.sites is not None and self.source_names.get(known.function) == "Printexc.get_callstack":
            noinline = True
        self.functions[known.function] = ir.Function(known.function, tuple(params), known.result, entry, parent,
                                                     noinline)
        self.origins[known.function] = f"{fun.span.file}:{fun.span.line}:{fun.span.col}"
        if self.sites is not None:
            self.sites.define(known.function, self.source_names.get(known.function, "fun"), parent, fun.span)
        saved = self.suspended()
        self.start(entry, (), known.function)
        with env.scope():
            for pattern, var in binds:
                self.bind_pattern(pattern, var, env)
            self.tail(body, ir.Ret(known.function), env)
        self.resume(saved)

    def known_for(self, name: str, fun: ast.Expr) -> Known:
        patterns, _ = ast.fun_params(fun)
        params, result = _arrow_parts(fun.ty, len(patterns))
        known = Known(self.names.fresh(name), tuple(params), result)
        self.source_names[known.function] = name
        return known

    def closure_of(self, known: Known) -> ir.Operand:
        """`closure f` for a unary f; for f of more parameters, the closure of its curried
        wrappers, taking all its arguments at once through f itself (`full f`)."""
        full = None
        if len(known.param_types) > 1:
            full, known = known.function, self.curried(known)
        return self.emit(known.function.split(".")[0] + "_closure", known.curried_type,
                         ir.MakeClosure(known.function, (), full))

    def curried(self, known: Known) -> Known:
        """Unary wrappers `f.curry1(x1) = closure f.curry2`, ..., `f.curryN(xN) = f(x1..xN)`."""
        if known.function in self.wrappers:
            return self.wrappers[known.function]
        defined = self.functions.get(known.function)
        parent = defined.parent if defined is not None else self.group_parents[known.function]
        saved = self.suspended()
        args: list[ir.Operand] = []
        first: Known | None = None
        count = len(known.param_types)
        names = [self.names.fresh(f"{known.function}.curry{i + 1}") for i in range(count)]
        for i, t in enumerate(known.param_types):
            x = ir.Var(self.names.fresh(f"x{i + 1}"), t)
            args.append(x)
            rest = Known(names[i + 1] if i + 1 < count else "", known.param_types[i + 1:], known.result)
            result = rest.curried_type
            entry = self.names.fresh(names[i] + ".entry")
            self.functions[names[i]] = ir.Function(names[i], (x,), result, entry, parent)
            self.start(entry, (), names[i])
            if i + 1 < count:
                clo = self.emit("closure", result, ir.MakeClosure(names[i + 1]))
                self.finish(ir.Jump(ir.Ret(names[i]), (clo,)))
            else:
                self.finish(ir.TailCall(known.function, tuple(args)))
            if first is None:
                first = Known(names[0], (t,), result)
            parent = names[i]
        self.resume(saved)
        assert first is not None
        self.wrappers[known.function] = first
        return first

    def primitive_function(self, name: str, t: TCon, compared: TCon | None = None) -> Known:
        """A function wrapping a primitive used as a value, e.g. `( + )`."""
        key = f"prim:{name}:{t}:{compared}"
        if key in self.wrappers:
            return self.wrappers[key]
        params, result = _arrow_parts(t, primitive_arity(name))
        known = Known(self.names.fresh("prim_" + _SOURCE_TO_OP.get(name, name if name.isalnum() else "op")),
                      tuple(params), result)
        xs = tuple(ir.Var(self.names.fresh(f"x{i + 1}"), p) for i, p in enumerate(params))
        entry = self.names.fresh(known.function + ".entry")
        self.functions[known.function] = ir.Function(known.function, xs, result, entry, None)
        saved = self.suspended()
        self.start(entry, (), known.function)
        value = self.primitive(name, list(params), list(xs), result, compared)
        self.finish(ir.Jump(ir.Ret(known.function), (value,)))
        self.resume(saved)
        self.wrappers[key] = known
        return known

    # ---------------------------------------------------------------- primitives
    def primitive(self, name: str, types: list[TCon], args: list[ir.Operand], result: TCon,
                  compared: TCon | None = None) -> ir.Operand:
        if name in ("==", "!="):
            return self.physical_equality(name, types[0], args[0], args[1])
        if name in COMPARISON_NAMES:
            return self.compare(name, compared or types[0], args[0], args[1])
        if name == "raise":
            self.note_raise(args[0], "R")
            return self.raise_value(args[0], result)
        op = _SOURCE_TO_OP[name]
        if op in _CHECKED:
            self.check(op, args)
            op = _CHECKED[op]
        typed = result if op in NEVER_RETURN or op in _GENERIC_RESULT else PRIMOPS[op].result
        return self.emit("t", typed, ir.Prim(op, tuple(args)))

    # ---------------------------------------------------------------- exceptions
    def raise_value(self, exception: ir.Operand, t: TCon) -> ir.Operand:
        """`raise e` where a value of type t is expected: the code that would use it goes in a
        continuation nothing jumps to, whose parameter stands for the value never given."""
        self.raise_to_handler(exception)
        never = ir.Var(self.names.fresh("never"), t)
        self.start(self.names.fresh("after_raise"), (never,))
        return never

    def exception(self, name: str, args: tuple[ir.Operand, ...] = ()) -> ir.Operand:
        """A value of one of OCaml's predefined exceptions (declared by the prelude)."""
        return self.construct(name, list(args), EXN)

    def check(self, op: str, args: list[ir.Operand]) -> None:
        """The test an operation that can fail makes first, raising as OCaml does: a zero
        divisor raises Division_by_zero, an index out of bounds Invalid_argument."""
        if op in ("div_int", "mod_int"):
            divisor = args[1]
            if isinstance(divisor, ir.Const) and divisor.value != 0:
                return
            ok = self.emit("nonzero", BOOL, ir.Prim("ne_int", (divisor, ir.Const(0, INT))))
            self.unless(ok, lambda: self.noted(self.exception("Division_by_zero"), "R"))
            return
        length_op = "string_length" if op == "string_get" else "array_length"
        length = self.emit("length", INT, ir.Prim(length_op, (args[0],)))
        above = self.emit("c", BOOL, ir.Prim("ge_int", (args[1], ir.Const(0, INT))))
        below = self.emit("c", BOOL, ir.Prim("lt_int", (args[1], length)))
        ok = self.emit("in_bounds", BOOL, ir.Prim("and_bool", (above, below)))
        self.unless(ok, lambda: self.noted(self.exception("Invalid_argument",
                                                          (ir.Const("index out of bounds", STRING),)), "P"))

    def noted(self, exception: ir.Operand, kind: str) -> ir.Operand:
        """An exception a primitive operation raises, its raise point noted (with -g): as
        ocamlopt's, a division's is a raise, an index's a primitive operation's."""
        self.raise_argument = None
        self.note_raise(exception, kind)
        return exception

    def note_raise(self, exception: ir.Operand, kind: str) -> None:
        """With -g, a raise's place for backtraces (`DebugSites.raise_point`): `R` a `raise`
        (`r` when it raises again the exception a handler caught), `P` a primitive operation."""
        if self.sites is None or self.site is None:
            return
        if kind == "R" and self.site.file == PRELUDE_FILE and isinstance(self.raise_argument, ast.Var):
            return  # the prelude passing an exception on (raise_notrace, the uncaught hook's)
        if kind == "R" and isinstance(self.raise_argument, ast.Var) and self.raise_argument.name in self.caught:
            kind = "r"
        where = self.sites.raise_point(kind, self.current_function, self.site)
        self.emit("u", UNIT, ir.Prim("raise_at", (exception, ir.Const(where, STRING))))

    def try_with(self, expr: ast.Try, env: Scope[_Entry], target: ir.Target) -> None:
        """`try body with cases`: the body runs with a handler continuation in scope (so none of
        its calls is a tail call); the handler matches the exception, raising it again when no
        case does. Both end passing their value to `target`."""
        handler = self.names.fresh("handler")
        exception = ir.Var(self.names.fresh("exn"), EXN)
        outer = self.handler
        self.handler = handler
        self.tail(expr.body, target, env)
        self.handler = outer
        self.start(handler, (exception,))
        self.caught.update(case.pattern.name for case in expr.handler.cases
                           if isinstance(case.pattern, (ast.PVar, ast.PAlias)))
        with env.scope():
            env.bind(ast.EXCEPTION_VAR, exception)
            self.match(expr.handler, env, target)

    def physical_equality(self, name: str, t: TCon, a: ir.Operand, b: ir.Operand) -> ir.Operand:
        if t.name in COMPARABLE and t.name != "string":
            return self.emit("c", BOOL, ir.Prim(f"{'eq' if name == '==' else 'ne'}_{t.name}", (a, b)))
        same = self.emit("c", BOOL, ir.Prim("phys_eq", (a, b)))
        return same if name == "==" else self.emit("c", BOOL, ir.Prim("not", (same,)))

    def compare(self, name: str, t: TCon, a: ir.Operand, b: ir.Operand) -> ir.Operand:
        """`=`, `<`, `compare`, ... at type t (`Bytes.t` kept, see `ast.Var.compared`): a
        primitive on a base type, otherwise a call of the comparison function made for t
        (`cpsc.to_cps.compare`), whose result (-1, 0, 1, or
        UNORDERED when nan was met and the comparison is not `compare`) is tested as OCaml's
        caml_equal, caml_lessthan, ... do."""
        short = COMPARISON_NAMES[name]
        if t.name in COMPARABLE:
            return self.emit("c", INT if short == "compare" else BOOL, ir.Prim(f"{short}_{t.name}", (a, b)))

        # (it raises only comparing two exceptions that hold functions)
        order = self.emit("c", INT, ir.Call(comparison_function(self, t, short == "compare"), (a, b), self.handler))
        if short == "compare":
            return order
        test = self.emit("c", BOOL, ir.Prim(f"{short}_int", (order, ir.Const(0, INT))))
        if short not in ("lt", "le"):
            return test
        ordered = self.emit("c", BOOL, ir.Prim("ne_int", (order, ir.Const(UNORDERED, INT))))
        return self.emit("c", BOOL, ir.Prim("and_bool", (test, ordered)))

    # ---------------------------------------------------------------- patterns and lets
    def bind_pattern(self, pattern: ast.Pattern, value: ir.Operand, env: Scope[_Entry]) -> None:
        if isinstance(pattern, ast.PVar):
            env.bind(pattern.name, value)
            if self.sites is not None and isinstance(value, ir.Var):
                self.sites.sites.variables.setdefault(value.name, pattern.name)
        elif isinstance(pattern, ast.PTuple):
            for i, item in enumerate(pattern.items):
                if ast.pattern_names(item):
                    field = self.emit(_hint(item), item.ty, ir.Field(value, i))
                    self.bind_pattern(item, field, env)
        elif isinstance(pattern, ast.PAnnot):
            self.bind_pattern(pattern.pattern, value, env)

    def let(self, expr: ast.Let, env: Scope[_Entry],
            value_of: Callable[[ast.Expr, Scope[_Entry]], ir.Operand] | None = None) -> None:
        """Convert the bindings of `let [rec] ... in` and bind their names in `env` (for the body);
        `value_of` converts the values that are not functions (`self.value` by default)."""
        value_of = value_of or self.value
        if expr.is_rec and not all(isinstance(b.value, ast.Fun) for b in expr.bindings):
            self.recursive_values(expr, env, value_of)
            return
        functions = [(b.pattern.name, b.value, self.known_for(b.pattern.name, b.value)) for b in expr.bindings
                     if isinstance(b.value, ast.Fun) and isinstance(b.pattern, ast.PVar)]
        if expr.is_rec:
            for name, _, known in functions:
                env.bind(name, known)
                self.group_parents[known.function] = self.current_function
        for _, fun, known in functions:
            self.define(known, fun, env, self.current_function)
        values = [(b, value_of(b.value, env)) for b in expr.bindings if not isinstance(b.value, ast.Fun)
                  or not isinstance(b.pattern, ast.PVar)]
        if not expr.is_rec:
            for name, _, known in functions:
                env.bind(name, known)
        for binding, value in values:
            self.bind_pattern(binding.pattern, value, env)

    def recursive_values(self, expr: ast.Let, env: Scope[_Entry],
                         value_of: Callable[[ast.Expr, Scope[_Entry]], ir.Operand]) -> None:
        """`let rec` of values (`cpsc.syntax.recursive_values`): the plain values, a dummy block
        for each block value, the functions, then each block built and copied into its dummy."""
        group = recursive_values.group_of(expr.bindings)
        for binding in group.plain:
            self.bind_pattern(binding.pattern, value_of(binding.value, env), env)
        dummies = []
        for binding in group.blocks:
            name, t = ast.pattern_names(binding.pattern)[0], binding.value.ty
            size = self.block_size(recursive_values.final_expression(binding.value))
            dummy = self.emit(name, t, ir.Prim("dummy_array" if t.name == "array" else "dummy_block",
                                               (ir.Const(size, INT),)))
            self.bind_pattern(binding.pattern, dummy, env)
            dummies.append((dummy, size))
        self.let(ast.Let(True, group.functions, expr.body, expr.span), env, value_of)
        for binding, (dummy, size) in zip(group.blocks, dummies):
            value = value_of(binding.value, env)
            self.emit("u", UNIT, ir.Prim("update_dummy", (dummy, value, ir.Const(size, INT))))

    def block_size(self, expr: ast.Expr) -> int:
        """The slots of the block `expr` builds (an array's length slot among them)."""
        if isinstance(expr, ast.Tuple):
            return len(expr.items)
        if isinstance(expr, ast.Record):
            return len(self.datatypes.types[expr.ty.name].fields)
        if isinstance(expr, ast.ArrayLit):
            if expr.ty.args[0].name in ("bool", "char", "unit"):
                raise CompileError(expr.span, "an array of bools, chars or units defined through itself "
                                   "is not supported")
            return len(expr.items) + 1
        assert isinstance(expr, ast.Construct)
        info = self.datatypes.constructors[expr.name]
        if info.exception is not None or info.constant:
            raise CompileError(expr.span, "This kind of expression is not allowed as right-hand side of `let rec'")
        return len(expr.args) + (1 if info.tagged else 0)

    def let_chain(self, expr: ast.Let, env: Scope[_Entry]) -> ast.Expr:
        """Convert the bindings of `let ... in let ... in body` in a loop; returns `body`, whose
        conversion must follow while the names are bound (the caller undoes the scope)."""
        body: ast.Expr = expr
        while isinstance(body, ast.Let):
            self.let(body, env)
            body = body.body
        return body

    def effects(self, expr: ast.Expr, env: Scope[_Entry]) -> ast.Expr:
        """Convert `e1; e2; ...; en` up to `en` in a loop, and return `en`."""
        while isinstance(expr, ast.Seq):
            self.value(expr.first, env)
            expr = expr.second
        return expr

    # ---------------------------------------------------------------- expressions
    def value(self, expr: ast.Expr, env: Scope[_Entry]) -> ir.Operand:
        if isinstance(expr, ast.Const):
            return ir.Const(expr.value, expr.ty)
        if isinstance(expr, ast.Var):
            return self.variable(expr, env)
        if isinstance(expr, ast.Tuple):
            return self.emit("tup", expr.ty, ir.MakeTuple(tuple(self.values(expr.items, env))))
        if isinstance(expr, ast.Let):
            mark = env.mark()
            operand = self.value(self.let_chain(expr, env), env)
            env.undo(mark)
            return operand
        if isinstance(expr, ast.Seq):
            return self.value(self.effects(expr, env), env)
        if isinstance(expr, ast.Fun):
            known = self.known_for("fun", expr)
            self.define(known, expr, env, self.current_function)
            return self.closure_of(known)
        if isinstance(expr, ast.App):
            result = self.application(expr, env, None)
            assert result is not None
            return result
        if isinstance(expr, ast.If):
            return self.if_value(expr, env)
        if isinstance(expr, ast.Annot):
            return self.value(expr.expr, env)
        return self.data_value(expr, env)

    def values(self, exprs: Sequence[ast.Expr], env: Scope[_Entry]) -> list[ir.Operand]:
        """The values of `exprs`, evaluated right to left as ocamlopt evaluates the arguments of
        an application and the components of a tuple, constructor, array or record (the
        exceptions to that order are made explicit by `cpsc.mono.order`)."""
        operands = [self.value(e, env) for e in reversed(exprs)]
        operands.reverse()
        return operands

    def data_value(self, expr: ast.Expr, env: Scope[_Entry]) -> ir.Operand:
        if isinstance(expr, ast.Construct):
            return self.construct(expr.name, self.values(expr.args, env), expr.ty, env)
        if isinstance(expr, ast.Record):
            return self.record(expr, env)
        if isinstance(expr, ast.GetField):
            record = self.value(expr.record, env)
            return self.emit("field", expr.ty, ir.Field(record, self.datatypes.fields[expr.name].index))
        if isinstance(expr, ast.SetField):
            value = self.value(expr.value, env)
            record = self.value(expr.record, env)
            return self.emit("u", UNIT, ir.SetField(record, self.datatypes.fields[expr.name].index, value))
        if isinstance(expr, ast.ArrayLit):
            return self.array_literal(expr, env)
        if isinstance(expr, ast.While):
            return self.while_loop(expr, env)
        if isinstance(expr, ast.For):
            return self.for_loop(expr, env)
        if isinstance(expr, ast.Match):
            return self.region_value(expr, env, self.tail_of)
        if isinstance(expr, ast.Try):
            return self.region_value(expr, env, self.tail_of)
        if isinstance(expr, ast.LetException):
            with env.scope():
                self.declare_local_exception(expr, env)
                return self.value(expr.body, env)
        raise AssertionError(expr)

    def declare_local_exception(self, expr: ast.LetException, env: Scope[_Entry]) -> None:
        """`let exception E`: a new identity for E, which its body's `E`s are made and matched with."""
        key = expr.declaration.name
        declared = ir.Const(self.datatypes.constructors[key].exception, EXNID)
        identity = self.emit(expr.declaration.shown or key, EXNID, ir.Prim("fresh_exception", (declared,)))
        env.bind(ast.local_exception_identity(key), identity)

    def tail_of(self, expr: ast.Expr, env: Scope[_Entry], target: ir.Target) -> None:
        self.tail(expr, target, env)

    def construct(self, key: str, args: list[ir.Operand], t: TCon, env: Scope[_Entry] | None = None) -> ir.Operand:
        info = self.datatypes.constructors[key]
        if info.exception is not None:
            return self.emit(info.name, t, ir.MakeBlock((self.exception_identity(key, env), *args)))
        if info.constant:
            return self.emit(info.name if info.name.isalpha() else "nil", t,
                             ir.Prim("immediate", (ir.Const(info.index, INT),)))
        items = ([ir.Const(info.index, INT)] if info.tagged else []) + args
        return self.emit(info.name if info.name.isalpha() else "cons", t, ir.MakeBlock(tuple(items)))

    def record(self, expr: ast.Record, env: Scope[_Entry]) -> ir.Operand:
        """The base of `{ r with ... }` first, then the fields given, right to left in declaration
        order (whatever order they are written in, as ocamlopt)."""
        datatype = self.datatypes.types[expr.ty.name]
        base = None if expr.base is None else self.value(expr.base, env)
        fields = sorted(((self.datatypes.fields[key].index, value) for key, value in expr.fields), key=lambda f: f[0])
        given = dict(zip((index for index, _ in fields), self.values([value for _, value in fields], env)))
        items: list[ir.Operand] = []
        for f in datatype.fields:
            if f.index in given:
                items.append(given[f.index])
            else:
                assert base is not None
                items.append(self.emit(f.name, self.datatypes.field_type(f.key, expr.ty), ir.Field(base, f.index)))
        return self.emit("record", expr.ty, ir.MakeBlock(tuple(items), datatype.mutable))

    def array_literal(self, expr: ast.ArrayLit, env: Scope[_Entry]) -> ir.Operand:
        if not expr.items:
            return self.emit("array", expr.ty, ir.Prim("array_empty", ()))
        first, *rest = self.values(expr.items, env)
        array = self.emit("array", expr.ty, ir.Prim("array_make", (ir.Const(len(expr.items), INT), first)))
        for i, item in enumerate(rest, 1):
            self.emit("u", UNIT, ir.Prim("array_unsafe_set", (array, ir.Const(i, INT), item)))
        return array

    def while_loop(self, expr: ast.While, env: Scope[_Entry]) -> ir.Operand:
        """A loop of continuations: `while` tests, `do` runs the body and jumps back."""
        head, body, done = self.names.fresh("while"), self.names.fresh("do"), self.names.fresh("done")
        self.finish(ir.Jump(head, ()))
        self.start(head)
        self.finish(ir.Branch(self.value(expr.condition, env), body, done))
        self.start(body)
        self.value(expr.body, env)
        self.finish(ir.Jump(head, ()))
        self.start(done)
        return ir.Const(None, UNIT)

    def for_loop(self, expr: ast.For, env: Scope[_Entry]) -> ir.Operand:
        """`for i = a to b`: a loop continuation whose parameter is `i`. As OCaml's, it tests
        `i = b` before stepping, so a loop up to max_int ends."""
        start, stop = self.value(expr.start, env), self.value(expr.stop, env)
        enter, head, step, done = (self.names.fresh(n) for n in ("for", "for_body", "for_next", "for_done"))
        i = ir.Var(self.names.fresh(expr.var), INT)
        first = self.emit("c", BOOL, ir.Prim("le_int" if expr.up else "ge_int", (start, stop)))
        self.finish(ir.Branch(first, enter, done))
        self.start(enter)
        self.finish(ir.Jump(head, (start,)))
        self.start(head, (i,))
        with env.scope():
            env.bind(expr.var, i)
            self.value(expr.body, env)
        last = self.emit("c", BOOL, ir.Prim("eq_int", (i, stop)))
        self.finish(ir.Branch(last, done, step))
        self.start(step)
        following = self.emit(expr.var, INT, ir.Prim("add_int" if expr.up else "sub_int", (i, ir.Const(1, INT))))
        self.finish(ir.Jump(head, (following,)))
        self.start(done)
        return ir.Const(None, UNIT)

    def match(self, expr: ast.Match, env: Scope[_Entry], target: ir.Target) -> None:

        convert_match(self, expr, env, target)

    def region_value(self, expr: ast.Expr, env: Scope[_Entry],
                     convert: Callable[[ast.Expr, Scope[_Entry], ir.Target], None]) -> ir.Operand:
        """The value of an expression converted in tail position, in a region of its own:
        `callc region() ret join`, where the region's paths end jumping to `join`."""
        join = self.names.fresh("join")
        region = self.names.fresh("region")
        saved = self.suspended()
        self.current_function = saved[1]
        self.start(region)
        convert(expr, env, join)
        self.resume(saved)
        return self.emit("v", expr.ty, ir.CallC(region, (), join))

    def variable(self, expr: ast.Var, env: Scope[_Entry]) -> ir.Operand:
        entry = env.get(expr.name)
        if isinstance(entry, Known):
            return self.closure_of(entry)
        if entry is not None:
            return entry
        return self.closure_of(self.primitive_function(expr.name, expr.ty, expr.compared))

    def if_value(self, expr: ast.If, env: Scope[_Entry]) -> ir.Operand:
        """`callc if() ret join`, the branches jumping to the return point `join`."""
        condition = self.value(expr.condition, env)
        join = self.names.fresh("join")
        test = self.names.fresh("if")
        saved = self.suspended()
        self.current_function = saved[1]
        self.branch(condition, expr, env, join, test)
        self.resume(saved)
        return self.emit("v", expr.ty, ir.CallC(test, (), join))

    def branch(self, condition: ir.Operand, expr: ast.If, env: Scope[_Entry], target: ir.Target,
               label: str | None = None) -> None:
        then_label, else_label = self.names.fresh("then"), self.names.fresh("else")
        if label is not None:
            self.start(label)
        self.finish(ir.Branch(condition, then_label, else_label))
        self.start(then_label)
        self.tail(expr.then_branch, target, env)
        self.start(else_label)
        self.tail(expr.else_branch, target, env)

    def tail(self, expr: ast.Expr, target: ir.Target, env: Scope[_Entry]) -> None:
        """Convert `expr` so that its value is passed to `target`; this finishes the block."""
        if isinstance(expr, ast.If):
            self.branch(self.value(expr.condition, env), expr, env, target)
        elif isinstance(expr, ast.Let):
            mark = env.mark()
            self.tail(self.let_chain(expr, env), target, env)
            env.undo(mark)
        elif isinstance(expr, ast.Seq):
            self.tail(self.effects(expr, env), target, env)
        elif _is_raise(expr) and env.get("raise") is None:
            assert isinstance(expr, ast.App)
            exception = self.value(expr.argument, env)
            self.site, self.raise_argument = expr.span, expr.argument
            self.note_raise(exception, "R")
            self.raise_to_handler(exception)
        elif isinstance(expr, ast.App) and isinstance(target, ir.Ret) and self.handler is None:
            result = self.application(expr, env, target)
            if result is not None:
                self.finish(ir.Jump(target, (result,)))
        elif isinstance(expr, ast.Annot):
            self.tail(expr.expr, target, env)
        elif isinstance(expr, ast.Match):
            self.match(expr, env, target)
        elif isinstance(expr, ast.Try):
            self.try_with(expr, env, target)
        elif isinstance(expr, ast.LetException):
            with env.scope():
                self.declare_local_exception(expr, env)
                self.tail(expr.body, target, env)
        else:
            self.finish(ir.Jump(target, (self.value(expr, env),)))

    def application(self, expr: ast.App, env: Scope[_Entry], tail: ir.Ret | None) -> ir.Operand | None:
        """A call; in tail position (tail is the current `ret`) it may end the block and return None."""
        head, arg_exprs = ast.applied(expr)
        loc = f"{expr.span.file}:{expr.span.line}:{expr.span.col}"
        if self.sites is not None and not _made_up(head):
            self.sites.call(loc, self.current_function, expr.span)
        entry = env.get(head.name) if isinstance(head, ast.Var) else None
        if isinstance(head, ast.Var) and entry is None and len(arg_exprs) >= primitive_arity(head.name):
            count = primitive_arity(head.name)
            args = self.values(arg_exprs, env)
            types, result = _arrow_parts(head.ty, count)
            self.site, self.raise_argument = expr.span, arg_exprs[0] if arg_exprs else None
            value = self.primitive(head.name, types, args[:count], result, head.compared)
            return self.apply_rest(value, args[count:], tail, loc)
        if isinstance(entry, Known) and len(arg_exprs) >= len(entry.param_types):
            count = len(entry.param_types)
            args = self.values(arg_exprs, env)
            if tail is not None and len(args) == count and not self.raises_again(entry):
                self.finish(ir.TailCall(entry.function, tuple(args), loc))
                return None
            value = self.emit("r", entry.result, ir.Call(entry.function, tuple(args[:count]), self.handler, loc))
            return self.apply_rest(value, args[count:], tail, loc)
        args = self.values(arg_exprs, env)  # the function last, as ocamlopt
        function = self.value(head, env)
        return self.apply_rest(function, args, tail, loc)

    def raises_again(self, entry: Known) -> bool:
        """With -g, whether `entry` is Printexc.raise_with_backtrace, whose call is where the
        exception is raised again (as OCaml's primitive), never a tail call that leaves no
        frame."""
        source = self.source_names.get(entry.function, "")
        return self.sites is not None and source.split("<")[0] == "Printexc.raise_with_backtrace"

    def apply_rest(self, function: ir.Operand, args: list[ir.Operand], tail: ir.Ret | None,
                   loc: str) -> ir.Operand | None:
        """The application of a function value to `args`, all at once (see `ir.Apply`)."""
        if not args:
            return function
        if tail is not None:
            self.finish(ir.TailApply(function, tuple(args), loc))
            return None
        t = function.type
        for _ in args:
            t = t.args[1]  # type: ignore[assignment]
        return self.emit("r", t, ir.Apply(function, tuple(args), self.handler, loc))

    # ---------------------------------------------------------------- program
    def program(self, expr: ast.Expr) -> Program:
        main = self.names.fresh("main")
        entry = self.names.fresh("main.entry")
        self.functions[main] = ir.Function(main, (), UNIT, entry, None)
        if self.sites is not None:
            self.sites.sites.toplevel.add(main)
        self.current_function = main
        self.start(entry, (), main)
        env: Scope[_Entry] = Scope()
        while isinstance(expr, ast.Let):  # the top-level declarations, prelude first
            self.let(expr, env, self.outlined)
            expr = expr.body
        self.tail(expr, ir.Ret(main), env)
        return Program(pmap(self.functions), pmap(self.conts), main)

    def outlined(self, expr: ast.Expr, env: Scope[_Entry]) -> ir.Operand:
        """The value of a top-level declaration (`let () = e`, `let x = e`): unless it is an
        atom or a function, computed by a `noinline` function of its own, called once from main. Otherwise
        main would hold (and LLVM inline into it) the code of every statement of the program,
        and optimising one function that grows with the program costs more than linear time."""
        if isinstance(expr, (ast.Const, ast.Var, ast.Fun)):  # a function: its closure
            return self.value(expr, env)
        known = Known(self.names.fresh(f"toplevel_{expr.span.line}"), (), expr.ty)
        if self.sites is not None:
            self.sites.sites.toplevel.add(known.function)
        self.define(known, expr, env, self.current_function, noinline=True)
        return self.emit("r", expr.ty, ir.Call(known.function, ()))


def _made_up(head: ast.Expr) -> bool:
    """A call monomorphisation adds at the program's end (of the `at_exit` hook's functions):
    no frame of a backtrace."""
    return isinstance(head, ast.GetField) and head.name.startswith(EXIT_HOOK + ".")


def _is_raise(expr: ast.Expr) -> bool:
    """`raise e` (the primitive, unless the program binds its own `raise`: the caller checks)."""
    return isinstance(expr, ast.App) and isinstance(expr.function, ast.Var) and expr.function.name == "raise"


def _hint(pattern: ast.Pattern) -> str:
    names = ast.pattern_names(pattern)
    return names[0] if len(names) == 1 and isinstance(pattern, ast.PVar) else "field"


def cps_convert(program: ast.Program, sites: DebugSites | None = None) -> Program:
    """The monomorphic program (`cpsc.mono`) as a CPS IR program whose main function is `main`;
    with `sites` (-g), each raise notes its place (`raise_at`) and `sites` learns where each
    function and call is in the source."""
    return Converter(program.datatypes, sites).program(program.body)


def cps_convert_with_origins(program: ast.Program) -> tuple[Program, dict[str, str]]:
    """`cps_convert`, and where in the source each function made of it is written
    (`file:line:col`; the instances of a polymorphic function share theirs). Two programs
    converted from the same declarations name them differently when other code (more of the
    prelude, say) takes their names first; their origins say which is which."""
    converter = Converter(program.datatypes)
    return converter.program(program.body), converter.origins

"""`cse`: global value numbering of pure values, with VN-phis (seed 004).

    cont f.entry() =                           cont f.entry() =
      let t: int = mul_int(x, 3)                 let t: int = mul_int(x, 3)
      let t.1: int = add_int(t, 1)               let t.1: int = add_int(t, 1)
      let t.2: int = mul_int(x, 3)      =>       let t.4: int = mul_int(t.1, t.1)
      let t.3: int = add_int(t.2, 1)             jump (ret f)(t.4)
      let t.4: int = mul_int(t.1, t.3)
      jump (ret f)(t.4)

Each function is numbered on its own. A value number is the name of the first variable (in
reverse postorder) found to hold the value, or a constant. Pure primitives and loads of
immutable fields are numbered by their operation and their operands' numbers; `x + c` and
`x - c` by `x`'s base and a constant offset, so `k + 1 - 1` is `k`. A continuation parameter
is a VN-phi: when every jump to it passes one number (its own aside), it is that number.
Numbering is optimistic, as in Simpson's RPO algorithm: a loop parameter is first assumed to
equal what enters the loop, and the numbering is repeated until nothing changes, so a loop
parameter that provably never changes collapses to its initial value.

Then a walk of each dominator tree replaces every variable whose number is held by a
dominating variable (or is a constant) with that variable: the binding goes, or the parameter
becomes dead and `simplify` drops it.

Relies on: unique names (renaming is program-wide, nested functions included) and a verified
input (a parameter's incoming values are the arguments of the jumps to it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable

from cpsc.cps import ir
from cpsc.cps.analysis import (
    FunctionGraph,
    ImmutableFields,
    first_exit,
    fold_primitive,
    immutable_fields,
    incoming_arguments,
)
from cpsc.cps.primops import evaluate, is_pure, never_returns
from cpsc.cps.program import Program
from cpsc.cps.rewrite import cont_definitions
from cpsc.opt.context import Found, PassContext, replace_found

Stats = Counter[str]

# A value number: a variable's name, or a constant's key (see `_constant_number`).
Number = Hashable

COMMUTATIVE = frozenset({"add_int", "mul_int", "and_int", "or_int", "xor_int", "add_float", "mul_float",
                         "and_bool"} | {f"{op}_{t}" for op in ("eq", "ne") for t in
                                        ("int", "float", "bool", "char", "string", "unit")})
MAX_ROUNDS = 20


def _constant_number(c: ir.Const) -> Number:
    # 1 == True and 0.0 == -0.0 in Python: the type and the spelling keep them apart.
    return ("const", c.type, type(c.value).__name__, repr(c.value))


def numberable(value: ir.Value, record_type: ir.Type | None, immutable: ImmutableFields) -> bool:
    """Whether equal instances of `value` always give equal results and may share one
    evaluation: pure primitives, and loads from tuples and of immutable fields."""
    if isinstance(value, ir.Prim):
        return is_pure(value.op) and not never_returns(value.op)
    if isinstance(value, ir.Field):
        return record_type is not None and (record_type.name == "*" or (record_type, value.index) in immutable)
    return False


class _Numbering:
    """The value numbers of one function's variables."""

    def __init__(self, program: Program, graph: FunctionGraph,
                 incoming: dict[str, list[tuple[ir.Operand, ...]] | None], immutable: ImmutableFields) -> None:
        self.program = program
        self.graph = graph
        self.incoming = incoming
        self.immutable = immutable
        self.number: dict[str, Number] = {}
        self.offsets: dict[Number, tuple[Number, int]] = {}  # number of `x + c` -> (x's, c)
        self.constants: dict[Number, ir.Const] = {}
        self.outer: dict[Number, ir.Var] = {}  # held by a variable that dominates the function
        self.local = {v.name for label in graph.labels for v in cont_definitions(program.cont_table[label])}

    def of(self, o: ir.Operand) -> Number | None:
        """An operand's number (None: not numbered yet, on a back edge in the first round)."""
        if isinstance(o, ir.Const):
            key = _constant_number(o)
            self.constants[key] = o
            return key
        if o.name not in self.local:
            self.outer[o.name] = o  # a parameter, a variable of an enclosing function: itself
            return o.name
        return self.number.get(o.name)

    def run(self) -> None:
        """Number to a fixed point, optimistically; pessimistically if none comes."""
        for optimistic in (True, False):
            for _ in range(MAX_ROUNDS):
                before = dict(self.number)
                self._round(optimistic)
                if self.number == before:
                    return
            self.number.clear()
        raise AssertionError("a pessimistic numbering always reaches its fixed point")

    def _round(self, optimistic: bool) -> None:
        table: dict[Hashable, Number] = {}
        self.offsets.clear()
        for label in self.graph.labels:
            cont = self.program.cont_table[label]
            for index, param in enumerate(cont.params):
                self.number[param.name] = self._phi(label, index, param, optimistic)
            for b in cont.bindings:
                self.number[b.var.name] = self._value(b, table)

    def _phi(self, label: str, index: int, param: ir.Var, optimistic: bool) -> Number:
        arguments = self.incoming.get(label)
        if not arguments:
            return param.name
        numbers = set()
        for args in arguments:
            n = self.of(args[index])
            if n is None:
                if not optimistic:
                    return param.name
                continue
            numbers.add(n)
        numbers.discard(param.name)
        return numbers.pop() if len(numbers) == 1 else param.name

    def _value(self, b: ir.Binding, table: dict[Hashable, Number]) -> Number:
        v = b.value
        record_type = v.record.type if isinstance(v, ir.Field) else None
        if not numberable(v, record_type, self.immutable):
            return b.var.name
        operands = [self.of(o) for o in ir.value_operands(v)]
        if any(n is None for n in operands):
            return b.var.name  # a use before its definition is numbered: only in dead code
        folded = self._fold(v, operands, b.var.type)
        if folded is not None:
            return folded
        offset = self._offset(v, operands) if isinstance(v, ir.Prim) else None
        if offset is None:
            return table.setdefault(self._key(v, operands, b.var.type), b.var.name)
        base, amount = offset
        if amount == 0:
            return base
        number = table.setdefault(("offset", base, amount), b.var.name)
        self.offsets[number] = offset
        return number

    def _fold(self, v: ir.Value, operands: list[Number], result_type: ir.Type) -> Number | None:
        if not (isinstance(v, ir.Prim) and operands and all(n in self.constants for n in operands)):
            return None
        constant = fold_primitive(ir.Prim(v.op, tuple(self.constants[n] for n in operands)), result_type)
        return None if constant is None else self.of(constant)

    def _key(self, v: ir.Value, operands: list[Number], result_type: ir.Type) -> tuple[Hashable, ...]:
        if isinstance(v, ir.Field):
            return ("field", operands[0], v.index, result_type)
        assert isinstance(v, ir.Prim)
        if v.op in COMMUTATIVE:
            operands = sorted(operands, key=repr)
        return ("prim", v.op, result_type, *operands)

    def _offset(self, v: ir.Prim, operands: list[Number]) -> tuple[Number, int] | None:
        """`x + c`, `c + x`, `x - c` as (x's base, the total constant offset)."""
        if v.op not in ("add_int", "sub_int") or len(operands) != 2:
            return None
        x, c = operands
        if v.op == "add_int" and x in self.constants and c not in self.constants:
            x, c = c, x
        if c not in self.constants or x in self.constants:
            return None
        amount = self.constants[c].value
        if v.op == "sub_int":
            amount = evaluate("neg_int", [amount], [])
        base, before = self.offsets.get(x, (x, 0))
        return base, evaluate("add_int", [before, amount], [])


def _eliminate(numbering: _Numbering, renaming: dict[str, ir.Operand], stats: Stats) -> None:
    """Walk the dominator tree with the numbers available (held by a dominating variable);
    a variable whose number is available is renamed to its holder."""
    graph, program = numbering.graph, numbering.program
    stack: list[tuple[str, dict[Number, ir.Operand]]] = [(graph.labels[0], {})]
    while stack:
        label, available = stack.pop()
        cont = program.cont_table[label]
        for param in cont.params:
            _share(numbering, param, available, renaming, stats, "parameters merged (VN-phi)")
        edge = first_exit(cont)
        at_edge = available
        for i, b in enumerate(cont.bindings):
            if i == edge:
                at_edge = dict(available)
            _share(numbering, b.var, available, renaming, stats, "values merged")
        for child in graph.children[label]:
            stack.append((child, dict(at_edge if edge < len(cont.bindings) else available)))


def _share(numbering: _Numbering, var: ir.Var, available: dict[Number, ir.Operand],
           renaming: dict[str, ir.Operand], stats: Stats, what: str) -> None:
    number = numbering.number.get(var.name, var.name)
    holder = numbering.constants.get(number) or numbering.outer.get(number) or available.get(number)
    if holder is not None and holder != var and holder.type == var.type:
        renaming[var.name] = holder
        stats[what] += 1
    else:
        available.setdefault(number, var)


def cse_with_stats(program: Program, context: PassContext | None = None) -> tuple[Program, Stats]:
    """Value-number every function and replace redundant values by the ones that dominate them."""
    stats: Stats = Counter()
    incoming = incoming_arguments(program)
    immutable = immutable_fields(program)

    def find(function: str) -> Found:
        numbering = _Numbering(program, FunctionGraph(program, function), incoming, immutable)
        numbering.run()
        found: dict[str, ir.Operand] = {}
        counts: Stats = Counter()
        _eliminate(numbering, found, counts)
        return numbering.graph.labels, found, {}, counts

    return replace_found(program, context, "cse", "{count} values in {function}", find, stats), stats

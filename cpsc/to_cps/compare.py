"""Structural comparison, specialised per type after monomorphisation.

For each type compared (a tuple, record, variant, list, array...) one function
`compare<t>(a, b)` is made, total (`compare`: nan equals nan and is below every float) or
partial (what `=`, `<`, ... use: a comparison that meets nan gives UNORDERED). It follows
OCaml's `compare_val`: immediates before blocks, blocks by tag, arrays by length, then the
components left to right; the first difference decides. Base types compare with primitives.
The types compared keep `Bytes.t` apart from the char array it is (`DataTypes.kept_apart`):
bytes compare as strings do, byte by byte, then by length.
"""

from __future__ import annotations

from cpsc.cps import ir
from cpsc.cps.primops import COMPARABLE
from cpsc.to_cps.builder import Builder
from cpsc.types.types import BOOL, CHAR, EXNID, INT, STRING, TCon, is_arrow


def comparison_function(c: Builder, t: TCon, total: bool) -> str:
    """The name of the function comparing values of type t (made on first use)."""
    key = (t, total)
    if key not in c.comparisons:
        name = c.names.fresh("compare" if total else "compare_partial")
        c.comparisons[key] = name
        _Builder(c, name, t, total).build()
    return c.comparisons[key]


class _Builder:
    def __init__(self, c: Builder, name: str, t: TCon, total: bool) -> None:
        self.c, self.name, self.t, self.total = c, name, t, total
        self.types = c.datatypes.kept_apart()  # (exceptions are the program's: see `exceptions`)

    def build(self) -> None:
        c = self.c
        value_type = self.types.later(self.t)
        a, b = ir.Var(c.names.fresh("a"), value_type), ir.Var(c.names.fresh("b"), value_type)
        entry = c.names.fresh(self.name + ".entry")
        c.functions[self.name] = ir.Function(self.name, (a, b), INT, entry, None)
        saved = c.suspended()
        c.start(entry, (), self.name)
        if is_arrow(self.t):
            self.result(self.compare_values(self.t, a, b))
            c.resume(saved)
            return
        if self.total:
            # as OCaml's compare_val: one value is equal to itself at once, cyclic or not
            # (not for `=`: a value holding nan is not equal to itself)
            same, different = self.branch(c.emit("same", BOOL, ir.Prim("phys_eq", (a, b))))
            c.start(same)
            self.result(ir.Const(0, INT))
            c.start(different)
        if self.types.is_bytes(self.t):
            self.bytes(a, b)
        elif self.t.name == "*":
            self.components(a, b, list(self.t.args), 0)  # type: ignore[arg-type]
        elif self.t.name == "array":
            self.array(a, b)
        elif self.t.name in self.types.types and self.types.types[self.t.name].is_record:
            datatype = self.types.types[self.t.name]
            self.components(a, b, [self.types.field_type(f.key, self.t) for f in datatype.fields], 0)
        else:
            self.variant(a, b)
        c.resume(saved)

    # ---------------------------------------------------------------- pieces
    def result(self, value: ir.Operand) -> None:
        self.c.finish(ir.Jump(ir.Ret(self.name), (value,)))

    def compare_values(self, t: TCon, x: ir.Operand, y: ir.Operand) -> ir.Operand:
        c = self.c
        if t.name in self.types.definitions and not self.types.is_bytes(t):
            t = self.types.later(t)  # Int32.t, Int64.t, Nativeint.t: ints
        if is_arrow(t):
            # A function raises, as OCaml's compare_val (compare f f too, where OCaml answers 0:
            # cpsc keeps no function's identity, so the four levels could not agree on one)
            c.unless(ir.Const(False, BOOL),
                     lambda: c.exception("Invalid_argument", (ir.Const("compare: functional value", STRING),)))
            return ir.Const(0, INT)
        if t.name == "float":
            op = "compare_float" if self.total else "compare_partial_float"
            return c.emit("c", INT, ir.Prim(op, (x, y)))
        if t.name in COMPARABLE:
            return c.emit("c", INT, ir.Prim(f"compare_{t.name}", (x, y)))
        return c.emit("c", INT, ir.Call(comparison_function(c, t, self.total), (x, y)))

    def unless_zero(self, order: ir.Operand) -> None:
        """Return `order` if it is not 0; carry on in a new block otherwise."""
        c = self.c
        differ, same = c.names.fresh("differ"), c.names.fresh("same")
        c.finish(ir.Branch(c.emit("nz", BOOL, ir.Prim("ne_int", (order, ir.Const(0, INT)))), differ, same))
        c.start(differ)
        self.result(order)
        c.start(same)

    def components(self, a: ir.Operand, b: ir.Operand, types: list[TCon], offset: int) -> None:
        """Compare slots offset.. of two blocks left to right; finishes the block."""
        c = self.c
        if not types:
            self.result(ir.Const(0, INT))
            return
        for i, t in enumerate(types):
            x = c.emit("x", self.types.later(t), ir.Field(a, i + offset))
            y = c.emit("y", self.types.later(t), ir.Field(b, i + offset))
            order = self.compare_values(t, x, y)
            if i == len(types) - 1:
                self.result(order)
            else:
                self.unless_zero(order)

    def branch(self, condition: ir.Operand) -> tuple[str, str]:
        c = self.c
        yes, no = c.names.fresh("yes"), c.names.fresh("no")
        c.finish(ir.Branch(condition, yes, no))
        return yes, no

    def variant(self, a: ir.Operand, b: ir.Operand) -> None:
        c = self.c
        datatype = self.types.types[self.t.name]
        if not datatype.block_count:
            self.immediates(a, b)
            return
        if not datatype.constant_count:
            self.blocks(a, b)
            return
        a_block = c.emit("a_block", BOOL, ir.Prim("is_block", (a,)))
        b_block = c.emit("b_block", BOOL, ir.Prim("is_block", (b,)))
        both_blocks, a_immediate = self.branch(a_block)
        c.start(both_blocks)
        blocks, greater = self.branch(b_block)
        c.start(greater)
        self.result(ir.Const(1, INT))
        c.start(blocks)
        self.blocks(a, b)
        c.start(a_immediate)
        less, immediates = self.branch(b_block)
        c.start(less)
        self.result(ir.Const(-1, INT))
        c.start(immediates)
        self.immediates(a, b)

    def immediates(self, a: ir.Operand, b: ir.Operand) -> None:
        c = self.c
        x = c.emit("x", INT, ir.Prim("immediate_value", (a,)))
        y = c.emit("y", INT, ir.Prim("immediate_value", (b,)))
        self.result(c.emit("c", INT, ir.Prim("compare_int", (x, y))))

    def blocks(self, a: ir.Operand, b: ir.Operand) -> None:
        """Two blocks of the variant: by tag, then the arguments of their constructor."""
        c = self.c
        if self.t.name == "exn":
            self.exceptions(a, b)
            return
        constructors = [k for k in self.types.types[self.t.name].constructors if not k.constant]
        if len(constructors) == 1:
            self.components(a, b, list(self.types.constructor_args(constructors[0].key, self.t)), 0)
            return
        tag_a = c.emit("tag", INT, ir.Field(a, 0))
        tag_b = c.emit("tag", INT, ir.Field(b, 0))
        self.unless_zero(c.emit("c", INT, ir.Prim("compare_int", (tag_a, tag_b))))
        labels = [(k.index, c.names.fresh("tag")) for k in constructors]
        *cases, (_, last) = labels
        c.finish(ir.Switch(tag_a, tuple(cases), last))
        for k, (_, label) in zip(constructors, labels):
            c.start(label)
            self.components(a, b, list(self.types.constructor_args(k.key, self.t)), 1)

    def exceptions(self, a: ir.Operand, b: ir.Operand) -> None:
        """Two exceptions: by identity, in the order `exception_order` gives (a local
        exception's evaluations are different exceptions), then the arguments of the
        constructor their identity was declared by. (The program's own `exn`, to which
        monomorphisation adds local exceptions' instances: an exception's bytes compare as arrays.)"""
        c = self.c
        identity_a = c.emit("identity", EXNID, ir.Field(a, 0))
        identity_b = c.emit("identity", EXNID, ir.Field(b, 0))
        order_a = c.emit("order", INT, ir.Prim("exception_order", (identity_a,)))
        order_b = c.emit("order", INT, ir.Prim("exception_order", (identity_b,)))
        self.unless_zero(c.emit("c", INT, ir.Prim("compare_int", (order_a, order_b))))
        declared = c.emit("declared", EXNID, ir.Prim("declared_exception", (identity_a,)))
        for k in c.datatypes.types["exn"].constructors:
            if k.args:
                same = c.emit("same", BOOL, ir.Prim("phys_eq", (declared, ir.Const(k.exception, EXNID))))
                this, other = self.branch(same)
                c.start(this)
                self.components(a, b, list(k.args), 1)  # type: ignore[arg-type]
                c.start(other)
        self.result(ir.Const(0, INT))

    def array(self, a: ir.Operand, b: ir.Operand) -> None:
        """By length, then element by element."""
        c = self.c
        length = c.emit("length", INT, ir.Prim("array_length", (a,)))
        other = c.emit("length", INT, ir.Prim("array_length", (b,)))
        self.unless_zero(c.emit("c", INT, ir.Prim("compare_int", (length, other))))
        self.elements(a, b, (length,), self.t.args[0], ir.Const(0, INT))  # type: ignore[arg-type]

    def bytes(self, a: ir.Operand, b: ir.Operand) -> None:
        """As strings: byte by byte as far as the shorter goes, then by length."""
        c = self.c
        length = c.emit("length", INT, ir.Prim("array_length", (a,)))
        other = c.emit("length", INT, ir.Prim("array_length", (b,)))
        self.elements(a, b, (length, other), CHAR, c.emit("c", INT, ir.Prim("compare_int", (length, other))))

    def elements(self, a: ir.Operand, b: ir.Operand, lengths: tuple[ir.Operand, ...], element: TCon,
                 last: ir.Operand) -> None:
        """The elements of two arrays in turn (a loop of continuations) below each of `lengths`,
        then `last`."""
        c = self.c
        head = c.names.fresh("element")
        c.finish(ir.Jump(head, (ir.Const(0, INT),)))
        i = ir.Var(c.names.fresh("i"), INT)
        c.start(head, (i,))
        if len(lengths) == 1:
            done, more = self.branch(c.emit("end", BOOL, ir.Prim("ge_int", (i, lengths[0]))))
        else:
            below = [c.emit("below", BOOL, ir.Prim("lt_int", (i, length))) for length in lengths]
            more, done = self.branch(c.emit("below", BOOL, ir.Prim("and_bool", (below[0], below[1]))))
        c.start(done)
        self.result(last)
        c.start(more)
        x = c.emit("x", self.types.later(element), ir.Prim("array_unsafe_get", (a, i)))
        y = c.emit("y", self.types.later(element), ir.Prim("array_unsafe_get", (b, i)))
        self.unless_zero(self.compare_values(element, x, y))
        c.finish(ir.Jump(head, (c.emit("i", INT, ir.Prim("add_int", (i, ir.Const(1, INT)))),)))

"""A `match` in CPS: its decision tree (`cpsc.mono.decision`) as continuations.

Each case's body is one continuation whose parameters are the case's variables; every leaf of
the tree that selects the case jumps there with the values its pattern found. A constructor
test is `is_block` (when the type has both kinds of constructors), then a `switch` on the
immediate or on the block's tag; int and char tests are a `switch`, string and float tests a chain of
`eq_string` or `eq_float`, exception tests a chain of `phys_eq` on their identity. A path that no case
matches raises Match_failure at the `match`'s location (a `try`'s handler: the exception).
"""

from __future__ import annotations

from typing import Any

from cpsc.cps import ir
from cpsc.mono import decision as d
from cpsc.support.scope import Scope
from cpsc.syntax import ast
from cpsc.to_cps.builder import Builder
from cpsc.types.types import BOOL, EXNID, FLOAT, INT, STRING, TCon


def pattern_variables(pattern: ast.Pattern) -> dict[str, TCon]:
    """The variables a (monomorphic) pattern binds and their types, left to right."""
    out: dict[str, TCon] = {}
    stack: list[ast.Pattern] = [pattern]
    while stack:
        p = stack.pop()
        if isinstance(p, (ast.PVar, ast.PAlias)):
            out[p.name] = p.ty
        if isinstance(p, ast.PTuple):
            stack.extend(reversed(p.items))
        elif isinstance(p, ast.PConstruct):
            stack.extend(reversed(p.args))
        elif isinstance(p, ast.PRecord):
            stack.extend(reversed([item for _, item in p.fields]))
        elif isinstance(p, (ast.PAnnot, ast.PAlias)):
            stack.append(p.pattern)
        elif isinstance(p, ast.POr):
            stack.append(p.left)
    return out


class MatchConverter:
    def __init__(self, converter: Builder, expr: ast.Match, env: Scope[Any], target: ir.Target) -> None:
        self.c = converter
        self.expr = expr
        self.env = env
        self.target = target
        self.bodies: dict[int, tuple[str, tuple[tuple[str, ir.Var], ...]]] = {}
        self.values: dict[int, ir.Operand] = {}

    def run(self) -> None:
        compiled: d.CompiledMatch = self.expr.tree
        self.values[compiled.root.id] = self.c.value(self.expr.scrutinee, self.env)
        self.tree(compiled.tree)
        for index, (label, params) in sorted(self.bodies.items()):
            self.c.start(label, tuple(var for _, var in params))
            with self.env.scope():
                for name, var in params:
                    self.env.bind(name, var)
                self.c.tail(self.expr.cases[index].body, self.target, self.env)

    def body(self, case: int) -> tuple[str, tuple[tuple[str, ir.Var], ...]]:
        if case not in self.bodies:
            names = self.c.names
            variables = pattern_variables(self.expr.cases[case].pattern)
            params = tuple((name, ir.Var(names.fresh(name), t)) for name, t in variables.items())
            self.bodies[case] = (names.fresh(f"case{case + 1}"), params)
        return self.bodies[case]

    def arguments(self, case: int, bindings: tuple[tuple[str, int], ...]) -> tuple[ir.Operand, ...]:
        where = dict(bindings)
        return tuple(self.values[where[name]] for name, _ in self.body(case)[1])

    # ---------------------------------------------------------------- trees
    def tree(self, node: d.Tree) -> None:
        """Emit `node` into the open block (which it finishes)."""
        if isinstance(node, d.Leaf):
            label, _ = self.body(node.case)
            self.c.finish(ir.Jump(label, self.arguments(node.case, node.bindings)))
        elif isinstance(node, d.Guard):
            self.guard(node)
        elif isinstance(node, d.Fail):
            self.fail()
        elif node.kind == "product":
            _, args, sub = node.cases[0]
            self.load_arguments(node.occurrence, args, 0)
            self.tree(sub)
        elif node.kind == "constructor":
            self.constructor_test(node)
        elif node.kind == "bool":
            self.bool_test(node)
        elif node.occurrence.type in (STRING, FLOAT):
            self.equality_test(node)
        else:
            self.constant_test(node)

    def guard(self, node: d.Guard) -> None:
        case = self.expr.cases[node.case]
        assert case.guard is not None
        with self.env.scope():
            for name, occurrence in node.bindings:
                self.env.bind(name, self.values[occurrence])
            condition = self.c.value(case.guard, self.env)
        taken, otherwise = self.c.names.fresh("guard_ok"), self.c.names.fresh("guard_failed")
        self.c.finish(ir.Branch(condition, taken, otherwise))
        self.c.start(taken)
        label, _ = self.body(node.case)
        self.c.finish(ir.Jump(label, self.arguments(node.case, node.bindings)))
        self.c.start(otherwise)
        self.tree(node.otherwise)

    def fail(self) -> None:
        """No case matches: a try's handler raises the exception again; a match raises
        Match_failure at its location."""
        if self.expr.reraise:
            self.c.raise_to_handler(self.values[self.expr.tree.root.id])
            return
        span = self.expr.span
        location = (ir.Const(span.file, STRING), ir.Const(span.line, INT), ir.Const(span.col - 1, INT))
        where = self.c.emit("location", TCon("*", (STRING, INT, INT)), ir.MakeTuple(location))
        self.c.raise_to_handler(self.c.exception("Match_failure", (where,)))

    def subtree(self, node: d.Tree, hint: str) -> str:
        """`node` in a continuation of its own (no parameters); its label."""
        label = self.c.names.fresh(hint)
        saved = self.c.suspended()
        self.c.current_function = saved[1]
        self.c.start(label)
        self.tree(node)
        self.c.resume(saved)
        return label

    def load_arguments(self, occurrence: d.Occurrence, args: tuple[d.Occurrence, ...], offset: int) -> None:
        value = self.values[occurrence.id]
        for arg in args:
            self.values[arg.id] = self.c.emit("field", arg.type, ir.Field(value, arg.index + offset))

    def case_blocks(self, node: d.Switch, offset_of: Any) -> list[tuple[object, str]]:
        out = []
        for head, args, sub in node.cases:
            label = self.c.names.fresh("case")
            saved = self.c.suspended()
            self.c.current_function = saved[1]
            self.c.start(label)
            self.load_arguments(node.occurrence, args, offset_of(head))
            self.tree(sub)
            self.c.resume(saved)
            out.append((head, label))
        return out

    def dispatch(self, value: ir.Operand, cases: list[tuple[int, str]], default: str | None) -> None:
        """Finish the block with a switch (or a jump when there is one way to go)."""
        if default is None:
            *cases, (_, default) = cases
        if not cases:
            self.c.finish(ir.Jump(default, ()))
        else:
            self.c.finish(ir.Switch(value, tuple(cases), default))

    def exception_test(self, node: d.Switch) -> None:
        """Exceptions are told apart by their identity (slot 0), one test after another."""
        info = self.c.datatypes.constructors
        labels = self.case_blocks(node, lambda key: info[key].offset)
        assert node.default is not None  # exn is open: never all listed
        default = self.subtree(node.default, "otherwise")
        identity = self.c.emit("identity", EXNID, ir.Field(self.values[node.occurrence.id], 0))
        for i, (head, label) in enumerate(labels):
            known = self.c.exception_identity(str(head), self.env)
            same = self.c.emit("same", BOOL, ir.Prim("phys_eq", (identity, known)))
            following = default if i == len(labels) - 1 else self.c.names.fresh("exception_test")
            self.c.finish(ir.Branch(same, label, following))
            if following != default:
                self.c.start(following)

    def constructor_test(self, node: d.Switch) -> None:
        datatypes = self.c.datatypes
        if node.occurrence.type.name == "exn":
            self.exception_test(node)
            return
        datatype = datatypes.types[node.occurrence.type.name]
        info = datatypes.constructors
        labels = self.case_blocks(node, lambda key: info[key].offset)
        default = None if node.default is None else self.subtree(node.default, "otherwise")
        value = self.values[node.occurrence.id]
        constants = [(info[str(h)].index, label) for h, label in labels if info[str(h)].constant]
        blocks = [(info[str(h)].index, label) for h, label in labels if not info[str(h)].constant]
        if datatype.constant_count and datatype.block_count:
            immediate, block = self.c.names.fresh("immediate"), self.c.names.fresh("block")
            self.c.finish(ir.Branch(self.c.emit("is_block", BOOL, ir.Prim("is_block", (value,))), block, immediate))
            self.c.start(immediate)
            self.immediate_dispatch(value, constants, default, datatype.constant_count)
            self.c.start(block)
            self.block_dispatch(value, blocks, default, datatype.block_count)
        elif datatype.constant_count:
            self.immediate_dispatch(value, constants, default, datatype.constant_count)
        else:
            self.block_dispatch(value, blocks, default, datatype.block_count)

    def immediate_dispatch(self, value: ir.Operand, cases: list[tuple[int, str]], default: str | None,
                           count: int) -> None:
        if not cases:
            assert default is not None
            self.c.finish(ir.Jump(default, ()))
            return
        number = self.c.emit("constructor", INT, ir.Prim("immediate_value", (value,)))
        self.dispatch(number, cases, default if len(cases) < count else None)

    def block_dispatch(self, value: ir.Operand, cases: list[tuple[int, str]], default: str | None,
                       count: int) -> None:
        if not cases:
            assert default is not None
            self.c.finish(ir.Jump(default, ()))
        elif count == 1:
            self.c.finish(ir.Jump(cases[0][1], ()))
        else:
            tag = self.c.emit("tag", INT, ir.Field(value, 0))
            self.dispatch(tag, cases, default if len(cases) < count else None)

    def bool_test(self, node: d.Switch) -> None:
        labels = dict(self.case_blocks(node, lambda _: 0))
        default = None if node.default is None else self.subtree(node.default, "otherwise")
        if_true = labels.get(True, default)
        if_false = labels.get(False, default)
        assert if_true is not None and if_false is not None
        self.c.finish(ir.Branch(self.values[node.occurrence.id], if_true, if_false))

    def constant_test(self, node: d.Switch) -> None:
        labels = self.case_blocks(node, lambda _: 0)
        default = None if node.default is None else self.subtree(node.default, "otherwise")
        value = self.values[node.occurrence.id]
        if node.occurrence.type.name == "char":
            value = self.c.emit("code", INT, ir.Prim("char_code", (value,)))
        cases = [(ord(h) if isinstance(h, str) else int(h), label) for h, label in labels]  # type: ignore[call-overload]
        self.dispatch(value, cases, default)

    def equality_test(self, node: d.Switch) -> None:
        """Strings and floats: a chain of equality tests (floats as `=`: `0.` matches `-0.`)."""
        labels = self.case_blocks(node, lambda _: 0)
        assert node.default is not None  # strings and floats are never all listed
        default = self.subtree(node.default, "otherwise")
        value = self.values[node.occurrence.id]
        t = node.occurrence.type
        for i, (head, label) in enumerate(labels):
            equal = self.c.emit("same", BOOL, ir.Prim(f"eq_{t.name}", (value, ir.Const(head, t))))
            following = default if i == len(labels) - 1 else self.c.names.fresh("string_test")
            self.c.finish(ir.Branch(equal, label, following))
            if following != default:
                self.c.start(following)


def convert_match(converter: Builder, expr: ast.Match, env: Scope[Any], target: ir.Target) -> None:
    """Convert `expr` so that its value goes to `target` (finishing the open block)."""
    MatchConverter(converter, expr, env, target).run()

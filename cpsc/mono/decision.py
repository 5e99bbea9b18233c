"""Pattern matching compiled to decision trees (Maranget, "Compiling pattern matching to good
decision trees", 2008), with OCaml's warnings for non-exhaustive matches and unused cases.

Input: a monomorphic `match` (patterns typed; constructor and field names are keys of
`DataTypes`). The clause matrix has a column per *occurrence* (the scrutinee, or a field of
an occurrence already tested) and a row per case; the first row's first refutable column is
tested, and the matrix is specialised per constructor seen there (plus a default matrix when
the constructors seen do not cover the type). An occurrence leaves the matrix once tested,
so no test is repeated along a path. Leaves name the case to run and where its variables
are found; a guarded leaf falls back to the tree of the remaining rows.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Union

from pyrsistent import pmap

from cpsc.semantics.builtins import format_float
from cpsc.syntax import ast
from cpsc.syntax.diagnostics import CompileError
from cpsc.types.datatypes import DataTypes, display_name
from cpsc.types.types import TCon

# ---------------------------------------------------------------------- trees


@dataclass(frozen=True)
class Occurrence:
    """A value the tree tests: the scrutinee (`parent` None) or argument `index` of the
    constructor (tuple, record) `head` that `parent` was found to be."""

    id: int
    type: TCon
    parent: int | None = None
    head: Any = None  # not `object`: see `cpsc.cps.ir.Const`
    index: int = 0


@dataclass(frozen=True)
class Leaf:
    case: int
    bindings: tuple[tuple[str, int], ...]  # variable -> occurrence


@dataclass(frozen=True)
class Guard:
    """Bind the case's variables and evaluate its guard: its body if true, else `otherwise`."""

    case: int
    bindings: tuple[tuple[str, int], ...]
    otherwise: Tree


@dataclass(frozen=True)
class Fail:
    pass


@dataclass(frozen=True)
class Switch:
    """Test occurrence `occurrence`. `kind` is `constructor` (heads are constructor keys),
    `constant` (int, char or string values), `bool`, or `product` (a tuple or record: one
    case, no test, only its components are named). Each case names the occurrences of the
    head's arguments."""

    occurrence: Occurrence
    kind: str
    cases: tuple[tuple[object, tuple[Occurrence, ...], Tree], ...]
    default: Tree | None


Tree = Union[Leaf, Guard, Fail, Switch]

# ---------------------------------------------------------------------- the matrix


@dataclass
class _Row:
    patterns: list[ast.Pattern | None]  # None: a wildcard
    bindings: _Bound | None
    case: int


@dataclass(frozen=True)
class _Bound:
    """The variables a row has bound, the last first: shared by the rows specialised from it
    (a tuple copied for each would make a long list pattern's compilation quadratic)."""

    name: str
    occurrence: int
    previous: _Bound | None

    @staticmethod
    def in_order(bound: _Bound | None) -> tuple[tuple[str, int], ...]:
        out: list[tuple[str, int]] = []
        while bound is not None:
            out.append((bound.name, bound.occurrence))
            bound = bound.previous
        return tuple(reversed(out))


_WILDCARDS = (ast.PWild, ast.PVar, ast.PUnit)


@dataclass
class Compiler:
    datatypes: DataTypes
    guarded: frozenset[int]
    ids: itertools.count[int] = field(default_factory=itertools.count)
    # an occurrence matched against constants `5l`, `5L` or `5n` -> the suffix of their type,
    # with which a warning's example prints its value
    suffixes: dict[int, str] = field(default_factory=dict)

    def occurrence(self, t: TCon, parent: Occurrence | None = None, head: object = None, index: int = 0) -> Occurrence:
        return Occurrence(next(self.ids), t, None if parent is None else parent.id, head, index)

    def compile(self, rows: list[_Row], occurrences: list[Occurrence]) -> Tree:
        rows = [self.normalise(r, occurrences) for r in rows]
        if not rows:
            return Fail()
        rows, occurrences = _tested_columns(rows, occurrences)
        first = rows[0]
        column = next((i for i, p in enumerate(first.patterns) if p is not None), None)
        if column is None:
            if first.case in self.guarded:
                return Guard(first.case, _Bound.in_order(first.bindings), self.compile(rows[1:], occurrences))
            return Leaf(first.case, _Bound.in_order(first.bindings))
        rows = self.expand_or(rows, column, occurrences)
        return self.switch(rows, occurrences, column)

    def normalise(self, row: _Row, occurrences: list[Occurrence]) -> _Row:
        """Variables, aliases and annotations become bindings and wildcards."""
        patterns: list[ast.Pattern | None] = []
        bindings = row.bindings
        for p, occ in zip(row.patterns, occurrences):
            while True:
                if isinstance(p, ast.PAnnot):
                    p = p.pattern
                elif isinstance(p, ast.PAlias):
                    bindings = _Bound(p.name, occ.id, bindings)
                    p = p.pattern
                elif isinstance(p, ast.PVar):
                    bindings = _Bound(p.name, occ.id, bindings)
                    p = None
                elif isinstance(p, _WILDCARDS):
                    p = None
                else:
                    break
            patterns.append(p)
        return _Row(patterns, bindings, row.case)

    def expand_or(self, rows: list[_Row], column: int, occurrences: list[Occurrence]) -> list[_Row]:
        """A row whose `column` is `p | q` becomes a row for `p` then one for `q`, each
        normalised again (a side may be an alias, a variable or another or-pattern)."""
        out: list[_Row] = []
        work = list(reversed(rows))
        while work:
            row = work.pop()
            p = row.patterns[column]
            if isinstance(p, ast.POr):
                for side in (p.right, p.left):  # pushed in reverse: left is tried first
                    patterns = list(row.patterns)
                    patterns[column] = side
                    work.append(self.normalise(_Row(patterns, row.bindings, row.case), occurrences))
            else:
                out.append(row)
        return out

    def switch(self, rows: list[_Row], occurrences: list[Occurrence], column: int) -> Tree:
        """Specialise the matrix by each head of `column`, in one pass over the rows (a
        wildcard row goes to every head and to the default)."""
        occ = occurrences[column]
        rest = occurrences[:column] + occurrences[column + 1:]
        kind, heads = self.heads(rows, column, occ)
        arguments = {head: self.arguments(occ, kind, head) for head in heads}
        specialised: dict[object, list[_Row]] = {head: [] for head in heads}
        others: list[_Row] = []
        for row in rows:
            p = row.patterns[column]
            rest_patterns = row.patterns[:column] + row.patterns[column + 1:]
            if p is None:
                for head in heads:
                    specialised[head].append(_Row([None] * len(arguments[head]) + rest_patterns, row.bindings,
                                                  row.case))
                others.append(_Row(rest_patterns, row.bindings, row.case))
            else:
                head = _head(p)
                sub = self.specialise(p, len(arguments[head]))
                specialised[head].append(_Row(sub + rest_patterns, row.bindings, row.case))
        # A loop, not a generator: a generator on the stack of each nested pattern makes each
        # exception raised inside (as any() closing its generator) walk them all (CPython).
        cases = []
        for head in heads:
            cases.append((head, tuple(arguments[head]), self.compile(specialised[head], arguments[head] + rest)))
        default = None if self.complete(kind, heads, occ.type) else self.compile(others, rest)
        return Switch(occ, kind, tuple(cases), default)

    def heads(self, rows: list[_Row], column: int, occ: Occurrence) -> tuple[str, list[object]]:
        """The kind of test `column` needs and its heads (constructors in declaration order)."""
        t = occ.type
        seen: dict[object, None] = {}
        kind = "constant"
        for row in rows:
            p = row.patterns[column]
            if p is None:
                continue
            if isinstance(p, (ast.PTuple, ast.PRecord)):
                return "product", [None]
            if isinstance(p, ast.PConstruct):
                kind = "constructor"
            elif isinstance(p, ast.PConst) and p.kind == "bool":
                kind = "bool"
            elif isinstance(p, ast.PConst) and p.kind in ast.INTEGER_SUFFIXES:
                self.suffixes[occ.id] = ast.INTEGER_SUFFIXES[p.kind]
            seen.setdefault(_head(p))
        heads = list(seen)
        if kind == "constructor":
            position = {c.key: i for i, c in enumerate(self.datatypes.types[t.name].constructors)}
            heads.sort(key=lambda h: position[str(h)])
        return kind, heads

    def arguments(self, occ: Occurrence, kind: str, head: object) -> list[Occurrence]:
        t = occ.type
        if kind == "product":
            if t.name == "*":
                types = list(t.args)
            else:
                types = [self.datatypes.instance(f.type, t) for f in self.datatypes.types[t.name].fields]
        elif kind == "constructor":
            types = list(self.datatypes.constructor_args(str(head), t))
        else:
            types = []
        return [self.occurrence(a, occ, head, i) for i, a in enumerate(types)]  # type: ignore[arg-type]

    def specialise(self, p: ast.Pattern, arity: int) -> list[ast.Pattern | None]:
        """The patterns of the head's arguments in a row whose pattern has that head."""
        if isinstance(p, ast.PTuple):
            return list(p.items)
        if isinstance(p, ast.PRecord):
            return self.record_fields(p, arity)
        if isinstance(p, ast.PConstruct):
            return list(p.args)
        return []

    def record_fields(self, p: ast.PRecord, arity: int) -> list[ast.Pattern | None]:
        out: list[ast.Pattern | None] = [None] * arity
        for key, item in p.fields:
            out[self.datatypes.fields[key].index] = item
        return out

    def complete(self, kind: str, heads: list[object], t: TCon) -> bool:
        if kind == "product":
            return True
        if kind == "bool":
            return len(heads) == 2
        if kind == "constructor":  # `exn` is open: never complete
            return t.name != "exn" and len(heads) == len(self.datatypes.types[t.name].constructors)
        return t.name == "char" and len(heads) == 256


def _head(p: ast.Pattern) -> object:
    """What a (normalised, refutable) pattern tests its value for."""
    if isinstance(p, (ast.PTuple, ast.PRecord)):
        return None
    if isinstance(p, ast.PConstruct):
        return p.name
    assert isinstance(p, ast.PConst), p
    return p.value


# ---------------------------------------------------------------------- entry point


@dataclass(frozen=True)
class CompiledMatch:
    tree: Tree
    root: Occurrence
    warnings: tuple[CompileError, ...]


def compile_match(match: ast.Match, datatypes: DataTypes) -> CompiledMatch:
    """The decision tree of a monomorphic `match`, and the warnings OCaml would give."""
    guarded = frozenset(i for i, c in enumerate(match.cases) if c.guard is not None)
    compiler = Compiler(datatypes, guarded)
    root = compiler.occurrence(match.scrutinee.ty)
    rows = [_Row([c.pattern], None, i) for i, c in enumerate(match.cases)]
    tree = compiler.compile(rows, [root])
    warnings = [] if match.quiet else list(_unused_cases(match, tree))
    # A try's handler raises what it does not match; OCaml's example for exn is `*extension*`.
    missing = None if match.reraise or match.quiet or root.type.name == "exn" \
        else _missing_example(tree, root, datatypes, compiler.suffixes)
    if missing is not None:
        example, behind_guard = missing
        if example.startswith("Fl_value' "):  # a `match` with exception cases: its value's
            example = _unwrapped(example.removeprefix("Fl_value' "))
        notes = [f"here is an example of a case that is not matched: {example}"]
        if behind_guard:
            notes.append("however, some guarded clause may match this value")
        warnings.insert(0, CompileError(match.span, "this pattern-matching is not exhaustive", tuple(notes)))
    return CompiledMatch(tree, root, tuple(warnings))


def _unwrapped(argument: str) -> str:
    """A constructor's argument as an example of its own: without the parentheses around it,
    unless it is a tuple."""
    if not (argument.startswith("(") and argument.endswith(")")):
        return argument
    depth = 0
    for char in argument[1:-1]:
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(char, 0)
        if depth == 0 and char == ",":
            return argument
    return argument[1:-1]


def _unused_cases(match: ast.Match, tree: Tree) -> list[CompileError]:
    used: set[int] = set()
    stack: list[Tree] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Leaf):
            used.add(node.case)
        elif isinstance(node, Guard):
            used.add(node.case)
            stack.append(node.otherwise)
        elif isinstance(node, Switch):
            stack.extend(sub for _, _, sub in node.cases)
            if node.default is not None:
                stack.append(node.default)
    return [CompileError(c.pattern.span, "this match case is unused")
            for i, c in enumerate(match.cases) if i not in used]


def _missing_example(tree: Tree, root: Occurrence, datatypes: DataTypes,
                     suffixes: dict[int, str]) -> tuple[str, bool] | None:
    """A value no case matches (as OCaml prints it), found on a path to a `Fail` leaf, and
    whether that path went past a guard."""
    # A path: for each occurrence tested, its head (with its argument occurrences) or the heads
    # it is known not to be.
    # Persistent maps: a path may be as long as a list pattern, each step adding to them.
    stack: list[tuple[Tree, Any, Any, bool]] = [(tree, pmap(), pmap(), False)]
    found: tuple[Any, Any, bool] | None = None
    while stack:
        node, known, excluded, guard = stack.pop()
        if isinstance(node, Fail):
            if found is None or found[2] and not guard:
                found = (known, excluded, guard)
            if not guard:
                break
        elif isinstance(node, Guard):
            stack.append((node.otherwise, known, excluded, True))
        elif isinstance(node, Switch):
            occ = node.occurrence
            if node.default is not None:
                heads = [h for h, _, _ in node.cases]
                stack.append((node.default, known, excluded.set(occ.id, (node.kind, heads)), guard))
            for head, args, sub in reversed(node.cases):
                stack.append((sub, known.set(occ.id, (head, args)), excluded, guard))
    if found is None:
        return None
    known, excluded, guard = found
    return _Example(datatypes, dict(known), dict(excluded), suffixes).show(root, 0), guard


@dataclass
class _Example:
    datatypes: DataTypes
    known: dict[int, tuple[object, tuple[Occurrence, ...]]]
    excluded: dict[int, tuple[str, list[object]]]
    suffixes: dict[int, str]

    def show(self, occ: Occurrence, precedence: int) -> str:
        t = occ.type
        if occ.id in self.known:
            head, args = self.known[occ.id]
        elif occ.id in self.excluded:
            kind, heads = self.excluded[occ.id]
            head, args = self.other_head(t, kind, heads), ()
            if kind == "constructor":
                arity = len(self.datatypes.constructors[str(head)].args)
                args = tuple(Occurrence(-1, TCon("_")) for _ in range(arity))
        else:
            return "_"
        if t.name == "*":
            return "(" + ", ".join(self.show(a, 1) for a in args) + ")"
        if t.name in self.datatypes.types and self.datatypes.types[t.name].is_record:
            fields = self.datatypes.types[t.name].fields
            return "{" + "; ".join(f"{f.name}={self.show(a, 0)}" for f, a in zip(fields, args)) + "}"
        if isinstance(head, bool):
            return "true" if head else "false"
        if isinstance(head, float):
            return format_float(head)
        if isinstance(head, str) and t.name in ("char", "string"):
            quote = "'" if t.name == "char" else '"'
            return quote + head + quote
        if not isinstance(head, str) or t.name not in self.datatypes.types:
            return str(head) + self.suffixes.get(occ.id, "")
        return self.constructor(head, args, precedence)

    def constructor(self, key: str, args: tuple[Occurrence, ...], precedence: int) -> str:
        name = display_name(self.datatypes.constructors[key].name)
        if not args:
            return name
        if name == "::":
            text = f"{self.show(args[0], 2)}::{self.show(args[1], 1)}"
        elif len(args) == 1:
            text = f"{name} {self.show(args[0], 2)}"
        else:
            text = f"{name} (" + ", ".join(self.show(a, 1) for a in args) + ")"
        return f"({text})" if precedence >= 2 else text

    def other_head(self, t: TCon, kind: str, heads: list[object]) -> object:
        if kind == "constructor":
            return next(c.key for c in self.datatypes.types[t.name].constructors if c.key not in heads)
        if kind == "bool":
            return next(b for b in (False, True) if b not in heads)
        # Plain loops: compiled by mypyc, a generator over `itertools.count()` never ended
        if t.name == "char":
            return next(chr(c) for c in itertools.chain(range(97, 256), range(97)) if chr(c) not in heads)
        if t.name in ("int", "float"):
            number = 0 if t.name == "int" else 0.0
            while number in heads:
                number += 1
            return number
        text = ""
        while text in heads:
            text += "*"
        return text


def _tested_columns(rows: list[_Row], occurrences: list[Occurrence]) -> tuple[list[_Row], list[Occurrence]]:
    """The matrix without the columns no row tests (a wildcard in each): kept, they would
    widen it by one for each `_ :: ...` of a list pattern, making its compilation quadratic."""
    tested = [i for i in range(len(occurrences)) if any(row.patterns[i] is not None for row in rows)]
    if len(tested) == len(occurrences):
        return rows, occurrences
    return ([_Row([row.patterns[i] for i in tested], row.bindings, row.case) for row in rows],
            [occurrences[i] for i in tested])

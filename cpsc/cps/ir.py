"""Nodes of the CPS IR ("CPS soup", as Guile's): a program is persistent maps from names to
functions and from labels to continuations; scope is dominance, checked by the verifier.

- A `Function` is a direct-style value: parameters in, one value out. Its body is implicitly
  `callc entry() ret (ret f)`: control enters the continuation `entry`, and whatever is jumped to
  `ret f` is the result.
- A `Cont` (continuation) never returns: it is a basic block. Its parameters are the block's phis.
  It binds values in order (`Binding`s, direct style, ANF operands) and ends in a `Terminator`.
- Continuations are second-class: labels appear only as jump/branch/callc targets.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Union

from cpsc.types.types import TCon

Type = TCon

# The nodes made most often (here `Var`, `Const`, `Prim`, `Binding` and `Cont`; a few of the
# AST's and of the passes' own records elsewhere) are not `frozen=True` and write their own
# `__init__`: compiled by mypyc (`cpsc.support.native`), the methods `@dataclass` generates stay
# interpreted, and a frozen one sets each field through `object.__setattr__` (310 ns a node,
# against 27 for a compiled `__init__`). Nothing changes them after they are made all the
# same, the caches of `Cont` and `Program` aside.


@dataclass(slots=True, unsafe_hash=True)
class Var:
    name: str
    type: Type

    def __init__(self, name: str, type: Type) -> None:
        self.name = name
        self.type = type


@dataclass(slots=True, eq=False)
class Const:
    """A literal: int, float, bool, char (1-char str), string, or unit (None)."""

    value: Any  # not `object`: mypyc then fails at import (KeyError: 'object')
    type: Type

    def __init__(self, value: Any, type: Type) -> None:
        self.value = value
        self.type = type

    # Floats by their bits: Python's -0.0 == 0.0 made a join of the two a copy of one
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Const) and self.type == other.type and _bits(self.value) == _bits(other.value)

    def __hash__(self) -> int:
        return hash((_bits(self.value), self.type))


def _bits(value: Any) -> Any:
    return struct.pack("<d", value) if isinstance(value, float) else value


Operand = Union[Var, Const]

# Calls carry the source location of the application they come from (`file:line:col`), for
# the inliner's remarks and the bisector's reports; it takes no part in equality.

# ---------------------------------------------------------------------- values (direct style)


@dataclass(slots=True, unsafe_hash=True)
class Prim:
    """A primitive operation from `cpsc.cps.primops`."""

    op: str
    args: tuple[Operand, ...]

    def __init__(self, op: str, args: tuple[Operand, ...]) -> None:
        self.op = op
        self.args = args


@dataclass(frozen=True, slots=True)
class Call:
    """A direct call of a known function; evaluates to what it returns. If the callee raises,
    control goes to `handler` (a continuation of this function taking the exception), or
    with no handler to `exn f`: out of the calling function `f`."""

    function: str
    args: tuple[Operand, ...]
    handler: str | None = None
    loc: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Apply:
    """A call through a closure value (an unknown function); `handler` as for `Call`. Curried:
    `apply c(a, b)` is `apply (apply c(a))(b)`, or one call of `c`'s full function."""

    closure: Operand
    args: tuple[Operand, ...]
    handler: str | None = None
    loc: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class MakeClosure:
    """The function `function` as a first-class value. Before closure conversion its free
    variables are captured implicitly; afterwards `captured` lists them explicitly. `full`: a sibling
    of n > 1 parameters, calling which is applying the closure to n arguments (a droppable shortcut)."""

    function: str
    captured: tuple[Operand, ...] = ()
    full: str | None = None


@dataclass(frozen=True, slots=True)
class MakeTuple:
    items: tuple[Operand, ...]


@dataclass(frozen=True, slots=True)
class Field:
    """Slot `index` of a tuple, of a data block (a constructor's tag or argument, a record's
    field), or, after closure conversion, of a closure record. On a tuple its type is the
    component's; on a data type, the binding declares it."""

    record: Operand
    index: int


@dataclass(frozen=True, slots=True)
class MakeBlock:
    """A heap block of data (a constructor with arguments, its tag first when its type has
    several; a record; a ref): one slot per item, writable with `SetField` when `mutable`.
    Its type is the binding's (a data type)."""

    items: tuple[Operand, ...]
    mutable: bool = False


@dataclass(frozen=True, slots=True)
class SetField:
    """Store `value` in slot `index` of a mutable block; evaluates to unit."""

    record: Operand
    index: int
    value: Operand


@dataclass(frozen=True, slots=True)
class CallC:
    """`callc target(args) ret label`: jump to `target`; the value is whatever is then jumped to
    `label` (a return point this binding introduces, of type `T -> noret`)."""

    target: str
    args: tuple[Operand, ...]
    ret: str


@dataclass(frozen=True, slots=True)
class GlobalLoad:
    """The value of a global (closed programs only; see `Program.globals`)."""

    name: str


@dataclass(frozen=True, slots=True)
class GlobalStore:
    """Set a global to `value`; evaluates to unit (closed programs only)."""

    name: str
    value: Operand


Value = Union[Prim, Call, Apply, MakeClosure, MakeTuple, Field, CallC, GlobalLoad, GlobalStore, MakeBlock, SetField]


@dataclass(slots=True, unsafe_hash=True)
class Binding:
    var: Var
    value: Value

    def __init__(self, var: Var, value: Value) -> None:
        self.var = var
        self.value = value


# ---------------------------------------------------------------------- terminators


@dataclass(frozen=True, slots=True)
class Ret:
    """`ret f`: the return continuation of function `f`, type `result(f) -> noret`."""

    function: str


@dataclass(frozen=True, slots=True)
class Exn:
    """`exn f`: the exception continuation of function `f`, type `exn -> noret`. Jumping to it
    raises the exception out of `f`, to the handler of the call that is running `f`."""

    function: str


Target = Union[str, Ret, Exn]


@dataclass(frozen=True, slots=True)
class Jump:
    target: Target
    args: tuple[Operand, ...]


@dataclass(frozen=True, slots=True)
class Branch:
    condition: Operand
    if_true: str
    if_false: str


@dataclass(frozen=True, slots=True)
class Switch:
    """Multi-way branch on an int (a constructor's tag or immediate, a char or int constant):
    to the label of the matching case, else to `default`. Targets take no arguments."""

    value: Operand
    cases: tuple[tuple[int, str], ...]
    default: str

    @property
    def labels(self) -> list[str]:
        return [label for _, label in self.cases] + [self.default]

    def target(self, value: int) -> str:
        """The label the switch goes to on `value`."""
        return next((label for case, label in self.cases if case == value), self.default)


@dataclass(frozen=True, slots=True)
class TailCall:
    """Call a known function with the current function's return continuation."""

    function: str
    args: tuple[Operand, ...]
    loc: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class TailApply:
    closure: Operand
    args: tuple[Operand, ...]
    loc: str | None = field(default=None, compare=False)


Terminator = Union[Jump, Branch, TailCall, TailApply, Switch]

# ---------------------------------------------------------------------- containers


_NOT_YET = object()  # `Cont.memo`'s mark of a fact not computed yet (None may be one)


@dataclass(slots=True, unsafe_hash=True)
class Cont:
    label: str
    function: str
    params: tuple[Var, ...]
    bindings: tuple[Binding, ...]
    terminator: Terminator
    # A pass rebuilds only the continuations it changes, so most continuations live through
    # many passes: what every sweep asks of them is computed once per continuation, and kept
    # in slots (no instance dictionary: a smaller IR is a faster one to sweep).
    _successors: tuple[str, ...] | None = field(default=None, init=False, repr=False, compare=False)
    _used_names: tuple[str, ...] | None = field(default=None, init=False, repr=False, compare=False)
    _introduced_names: tuple[str, ...] | None = field(default=None, init=False, repr=False, compare=False)
    _memo: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)

    def __init__(self, label: str, function: str, params: tuple[Var, ...], bindings: tuple[Binding, ...],
                 terminator: Terminator) -> None:
        self.label = label
        self.function = function
        self.params = params
        self.bindings = bindings
        self.terminator = terminator
        self._successors = None
        self._used_names = None
        self._introduced_names = None
        self._memo = None

    @property
    def successor_labels(self) -> tuple[str, ...]:
        """See `successors`."""
        successors = self._successors
        if successors is None:
            successors = self._successors = tuple(_successors(self))
        return successors

    @property
    def used_names(self) -> tuple[str, ...]:
        """The variables the bindings and the terminator use, in order, with repeats."""
        used = self._used_names
        if used is None:
            names = [o.name for b in self.bindings for o in value_operands(b.value) if isinstance(o, Var)]
            names.extend(o.name for o in terminator_operands(self.terminator) if isinstance(o, Var))
            used = self._used_names = tuple(names)
        return used

    @property
    def introduced_names(self) -> tuple[str, ...]:
        """The names it brings into the program: its parameters, its bindings' variables and
        the return points of its callc (what a supply of fresh names must not give out)."""
        introduced = self._introduced_names
        if introduced is None:
            names = [v.name for v in self.params]
            names.extend(b.var.name for b in self.bindings)
            names.extend(b.value.ret for b in self.bindings if isinstance(b.value, CallC))
            introduced = self._introduced_names = tuple(names)
        return introduced

    def memo(self, key: str, compute: Callable[[Cont], Any]) -> Any:
        """`compute(self)`, computed once per continuation: for a pass's own facts about a
        continuation that its every sweep asks (`key` names the pass and the fact)."""
        memo = self._memo
        if memo is None:
            memo = self._memo = {}
        value = memo.get(key, _NOT_YET)
        if value is _NOT_YET:
            value = memo[key] = compute(self)
        return value


@dataclass(frozen=True, slots=True)
class Function:
    """`parent` is the function this one is nested in (its free variables come from there).
    A `noinline` function is never inlined into its callers (by any pass, nor by LLVM): the
    top-level statements are, so that no function grows with the size of the program."""

    name: str
    params: tuple[Var, ...]
    result: Type
    entry: str
    parent: str | None = None
    noinline: bool = False
    full: str | None = None  # closed, a closure code's entry taking the record and all n arguments


# ---------------------------------------------------------------------- queries


_VALUE_OPERANDS: dict[type, Callable[[Any], tuple[Operand, ...]]] = {
    Prim: lambda v: v.args,
    Call: lambda v: v.args,
    CallC: lambda v: v.args,
    MakeTuple: lambda v: v.items,
    MakeBlock: lambda v: v.items,
    Apply: lambda v: (v.closure,) + v.args,
    MakeClosure: lambda v: v.captured,
    Field: lambda v: (v.record,),
    SetField: lambda v: (v.record, v.value),
    GlobalLoad: lambda v: (),
    GlobalStore: lambda v: (v.value,),
}


def value_operands(value: Value) -> tuple[Operand, ...]:
    return _VALUE_OPERANDS[type(value)](value)


def terminator_operands(term: Terminator) -> tuple[Operand, ...]:
    if isinstance(term, Branch):
        return (term.condition,)
    if isinstance(term, Switch):
        return (term.value,)
    if isinstance(term, TailApply):
        return (term.closure,) + term.args
    return term.args


def handler_of(value: Value) -> str | None:
    """The handler continuation a call raises to (None: the function's `exn`)."""
    return value.handler if isinstance(value, (Call, Apply)) else None


def successors(cont: Cont) -> tuple[str, ...]:
    """Labels this continuation can transfer control to (callc targets and the handlers of
    its calls included)."""
    return cont.successor_labels


def _successors(cont: Cont) -> list[str]:
    out = []
    for b in cont.bindings:
        if isinstance(b.value, CallC):
            out.append(b.value.target)
        elif isinstance(b.value, (Call, Apply)) and b.value.handler is not None:
            out.append(b.value.handler)
    term = cont.terminator
    if isinstance(term, Jump) and isinstance(term.target, str):
        out.append(term.target)
    elif isinstance(term, Branch):
        out.extend([term.if_true, term.if_false])
    elif isinstance(term, Switch):
        out.extend(term.labels)
    return out


def curried_type(params: tuple[Var, ...], result: Type) -> Type:
    """`p1 -> p2 -> ... -> result`."""
    for p in reversed(params):
        result = TCon("->", (p.type, result))
    return result


def functions_named(cont: Cont) -> list[str]:
    """The functions a continuation calls, tail calls or makes a closure of (with its `full`)."""
    named = [b.value.function for b in cont.bindings if isinstance(b.value, (Call, MakeClosure))]
    named.extend(b.value.full for b in cont.bindings if isinstance(b.value, MakeClosure) and b.value.full)
    if isinstance(cont.terminator, TailCall):
        named.append(cont.terminator.function)
    return named


def uses_of_value(value: Value) -> list[str]:
    return [o.name for o in value_operands(value) if isinstance(o, Var)]


def terminator_uses(term: Terminator) -> list[str]:
    return [o.name for o in terminator_operands(term) if isinstance(o, Var)]

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

import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar, Union

from pyrsistent import PMap, pmap

from cpsc.cps.dominance import reverse_postorder
from cpsc.types.types import TCon

Type = TCon
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Var:
    name: str
    type: Type


@dataclass(frozen=True, slots=True)
class Const:
    """A literal: int, float, bool, char (1-char str), string, or unit (None)."""

    value: Any  # not `object`: mypyc then fails at import (KeyError: 'object')
    type: Type


Operand = Union[Var, Const]

# Calls carry the source location of the application they come from (`file:line:col`), for
# the inliner's remarks and the bisector's reports; it takes no part in equality.

# ---------------------------------------------------------------------- values (direct style)


@dataclass(frozen=True, slots=True)
class Prim:
    """A primitive operation from `cpsc.cps.primops`."""

    op: str
    args: tuple[Operand, ...]


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
    """A call through a closure value (an unknown function); `handler` as for `Call`."""

    closure: Operand
    args: tuple[Operand, ...]
    handler: str | None = None
    loc: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class MakeClosure:
    """The function `function` as a first-class value. Before closure conversion its free
    variables are captured implicitly; afterwards `captured` lists them explicitly."""

    function: str
    captured: tuple[Operand, ...] = ()


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


@dataclass(frozen=True, slots=True)
class Binding:
    var: Var
    value: Value


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


@dataclass(frozen=True, slots=True)
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
    _memo: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def successor_labels(self) -> tuple[str, ...]:
        """See `successors`."""
        if self._successors is None:
            object.__setattr__(self, "_successors", tuple(_successors(self)))
        return self._successors  # type: ignore[return-value]

    @property
    def used_names(self) -> tuple[str, ...]:
        """The variables the bindings and the terminator use, in order, with repeats."""
        if self._used_names is None:
            names = [o.name for b in self.bindings for o in value_operands(b.value) if isinstance(o, Var)]
            names.extend(o.name for o in terminator_operands(self.terminator) if isinstance(o, Var))
            object.__setattr__(self, "_used_names", tuple(names))
        return self._used_names  # type: ignore[return-value]

    def memo(self, key: str, compute: Callable[[Cont], Any]) -> Any:
        """`compute(self)`, computed once per continuation: for a pass's own facts about a
        continuation that its every sweep asks (`key` names the pass and the fact)."""
        memo = self._memo
        if memo is None:
            memo = {}
            object.__setattr__(self, "_memo", memo)
        if key not in memo:
            memo[key] = compute(self)
        return memo[key]


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


@dataclass(frozen=True)
class Program:
    functions: PMap[str, Function]
    conts: PMap[str, Cont]
    main: str
    closed: bool = False  # after closure conversion: no free variables, captures explicit
    # After closure conversion: main's variables that other functions use, by name and type.
    # Main stores each once it is defined and the others load it, rather than receiving it as
    # a parameter from every caller (which made parameter lists grow with the program).
    globals: PMap[str, Type] = field(default_factory=pmap)

    # The continuations and the functions as plain dicts, made on first use (see `cont_table`).
    _table: dict[str, Cont] | None = field(default=None, compare=False, repr=False)
    _function_table: dict[str, Function] | None = field(default=None, compare=False, repr=False)

    @property
    def cont_table(self) -> dict[str, Cont]:
        """The continuations as a plain dict: a whole-program sweep, or a pass that looks up
        labels one by one, goes many times faster through it than through the persistent map.
        A version made by `with_conts` takes over its predecessor's table when nothing else
        holds it, with the changes made: O(changes), so a pass that rewrites the program step
        by step (the inliner, contify) pays for one table, not one per step."""
        table = self._table
        if table is None:
            table = dict(self.conts.items())
            object.__setattr__(self, "_table", table)
        return table

    @property
    def function_table(self) -> dict[str, Function]:
        """The functions as a plain dict, as `cont_table`; never changed, so versions with the
        same functions share it."""
        table = self._function_table
        if table is None:
            table = dict(self.functions.items())
            object.__setattr__(self, "_function_table", table)
        return table

    def with_conts(self, changed: dict[str, Cont], removed: Iterable[str] = (),
                   functions: dict[str, Function] | None = None, removed_functions: Iterable[str] = ()) -> Program:
        """This program with the continuations `changed` (new or replaced) and without those
        `removed`, and likewise with the `functions` given and without `removed_functions`.
        Each table this program holds alone passes to the new version with the changes made."""
        removed = list(removed)
        removed_functions = list(removed_functions)
        if not changed and not removed and not functions and not removed_functions:
            return self  # the same object: passes tell "nothing changed" by identity
        program = Program(_updated(self.functions, functions or {}, removed_functions),
                          _updated(self.conts, changed, removed), self.main, self.closed, self.globals)
        object.__setattr__(program, "_table", _handed_over(self, "_table", changed, removed))
        object.__setattr__(program, "_function_table",
                           _handed_over(self, "_function_table", functions or {}, removed_functions))
        return program


def _updated(mapping: PMap[str, T], changed: dict[str, T], removed: list[str]) -> PMap[str, T]:
    if not changed and not removed:
        return mapping
    mapping = mapping.update(changed)
    for name in removed:
        mapping = mapping.discard(name)
    return mapping


def _handed_over(program: Program, table_name: str, changed: dict[str, Any], removed: list[str]) -> Any:
    """The program's table `table_name` with the changes made, if only the program holds it
    (then no one can see it change hands; the program makes a new one if asked again)."""
    if getattr(program, table_name) is None or _references(program, table_name) > _SOLE_HOLDER:
        return None
    table = getattr(program, table_name)
    object.__setattr__(program, table_name, None)
    table.update(changed)
    for name in removed:
        table.pop(name, None)
    return table


def _references(program: Program, table_name: str) -> int:
    return sys.getrefcount(getattr(program, table_name))


def _sole_holder_references() -> int:
    """What `_references` says of a table only its program holds: measured, because compiled
    (mypyc) and interpreted code count their own references differently."""
    program = Program(pmap(), pmap(), "main")
    object.__setattr__(program, "_table", {})
    return _references(program, "_table")


_SOLE_HOLDER = _sole_holder_references()


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


# The last order found for each function (by name): its labels and their continuations. It is
# still the order while the same continuation objects stand under those labels (continuations
# are immutable, so their successors are the same, and every successor was one of them): a
# sweep of every function's order redoes only the functions changed since the last sweep.
_ORDERS: dict[str, tuple[list[str], list[Cont]]] = {}


def function_conts(program: Program, function: str, conts: Mapping[str, Cont] | None = None) -> list[str]:
    """The continuations of `function` reachable from its entry, in reverse postorder
    (looked up in `conts`, by default the program's own)."""
    table = program.cont_table if conts is None else conts
    entry = program.function_table[function].entry
    known = _ORDERS.get(function)
    if known is not None and known[0][0] == entry:
        labels, seen = known
        get = table.get
        if all(get(label) is cont for label, cont in zip(labels, seen)):
            return list(labels)
    complete = True

    def successors_of(label: str) -> list[str]:
        nonlocal complete
        every = table[label].successor_labels
        found = [s for s in every if s in table]
        complete = complete and len(found) == len(every)
        return found

    labels = reverse_postorder(entry, successors_of)
    if complete:  # with a successor missing, its later arrival would change the order unseen
        _ORDERS[function] = (labels, [table[label] for label in labels])
    return list(labels)


def uses_of_value(value: Value) -> list[str]:
    return [o.name for o in value_operands(value) if isinstance(o, Var)]


def terminator_uses(term: Terminator) -> list[str]:
    return [o.name for o in terminator_operands(term) if isinstance(o, Var)]

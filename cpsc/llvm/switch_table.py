"""Switches whose arms differ only in constants, found so that lowering can emit one arm and
table lookups for the constants.

`function C0 -> 0 | C1 -> 1 | ...` becomes a switch whose every arm is a block that returns a
constant or, once inlined, goes to a join block passing it constants; in `function C0 x -> x + 0
| C1 x -> x + 1 | ...` each arm computes the same thing from a different constant. LLVM would
share such arms and turn their constants into a table too, but only late in its pipeline: until
then its CFG simplifier keeps them as blocks feeding phis of n inputs and compares them
pairwise, in time quadratic in n (11 s for a switch of 4,000 arms), and its code generator's
block placement is quadratic in them too. Emitted as one arm after table lookups, the switch
costs LLVM time linear in its size and gives the same code.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from cpsc.cps import ir as cps
from cpsc.ssa import ir

# Below this many cases a switch stays a switch: the quadratic cost is negligible, and
# LLVM's own lookup-table conversion gives the same code.
MIN_CASES = 8

# Types whose constants lower to LLVM integer constants, the tables' elements.
_SCALARS = frozenset({"int", "bool", "char", "unit"})


@dataclass(frozen=True)
class SwitchTable:
    """One arm standing for all of a switch's arms: `body` and `terminator` are an arm's with
    each constant that differs between arms replaced by a variable of `selected`, whose value
    is `columns[i][value - low]` for a switch value in `[low, low + span)`, `defaults[i]` (the
    default arm's constant) for any other value. `arms` are the blocks it replaces; `join_inputs`
    are what the arm passes to the phis of the block it goes to (the terminator's `Goto`)."""

    low: int
    selected: tuple[cps.Var, ...]
    columns: tuple[tuple[cps.Const, ...], ...]
    defaults: tuple[cps.Const, ...]
    body: tuple[cps.Binding, ...]
    terminator: ir.Return | ir.Goto
    join_inputs: tuple[cps.Operand, ...]
    arms: frozenset[str]


def switch_tables(f: ir.Function) -> dict[str, SwitchTable]:
    """The switches of `f` to emit as tables, by the label of the block each ends."""
    blocks = {block.label: block for block in f.blocks}
    predecessors = f.predecessors()
    join_inputs = _JoinInputs(blocks)
    tables: dict[str, SwitchTable] = {}
    for block in f.blocks:
        switch = block.terminator
        if not isinstance(switch, cps.Switch) or len(switch.cases) < MIN_CASES or not _dense(switch):
            continue
        arms = sorted(set(switch.labels))
        if any(set(predecessors[arm]) != {block.label} or blocks[arm].phis for arm in arms):
            continue
        shapes = {arm: _shape(blocks[arm], join_inputs) for arm in arms}
        if any(shape is None for shape in shapes.values()) or len({s[0] for s in shapes.values()}) != 1:  # type: ignore[index]
            continue
        table = _table(block.label, switch, blocks[switch.default], join_inputs,
                       {arm: s[1] for arm, s in shapes.items()})  # type: ignore[index]
        if table is not None:
            tables[block.label] = table
    return tables


def _dense(switch: cps.Switch) -> bool:
    """Whether a table over the cases' range would be mostly cases, not defaults."""
    values = [value for value, _ in switch.cases]
    return max(values) - min(values) < 2 * len(values)


class _JoinInputs:
    """What a block passes to the phis of the block its `Goto` goes to; each join's phis are
    indexed by predecessor once (a join of n arms has phis of n inputs)."""

    def __init__(self, blocks: dict[str, ir.Block]) -> None:
        self.blocks = blocks
        self.by_join: dict[str, list[dict[str, cps.Operand]]] = {}

    def of(self, block: ir.Block) -> tuple[cps.Operand, ...] | None:
        t = block.terminator
        if not isinstance(t, ir.Goto) or t.target == block.label:
            return None
        if t.target not in self.by_join:
            self.by_join[t.target] = [dict(phi.inputs) for phi in self.blocks[t.target].phis]
        inputs = [phi.get(block.label) for phi in self.by_join[t.target]]
        return None if any(i is None for i in inputs) else tuple(inputs)  # type: ignore[arg-type]


def _shape(block: ir.Block, join_inputs: _JoinInputs) -> tuple[Any, list[cps.Const]] | None:
    """What `block` computes with its constants left out (equal for arms that differ only in
    them), and the constants in the order they occur; None if it does not end in a return or
    a goto."""
    t = block.terminator
    passed = join_inputs.of(block) if isinstance(t, ir.Goto) else ()
    if not isinstance(t, (ir.Return, ir.Goto)) or passed is None:
        return None
    local: dict[str, int] = {}
    constants: list[cps.Const] = []
    try:
        body = []
        for binding in block.instructions:
            body.append((binding.var.type, _abstract(binding.value, local, constants)))
            local[binding.var.name] = len(local)
        end = _abstract(t, local, constants), _abstract(passed, local, constants)
        shape = (tuple(body), end)
        hash(shape)
    except TypeError:  # a value holding something unhashable: not worth comparing
        return None
    return shape, constants


def _abstract(x: Any, local: dict[str, int], constants: list[cps.Const]) -> Any:
    if isinstance(x, cps.Var):
        return ("local", local[x.name]) if x.name in local else ("var", x.name)
    if isinstance(x, cps.Const):
        constants.append(x)
        return "const", x.type
    if isinstance(x, tuple):
        return tuple(_abstract(item, local, constants) for item in x)
    if dataclasses.is_dataclass(x):
        return (type(x).__name__, *(_abstract(getattr(x, f.name), local, constants)
                                    for f in dataclasses.fields(x) if f.compare))
    return x


def _table(label: str, switch: cps.Switch, representative: ir.Block, join_inputs: _JoinInputs,
           constants: dict[str, list[cps.Const]]) -> SwitchTable | None:
    """The table for `switch`, whose arms have the same shape and these constants; the
    default arm, `representative`, is the one kept."""
    rows = list(constants.values())
    varying = [i for i in range(len(rows[0])) if len({(row[i].value, row[i].type) for row in rows}) > 1]
    if not varying or any(rows[0][i].type.name not in _SCALARS for i in varying):
        return None
    low = min(value for value, _ in switch.cases)
    span = max(value for value, _ in switch.cases) - low + 1
    defaults = tuple(constants[switch.default][i] for i in varying)
    entries = [defaults] * span
    for value, arm in switch.cases:
        entries[value - low] = tuple(constants[arm][i] for i in varying)
    selected = tuple(cps.Var(f"{label}:selected.{n}", rows[0][i].type) for n, i in enumerate(varying))
    replace = dict(zip(varying, selected))
    counter = iter(range(len(rows[0])))
    body, terminator, passed = _substitute(
        (representative.instructions, representative.terminator, join_inputs.of(representative) or ()),
        lambda: replace.get(next(counter)))
    return SwitchTable(low, selected, tuple(zip(*entries)), defaults, body, terminator, passed,
                       frozenset(constants))


def _substitute(x: Any, replacement: Any) -> Any:
    """`x` with each constant, in the order `_abstract` meets them, replaced by what
    `replacement()` gives (None: kept)."""
    if isinstance(x, cps.Const):
        var = replacement()
        return x if var is None else var
    if isinstance(x, tuple):
        return tuple(_substitute(item, replacement) for item in x)
    if dataclasses.is_dataclass(x) and not isinstance(x, cps.Var):
        changes = {f.name: _substitute(getattr(x, f.name), replacement) for f in dataclasses.fields(x) if f.compare}
        return dataclasses.replace(x, **changes)  # type: ignore[type-var]
    return x

"""Switches that only choose constants, found so that lowering can emit them as table lookups.

`function C0 -> 0 | C1 -> 1 | ...` becomes a switch whose every arm is an empty block that
returns a constant or, once inlined, goes to a join block passing it constants. LLVM would turn
such a switch into a table too, but only late in its pipeline: until then its CFG simplifier
keeps the arms as blocks feeding one phi of n inputs and compares them pairwise, in time
quadratic in n (11 s for a switch of 4,000 arms). Emitted as a table from the start, the switch
costs LLVM time linear in its size and gives the same code.
"""

from __future__ import annotations

from dataclasses import dataclass

from cpsc.cps import ir as cps
from cpsc.ssa import ir

# Below this many cases a switch stays a switch: the quadratic cost is negligible, and
# LLVM's own lookup-table conversion gives the same code.
MIN_CASES = 8

# Types whose constants lower to LLVM integer constants, the tables' elements.
_SCALARS = frozenset({"int", "bool", "char", "unit"})


@dataclass(frozen=True)
class SwitchTable:
    """For each value the arms carry (the one they return, or one per phi of `join`): the
    constant each switch value in `[low, low + span)` selects, and the default arm's constant
    for every other value. `arms` are the blocks the tables replace."""

    low: int
    columns: tuple[tuple[cps.Const, ...], ...]
    defaults: tuple[cps.Const, ...]
    join: str | None  # where the arms go; None: they return
    arms: frozenset[str]


def switch_tables(f: ir.Function) -> dict[str, SwitchTable]:
    """The switches of `f` to emit as tables, by the label of the block each ends."""
    blocks = {block.label: block for block in f.blocks}
    predecessors = f.predecessors()
    tables: dict[str, SwitchTable] = {}
    for block in f.blocks:
        switch = block.terminator
        if not isinstance(switch, cps.Switch) or len(switch.cases) < MIN_CASES or not _dense(switch):
            continue
        arms = set(switch.labels)
        if any(set(predecessors[arm]) != {block.label} or blocks[arm].phis or blocks[arm].instructions
               for arm in arms):
            continue
        common, join = _destination([blocks[arm].terminator for arm in arms])
        if not common:
            continue
        carried = _carried(arms, blocks, join)
        if carried is not None:
            tables[block.label] = _table(switch, carried, join, frozenset(arms))
    return tables


def _dense(switch: cps.Switch) -> bool:
    """Whether a table over the cases' range would be mostly cases, not defaults."""
    values = [value for value, _ in switch.cases]
    return max(values) - min(values) < 2 * len(values)


def _destination(terminators: list[ir.Terminator]) -> tuple[bool, str | None]:
    """Whether the arms end alike, and the one block they go to (None: they return)."""
    if all(isinstance(t, ir.Return) for t in terminators):
        return True, None
    targets = {t.target if isinstance(t, ir.Goto) else None for t in terminators}
    join = targets.pop() if len(targets) == 1 else None
    return join is not None, join


def _carried(arms: set[str], blocks: dict[str, ir.Block], join: str | None) -> dict[str, tuple[cps.Const, ...]] | None:
    """The constants each arm returns or passes to the join's phis; None if not all constants."""
    if join is None:
        columns = [{arm: blocks[arm].terminator.value for arm in arms}]  # type: ignore[union-attr]
    else:
        columns = [dict(phi.inputs) for phi in blocks[join].phis]
        if not columns or join in arms:
            return None
    carried = {arm: tuple(column[arm] for column in columns) for arm in arms}
    if all(isinstance(c, cps.Const) and c.type.name in _SCALARS for values in carried.values() for c in values):
        return carried  # type: ignore[return-value]
    return None


def _table(switch: cps.Switch, carried: dict[str, tuple[cps.Const, ...]], join: str | None,
           arms: frozenset[str]) -> SwitchTable:
    low = min(value for value, _ in switch.cases)
    defaults = carried[switch.default]
    rows = [defaults] * (max(value for value, _ in switch.cases) - low + 1)
    for value, label in switch.cases:
        rows[value - low] = carried[label]
    return SwitchTable(low, tuple(zip(*rows)), defaults, join, arms)

"""The versioned store under `ir.Program`: its functions and continuations, by name, as two
persistent maps, made lazily along a chain of versions, with plain-dict tables beside them.

A pass that rewrites a program step by step (contify, the inliner) makes one version per step.
Making each version's persistent maps at once would cost one update of the maps per step, so a
version made by `changed` keeps only its predecessor and its changes, and makes its maps when
they are asked for (`maps`: every change since the last version that has them, in one evolver).

The passes look labels up in plain dicts (`tables`), many times faster than in a persistent
map. A new version takes its predecessor's tables over, with its changes made, when nothing
else holds them (`sys.getrefcount`): O(changes) a step, and no one can see a table change hands.
A version asked for a table it gave away makes a new one from its maps.

`orders` caches each function's reverse postorder (`ir.function_conts`), checked against the
continuations it was found for, and is shared by every version made from this one: a sweep of
every function's order redoes only the functions changed since the last sweep.

The store knows nothing of what it holds: names to values, in two maps.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pyrsistent import PMap, pmap

Orders = dict[str, tuple[list[str], list[Any]]]


@dataclass(frozen=True, slots=True)
class _Delta:
    """What a version changed: continuations and functions new or replaced, and removed."""

    conts: dict[str, Any]
    removed: tuple[str, ...]
    functions: dict[str, Any]
    removed_functions: tuple[str, ...]

    def is_empty(self) -> bool:
        return not self.conts and not self.removed and not self.functions and not self.removed_functions


class Store:
    def __init__(self, functions: PMap[str, Any] | None, conts: PMap[str, Any] | None,
                 orders: Orders | None = None) -> None:
        self._functions = functions
        self._conts = conts
        # A version whose maps are not made yet: its predecessor and the changes from it.
        # (Freeing a long chain of them does not recurse deep: mypyc's dealloc, as CPython's,
        # goes through the trashcan.)
        self._base: Store | None = None
        self._delta: _Delta | None = None
        # The continuations and the functions as plain dicts, made on first use.
        self._table: dict[str, Any] | None = None
        self._function_table: dict[str, Any] | None = None
        # A store made by `of_tables`: its functions and continuations, until its maps are made.
        self._seed: tuple[dict[str, Any], dict[str, Any]] | None = None
        self.orders: Orders = {} if orders is None else orders

    @staticmethod
    def of_tables(functions: dict[str, Any], conts: dict[str, Any], orders: Orders | None = None) -> Store:
        """A store of these functions and continuations whose persistent maps are made only
        when asked for (a pass that works on a part of a program at a time asks only for tables)."""
        store = Store(None, None, orders)
        store._seed = (functions, conts)
        store._table, store._function_table = dict(conts), dict(functions)
        return store

    def maps(self) -> tuple[PMap[str, Any], PMap[str, Any]]:
        """The functions and the continuations as persistent maps."""
        if self._conts is None:
            self._make_maps()
        assert self._functions is not None and self._conts is not None
        return self._functions, self._conts

    def _make_maps(self) -> None:
        """The maps of a version: its first predecessor that has them, with every change since
        made in one evolver each (no recursion: chains are long)."""
        deltas: list[_Delta] = []
        version: Store = self
        while version._conts is None and version._seed is None:
            assert version._base is not None and version._delta is not None
            deltas.append(version._delta)
            version = version._base
        if version._seed is not None:
            seed_functions, seed_conts = version._seed
            version._functions, version._conts, version._seed = pmap(seed_functions), pmap(seed_conts), None
        assert version._conts is not None and version._functions is not None
        conts, functions = version._conts.evolver(), version._functions.evolver()
        for delta in reversed(deltas):
            _apply(conts, delta.conts, delta.removed)
            _apply(functions, delta.functions, delta.removed_functions)
        self._conts, self._functions = conts.persistent(), functions.persistent()
        self._base = self._delta = None

    def cont_table(self) -> dict[str, Any]:
        table = self._table
        if table is None:
            table = self._table = dict(self.maps()[1].items())
        return table

    def function_table(self) -> dict[str, Any]:
        table = self._function_table
        if table is None:
            table = self._function_table = dict(self.maps()[0].items())
        return table

    def changed(self, conts: dict[str, Any], removed: Iterable[str], functions: dict[str, Any],
                removed_functions: Iterable[str]) -> Store | None:
        """The next version, with these changes; None if they change nothing."""
        delta = _Delta(dict(conts), tuple(removed), dict(functions), tuple(removed_functions))
        if delta.is_empty():
            return None
        store = Store(None, None, self.orders)
        store._base, store._delta = self, delta
        store._table = _handed_over(self, "_table", delta.conts, delta.removed)
        store._function_table = _handed_over(self, "_function_table", delta.functions, delta.removed_functions)
        return store


def _apply(evolver: Any, changed: dict[str, Any], removed: tuple[str, ...]) -> None:
    for name, value in changed.items():
        evolver[name] = value
    for name in removed:
        if name in evolver:
            del evolver[name]


def _handed_over(store: Store, table_name: str, changed: dict[str, Any], removed: tuple[str, ...]) -> Any:
    """The store's table `table_name` with the changes made, if only the store holds it."""
    if getattr(store, table_name) is None or _references(store, table_name) > _SOLE_HOLDER:
        return None
    table = getattr(store, table_name)
    setattr(store, table_name, None)
    table.update(changed)
    for name in removed:
        table.pop(name, None)
    return table


def _references(store: Store, table_name: str) -> int:
    return sys.getrefcount(getattr(store, table_name))


def _sole_holder_references() -> int:
    """What `_references` says of a table only its store holds: measured, because compiled
    (mypyc) and interpreted code count their own references differently."""
    store = Store(pmap(), pmap())
    store._table = {}
    return _references(store, "_table")


_SOLE_HOLDER = _sole_holder_references()

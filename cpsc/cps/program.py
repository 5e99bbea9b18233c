"""A program of the CPS IR: its functions and continuations by name and label (`cpsc.cps.ir`
has the nodes), and the order of each function's continuations, which every sweep follows."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pyrsistent import PMap, pmap

from cpsc.cps.dominance import reverse_postorder
from cpsc.cps.ir import Cont, Function, Type
from cpsc.cps.store import Orders, Store


class Program:
    """The functions and continuations, by name and label, as persistent maps; `main`;
    `closed` after closure conversion (no free variables, captures explicit); and `globals`
    after closure conversion: main's variables that other functions use, by name and type.
    Main stores each once it is defined and the others load it, rather than receiving it as a
    parameter from every caller (which made parameter lists grow with the program).

    A program is a value (equal programs compare equal), never changed once made. The passes
    look labels up in `cont_table` and `function_table`, plain dicts; a new version made by
    `with_conts` costs what it changes, not the size of the program (`cpsc.cps.store`)."""

    def __init__(self, functions: PMap[str, Function], conts: PMap[str, Cont], main: str,
                 closed: bool = False, globals: PMap[str, Type] | None = None,
                 store: Store | None = None) -> None:
        self._store = store if store is not None else Store(functions, conts)
        self.main = main
        self.closed = closed
        self.globals: PMap[str, Type] = pmap() if globals is None else globals

    @staticmethod
    def of_tables(functions: dict[str, Function], conts: dict[str, Cont], main: str,
                  closed: bool = False, globals: PMap[str, Type] | None = None,
                  like: Program | None = None) -> Program:
        """A program of these functions and continuations, whose persistent maps are made only
        when asked for: a pass that works on a part of a program at a time (simplify) makes one
        program per part (`like`: the whole, whose cached facts the part shares)."""
        orders = like._store.orders if like is not None else None
        return Program(None, None, main, closed, globals,  # type: ignore[arg-type]
                       Store.of_tables(functions, conts, orders))

    @property
    def functions(self) -> PMap[str, Function]:
        return self._store.maps()[0]

    @property
    def conts(self) -> PMap[str, Cont]:
        return self._store.maps()[1]

    @property
    def orders(self) -> Orders:
        """Each function's last known reverse postorder (`function_conts`), shared with the
        versions made from this one."""
        return self._store.orders

    def _key(self) -> tuple[Any, ...]:
        return (self.functions, self.conts, self.main, self.closed, self.globals)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Program) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"<Program main={self.main!r}: {len(self.function_table)} functions, "
                f"{len(self.cont_table)} continuations{', closed' if self.closed else ''}>")

    @property
    def cont_table(self) -> dict[str, Cont]:
        """The continuations as a plain dict: a whole-program sweep, or a pass that looks up
        labels one by one, goes many times faster through it than through the persistent map.
        Never change it: it may pass to the next version."""
        return self._store.cont_table()

    @property
    def function_table(self) -> dict[str, Function]:
        """The functions as a plain dict, as `cont_table`."""
        return self._store.function_table()

    def with_conts(self, changed: dict[str, Cont], removed: Iterable[str] = (),
                   functions: dict[str, Function] | None = None, removed_functions: Iterable[str] = ()) -> Program:
        """This program with the continuations `changed` (new or replaced) and without those
        `removed`, and likewise with the `functions` given and without `removed_functions`."""
        store = self._store.changed(changed, removed, functions or {}, removed_functions)
        if store is None:
            return self  # the same object: passes tell "nothing changed" by identity
        return Program(None, None, self.main, self.closed, self.globals, store)  # type: ignore[arg-type]


def function_conts(program: Program, function: str, conts: Mapping[str, Cont] | None = None) -> list[str]:
    """The continuations of `function` reachable from its entry, in reverse postorder
    (looked up in `conts`, by default the program's own). The order last found for the function
    (`Program.orders`) is still its order while the same continuation objects stand under its
    labels (continuations are immutable, so their successors are the same, and every successor
    was one of them): it is found again only for the functions changed since."""
    table = program.cont_table if conts is None else conts
    entry = program.function_table[function].entry
    orders = program.orders
    known = orders.get(function)
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
        orders[function] = (labels, [table[label] for label in labels])
    return list(labels)

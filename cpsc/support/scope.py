"""A symbol table for strictly nested scopes: one mutable dict plus an undo log.

Inference, monomorphisation and CPS conversion walk the program with an environment that grows
by one binding at a time and shrinks when a scope ends. Copying a dict per binding makes a
chain of n `let`s cost O(n^2); here binding and undoing cost O(1) each, so the walk is linear.
The price is discipline: a scope must be closed (`undo(mark)`) before its enclosing one, which
is how a recursive walk over a tree naturally behaves.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

V = TypeVar("V")

_ABSENT = object()


class Scope(Generic[V]):
    def __init__(self, initial: dict[str, V] | None = None) -> None:
        self._values: dict[str, V] = dict(initial or {})
        self._undo: list[tuple[str, object]] = []

    def get(self, name: str, default: V | None = None) -> V | None:
        return self._values.get(name, default)

    def __getitem__(self, name: str) -> V:
        return self._values[name]

    def __contains__(self, name: str) -> bool:
        return name in self._values

    def snapshot(self) -> dict[str, V]:
        """The bindings in force now, as a plain dict."""
        return dict(self._values)

    def bind(self, name: str, value: V) -> None:
        """Bind `name` until the scope that is open now is undone (shadowing any outer binding)."""
        self._undo.append((name, self._values.get(name, _ABSENT)))  # type: ignore[arg-type]
        self._values[name] = value

    def mark(self) -> int:
        """A point to `undo` back to: the bindings made after it form one scope."""
        return len(self._undo)

    def undo(self, mark: int) -> None:
        """Forget every binding made since `mark`, restoring what they shadowed."""
        undo, values = self._undo, self._values
        while len(undo) > mark:
            name, old = undo.pop()
            if old is _ABSENT:
                del values[name]
            else:
                values[name] = old  # type: ignore[assignment]

    @contextmanager
    def scope(self) -> Iterator[None]:
        """`with env.scope(): env.bind(...)`: the bindings end with the block."""
        mark = self.mark()
        try:
            yield
        finally:
            self.undo(mark)

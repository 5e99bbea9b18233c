"""Unification of types, with the occurs check and levels kept for generalisation."""

from __future__ import annotations

from cpsc.types.types import (
    TVar,
    Type,
    resolve,
)


class UnificationError(Exception):
    pass


class Occurs(UnificationError):
    """A type variable would occur inside the type it is unified with."""

    def __init__(self, var: TVar, inside: Type) -> None:
        super().__init__("occurs")
        self.var, self.inside = var, inside


def _occurs_and_adjust(var: TVar, t: Type) -> None:
    t = resolve(t)
    if t is var:
        raise UnificationError("occurs")
    if isinstance(t, TVar):
        t.level = min(t.level, var.level)
    else:
        for arg in t.args:
            _occurs_and_adjust(var, arg)


def unify(a: Type, b: Type) -> None:
    a, b = resolve(a), resolve(b)
    if a is b:
        return
    if isinstance(a, TVar) or isinstance(b, TVar):
        var, other = (a, b) if isinstance(a, TVar) else (b, a)
        assert isinstance(var, TVar)
        try:
            _occurs_and_adjust(var, other)
        except UnificationError:
            raise Occurs(var, other) from None
        if isinstance(other, TVar) and other.name is None:
            other.name = var.name  # (what the program named one of the two, it names)
        var.link = other
    elif a.name != b.name or len(a.args) != len(b.args):
        raise UnificationError("clash")
    else:
        for x, y in zip(a.args, b.args):
            unify(x, y)

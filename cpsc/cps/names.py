"""Fresh, readable, program-unique names for variables, continuations and functions."""

from __future__ import annotations

import re


def sanitize(name: str) -> str:
    """An IR identifier from a source name: `min<int>` becomes `min_int`, `( |> )` becomes `op`."""
    base, _, instance = name.partition("<")
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_'.]*", base):
        base = "op"
    base = base.replace("'", "_")
    if instance:
        base += "_" + re.sub(r"\W+", "_", instance).strip("_")
    return base


class NameSupply:
    """Names never given out before and not in `taken`, which the supply takes over (it adds
    each name it gives out): the sets passed in hold every name of a program, built for the
    supply alone, and a copy would double their cost."""

    def __init__(self, taken: set[str] | None = None) -> None:
        self.taken: set[str] = set() if taken is None else taken
        self.counters: dict[str, int] = {}

    def fresh_copy(self, name: str) -> str:
        """A fresh name for a copy of `name`: `t.12` gives `t.N`, not `t.12.1`."""
        return self.fresh(re.sub(r"(\.[0-9]+)+$", "", name) or name)

    def fresh(self, hint: str) -> str:
        hint = sanitize(hint)
        if hint not in self.taken:
            self.taken.add(hint)
            return hint
        n = self.counters.get(hint, 0)
        while True:
            n += 1
            candidate = f"{hint}.{n}"
            if candidate not in self.taken:
                self.counters[hint] = n
                self.taken.add(candidate)
                return candidate

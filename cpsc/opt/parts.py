"""The program in independent parts: groups of functions whose code shares no variable and no
continuation with the code of another group.

A pass that sweeps the program many times (simplify's reductions, round after round) can sweep
one part at a time to its fixed point instead: a part's continuations stay in the processor's
caches from one sweep to the next, where the whole program's do not. (Measured at 16,000 lines
of ordinary code: a sweep over every continuation costs 2.5 times as much per continuation as
at 2,000 lines, though it does the same work, because the program no longer fits in the cache.)

Before closure conversion a nested function uses its parents' variables by name, so a function
and the functions using its variables are one part; functions that only call each other (by
name, as top-level functions do) are independent.
"""

from __future__ import annotations

from collections.abc import Iterable

from cpsc.cps import ir
from cpsc.cps.program import Program
from cpsc.cps.rewrite import cont_definitions

PART_SIZE = 256
"""How many continuations the parts given to a pass hold at most (unless one part alone holds
more): enough that a part's own overhead is small next to its work, few enough for the cache."""


def independent_parts(program: Program, size: int = PART_SIZE) -> list[tuple[list[str], list[str]]]:
    """The program's functions in parts of about `size` continuations, each part with its
    continuations' labels: no variable and no label is defined in one part and used in another.
    Every function and every continuation of the program is in exactly one part.

    A function with free variables (its own or its nested functions') is in its parent's part,
    where they are defined or are free in turn; every other function heads a part of its own
    with the functions nested in it. Each function's sets are its own, so the sweep touches no
    table as large as the program. Relies on the verifier's rules of scope: a variable is used
    only in its function and the functions nested in it, and a label only in its function."""
    functions = program.function_table
    conts_of: dict[str, list[ir.Cont]] = {name: [] for name in functions}
    for cont in program.cont_table.values():
        conts_of[cont.function].append(cont)
    children: dict[str, list[str]] = {}
    for function in functions.values():
        if function.parent is not None:
            children.setdefault(function.parent, []).append(function.name)
    roots = [function.name for function in functions.values() if function.parent is None]
    free: dict[str, set[str]] = {}  # of the functions whose parts are not made yet
    heads: set[str] = set(roots)
    order = [name for root in roots for name in _subtree(root, children)]  # parents first
    for name in order[::-1]:
        outside = {used for cont in conts_of[name] for used in cont.used_names}
        for child in children.get(name, ()):
            child_free = free.pop(child)
            if not child_free:
                heads.add(child)
            elif len(child_free) > len(outside):  # the smaller into the larger: deep nests stay linear
                child_free |= outside
                outside = child_free
            else:
                outside |= child_free
        outside -= _defined_in(functions[name], conts_of[name])
        free[name] = outside
    part_of: dict[str, str] = {}
    for name in order:
        parent = functions[name].parent
        part_of[name] = name if name in heads or parent is None else part_of[parent]
    members: dict[str, list[str]] = {}
    for name in functions:
        members.setdefault(part_of[name], []).append(name)
    return _batched(members.values(), conts_of, size)


def _subtree(root: str, children: dict[str, list[str]]) -> list[str]:
    """`root` and the functions nested in it, each before those nested in it."""
    out, work = [], [root]
    while work:
        name = work.pop()
        out.append(name)
        work.extend(children.get(name, ()))
    return out


def _defined_in(function: ir.Function, conts: list[ir.Cont]) -> set[str]:
    defined = {p.name for p in function.params}
    defined.update(v.name for cont in conts for v in cont_definitions(cont))
    return defined


def _batched(groups: Iterable[list[str]], conts_of: dict[str, list[ir.Cont]],
             size: int) -> list[tuple[list[str], list[str]]]:
    """Consecutive groups together, up to `size` continuations a batch."""
    batches: list[tuple[list[str], list[str]]] = []
    functions: list[str] = []
    labels: list[str] = []
    for group in groups:
        group_labels = [cont.label for name in group for cont in conts_of[name]]
        if functions and len(labels) + len(group_labels) > size:
            batches.append((functions, labels))
            functions, labels = [], []
        functions.extend(group)
        labels.extend(group_labels)
    if functions:
        batches.append((functions, labels))
    return batches

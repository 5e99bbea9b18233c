"""Splitting a large program into parts that LLVM optimises and compiles in parallel, one
process each, as rustc's codegen units.

LLVM's time is most of a large build's, and a module's functions are optimised one after
another. Functions that may be inlined into one another stay in one part (a call of a
`noinline` function is the only edge that may be cut: LLVM would not inline it anyway), so a
part loses nothing LLVM could have done across the cut but interprocedural facts (a callee's
attributes, constant arguments). A group is never cut, even when it is bigger than a part's
share: cut into runs, a chain of calls lost the constant arguments LLVM propagates down it,
and LLVM's inliner, left to grind through each run, took time quadratic in its length (a
chain of 16,000 small functions: 90 s, against 3 s whole). The parts are balanced greedily by
size, biggest group first.
A program below `PART_SIZE` stays one module: small programs, the benchmarks among them, are
compiled exactly as before.
"""

from __future__ import annotations

import os

from cpsc.cps import ir as cps
from cpsc.cps.graphs import Groups
from cpsc.ssa import ir

PART_SIZE = 2000  # instructions and blocks per part, at the least
MAX_PARTS = 8


def function_size(f: ir.Function) -> int:
    return sum(len(b.instructions) + len(b.phis) + 1 for b in f.blocks)


def functions_named(f: ir.Function) -> set[str]:
    """The functions `f` calls, tail calls or makes a closure of, and its `full` entry."""
    named: set[str] = {f.full} if f.full else set()
    for block in f.blocks:
        bindings = list(block.instructions)
        if isinstance(block.terminator, ir.Invoke):
            bindings.append(block.terminator.binding)
        named.update(b.value.function for b in bindings if isinstance(b.value, (cps.Call, cps.MakeClosure)))
        if isinstance(block.terminator, cps.TailCall):
            named.add(block.terminator.function)
    return named


def part_count(module: ir.Module) -> int:
    """How many parts `module` is worth: one per `PART_SIZE`, at most one per processor."""
    processors = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    size = sum(function_size(f) for f in module.functions)
    return max(1, min(processors, MAX_PARTS, size // PART_SIZE))


def partition(module: ir.Module, parts: int) -> list[set[str]]:
    """The names of the functions of each part; `module.main` is in the first."""
    joined = Groups([f.name for f in module.functions])
    noinline = {f.name for f in module.functions if f.noinline}
    for f in module.functions:
        for callee in functions_named(f) - noinline:
            joined.join(f.name, callee)
    groups: dict[str, list[ir.Function]] = {}
    for f in module.functions:
        groups.setdefault(joined.leader(f.name), []).append(f)
    sized = sorted(groups.values(), key=lambda group: (-sum(map(function_size, group)), group[0].name))
    main_group = next(g for g in sized if any(f.name == module.main for f in g))
    sized.remove(main_group)
    names: list[set[str]] = [set() for _ in range(parts)]
    loads = [0] * parts
    for group in [main_group, *sized]:
        lightest = 0 if group is main_group else loads.index(min(loads))
        names[lightest].update(f.name for f in group)
        loads[lightest] += sum(map(function_size, group))
    return [part for part in names if part]

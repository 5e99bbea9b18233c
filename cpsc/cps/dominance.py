"""Dominators of a control-flow graph (shared by the CPS and SSA verifiers).

The immediate dominators come from Cooper, Harvey and Kennedy's "A Simple, Fast Dominance
Algorithm" (iterating over the reverse postorder; two or three sweeps on the graphs a compiler
makes), then a depth-first walk of the dominator tree numbers each node on entry and exit, so
that "a dominates b" is two comparisons, however deep the tree. Both are linear in practice,
where a set of dominators per node costs quadratic time and memory on long chains of blocks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence


class Dominators:
    """Dominance in the graph of `labels` (`labels[0]` is the entry) with predecessors `preds`.
    Nodes not reachable from the entry dominate nothing and are dominated by nothing."""

    def __init__(self, labels: Sequence[str], preds: Mapping[str, Sequence[str]]) -> None:
        order = _reverse_postorder(labels, preds)
        index = {label: i for i, label in enumerate(order)}
        idom = _immediate_dominators(order, index, preds)
        self.idom = {order[i]: order[d] for i, d in enumerate(idom) if i != 0}
        self._enter, self._exit = _tree_numbering(order, idom)

    def dominates(self, a: str, b: str) -> bool:
        """Whether every path from the entry to `b` passes through `a` (a node dominates itself)."""
        if a not in self._enter or b not in self._enter:
            return False
        return self._enter[a] <= self._enter[b] and self._exit[b] <= self._exit[a]


def reverse_postorder(entry: str, successors: Callable[[str], Sequence[str]]) -> list[str]:
    """The nodes reachable from `entry`, each after all its predecessors but along back edges
    (depth first, with an explicit stack: graphs may be 100,000 blocks long). Each node's
    successors are asked for once: a switch may have thousands."""
    seen = {entry}
    postorder: list[str] = []
    stack: list[tuple[str, Iterator[str]]] = [(entry, iter(successors(entry)))]
    while stack:
        label, children = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            postorder.append(label)
        elif child not in seen:
            seen.add(child)
            stack.append((child, iter(successors(child))))
    postorder.reverse()
    return postorder


def _reverse_postorder(labels: Sequence[str], preds: Mapping[str, Sequence[str]]) -> list[str]:
    successors: dict[str, list[str]] = {label: [] for label in labels}
    for label in labels:
        for p in preds.get(label, ()):
            if p in successors:
                successors[p].append(label)
    return reverse_postorder(labels[0], successors.__getitem__)


def _immediate_dominators(order: list[str], index: dict[str, int],
                          preds: Mapping[str, Sequence[str]]) -> list[int]:
    """idom[i] for each node by its reverse-postorder number (the entry is its own idom)."""
    undefined = -1
    idom = [undefined] * len(order)
    idom[0] = 0
    pred_numbers = [[index[p] for p in preds.get(label, ()) if p in index] for label in order]

    def intersect(a: int, b: int) -> int:
        while a != b:
            while a > b:
                a = idom[a]
            while b > a:
                b = idom[b]
        return a

    changed = True
    while changed:
        changed = False
        for i in range(1, len(order)):
            new = undefined
            for p in pred_numbers[i]:
                if idom[p] != undefined:
                    new = p if new == undefined else intersect(p, new)
            if new != idom[i]:
                idom[i], changed = new, True
    return idom


def _tree_numbering(order: list[str], idom: list[int]) -> tuple[dict[str, int], dict[str, int]]:
    """Entry and exit times of a depth-first walk of the dominator tree."""
    children: list[list[int]] = [[] for _ in order]
    for i in range(1, len(order)):
        children[idom[i]].append(i)
    enter: dict[str, int] = {}
    exit_: dict[str, int] = {}
    clock = 0
    stack: list[tuple[int, bool]] = [(0, False)]
    while stack:
        node, leaving = stack.pop()
        clock += 1
        if leaving:
            exit_[order[node]] = clock
            continue
        enter[order[node]] = clock
        stack.append((node, True))
        stack.extend((child, False) for child in children[node])
    return enter, exit_

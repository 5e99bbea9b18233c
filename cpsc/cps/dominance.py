"""Dominators of a control-flow graph (shared by the CPS and SSA verifiers).

The immediate dominators come from Lengauer and Tarjan's algorithm (near-linear on every
graph), then a depth-first walk of the dominator tree numbers each node on entry and exit, so
that "a dominates b" is two comparisons, however deep the tree. A set of dominators per node
costs quadratic time and memory on long chains of blocks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence


class Dominators:
    """Dominance in the graph of `labels` (`labels[0]` is the entry) with predecessors `preds`.
    Nodes not reachable from the entry dominate nothing and are dominated by nothing."""

    def __init__(self, labels: Sequence[str], preds: Mapping[str, Sequence[str]]) -> None:
        order, parent = _depth_first(labels, preds)
        index = {label: i for i, label in enumerate(order)}
        pred_numbers = [[index[p] for p in preds.get(label, ()) if p in index] for label in order]
        idom = _immediate_dominators(parent, pred_numbers)
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


def _depth_first(labels: Sequence[str], preds: Mapping[str, Sequence[str]]) -> tuple[list[str], list[int]]:
    """The nodes reachable from the entry in depth-first preorder, and each one's parent in the
    depth-first tree by its number (the entry's is itself)."""
    successors: dict[str, list[str]] = {label: [] for label in labels}
    for label in labels:
        for p in preds.get(label, ()):
            if p in successors:
                successors[p].append(label)
    entry = labels[0]
    order = [entry]
    number = {entry: 0}
    parent = [0]
    stack: list[tuple[int, Iterator[str]]] = [(0, iter(successors[entry]))]
    while stack:
        node, children = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
        elif child not in number:
            number[child] = len(order)
            order.append(child)
            parent.append(node)
            stack.append((number[child], iter(successors[child])))
    return order, parent


def _immediate_dominators(parent: list[int], preds: list[list[int]]) -> list[int]:
    """idom[i] for each node by its depth-first number (the entry is its own idom): Lengauer
    and Tarjan's algorithm, with path compression. Not Cooper, Harvey and Kennedy's iteration,
    simpler but quadratic where thousands of branches at increasing depths join (the failure
    of a long list pattern)."""
    count = len(parent)
    semi = list(range(count))
    idom = [0] * count
    ancestor = [-1] * count  # in the forest built so far
    label = list(range(count))  # the node of least semidominator on the path to its ancestor
    bucket: list[list[int]] = [[] for _ in range(count)]

    def evaluate(v: int) -> int:
        if ancestor[v] == -1:
            return v
        path = []  # compressed from the top down, without recursion
        while ancestor[ancestor[v]] != -1:
            path.append(v)
            v = ancestor[v]
        for node in reversed(path):
            up = ancestor[node]
            if semi[label[up]] < semi[label[node]]:
                label[node] = label[up]
            ancestor[node] = ancestor[up]
        return label[path[0]] if path else label[v]

    for w in range(count - 1, 0, -1):
        for v in preds[w]:
            u = evaluate(v)
            if semi[u] < semi[w]:
                semi[w] = semi[u]
        bucket[semi[w]].append(w)
        ancestor[w] = parent[w]
        for v in bucket[parent[w]]:
            u = evaluate(v)
            idom[v] = u if semi[u] < semi[v] else parent[w]
        bucket[parent[w]].clear()
    for w in range(1, count):
        if idom[w] != semi[w]:
            idom[w] = idom[idom[w]]
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

"""Dominators by Lengauer-Tarjan with tree numbering (used by both verifiers and the optimiser)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cpsc.cps.dominance import Dominators


def graph(edges: dict[str, list[str]]) -> tuple[list[str], dict[str, list[str]]]:
    labels = list(edges)
    preds: dict[str, list[str]] = {label: [] for label in labels}
    for source, targets in edges.items():
        for target in targets:
            preds[target].append(source)
    return labels, preds


def test_diamond_with_loop():
    # entry -> a -> (b | c) -> d -> a (back edge), d -> exit
    dom = Dominators(*graph({"entry": ["a"], "a": ["b", "c"], "b": ["d"], "c": ["d"], "d": ["a", "exit"],
                             "exit": []}))
    assert dom.idom == {"a": "entry", "b": "a", "c": "a", "d": "a", "exit": "d"}
    assert dom.dominates("a", "exit") and dom.dominates("d", "d")
    assert not dom.dominates("b", "d") and not dom.dominates("c", "d") and not dom.dominates("exit", "a")


def test_unreachable_blocks_take_no_part():
    dom = Dominators(*graph({"entry": ["a"], "a": [], "dead": ["a"]}))
    assert dom.dominates("entry", "a") and not dom.dominates("dead", "a") and not dom.dominates("entry", "dead")


def test_long_chain_is_fast_and_exact():
    n = 50_000
    edges = {f"b{i}": [f"b{i + 1}"] for i in range(n)}
    edges[f"b{n}"] = []
    dom = Dominators(*graph(edges))
    assert dom.dominates("b0", f"b{n}") and dom.dominates(f"b{n // 2}", f"b{n - 1}")
    assert not dom.dominates(f"b{n}", "b0")


def test_many_branches_joining_at_increasing_depths_is_fast_and_exact():
    """A long list pattern's shape: a chain whose every block also jumps to one failure block
    (quadratic for Cooper-Harvey-Kennedy, whose joins walk up from each branch)."""
    n = 50_000
    edges = {f"b{i}": [f"b{i + 1}", "fail"] for i in range(n)}
    edges[f"b{n}"] = []
    edges["fail"] = []
    dom = Dominators(*graph(edges))
    assert dom.idom["fail"] == "b0" and dom.idom[f"b{n}"] == f"b{n - 1}"
    assert dom.dominates(f"b{n // 2}", f"b{n}") and not dom.dominates("b1", "fail")


def _dominator_sets(labels: list[str], preds: dict[str, list[str]]) -> dict[str, set[str]]:
    """Dominators by the textbook data flow: dom(n) = {n} + the intersection over n's
    reachable predecessors."""
    successors: dict[str, list[str]] = {label: [] for label in labels}
    for label in labels:
        for p in preds[label]:
            successors[p].append(label)
    reachable, work = {labels[0]}, [labels[0]]
    while work:
        for s in successors[work.pop()]:
            if s not in reachable:
                reachable.add(s)
                work.append(s)
    dom = {label: set(reachable) for label in reachable}
    dom[labels[0]] = {labels[0]}
    changed = True
    while changed:
        changed = False
        for label in labels[1:]:
            if label in reachable:
                new = set.intersection(*(dom[p] for p in preds[label] if p in reachable)) | {label}
                if new != dom[label]:
                    dom[label], changed = new, True
    return dom


@st.composite
def graphs(draw: st.DrawFn) -> tuple[int, list[tuple[int, int]]]:
    """Most nodes reachable (each but a few has an edge from an earlier one), with other edges
    anywhere: forward, back and to itself."""
    n = draw(st.integers(1, 14))
    tree = [(draw(st.integers(0, i - 1)), i) for i in range(1, n) if draw(st.integers(0, 9)) > 0]
    extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=2 * n))
    return n, tree + extra


@given(graphs())
def test_dominance_is_the_textbook_definition(graph_spec):
    n, edge_list = graph_spec
    labels = [f"n{i}" for i in range(n)]
    preds: dict[str, list[str]] = {label: [] for label in labels}
    for source, target in edge_list:
        preds[labels[target]].append(labels[source])
    expected = _dominator_sets(labels, preds)
    dom = Dominators(labels, preds)
    for a in labels:
        for b in labels:
            assert dom.dominates(a, b) == (b in expected and a in expected[b]), (a, b)
    for label, idom in dom.idom.items():  # the closest strict dominator
        assert idom in expected[label] - {label}
        assert expected[label] - {label} <= expected[idom]

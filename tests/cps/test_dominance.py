"""Dominators by Cooper-Harvey-Kennedy with tree numbering (used by both verifiers)."""

from __future__ import annotations

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

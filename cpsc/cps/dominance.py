"""Dominators of a control-flow graph (shared by the CPS and SSA verifiers)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def dominators(labels: Sequence[str], preds: Mapping[str, Sequence[str]]) -> dict[str, set[str]]:
    """Iterative data-flow dominators; `labels[0]` is the entry. Functions are small, so the
    set-based algorithm is plenty and easy to trust."""
    entry = labels[0]
    dom = {label: set(labels) for label in labels}
    dom[entry] = {entry}
    changed = True
    while changed:
        changed = False
        for label in labels[1:]:
            incoming = [dom[p] for p in preds[label] if p in dom]
            new = (set.intersection(*incoming) if incoming else set()) | {label}
            if new != dom[label]:
                dom[label], changed = new, True
    return dom

"""Planted bugs: plausible wrong variants of the passes, each switched on by name, so that the
property tests can be shown to catch what a real mistake in a pass would do.

`scripts/planted-bugs` switches each on in turn (through the environment variable
`CPSC_PLANTED_BUG`, read once at import), runs the property tests against it and prints
`planted bugs: K/N killed`. With none switched on, every check is one set lookup.
"""

from __future__ import annotations

import os

BUGS: dict[str, str] = {
    "inline.swap_arguments": "the callee's parameters receive the call's arguments in reverse order",
    "inline.handler_ignored": "calls in the inlined code raise out of the caller, past the call's handler",
    "inline.tail_call_kept": "a tail call in the inlined code stays a tail call although the call was not one",
    "contify.handler_ignored": "calls in the contified code raise out of the caller, past the call's handler",
    "contify.raise_past_handler": "a raise in the contified code leaves the caller instead of going to the handler",
    "contify.parent_kept": "functions nested in the contified function keep it as their parent",
    "cse.effects_merged": "array loads, reads and loads of mutable fields are numbered as pure: merged across stores",
    "cse.phi_input_dropped": "a VN-phi ignores the value of its first incoming jump",
    "cse.offset_sign": "`x - c` is numbered as `x + c`",
    "licm.effects_hoisted": "an array load leaves the loop although the loop stores into the array",
    "licm.phis_ignored": "a loop's continuation parameters count as defined outside it",
    "licm.speculative_load": "a load from a variant leaves the loop, ahead of the test of its constructor",
    "local_refs.captured_promoted": "a ref a nested function uses is promoted as if only its own function did",
    "local_refs.loop_phi_missing": "no parameter where a loop's back edge brings a stored value",
    "local_refs.handler_sees_last_store": "a handler sees the value stored last in the block, not the one current at the call",
    "simplify.impure_dead": "an unused primitive with an effect (a print, an array store) is removed as dead",
    "simplify.branch_inverted": "a branch on a constant condition is folded to the wrong target",
    "simplify.wrong_field": "a field of a block built in sight folds to the next field of the same type",
}

_ACTIVE = frozenset(name for name in os.environ.get("CPSC_PLANTED_BUG", "").split(",") if name)
unknown = _ACTIVE - set(BUGS)
if unknown:
    raise SystemExit(f"cpsc: unknown planted bug {sorted(unknown)[0]} (known: {', '.join(BUGS)})")


def planted(name: str) -> bool:
    """Whether the planted bug `name` is switched on."""
    return name in _ACTIVE

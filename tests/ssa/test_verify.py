"""For each SSA verifier rule: SSA text that breaks it, and the verifier's message."""

from __future__ import annotations

import pytest

from cpsc.ssa.interp import run_ssa
from cpsc.ssa.parser import parse_module
from cpsc.ssa.printer import print_module
from cpsc.ssa.verify import SsaVerifyError, verify_module

VALID = """; main: main

function main() -> unit
  #entry:
    %n: int = add_int(2, 3)
    %c: bool = gt_int(%n, 5)
    br %c, #big, #small
  #big:  ← #entry
    %b: int = mul_int(%n, 2)
    goto #join
  #small:  ← #entry
    %s: int = add_int(%n, 100)
    goto #join
  #join:  ← #big, #small
    %v: int = φ (#big => %b, #small => %s)
    %u: unit = print_int(%v)
    return %u
"""

BROKEN = [
    ("CFG disagrees with terminators", ("#join:  ← #big, #small", "#join:  ← #big"), "the CFG says #join"),
    ("one phi input per predecessor", ("φ (#big => %b, #small => %s)", "φ (#big => %b)"),
     "has inputs from \\['big'\\]"),
    ("definition dominates use", ("%s: int = add_int(%n, 100)", "%s: int = add_int(%b, 100)"),
     "does not dominate its use in #small"),
    ("defined once", ("%b: int = mul_int(%n, 2)", "%b: int = mul_int(%n, 2)\n    %b: int = add_int(%n, 1)"),
     "defined twice"),
    ("critical edge into a phi block",
     ("br %c, #big, #small\n  #big:  ← #entry\n    %b: int = mul_int(%n, 2)\n    goto #join\n"
      "  #small:  ← #entry\n    %s: int = add_int(%n, 100)\n    goto #join\n  #join:  ← #big, #small\n"
      "    %v: int = φ (#big => %b, #small => %s)",
      "br %c, #big, #join\n  #big:  ← #entry\n    %b: int = mul_int(%n, 2)\n    goto #join\n"
      "  #join:  ← #big, #entry\n    %v: int = φ (#big => %b, #entry => %n)"),
     "critical edge #entry -> #join"),
    ("jump to an unknown block", ("goto #join\n  #small", "goto #nowhere\n  #small"), "unknown block #nowhere"),
]


def test_valid_module_is_accepted_and_runs():
    module = parse_module(VALID)
    verify_module(module)
    assert print_module(module) == VALID
    assert run_ssa(module).stdout == "105"


@pytest.mark.parametrize("name, edit, message", BROKEN, ids=[b[0] for b in BROKEN])
def test_ssa_verifier_rejects(name, edit, message):
    old, new = edit
    assert old in VALID
    module = parse_module(VALID.replace(old, new, 1))
    with pytest.raises(SsaVerifyError, match=message):
        verify_module(module)

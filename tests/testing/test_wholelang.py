"""Random programs over the whole language (`scripts/wholelang`): made again from their seed,
valid OCaml, every kind of piece made, agreeing with `ocaml` at every level; a planted
miscompilation is found and reduced to a small program."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from cpsc.testing import wholelang
from cpsc.testing.reduce import ddmin, top_level_items

NEEDS_OCAML = pytest.mark.skipif(shutil.which("ocaml") is None, reason="ocaml is not installed")
# The quick profile in CI; HYPOTHESIS_PROFILE=thorough checks many more (and scripts/wholelang more still)
COUNT = 200 if os.environ.get("HYPOTHESIS_PROFILE") == "thorough" else 6
FIRST_SEED = 46_000


def test_programs_come_again_from_their_seed_and_use_every_piece():
    assert wholelang.program(5) == wholelang.program(5) != wholelang.program(6)
    made = "".join(wholelang.program(seed) for seed in range(60))
    for marker in ("Map.Make", "Set.Make", "Hashtbl.", "Printf.", "Format.", "exception", "Fun.protect", "~a:",
                   "mutable label", "Buffer.", "Bytes.", "Seq.", "lazy", "String.split_on_char", "module type",
                   "with type t =", "List.sort_uniq", "Array.init", "Float.min"):
        assert marker in made, marker


@NEEDS_OCAML
def test_ocaml_accepts_them():
    refused = [seed for seed in range(40) if wholelang.run_ocaml(wholelang.program(seed)) is None]
    assert refused == []


@NEEDS_OCAML
@pytest.mark.parametrize("seed", range(FIRST_SEED, FIRST_SEED + COUNT))
def test_every_level_agrees_with_ocaml(seed):
    verdict = wholelang.check(seed)
    assert verdict.valid and verdict.disagreements == {}, wholelang.program(seed)


PLANTED = """
import sys
from cpsc.closure import convert
from cpsc.testing import wholelang
from cpsc.testing.reduce import reduce

convert._defined_repeatedly = lambda conts: set()  # the miscompilation, planted again
for seed in range(300):
    source = wholelang.program(seed)
    if "Array.init" in source and len(source) < 3000:
        verdict = wholelang.check(seed, native=False)
        if "ssa-O2" in verdict.disagreements:  # (the level the reducer keeps disagreeing)
            break
print(sorted(verdict.disagreements), seed)
print(reduce(source, wholelang.disagrees_at("ssa-O2"), fine=False))
"""


@NEEDS_OCAML
def test_a_planted_miscompilation_is_found_and_reduced():
    """Closure conversion made main's loop variables globals (the wrong answer this generator
    was made to find): planted again (in the pure build, where a module can be patched), the
    closures piece finds it, at every -O level, and the reducer keeps little more than the
    closures."""
    done = subprocess.run([sys.executable, "-c", PLANTED], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "CPSC_PURE": "1"})
    assert done.returncode == 0, done.stderr
    levels, small = done.stdout.split("\n", 1)  # (the disagreeing levels and the seed, then the reduced program)
    assert "ssa-O2" in levels and "ssa-O3" in levels, levels
    assert "Array.init" in small and len(small) < 500, small


def test_ddmin_keeps_what_the_test_needs():
    kept = ddmin(list(range(20)), lambda parts: 3 in parts and 17 in parts)
    assert kept == [3, 17]
    assert ddmin(["a"], lambda parts: False) == ["a"]


def test_a_program_is_cut_into_its_top_level_items():
    text = "let x = 1\nlet f y =\n  y + x\n\nlet () = print_int (f 2)\n"
    assert top_level_items(text) == ["let x = 1\n", "let f y =\n  y + x\n\n", "let () = print_int (f 2)\n"]

"""A build is reproducible: the same source gives the same IR whatever Python's string hashing
(randomised per process, `PYTHONHASHSEED`) orders the compiler's sets and maps in."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _emitted(path: Path, kind: str, seed: int) -> str:
    done = subprocess.run([sys.executable, "-m", "cpsc", "build", str(path), f"--emit={kind}", "-O2", "-o", "-"],
                          capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONHASHSEED": str(seed)})
    return done.stdout


# fannkuch's refs were promoted to parameters in the order of their names' hashes
@pytest.mark.parametrize("program", ["benchmarks/fannkuch.fl", "benchmarks/simplifier.fl"])
def test_the_ir_does_not_depend_on_string_hashing(program):
    path = ROOT / program
    for kind in ("cps", "llvm"):
        texts = {_emitted(path, kind, seed) for seed in (1, 2, 3, 4)}
        assert len(texts) == 1, kind

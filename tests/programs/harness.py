"""Run an FL program at every level: AST, CPS and SSA (-O0 and -O2, verified), native, ocaml."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cpsc import driver
from cpsc.cps.interp import run_cps
from cpsc.cps.parser import parse_program
from cpsc.cps.printer import print_program
from cpsc.mono.interp import run_ast
from cpsc.opt.pipeline import LEVELS
from cpsc.semantics.values import Outcome
from cpsc.ssa.interp import run_ssa
from cpsc.ssa.parser import parse_module
from cpsc.ssa.printer import print_module

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Program:
    path: Path

    @property
    def text(self) -> str:
        return self.path.read_text(encoding="latin-1")

    @property
    def native_only(self) -> bool:
        return "cpsc-test: native-only" in self.text

    @property
    def ocaml_differs(self) -> bool:
        """FL may succeed where OCaml 4.13 overflows its stack (LANGUAGE.md, differences 4), or
        the `ocaml` toplevel differs from compiled OCaml (an exception escaping the program)."""
        return "no-ocaml" in self.text

    @property
    def compiled_oracle(self) -> bool:
        """Compared with what `ocamlopt` makes, not with `ocaml`: the two evaluate some
        primitives' arguments in orders of their own, and FL's is ocamlopt's."""
        return "cpsc-test: ocamlopt" in self.text

    @property
    def every_level(self) -> bool:
        """Checked after every -O level's pipeline, not only -O0 and -O2 (a program that once
        broke at one of the others)."""
        return "cpsc-test: every-level" in self.text

    @property
    def expected_status(self) -> int:
        match = re.search(r"cpsc-test: status (\d+)", self.text)
        return int(match.group(1)) if match else 0

    @property
    def expected_stdout(self) -> str:
        return self.path.with_suffix(".expected").read_text(encoding="latin-1")

    @property
    def expected_stderr(self) -> str | None:
        """What a failing program prints, when its `.stderr` file says (as OCaml's native code)."""
        path = self.path.with_suffix(".stderr")
        return path.read_text(encoding="latin-1") if path.exists() else None

    @property
    def stdin(self) -> str | None:
        """What the program reads, from its `.input` file (none: an empty stdin)."""
        path = self.path.with_suffix(".input")
        return path.read_text(encoding="latin-1") if path.exists() else ""

    @property
    def name(self) -> str:
        """The file name diagnostics and Match_failure use: programs run from their folder, as
        `ocaml prog.fl` does, so that what they print does not depend on where the tests are."""
        return self.path.name


def check_outcome(program: Program, outcome: Outcome, level: str) -> None:
    assert outcome.stdout == program.expected_stdout, level
    assert outcome.status == program.expected_status, level
    if program.expected_stderr is not None:
        # `cpsc run` compiles first: its warnings come before what the program prints
        stderr = outcome.stderr[-len(program.expected_stderr):] if level == "jit" else outcome.stderr
        assert stderr == program.expected_stderr, level


def interpreted(program: Program, levels: tuple[int, ...] = (0, 2)) -> dict[str, Outcome]:
    """Outcomes of the three interpreters (CPS and SSA after each of `levels`' pipelines),
    checking the verifier and the printer on the way."""
    expr = driver.front_end(program.text, program.name)
    outcomes = {"ast": run_ast(expr, program.stdin)}
    for level in levels:
        cps, _ = driver.optimise(driver.to_cps(expr), LEVELS[level].passes, verify_each=True, context=LEVELS[level].context())
        text = print_program(cps)
        assert print_program(parse_program(text)) == text, "CPS print/parse round trip"
        outcomes[f"cps-O{level}"] = run_cps(cps, program.stdin)
        module = driver.to_ssa_module(cps, verify_each=True)
        ssa_text = print_module(module)
        assert print_module(parse_module(ssa_text)) == ssa_text, "SSA print/parse round trip"
        outcomes[f"ssa-O{level}"] = run_ssa(module, program.stdin)
    return outcomes


def native(program: Program, opt: int = 2, parts: int | None = None) -> Outcome:
    expr = driver.front_end(program.text, program.name)
    cps, _ = driver.optimise(driver.to_cps(expr), LEVELS[opt].passes, verify_each=True, context=LEVELS[opt].context())
    with tempfile.TemporaryDirectory() as tmp:
        exe = str(Path(tmp) / "prog")
        driver.native_executable(driver.to_ssa_module(cps), opt, exe, parts=parts)
        done = subprocess.run([exe], capture_output=True, timeout=120, input=_bytes(program.stdin))
    return Outcome(done.stdout.decode("latin-1"), done.stderr.decode("latin-1"), done.returncode)


def jit(program: Program) -> Outcome:
    """`cpsc run`: LLVM's MCJIT, in a process of its own (a program may end it with `exit`)."""
    done = subprocess.run([sys.executable, "-m", "cpsc", "run", program.name], capture_output=True, timeout=120,
                          cwd=program.path.parent, input=_bytes(program.stdin))
    return Outcome(done.stdout.decode("latin-1"), done.stderr.decode("latin-1"), done.returncode)


def with_ocaml(program: Program) -> Outcome | None:
    if program.compiled_oracle:
        return with_ocamlopt(program)
    if shutil.which("ocaml") is None:
        return None
    done = subprocess.run(["ocaml", program.name], capture_output=True, timeout=300, cwd=program.path.parent,
                          input=_bytes(program.stdin))
    return Outcome(done.stdout.decode("latin-1"), done.stderr.decode("latin-1"), done.returncode)


def with_ocamlopt(program: Program) -> Outcome | None:
    if shutil.which("ocamlopt") is None:
        return None
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "prog.ml"
        source.write_text(program.text, encoding="latin-1")
        subprocess.run(["ocamlopt", "-w", "-a", "prog.ml", "-o", "prog"], cwd=folder, check=True,
                       capture_output=True, timeout=300)
        done = subprocess.run([str(Path(folder) / "prog")], capture_output=True, timeout=300,
                              cwd=program.path.parent, input=_bytes(program.stdin))
    return Outcome(done.stdout.decode("latin-1"), done.stderr.decode("latin-1"), done.returncode)


def _bytes(text: str | None) -> bytes:
    return (text or "").encode("latin-1")

"""What the tests share: golden texts (written anew with CPSC_UPDATE_GOLDEN=1, then review the
diff), running passes on a program prepared by others, and a program's CPS at a level."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from cpsc import driver
from cpsc.api import infer_types
from cpsc.cps.interp import run_cps
from cpsc.cps.printer import print_program
from cpsc.mono.interp import run_ast
from cpsc.syntax.diagnostics import CompileError

OPT_GOLDEN = Path(__file__).parent / "opt" / "golden"


def updating_golden() -> bool:
    """Whether this run writes the golden texts instead of comparing with them."""
    return os.environ.get("CPSC_UPDATE_GOLDEN") == "1"


def assert_golden(path: Path, actual: str) -> None:
    """`actual` is the text the file `path` holds (which this run writes when updating)."""
    if updating_golden():
        path.write_text(actual)
    assert actual == path.read_text()


def run_pass(source: str, before: list[str], passes: list[str]) -> tuple[str, Counter[str], Counter[str]]:
    """The CPS text after `before` then `passes` (verified after each), and the dynamic counts
    before and after `passes`; both runs must print what the AST interpreter prints."""
    typed = driver.front_end(source, "prog.fl")
    prepared, _ = driver.optimise(driver.to_cps(typed), before, verify_each=True)
    after, _ = driver.optimise(prepared, passes, verify_each=True)
    work_before: Counter[str] = Counter()
    work_after: Counter[str] = Counter()
    assert run_cps(after, counts=work_after) == run_cps(prepared, counts=work_before) == run_ast(typed)
    return print_program(after), work_before, work_after



needs_ocaml = pytest.mark.skipif(shutil.which("ocaml") is None, reason="ocaml is the oracle")


def ocaml_toplevel(phrases: str) -> str:
    """What OCaml's toplevel prints for `phrases` (its answers and errors)."""
    done = subprocess.run(["ocaml", "-noprompt", "-color", "never"], input=phrases, capture_output=True, text=True,
                          timeout=60)
    return done.stdout + done.stderr


def ocaml_types(phrases: str) -> dict[str, str]:
    """The types OCaml's toplevel gives the values `phrases` define (`;;`-terminated)."""
    return dict(re.findall(r"^val (\w+) : (.*?)(?: =.*)?$", ocaml_toplevel(phrases), re.M))


def assert_ocaml_error(phrase: str, message: str) -> None:
    """OCaml's toplevel refuses `phrase` with `message` (its lines joined)."""
    assert message in " ".join(ocaml_toplevel(phrase + ";;\n").split()), phrase


def assert_refused(program: str, message: str) -> None:
    """cpsc refuses `program` with `message`."""
    with pytest.raises(CompileError) as error:
        infer_types(program)
    assert message in str(error.value)

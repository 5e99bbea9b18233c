"""The README's tour of the IR: each command it shows, run on the program it shows, prints the
IR text it shows (a test that fails when they drift apart)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _tour() -> str:
    text = README.read_text()
    return text[text.index("## A tour of the IR"):text.index("The text form parses back")]


def _indented_blocks(text: str) -> list[str]:
    """The blocks indented by four spaces, without their indentation."""
    blocks = re.findall(r"((?:^    .*\n|^ *\n)+)", text, re.M)
    out = []
    for block in (re.sub(r"^    ", "", b, flags=re.M).strip("\n") for b in blocks if b.strip()):
        source, _, ir = block.partition("\n\nfun ")  # a program and its IR, one after the other
        out += [source + "\n"] + (["fun " + ir + "\n"] if ir else [])
    return out


def _cpsc(*args: str, cwd: Path) -> str:
    return subprocess.run([sys.executable, "-m", "cpsc", *args, "-o", "-"], cwd=cwd, capture_output=True, text=True,
                          check=True).stdout


def _blank_lines_alike(text: str) -> str:
    return re.sub(r"\n[ ]*\n", "\n\n", text)


@pytest.fixture
def tour(tmp_path):
    blocks = _indented_blocks(_tour())
    (tmp_path / "phi.fl").write_text(blocks[0])
    (tmp_path / "tour.fl").write_text(blocks[3])
    return tmp_path, blocks


def test_the_tour_shows_what_its_commands_print(tour):
    folder, blocks = tour
    commands = re.findall(r"`cpsc (build \S+ [^`]*)`", _tour())
    assert commands == ["build phi.fl --emit=cps -O0", "build phi.fl --emit=ssa --passes=simplify",
                        "build tour.fl --emit=cps -O1"]
    shown = [blocks[1], blocks[2], blocks[4]]
    for command, ir in zip(commands, shown):
        output = _cpsc(*command.split(), cwd=folder)
        assert _blank_lines_alike(ir.strip("\n")) in _blank_lines_alike(output), command
    main_and_toplevel = blocks[5]
    output = _cpsc("build", "phi.fl", "--emit=cps", "-O0", cwd=folder)
    for function in main_and_toplevel.split("\n\n"):
        assert function.strip("\n") in output


MADE_BY_THE_READER = {"cpsc/opt/strength.py", "tests/opt/test_strength.py"}  # docs/adding-a-pass.md has you write it
DOCUMENTS = [README, *sorted((README.parent / "docs").glob("*.md"))]


@pytest.mark.parametrize("document", DOCUMENTS, ids=[d.name for d in DOCUMENTS])
def test_every_link_and_named_page_resolves(document):
    """Links to files of the repository exist, and no page names one users do not have (the
    founders' LANGUAGE.md and DESIGN.md live outside it)."""
    text = document.read_text()
    for target in re.findall(r"\]\(([^)#\s]+)", text):
        if "://" not in target:
            assert (document.parent / target).exists(), target
    for path in re.findall(r"`((?:docs|lang|tests|cpsc|scripts|examples|benchmarks)/[\w./-]+\.\w+)`", text):
        if "*" not in path and path not in MADE_BY_THE_READER:
            assert (README.parent / path).exists(), path
    assert "LANGUAGE.md" not in text and "DESIGN.md" not in text


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_the_python_session_runs(tmp_path, monkeypatch):
    """The README's API snippet, on the toplevel session's program, runs and prints its answer."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prog.fl").write_text("let square x = x * x\nlet rec map f = function [] -> [] | x :: r -> f x :: map f r\n"
                                      "let sum l = List.fold_left (+) 0 (map square l)\nlet () = print_int (sum [1; 2; 3])\n")
    printed: list[str] = []
    monkeypatch.setattr("builtins.print", lambda *values, **_: printed.append(" ".join(map(str, values))))
    snippet = _python_blocks()[0]
    exec(compile(snippet.replace("q.cfg(\"sum\")", "q.cfg(\"sum\") if shutil.which(\"dot\") else None"),  # noqa: S102
                 "README.md", "exec"), {"shutil": shutil})
    assert printed[0].startswith("---") and "+    let r." in printed[0]
    assert printed[1].startswith("14 Counter(") or printed[1].startswith("14 {")


def test_the_pass_shown_is_the_example_whole():
    shown = next(block for block in _python_blocks() if "def strength_reduce" in block)
    assert shown == (README.parent / "examples" / "passes" / "strength.py").read_text()

"""`-g`: OCaml's exception backtraces (against `ocamlopt -g`), DWARF that gdb reads, and
nothing of either without it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "backtraces"
PROGRAMS = sorted(HERE.glob("*.ml"))


def cpsc(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cpsc", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def outcome(executable: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([str(executable)], cwd=executable.parent, capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})})
    return f"{done.stdout}{done.stderr}status {done.returncode}\n"


def without_inlined(text: str) -> str:
    """Which frames are inlined calls is each compiler's choice: the mark aside, they agree."""
    return text.replace(" (inlined)", "")


def ends(text: str) -> list[str]:
    """The output with each backtrace cut to its raise point and its outermost frame: what
    ocamlopt's and cpsc's keep whichever calls each inlined (the frames between depend on it)."""
    kept: list[str] = []
    block: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith(("Raised ", "Re-raised ", "Called from ")):
            block.append(line)
            continue
        if block:
            kept += [block[0], block[-1]]
            block = []
        kept.append(line)
    return kept


def built(program: Path, folder: Path, *flags: str) -> Path:
    if program.parent != folder:
        shutil.copy(program, folder / program.name)
    done = cpsc("build", *flags, program.name, "-o", program.stem, cwd=folder)
    assert done.returncode == 0, done.stderr
    return folder / program.stem


def ocamlopt_outcome(program: Path, folder: Path, env: dict[str, str]) -> str:
    reference = folder / "ocaml"
    reference.mkdir()
    shutil.copy(program, reference / program.name)
    subprocess.run(["ocamlopt", "-g", program.name, "-o", program.stem], cwd=reference, check=True,
                   capture_output=True)
    return outcome(reference / program.stem, env)


@pytest.mark.skipif(shutil.which("ocamlopt") is None, reason="needs ocamlopt")
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.stem)
def test_backtraces_are_ocamlopts(program: Path, opt: str, tmp_path: Path):
    """Raise points, frames (a handler's, an uncaught exception's), re-raises and primitive
    operations' raises print as `ocamlopt -g`'s do, at -O0 and with the optimiser's inlining:
    every frame, for a program marked `whole` (whose calls both compilers inline alike, the
    marks aside), else the raise point and the outermost frame."""
    recording = {"OCAMLRUNPARAM": "b"}
    expected = ocamlopt_outcome(program, tmp_path, recording)
    assert "Raised at" in expected
    got = without_inlined(outcome(built(program, tmp_path, "-g", opt), recording))
    if "(* compare: whole *)" in program.read_text():
        assert got == without_inlined(expected)
    else:
        assert ends(got) == ends(without_inlined(expected))


@pytest.mark.skipif(shutil.which("ocamlopt") is None, reason="needs ocamlopt")
def test_the_callstack_is_ocamlopts_where_nothing_is_inlined(tmp_path: Path):
    """`Printexc.get_callstack` at -O0: the place of its call, then of each call running."""
    program = HERE.parent / "callstack.ml"
    expected = ocamlopt_outcome(program, tmp_path, {})
    assert "Called from Callstack.depth" in expected
    assert without_inlined(outcome(built(program, tmp_path, "-g", "-O0"))) == without_inlined(expected)


def test_ocamlrunparam_b_prints_the_backtrace_of_an_uncaught_exception(tmp_path: Path):
    (tmp_path / "boom.ml").write_text("let f x = if x > 0 then failwith \"boom\" else x\n"
                                      "let () = print_int (f 0); print_int (f 1)\n")
    executable = built(tmp_path / "boom.ml", tmp_path, "-g")
    assert outcome(executable) == '0Fatal error: exception Failure("boom")\nstatus 2\n'
    traced = outcome(executable, {"OCAMLRUNPARAM": "b"})
    assert traced.startswith('0Fatal error: exception Failure("boom")\nRaised at Stdlib.failwith in file "<prelude>"')
    assert 'Called from Boom in file "boom.ml" (inlined), line 2, characters 36-41\nstatus 2\n' in traced


def test_without_g_nothing_is_recorded_or_emitted(tmp_path: Path):
    """Without -g the program is as it was: no debug metadata, no raise notes; asked for a
    backtrace it says it has none, as OCaml's runtime does."""
    (tmp_path / "boom.ml").write_text("let () = raise Exit\n")
    plain = cpsc("build", "boom.ml", "--emit=llvm", "-o", "-", cwd=tmp_path).stdout
    assert "!dbg" not in plain and "fl_raise_at" not in plain and "DICompileUnit" not in plain
    debug = cpsc("build", "-g", "boom.ml", "--emit=llvm", "-o", "-", cwd=tmp_path).stdout
    assert "DICompileUnit" in debug and "fl_raise_at" in debug
    executable = built(tmp_path / "boom.ml", tmp_path)
    assert outcome(executable, {"OCAMLRUNPARAM": "b"}) == (
        "Fatal error: exception Stdlib.Exit\n"
        "(Cannot print stack backtrace: no debug information available)\nstatus 2\n")


@pytest.mark.skipif(shutil.which("gdb") is None, reason="needs gdb")
def test_gdb_stops_at_a_source_line_and_shows_fl_functions(tmp_path: Path):
    (tmp_path / "sums.ml").write_text(
        "let rec sum acc = function\n"
        "  | [] -> acc\n"
        "  | x :: rest -> sum (acc + x) rest\n"
        "\n"
        "let total xs =\n"
        "  let s = sum 0 xs in\n"
        "  print_int s;\n"
        "  s\n"
        "\n"
        "let () =\n"
        "  let n = total [1; 2; 3] in\n"
        "  print_newline ();\n"
        "  print_int (n * 2)\n")
    executable = built(tmp_path / "sums.ml", tmp_path, "-g", "-O0")
    session = subprocess.run(["gdb", "-batch", "-nx", "-ex", "break sums.ml:6", "-ex", "break sums.ml:12",
                              "-ex", "run", "-ex", "bt", "-ex", "info args", "-ex", "continue", "-ex", "info locals",
                              str(executable)],
                             cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert "Breakpoint 1, Sums.total (xs=" in session.stdout
    assert "6\t  let s = sum 0 xs in" in session.stdout
    assert " in Sums () at sums.ml:11" in session.stdout  # the caller, at its line
    assert "\nxs = 0x" in session.stdout
    assert "Breakpoint 2, Sums () at sums.ml:12" in session.stdout
    assert "\nn = 6\n" in session.stdout  # a `let`'s variable


def test_the_readmes_backtrace_is_what_prog_fl_prints(tmp_path: Path):
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    shown = readme.split("    Fatal error: exception Prog.Boom(5)\n", 1)[1].split("\n\n", 1)[0]
    executable = built(HERE / "prog.fl", tmp_path, "-g")
    done = subprocess.run([str(executable)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "OCAMLRUNPARAM": "b"})
    expected = "Fatal error: exception Prog.Boom(5)\n" + "".join(line[4:] + "\n" for line in shown.splitlines())
    assert (done.stdout, done.stderr, done.returncode) == ("4\n", expected, 2)


@pytest.mark.skipif(shutil.which("perf") is None, reason="needs perf")
def test_perf_attributes_time_to_fl_functions_and_lines(tmp_path: Path):
    (tmp_path / "hot.ml").write_text("let rec fib n = if n < 2 then n else fib (n - 1) + fib (n - 2)\n"
                                     "let () = print_int (fib 30)\n")
    executable = built(tmp_path / "hot.ml", tmp_path, "-g")
    recorded = subprocess.run(["perf", "record", "-q", "-o", "perf.data", str(executable)], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
    if recorded.returncode != 0:
        pytest.skip(f"perf cannot record here: {recorded.stderr.strip()[:200]}")
    report = subprocess.run(["perf", "report", "-i", "perf.data", "--stdio", "--sort", "sym,srcline"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120).stdout
    hottest = next(line for line in report.splitlines() if line.strip() and not line.startswith("#"))
    assert "fl.fib" in hottest and "hot.ml:1" in hottest

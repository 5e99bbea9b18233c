"""Bad input: a located diagnostic with the source line and a caret, status 1, no traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

CASES = [
    ("syntax", "let x = (1 + 2\nlet y = 3\n", "2:1: error: Syntax error"),
    ("type", "let () = print_int (1 + 2.5)\n", "1:25: error: This expression has type float but an "
     "expression was expected of type int"),
    ("unbound", "let f x = x + y\n", "1:15: error: Unbound value y"),
    ("not a function", "let () = 3 4\n", "This is not a function"),
    ("comment", "let x = 1 (* never closed\n", "1:11: error: this comment is not terminated"),
    ("physical equality of functions", "let b = (fun x -> x + 1) == (fun x -> x)\n", "1:26: error: Physical equality of functions (==)"),
    ("if branches", "let x = if true then 1 else \"one\"\n", "type string but an expression was expected of type int"),
]


@pytest.mark.parametrize("name, source, message", CASES, ids=[c[0] for c in CASES])
def test_bad_program_gets_a_diagnostic(tmp_path, name, source, message):
    path = tmp_path / "prog.fl"
    path.write_text(source)
    for command in ("check", "build"):
        done = subprocess.run([sys.executable, "-m", "cpsc", command, str(path), "-o", str(tmp_path / "p")]
                              if command == "build" else [sys.executable, "-m", "cpsc", command, str(path)],
                              capture_output=True, text=True)
        assert done.returncode == 1
        assert "Traceback" not in done.stderr
        first = done.stderr.splitlines()[0]
        assert first.startswith(f"{path}:") and message in done.stderr, done.stderr
        assert "^" in done.stderr  # the caret under the source line


@pytest.mark.parametrize("command", ["check", "build", "run", "interp", "bisect"])
def test_an_input_that_cannot_be_read_is_said_with_the_reason(tmp_path, command):
    """`cpsc: cannot read PATH: REASON` and status 2 (as ocaml's for a missing file)."""
    (tmp_path / "d").mkdir()
    for name, reason in (("nope.fl", "No such file or directory"), ("d", "Is a directory")):
        done = subprocess.run([sys.executable, "-m", "cpsc", command, name], cwd=tmp_path, capture_output=True,
                              text=True)
        assert (done.returncode, done.stderr) == (2, f"cpsc: cannot read {name}: {reason}\n")


@pytest.mark.parametrize("emit", ["exe", "cps", "obj"])
@pytest.mark.parametrize("output, said", [("a_dir", "it is a directory"), ("no_dir/prog", "no directory")])
def test_an_output_that_cannot_be_written_is_said_before_compiling(tmp_path, emit, output, said):
    """`-o` naming a directory, or a file in a directory that does not exist (and, without `-o`,
    a directory named as the executable would be): a diagnostic and status 1, no traceback."""
    (tmp_path / "a_dir").mkdir()
    (tmp_path / "prog").mkdir()  # what `cpsc build prog.fl` would write
    (tmp_path / "prog.fl").write_text("let () = print_int 1\n")
    for args in (["-o", output], [] if emit == "exe" and output == "a_dir" else ["-o", output]):
        done = subprocess.run([sys.executable, "-m", "cpsc", "build", "prog.fl", f"--emit={emit}", *args],
                              cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.startswith("cpsc: error: cannot write") and (said in done.stderr or not args)


def test_emit_levels(tmp_path):
    path = tmp_path / "prog.fl"
    path.write_text("let sq x = x * x\nlet () = print_int (sq 7)\n")
    def emit(kind: str) -> str:
        return subprocess.run([sys.executable, "-m", "cpsc", "build", str(path), f"--emit={kind}", "-O0"],
                              capture_output=True, text=True, check=True).stdout
    assert "callc main.entry() ret (ret main)" in emit("cps")
    assert "function main()" in emit("ssa")
    assert "preserve_nonecc" in emit("llvm")  # (sq and main: no tail call through a closure)
    assert "fl_program" in emit("asm")
    run = subprocess.run([sys.executable, "-m", "cpsc", "run", str(path)], capture_output=True, text=True)
    assert run.stdout == "49" and run.returncode == 0

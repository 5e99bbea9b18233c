"""The command line's conventions, as ocamlopt's, ocaml's and cc's: no output ever replaces an
input or is left half-written, `-` is standard input, what follows the program is its
arguments, `--version`, and values that name nothing are refused."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

HELLO = 'let () = print_string "hi"; Array.iteri (fun i a -> if i > 0 then print_string (" " ^ a)) Sys.argv\n'


def cpsc(*args: str, cwd: Path, stdin: str = "", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cpsc", *args], cwd=cwd, capture_output=True, text=True,
                          input=stdin, env={**os.environ, **(env or {})}, timeout=300)


@pytest.mark.parametrize("args", [["build", "noext"], ["build", "noext", "-o", "noext"],
                                  ["build", "noext", "-o", "./sub/../noext"],
                                  ["build", "noext", "--emit=cps", "-o", "noext"]])
def test_no_output_replaces_its_input(tmp_path, args):
    (tmp_path / "sub").mkdir()
    (tmp_path / "noext").write_text(HELLO)
    done = cpsc(*args, cwd=tmp_path)
    assert done.returncode == 1 and "would overwrite the input noext" in done.stderr
    assert (tmp_path / "noext").read_text() == HELLO


def test_a_failed_link_leaves_the_old_file_and_no_other(tmp_path):
    """The linker writes a temporary file beside the output; it fails, so the old file stays."""
    (tmp_path / "prog.fl").write_text(HELLO)
    (tmp_path / "prog").write_text("the old one")
    failing = tmp_path / "failing-cc"
    failing.write_text('#!/bin/sh\ncc "$@"\nexit 1\n')
    failing.chmod(0o755)
    done = cpsc("build", "prog.fl", cwd=tmp_path, env={"CC": str(failing)})
    assert done.returncode == 1 and "failing-cc failed" in done.stderr
    assert (tmp_path / "prog").read_text() == "the old one"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["failing-cc", "prog", "prog.fl"]


def test_outputs_replace_the_old_file_whole(tmp_path):
    (tmp_path / "prog.fl").write_text(HELLO)
    for name in ("prog", "prog.cps", "prog.o"):
        (tmp_path / name).write_text("old")
    assert cpsc("build", "prog.fl", cwd=tmp_path).returncode == 0
    assert cpsc("build", "prog.fl", "--emit=cps", "-o", "prog.cps", cwd=tmp_path).returncode == 0
    assert cpsc("build", "prog.fl", "--emit=obj", cwd=tmp_path).returncode == 0
    assert (tmp_path / "prog").stat().st_mode & stat.S_IXUSR
    assert subprocess.run([str(tmp_path / "prog"), "x"], capture_output=True, text=True).stdout == "hi x"
    assert "fun main() -> unit" in (tmp_path / "prog.cps").read_text()
    assert (tmp_path / "prog.o").read_bytes()[:4] == b"\x7fELF"
    assert not [p for p in tmp_path.iterdir() if "cpsc-tmp" in p.name]


def test_standard_input_is_the_program(tmp_path):
    done = cpsc("run", "-", cwd=tmp_path, stdin="let () = print_int 1\n")
    assert (done.returncode, done.stdout) == (0, "1")
    done = cpsc("check", "-", cwd=tmp_path, stdin="let x = 1 +\n")
    assert done.returncode == 1 and done.stderr.startswith("-:1:12: error: Syntax error")
    assert "1 | let x = 1 +\n" in done.stderr  # the source line, read from standard input


@pytest.mark.parametrize("command", [["run"], ["interp"], ["interp", "--level=ssa"]])
def test_what_follows_the_program_is_its_arguments(tmp_path, command):
    """As `ocaml prog.ml a b`: `--level=cps` after the file is the program's, not cpsc's."""
    (tmp_path / "prog.fl").write_text(HELLO)
    done = cpsc(*command, "prog.fl", "a", "--level=cps", "-O0", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "hi a --level=cps -O0"), done.stderr


def test_version_names_llvm_and_libgc(tmp_path):
    done = cpsc("--version", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout.startswith("cpsc ") and "LLVM 22." in done.stdout and "libgc " in done.stdout


@pytest.mark.parametrize("option, said", [("--dump-after=nosuch", "no pass 'nosuch' (known: all, contify"),
                                          ("--fuel=-1", "'-1' is not a number of rewrites"),
                                          ("--passes=nosuch", "unknown pass nosuch (known: contify")])
def test_values_that_name_nothing_are_refused(tmp_path, option, said):
    (tmp_path / "prog.fl").write_text(HELLO)
    done = cpsc("interp", option, "prog.fl", cwd=tmp_path)
    assert done.returncode == 2 and said in done.stderr, done.stderr


def test_remarks_name_contified_calls_at_the_default_level(tmp_path):
    """A call that contification makes a jump is a remark too, at -O2 (the default)."""
    (tmp_path / "prog.fl").write_text("let count n =\n  let rec go i acc = if i = 0 then acc else go (i - 1) (acc + i) in\n"
                                      "  go n 0\nlet () = print_int (count 10)\n")
    done = cpsc("interp", "--remarks=all", "prog.fl", cwd=tmp_path)
    assert done.stdout == "55"
    assert "prog.fl:3:3: remark: go contified into " in done.stderr and "(a loop)" in done.stderr
    only = cpsc("interp", "--remarks=contify", "prog.fl", cwd=tmp_path)
    assert only.stderr.count("remark:") == done.stderr.count("contified")

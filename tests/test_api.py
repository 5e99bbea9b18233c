"""The Python API has the shape of a library used from a notebook: `dir` and `help` show it,
`compile` takes a file name, a `CompileError` says where, and `run` takes a level (the JIT and
a built executable among them), standard input and the program's arguments."""

from __future__ import annotations

import pydoc

import pytest

import cpsc

ECHO = 'let () = Array.iter print_endline Sys.argv; print_string (read_line ())\n'


def test_dir_and_help_show_the_api():
    names = dir(cpsc)
    for name in ("compile", "Program", "register_pass", "Session", "CompileError", "Outcome"):
        assert name in names
    assert "annotations" not in names and "native" not in names
    text = pydoc.render_doc(cpsc, renderer=pydoc.plaintext)
    assert "cpsc.compile(text, filename=" in text and "run(level=" in text


def test_a_compile_error_says_where():
    with pytest.raises(cpsc.CompileError) as caught:
        cpsc.compile("let x = 1 +\n", filename="bad.ml")
    assert str(caught.value) == "bad.ml:1:12: error: Syntax error: unexpected end of file"


@pytest.mark.parametrize("level", ["ast", "cps", "ssa", "jit", "native"])
def test_run_takes_a_level_stdin_and_arguments(level):
    program = cpsc.compile(ECHO, filename="echo.ml")
    outcome = program.run(level=level, stdin="typed\n", args=["a", "b c"])
    assert (outcome.stdout, outcome.status) == ("main\na\nb c\ntyped", 0), outcome


def test_the_unit_is_named_by_the_file():
    source = "exception Boom of int\nlet () = raise (Boom 3)\n"
    assert cpsc.compile(source, filename="prog.ml").run().stderr == "Fatal error: exception Prog.Boom(3)\n"

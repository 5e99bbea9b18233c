"""The toplevel driven as a user drives it, through a pseudo-terminal (pexpect): phrases over
several lines, every command, errors in the middle of a session, and an undo after an inline."""

from __future__ import annotations

import os
import re
import signal
import sys
import time

import pytest

pexpect = pytest.importorskip("pexpect")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROMPT = "\r\n# "

PROGRAM = """let square x = x * x
let rec map f = function [] -> [] | x :: r -> f x :: map f r
let sum l = List.fold_left (+) 0 (map square l)
"""


def _ignoring_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.fixture
def repl(request, tmp_path):
    """The toplevel in a terminal; with the parameter `ignoring SIGINT`, started as a shell
    without job control starts `cpsc repl &` (CI may run the tests so)."""
    env = {**os.environ, "TERM": "dumb", "PYTHONPATH": ROOT}
    ignoring = getattr(request, "param", "") == "ignoring SIGINT"
    child = pexpect.spawn(sys.executable, ["-m", "cpsc", "repl"], cwd=str(tmp_path), env=env,
                          encoding="utf-8", timeout=60, dimensions=(50, 200),
                          preexec_fn=_ignoring_interrupts if ignoring else None)
    child.expect_exact("(:help for commands")
    child.expect_exact("# ")
    yield child
    child.close(force=True)


def send(child, text: str) -> str:
    """Type `text` (lines), wait for the next prompt; what the toplevel printed in between."""
    for line in text.split("\n"):
        child.sendline(line)
    child.expect_exact(PROMPT)
    return child.before.replace("\r\n", "\n")


def test_phrases_values_and_errors(repl):
    assert "val x : int = 42" in send(repl, "let x = 42;;")
    assert "- : int list = [1; 2; 3]" in send(repl, "[1; 2;\n 3];;")  # a phrase over two lines
    assert "val f : 'a -> 'a = <fun>" in send(repl, "let f y = y;;")
    error = send(repl, 'x + "a";;')
    assert "error: This expression has type string but an expression was expected of type int" in error
    assert "^" in error
    assert "error: Syntax error" in send(repl, "let = ;;")
    assert "Exception: Not_found." in send(repl, "raise Not_found;;")
    out = send(repl, 'print_string "bye"; exit 3;;')
    assert "bye" in out and "status 3" in out
    assert "- : int = 43" in send(repl, "x + 1;;")  # the session went on, x still defined
    assert "unknown command :frobnicate" in send(repl, ":frobnicate")
    assert "- : int -> int" in send(repl, ":type fun n -> n + x")


def test_inline_undo_diff_and_the_ir_commands(repl, tmp_path):
    send(repl, PROGRAM.rstrip("\n") + ";;")
    calls = send(repl, ":calls sum")
    assert "0: map_int_int" in calls and "1: List.fold_left_int_int" in calls
    inlined = send(repl, ":inline sum 0")
    assert "version 1: inlined call site 0 of sum" in inlined
    assert "call map_int_int" in inlined and "jump map_int_int.entry" in inlined
    assert "version 2" in send(repl, ":pass simplify sum")
    history = send(repl, ":history")
    assert "* 2: :pass simplify sum" in history and "1: :inline sum 0" in history
    assert "version 1: :inline sum 0" in send(repl, ":undo")
    assert ": list<int> = call map_int_int(square_closure, l)" not in send(repl, ":cps sum")
    diff = send(repl, ":diff 0 1")
    assert re.search(r"-    let r\.\d+: list<int> = call map_int_int\(square_closure, l\)", diff)
    assert "+    jump map_int_int.entry.1()" in diff
    assert "version 2" in send(repl, ":redo")
    assert "- : int = 14\n(interpreted and native agree)" in send(repl, ":run sum [1; 2; 3]")
    counts = send(repl, ":count sum [1; 2; 3]")
    assert "- : int = 14" in counts and "closure calls" in counts
    assert "sum" in send(repl, ":size")
    assert "remark: map_int_int not inlined into sum: it is recursive" in send(repl, ":remarks")
    assert re.search(r"tailcall List.fold_left_int_int\(%prim_add_int_closure, 0, %r\.\d+\)", send(repl, ":ssa sum"))
    assert "define tailcc i64 @fl.square(i64 %.1)" in send(repl, ":llvm square")
    assert "fl.sum:" in send(repl, ":asm sum")
    assert "wrote sum.dot" in send(repl, ":dot sum")
    assert '"block.2" -> "map_int_int.ret";' in (tmp_path / "sum.dot").read_text()
    assert "version 3: :pipeline -O2" in send(repl, ":pipeline -O2")
    assert "no function sum (the functions: main)" in send(repl, ":cps sum")  # unused: removed
    assert ":inline NAME SITE" in send(repl, ":help")
    send(repl, ":undo")
    assert "sum has 3 call sites (0 to 2)" in send(repl, ":inline sum 9")  # square, map, fold_left
    repl.sendline(":quit")
    repl.expect(pexpect.EOF)


def test_load_and_tab_completion(tmp_path):
    (tmp_path / "prog.fl").write_text(PROGRAM)
    env = {**os.environ, "TERM": "xterm", "PYTHONPATH": ROOT,
           "PROMPT_TOOLKIT_NO_CPR": "1"}
    child = pexpect.spawn(sys.executable, ["-m", "cpsc", "repl"], cwd=str(tmp_path), env=env,
                          encoding="utf-8", timeout=60, dimensions=(50, 200))
    try:
        child.expect_exact("#")
        child.sendline(":load prog.fl")
        child.expect_exact("val sum : int list -> int = <fun>")
        child.expect_exact("#")
        child.send(":inl\t")  # a command completes
        child.expect_exact("inline")
        child.send(" su\t")  # and a function name: without it, `su` would name no function
        child.sendline(" 0")
        child.expect_exact("inlined call site 0 of sum")
        child.sendline(":quit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)


def test_lexer_errors_leave_the_session_going(repl):
    assert "val x : int = 1" in send(repl, "let x = 1;;")
    assert "error: Illegal character (`)" in send(repl, "let y = `;;")
    assert "error: Illegal backslash escape in string or character (\\q)" in send(repl, "let c = '\\q';;")
    assert "error: Illegal character (\\169)" in send(repl, "let café = 1;;")
    assert "- : int = 2" in send(repl, "x + 1;;")


@pytest.mark.parametrize("repl", ["", "ignoring SIGINT"], indirect=True)
def test_ctrl_c_interrupts_a_phrase_and_clears_a_half_typed_one(repl):
    assert "val x : int = 5" in send(repl, "let x = 5;;")
    repl.sendline("let rec forever n = forever (n + 1) in forever 0;;")
    repl.expect_exact("forever 0;;")
    time.sleep(1.5)  # the phrase is running
    repl.sendintr()
    repl.expect_exact("Interrupted.")
    repl.expect_exact(PROMPT)
    repl.sendline("let half = ")  # a phrase left half typed
    repl.expect_exact("  ")
    time.sleep(0.5)  # the prompt reads keys (a Ctrl-C before that is a signal, as in any program)
    repl.sendintr()
    repl.expect_exact("Interrupted.")
    repl.expect_exact("# ")
    assert "- : int = 6" in send(repl, "x + 1;;")  # the session, x and all, went on

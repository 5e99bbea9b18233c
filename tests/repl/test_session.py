"""The REPL's IR commands over the workbench: versions made and undone, and a message (never a
traceback) for every command the current version cannot do."""

from __future__ import annotations

import pytest

from cpsc.repl.commands import execute
from cpsc.repl.session import Session
from cpsc.workbench import WorkbenchError

SOURCE = """let square x = x * x
let rec map f = function [] -> [] | x :: r -> f x :: map f r
let sum l = List.fold_left (+) 0 (map square l);;
"""


@pytest.fixture
def session() -> Session:
    s = Session()
    s.phrase(SOURCE)
    return s


def test_commands_make_versions_that_undo_and_redo(session: Session):
    assert "version 1: inlined call site 0 of sum" in execute(session, ":inline sum 0")
    assert "version 2: :pass simplify sum" in execute(session, ":pass simplify sum")
    assert "version 3: :pipeline -O3" in execute(session, ":pipeline O3")
    assert execute(session, ":history").splitlines()[-1] == "* 3: :pipeline -O3"
    assert execute(session, ":undo") == "version 2: :pass simplify sum\n"
    assert execute(session, ":redo") == "version 3: :pipeline -O3\n"
    assert "(interpreted and native agree)" in execute(session, ":run sum [1; 2; 3]")
    assert execute(session, ":run sum [1; 2; 3]").startswith("- : int = 14\n")


@pytest.mark.parametrize(("command", "message"), [
    (":inline sum 9", "sum has 2 call sites (0 to 1), not 9"),
    (":inline nothing 0", "no function nothing (the functions: "),
    (":pass fold", "unknown pass 'fold'"),
    (":pipeline -O9", "no level '-O9' (the levels: -O0, -O1, -O2, -O3)"),
    (":calls nothing", "no function nothing"),
    (":diff 0 7", "no version 7"),
])
def test_a_command_it_cannot_do_says_why(session: Session, command: str, message: str):
    with pytest.raises(WorkbenchError) as raised:
        execute(session, command)
    assert message in str(raised.value)

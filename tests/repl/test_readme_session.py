"""The README's toplevel session, command by command: each answer is the one the README shows.
(`:run` after `:inline`, `:pass`, `:undo` and `:redo` runs the version just made, interpreted
and natively; a test of only functions whose names nothing else takes would not see a step
replayed on a program where the prelude's own functions took the name first.)"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from cpsc.repl.session import Session
from cpsc.repl.ui import respond

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_session() -> list[tuple[str, str]]:
    """(input, answer) pairs of the session block: an input starts at `# `; a phrase goes on
    on indented lines until `;;`."""
    text = README.read_text()
    block = re.search(r"A session, pasted from a real run.*?\n```\n(.*?)```", text, re.S)
    assert block is not None
    pairs: list[tuple[list[str], list[str]]] = []
    for line in block.group(1).splitlines():
        if line.startswith("# "):
            pairs.append(([line[2:]], []))
        elif pairs and not pairs[-1][1] and not pairs[-1][0][-1].rstrip().endswith(";;") \
                and not pairs[-1][0][0].startswith(":"):
            pairs[-1][0].append(line[2:])
        else:
            pairs[-1][1].append(line)
    return [("\n".join(inputs), "".join(answer + "\n" for answer in answers)) for inputs, answers in pairs]


def test_the_readme_session_gives_the_answers_it_shows(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # (:dot writes its files here)
    session = Session()
    pairs = readme_session()
    assert len(pairs) >= 10 and any(i.startswith(":redo") for i, _ in pairs)
    for text, expected in pairs:
        answer = respond(session, text)
        if text.startswith(":dot") and shutil.which("dot") is None:
            expected = expected.replace(" and sum.svg", "")
        assert answer == expected, text


@pytest.mark.parametrize("step", [":inline f 0", ":pass simplify f", ":pipeline -O2", ":pass inline"])
def test_run_after_a_step_runs_the_version_it_made(step):
    """`f`, `sq` are names the prelude's functions take too: the step names f by where it is
    written, so that the program :run builds (with more of the prelude) replays it on f."""
    session = Session()
    for phrase in ("let sq x = x * x;;", "let f a = sq a + 1;;"):
        respond(session, phrase)
    before = session.count("f 6")
    answer = respond(session, step)
    assert answer.startswith("version 2: "), answer
    assert respond(session, ":run f 6") == "- : int = 37\n(interpreted and native agree)\n"
    if step.startswith(":inline"):  # the call of sq is gone from the version :run ran
        assert _calls(session.count("f 6")) == _calls(before) - 1
    assert respond(session, ":undo").startswith("version 1")
    assert respond(session, ":run f 7") == "- : int = 50\n(interpreted and native agree)\n"
    assert respond(session, ":redo").startswith("version 2")
    assert respond(session, ":run f 8") == "- : int = 65\n(interpreted and native agree)\n"


def _calls(counts: str) -> int:
    match = re.search(r"^calls\s+(\d+)$", counts, re.M)
    assert match is not None, counts
    return int(match.group(1))


def test_count_counts_the_expressions_own_work():
    """Not the session's set-up (137 allocations after one declaration, before): `()` costs
    nothing, and a call of a function of one addition two values, one call, no allocation."""
    session = Session()
    respond(session, "let f x = x + 1;;")
    nothing = respond(session, ":count ()")
    assert nothing.startswith("- : unit = ()\n") and set(re.findall(r"\s(\d+)$", nothing, re.M)) == {"0"}
    one = respond(session, ":count f 2")
    assert "- : int = 3\n" in one and re.search(r"^allocations\s+0$", one, re.M) and re.search(r"^calls\s+[12]$", one, re.M)


@pytest.mark.parametrize("command", [":type", ":run", ":count"])
def test_an_error_in_an_expression_is_located_in_what_was_typed(command):
    session = Session()
    respond(session, "let f x = x + 1;;")
    answer = respond(session, f'{command} f "a"')
    assert re.match(r"\[\d+\]:1:3: error: This expression has type string", answer), answer
    assert '1 | f "a"\n' in answer and "cpsc__" not in answer


def test_completion_offers_the_names_a_user_types():
    """Source names, in a fresh session too: never an instance the compiler made of one."""
    session = Session()
    assert session.completions("List.fold_") == ["List.fold_left", "List.fold_left2", "List.fold_left_map",
                                                 "List.fold_right", "List.fold_right2"]
    assert "print_endline" in session.completions("print_")
    respond(session, "let total l = List.fold_left ( + ) 0 l;;")
    assert session.completions("tot") == ["total"]
    assert not [n for n in session.completions("") if "_int" in n and n.startswith(("List.", "total"))]


def test_the_terminal_completes_the_word_before_the_cursor():
    from prompt_toolkit.document import Document

    from cpsc.repl.ui import _completer

    completer = _completer(Session())
    texts = [c.text for c in completer.get_completions(Document("let y = List.fold_r"), None)]
    assert texts == ["List.fold_right", "List.fold_right2"]

"""`cpsc repl`: the toplevel's terminal side. prompt_toolkit gives line editing, a history
kept across sessions (in cpsc's cache folder), multi-line input (a phrase ends with `;;`) and
tab completion of commands, pass names, function names and files. Without a terminal (input
from a pipe), lines are read plainly, so a session can be scripted."""

from __future__ import annotations

import re
import signal
import sys
from collections.abc import Iterable, Iterator

from cpsc.repl import directives
from cpsc.repl.commands import COMMANDS, Quit, execute
from cpsc.repl.directives import is_directive
from cpsc.repl.session import Session
from cpsc.support.deep_stack import call_with_deep_stack
from cpsc.workbench import WorkbenchError

BANNER = "cpsc toplevel: FL phrases end with ;;  (:help for commands, :quit or Ctrl-D to leave)\n"


def _complete_end(text: str) -> bool:
    """A phrase is complete when it ends with `;;` outside a string literal, a quoted string
    `{|...|}`, a character literal and a comment (what OCaml's lexer decides: `let s = "a;;`
    goes on on the next line)."""
    return text.rstrip().endswith(";;") and _outside_literals(text.rstrip())


_QUOTED = re.compile(r"\{([a-z_]*)\|")
_CHAR = re.compile(r"'(?:\\(?:[\\'\"ntbr ]|\d{3}|x[0-9a-fA-F]{2}|o[0-7]{3})|[^\\'])'")


def _outside_literals(text: str) -> bool:
    """Whether the end of `text` is outside every string, quoted string and comment."""
    i, depth, n = 0, 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("(*", i):
            depth, i = depth + 1, i + 2
        elif depth and text.startswith("*)", i):
            depth, i = depth - 1, i + 2
        elif c == '"':
            i = _string_end(text, i + 1)
        elif c == "{" and (quoted := _QUOTED.match(text, i)):
            close = text.find("|" + quoted.group(1) + "}", i + len(quoted.group(0)))
            i = n + 1 if close < 0 else close + len(quoted.group(1)) + 2
        elif c == "'" and (char := _CHAR.match(text, i)):
            i = char.end()
        else:
            i += 1
    return depth == 0 and i == n


def _string_end(text: str, i: int) -> int:
    """Just after the string literal whose contents start at `i` (past the end: unterminated)."""
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == '"':
            return i + 1
        else:
            i += 1
    return len(text) + 1


CANCELLED = "\x03"  # what the terminal's lines give for Ctrl-C at the prompt


def _inputs(read: Iterator[str]) -> Iterator[str]:
    """Whole inputs (a `:command` line, or the lines of a phrase up to `;;`) from lines, as
    the bytes a source file holds (UTF-8, read as latin-1: FL strings are bytes); a Ctrl-C at
    the prompt drops the phrase typed so far (and is passed on)."""
    pending: list[str] = []
    for typed in read:
        line = typed.encode("utf-8", "surrogateescape").decode("latin-1")
        if line == CANCELLED:
            pending = []
            yield CANCELLED
            continue
        if not pending and line.strip().startswith(":"):
            yield line
            continue
        if not pending and not line.strip():
            continue
        pending.append(line)
        if _complete_end(line):
            yield "\n".join(pending)
            pending = []
    if pending:
        yield "\n".join(pending)


INTERRUPTED = "Interrupted.\n"


def respond(session: Session, text: str) -> str:
    """What the toplevel prints for one input, computed on a deep stack where Ctrl-C
    interrupts it (`Interrupted.`, as OCaml's toplevel says); raises `Quit`."""
    try:
        return call_with_deep_stack(lambda: _respond(session, text), interruptible=True)
    except KeyboardInterrupt:
        return INTERRUPTED


def _respond(session: Session, text: str) -> str:
    try:
        if text.strip().startswith(":"):
            return execute(session, text)
        if is_directive(text):
            return directives.execute(session, text)
        return session.phrase(text)
    except WorkbenchError as error:  # the session's own (SessionError) among them
        message = str(error)
        return message if message.endswith("\n") else message + "\n"
    except RecursionError:
        return "error: this input is nested too deeply for the toplevel (cpsc build gives its location)\n"
    except (Quit, KeyboardInterrupt):
        raise
    except Exception as error:  # noqa: BLE001 - a bug in cpsc must not end the session
        return f"internal error: {type(error).__name__}: {error}\n(a bug in cpsc; the session goes on)\n"


def _completer(session: Session):  # type: ignore[no-untyped-def]
    from prompt_toolkit.completion import Completer, Completion, PathCompleter

    from cpsc.opt.pipeline import PASSES

    files = PathCompleter(expanduser=True)

    class ToplevelCompleter(Completer):
        def get_completions(self, document, complete_event) -> Iterable[Completion]:  # type: ignore[no-untyped-def]
            text = document.text_before_cursor
            if not text.startswith(":"):
                word = re.search(r"[A-Za-z0-9_'.]*$", text)
                typed = word.group(0) if word else ""
                for name in session.completions(typed):
                    yield Completion(name, start_position=-len(typed))
                return
            words = text[1:].split(" ")
            if len(words) == 1:
                yield from _matching(words[0], list(COMMANDS))
                return
            command = COMMANDS.get(words[0])
            if command is None:
                return
            kind = command.completes if len(words) == 2 else ("function" if words[0] == "pass" else "")
            if kind == "file":
                from prompt_toolkit.document import Document

                yield from files.get_completions(Document(words[-1]), complete_event)
            elif kind == "pass":
                yield from _matching(words[-1], sorted(PASSES))
            elif kind == "function":
                yield from _matching(words[-1], session.function_names())

    return ToplevelCompleter()


def _matching(word: str, names: list[str]) -> Iterator:  # type: ignore[type-arg]
    from prompt_toolkit.completion import Completion

    for name in names:
        if name.startswith(word):
            yield Completion(name, start_position=-len(word))


def _terminal_lines(session: Session) -> Iterator[str]:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory

    from cpsc.support.cache import cache_dir

    prompt: PromptSession[str] = PromptSession(history=FileHistory(str(cache_dir() / "repl_history")),
                                               completer=_completer(session), complete_while_typing=False)
    continuing = False
    while True:
        try:
            line = prompt.prompt("  " if continuing else "# ")
        except KeyboardInterrupt:
            continuing = False
            yield CANCELLED
            continue
        except EOFError:
            return
        yield line
        stripped = line.strip()
        continuing = (continuing or not stripped.startswith(":")) and bool(stripped) and not _complete_end(line)


def _plain_lines() -> Iterator[str]:
    for line in sys.stdin:
        yield line.rstrip("\n")


def _quiet_interrupts(unraisable: sys.UnraisableHookArgs) -> None:
    """Ctrl-C raised where Python cannot raise it (`deep_stack` sends it again): no report."""
    if not isinstance(unraisable.exc_value, KeyboardInterrupt):
        sys.__unraisablehook__(unraisable)


def main(load_path: list[str] | None = None) -> int:
    sys.unraisablehook = _quiet_interrupts
    session = Session(load_path)
    interactive = sys.stdin.isatty()
    if interactive:
        # As OCaml's toplevel (`Sys.catch_break true`): Ctrl-C interrupts a phrase even when
        # cpsc was started with SIGINT ignored, as a shell without job control starts `cmd &`
        # (Python then installs no handler of its own).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.stdout.write(BANNER)
    lines = _terminal_lines(session) if interactive else _plain_lines()
    for text in _inputs(lines):
        try:
            sys.stdout.write(INTERRUPTED if text == CANCELLED else respond(session, text))
        except Quit:
            break
        except KeyboardInterrupt:  # between two phrases
            sys.stdout.write(INTERRUPTED)
        sys.stdout.flush()
    return 0

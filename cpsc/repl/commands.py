"""The REPL's `:commands`, each a method of `Session` behind a usage line; `execute` runs one
line of input that starts with `:`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cpsc.opt.pipeline import LEVELS
from cpsc.repl.session import Session, SessionError


class Quit(Exception):
    """`:quit`."""


@dataclass(frozen=True)
class Command:
    usage: str
    help: str
    run: Callable[[Session, list[str], str], str]  # session, words, the rest of the line
    completes: str = ""  # what its first argument is: "function", "pass", "file" or ""


def _one(usage: str) -> Callable[[list[str]], str]:
    def first(words: list[str]) -> str:
        if len(words) != 1:
            raise SessionError(f"usage: {usage}")
        return words[0]
    return first


def _expression(rest: str, usage: str) -> str:
    if not rest.strip():
        raise SessionError(f"usage: {usage}")
    return rest.strip().removesuffix(";;")


def _inline(session: Session, words: list[str], _: str) -> str:
    if len(words) != 2 or not words[1].isdigit():
        raise SessionError("usage: :inline NAME SITE   (SITE: a number from :calls NAME)")
    return session.inline(words[0], int(words[1]))


def _pass(session: Session, words: list[str], _: str) -> str:
    if len(words) not in (1, 2):
        raise SessionError("usage: :pass PASS [NAME]")
    return session.run_pass(words[0], words[1] if len(words) == 2 else None)


def _pipeline(session: Session, words: list[str], _: str) -> str:
    if len(words) != 1:
        raise SessionError(f"usage: :pipeline {'|'.join(f'-O{level}' for level in LEVELS)}")
    return session.pipeline(words[0])


def _diff(session: Session, words: list[str], _: str) -> str:
    if len(words) not in (0, 2) or not all(w.isdigit() for w in words):
        raise SessionError("usage: :diff [A B]   (version numbers from :history)")
    return session.diff(int(words[0]), int(words[1])) if words else session.diff()


def _quit(session: Session, words: list[str], rest: str) -> str:
    raise Quit


def _function_command(method: str, usage: str, help: str) -> Command:
    return Command(usage, help, lambda s, w, _: getattr(s, method)(_one(usage)(w)), "function")


COMMANDS: dict[str, Command] = {
    "load": Command(":load FILE", "evaluate the declarations of a file",
                    lambda s, w, _: s.load(_one(":load FILE")(w)), "file"),
    "type": Command(":type EXPR", "the type of an expression", lambda s, _, r: s.type_of(_expression(r, ":type EXPR"))),
    "cps": _function_command("cps", ":cps NAME", "a function's CPS IR in the current version"),
    "ssa": _function_command("ssa", ":ssa NAME", "its basic-block SSA (after closure conversion)"),
    "llvm": _function_command("llvm", ":llvm NAME", "its LLVM IR after LLVM's -O2"),
    "asm": _function_command("asm", ":asm NAME", "its x86-64 assembly"),
    "calls": _function_command("calls", ":calls NAME", "its direct call sites, numbered"),
    "inline": Command(":inline NAME SITE", "inline one call site (return-continuation substitution)",
                      _inline, "function"),
    "pass": Command(":pass PASS [NAME]", "run a pass (on one function only, with NAME)", _pass, "pass"),
    "pipeline": Command(":pipeline -O2", "run an -O level's passes", _pipeline),
    "remarks": Command(":remarks", "the inliner's decision and reason at each call site",
                       lambda s, w, _: s.remarks()),
    "count": Command(":count EXPR", "dynamic counts of evaluating EXPR with the current version",
                     lambda s, _, r: s.count(_expression(r, ":count EXPR"))),
    "run": Command(":run EXPR", "evaluate EXPR with the current version, interpreted and native",
                   lambda s, _, r: s.run(_expression(r, ":run EXPR"))),
    "history": Command(":history", "the versions of the program", lambda s, w, _: s.history()),
    "undo": Command(":undo", "go back one version", lambda s, w, _: s.undo()),
    "redo": Command(":redo", "go forward one version", lambda s, w, _: s.redo()),
    "diff": Command(":diff [A B]", "unified diff of two versions (default: previous and current)", _diff),
    "size": Command(":size", "blocks, values and calls per function", lambda s, w, _: s.size()),
    "dot": _function_command("dot", ":dot NAME", "write its CFG as NAME.dot (and NAME.svg with Graphviz)"),
    "help": Command(":help", "this list", lambda s, w, _: help_text()),
    "quit": Command(":quit", "leave", _quit),
}


def help_text() -> str:
    lines = ["FL phrases end with ;; and may span lines. Commands:"]
    lines += [f"  {c.usage:<22} {c.help}" for c in COMMANDS.values()]
    return "\n".join(lines) + "\n"


def execute(session: Session, line: str) -> str:
    """Run one `:command` line; `SessionError` for a wrong one, `Quit` for `:quit`."""
    head, _, rest = line.strip()[1:].partition(" ")
    matches = [name for name in COMMANDS if name.startswith(head)] if head not in COMMANDS else [head]
    if len(matches) != 1:
        raise SessionError(f"unknown command :{head} (:help lists them)" if not matches
                           else f"ambiguous command :{head}: {', '.join(':' + m for m in matches)}")
    return COMMANDS[matches[0]].run(session, rest.split(), rest)

"""A test-case reducer for FL programs (`scripts/reduce`), in the manner of C-Reduce.

Given a program and a test that says whether a candidate is still interesting (a shell command,
run in a scratch folder with the candidate as `case.ml`, interesting when it exits 0), it
removes what the test does not need, coarsest first, until no single step helps:

- top-level items (a line at column 0 and the indented lines after it);
- lines;
- balanced groups of tokens (a parenthesised or bracketed part, `begin ... end`) replaced by
  nothing, or by what is inside them;
- single tokens.

Each kind of step is Zeller's ddmin: chunks of halving size are removed while the result stays
interesting. The test, not the reducer, keeps the candidate valid: a test for a miscompilation
compares cpsc with `ocaml` and so must also require that `ocaml` accepts the candidate (see
`cpsc.testing.wholelang`, whose disagreements are reduced with such a test).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from cpsc.testing.fuzz import tokens

Test = Callable[[str], bool]
CASE = "case.ml"
_OPEN = {"(": ")", "[": "]", "{": "}", "[|": "|]", "begin": "end", "struct": "end", "sig": "end"}


def ddmin(parts: Sequence[str], test: Callable[[list[str]], bool]) -> list[str]:
    """The parts left after removing, while `test` holds of the rest, chunks of halving size
    (one pass of each size, then again while anything was removed)."""
    current = list(parts)
    chunk = max(1, len(current) // 2)
    while current:
        removed_any = False
        start = 0
        while start < len(current):
            candidate = current[:start] + current[start + chunk:]
            if test(candidate):
                current = candidate
                removed_any = True
            else:
                start += chunk
        if chunk > 1:
            chunk //= 2
        elif not removed_any:
            break
    return current


def top_level_items(text: str) -> list[str]:
    """The program cut before each line that starts at column 0 (a new definition)."""
    items: list[str] = []
    for line in text.splitlines(keepends=True):
        if items and (line[:1].isspace() or not line.strip()):
            items[-1] += line
        else:
            items.append(line)
    return items


def _groups(parts: list[str]) -> list[tuple[int, int]]:
    """The spans (open, close) of balanced token groups, innermost last."""
    spans, stack = [], []
    for i, token in enumerate(parts):
        if token in _OPEN:
            stack.append(i)
        elif stack and token == _OPEN.get(parts[stack[-1]]):
            spans.append((stack.pop(), i))
    return sorted(spans, key=lambda span: span[0] - span[1])


def _reduce_groups(text: str, test: Test) -> str:
    """Each balanced group removed whole, or replaced by its contents, where the test allows."""
    index = 0
    while True:
        parts = tokens(text)
        spans = _groups(parts)
        if index >= len(spans):
            return text
        start, end = spans[index]
        for candidate in ("".join(parts[:start] + parts[end + 1:]),
                          "".join(parts[:start] + parts[start + 1:end] + parts[end + 1:])):
            if test(candidate):
                text = candidate
                break
        else:
            index += 1


def _words(text: str) -> list[str]:
    """The tokens, each with the blanks after it (so that removing tokens keeps them apart)."""
    words: list[str] = []
    for token in tokens(text):
        if token.isspace() and words:
            words[-1] += token
        else:
            words.append(token)
    return words


def reduce(text: str, test: Test, log: Callable[[str], None] = lambda _: None, fine: bool = True) -> str:
    """`text` made as small as the steps above can while `test` holds (it must hold of `text`);
    without `fine`, only the coarser steps (much faster: items, lines and groups, no single tokens)."""
    if not test(text):
        raise ValueError("the test does not hold of the original program")
    while True:
        before = text
        text = "".join(ddmin(top_level_items(text), lambda items: test("".join(items))))
        text = "".join(ddmin(text.splitlines(keepends=True), lambda lines: test("".join(lines))))
        text = _reduce_groups(text, test)
        if fine:
            text = "".join(ddmin(_words(text), lambda parts: test("".join(parts))))
        log(f"reduce: {len(before)} -> {len(text)} characters")
        if text == before:
            return text


def command_test(command: str, timeout: float = 60.0) -> Test:
    """A test that runs `command` in a scratch folder holding the candidate as `case.ml`."""
    def test(candidate: str) -> bool:
        with tempfile.TemporaryDirectory(prefix="cpsc-reduce-") as scratch:
            Path(scratch, CASE).write_text(candidate, encoding="latin-1")
            try:
                done = subprocess.run(command, shell=True, cwd=scratch, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, timeout=timeout)
            except subprocess.TimeoutExpired:
                return False
            return done.returncode == 0
    return test


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="reduce", description="Make a program as small as a test allows (the test: a shell command run "
        f"beside the candidate, named {CASE}, that exits 0 when the candidate is still interesting).")
    parser.add_argument("program", type=Path)
    parser.add_argument("test", help=f"shell command; the candidate is ./{CASE}")
    parser.add_argument("-o", "--output", type=Path, help="where to write the result (default: standard output)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds one run of the test may take")
    args = parser.parse_args(argv)
    original = args.program.read_text(encoding="latin-1")
    try:
        result = reduce(original, command_test(args.test, args.timeout), lambda line: print(line, file=sys.stderr))
    except ValueError as error:
        print(f"reduce: {error}", file=sys.stderr)
        return 1
    if args.output is None:
        sys.stdout.write(result)
    else:
        args.output.write_text(result, encoding="latin-1")
    return 0


if __name__ == "__main__":
    sys.exit(main())

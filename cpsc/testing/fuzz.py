"""A mutation fuzzer for the compiler a user gets (`scripts/fuzz`).

Mutants are made from the programs of `tests/` and `examples/` by a few token-level edits each
(a token deleted, duplicated, swapped with the next, replaced or inserted, a line dropped or
copied from another program, the file cut short, a stray byte), reproducibly from a seed.
Each mutant is compiled (`cpsc build -O2 --emit=llvm`: every stage but LLVM's own) in a child
forked from a worker that has the compiler and its prelude loaded, so one mutant costs
milliseconds and none can disturb the next. The contract checked is what any input must get:
status 0, or status 1 with a located `file:L:C: error:` diagnostic, and never a traceback,
another status, a signal or a hang. A mutant that breaks it is a finding, written to the
findings folder with what it printed, and the run fails.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import re
import select
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MUTANT = "mutant.fl"
_TOKEN = re.compile(r"""\(\*|\*\)|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)'|[A-Za-z_][A-Za-z0-9_']*(?:\.[A-Za-z_][A-Za-z0-9_']*)*"""
                    r"""|[0-9][0-9a-fA-FxXoObB_.eE]*|[!$%&*+\-./:<=>?@^|~]+|\s+|.""", re.DOTALL)
_LOCATED = re.compile(rf"^{re.escape(MUTANT)}:\d+:\d+: error: ", re.MULTILINE)
# Tokens worth inserting beside those of the programs: keywords in odd places, unterminated
# literals and comments, characters FL has no token for, non-ASCII bytes
_ODD_TOKENS = ['"', "'", "`", "?", "#", "(*", "*)", "\\", "\xc3\xa9", "\x00", "\xff", "'\\q'", '"\\u{D800}"',
               "let", "in", "rec", "and", "match", "with", "function", "fun", "->", "|", ";;", ";", "(", ")",
               "[", "]", "{", "}", "[|", "|]", "begin", "end", "module", "struct", "sig", "functor", "type",
               "of", "exception", "try", "raise", "if", "then", "else", "when", "as", "~x:", "?y", "lazy",
               "0x1p3", "1e400", "9223372036854775808", "-", "-.", "::", "@", ".", ".(", "<-", ":="]


@dataclass(frozen=True)
class Finding:
    mutant: str
    why: str
    stderr: str


def seeds(root: Path = ROOT) -> list[str]:
    """The programs mutants are made from: every `.fl` file of tests/ and examples/."""
    paths = sorted(root.glob("tests/**/*.fl")) + sorted(root.glob("examples/**/*.fl"))
    return [p.read_text(encoding="latin-1") for p in paths]


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


class Mutator:
    """Mutants of the seed programs, the same ones for the same random seed."""

    def __init__(self, programs: list[str], seed: int) -> None:
        self.programs = programs
        self.tokenized = [tokens(p) for p in programs]
        self.pool = sorted({t for ts in self.tokenized for t in ts if not t.isspace()}) + _ODD_TOKENS
        self.random = random.Random(seed)

    def mutants(self) -> Iterator[str]:
        while True:
            yield self.mutant()

    def mutant(self) -> str:
        r = self.random
        index = r.randrange(len(self.programs))
        parts = list(self.tokenized[index])
        for _ in range(r.choice((1, 1, 1, 2, 3))):
            parts = self.edit(parts)
        return "".join(parts)

    def edit(self, parts: list[str]) -> list[str]:
        r = self.random
        if not parts:
            return [r.choice(self.pool)]
        where = r.randrange(len(parts))
        kind = r.randrange(9)
        if kind == 0:
            return parts[:where] + parts[where + 1:]
        if kind == 1:
            return parts[:where + 1] + parts[where:]
        if kind == 2 and where + 1 < len(parts):
            return parts[:where] + [parts[where + 1], parts[where]] + parts[where + 2:]
        if kind == 3:
            return parts[:where] + [r.choice(self.pool)] + parts[where + 1:]
        if kind == 4:
            return parts[:where] + [r.choice(self.pool), " "] + parts[where:]
        if kind == 5:
            return parts[:where]
        if kind == 6:
            return _lines_edited(parts, r, self.programs)
        if kind == 7:
            return parts[:where] + [chr(r.randrange(256))] + parts[where:]
        return parts[:where] + [r.choice(_ODD_TOKENS)] + parts[where + 1:]


def _lines_edited(parts: list[str], r: random.Random, programs: list[str]) -> list[str]:
    """A line dropped, or one of another program's lines put in its place."""
    lines = "".join(parts).split("\n")
    where = r.randrange(len(lines))
    if r.random() < 0.5:
        del lines[where]
    else:
        other = r.choice(programs).split("\n")
        lines[where] = r.choice(other)
    return tokens("\n".join(lines))


def verdict(status: int, stderr: str) -> str | None:
    """None if a compile that ended with `status` and printed `stderr` kept the contract."""
    if "Traceback" in stderr:
        return "traceback"
    if status == 0:
        return None
    if status == 1:
        return None if _LOCATED.search(stderr) else "status 1 without a located error"
    if status < 0:
        return f"killed by signal {-status}"
    return f"status {status}"


class Worker:
    """Compiles mutants, each in a child forked from this process (the compiler loaded once)."""

    COMMAND = ["build", "-O2", "--emit=llvm", "-o", os.devnull, MUTANT]

    def __init__(self, folder: Path, timeout: float) -> None:
        self.folder = folder
        self.timeout = timeout
        self.warm_up()

    def warm_up(self) -> None:
        """Compile a program here, so that every module a compile imports, and the prelude,
        are loaded before the children are forked (and a rebuild meanwhile changes nothing)."""
        from cpsc.cli.main import main

        (self.folder / MUTANT).write_text('let () = print_endline "warm"\n')
        saved = os.getcwd()
        os.chdir(self.folder)
        try:
            assert main(self.COMMAND) == 0
        finally:
            os.chdir(saved)

    def compile(self, text: str) -> tuple[str | None, str]:
        """The contract broken (None: kept) and what the compiler printed on stderr (which
        begins with `status N` when the contract was kept)."""
        (self.folder / MUTANT).write_bytes(text.encode("latin-1"))
        read, write = os.pipe()
        child = os.fork()
        if child == 0:  # pragma: no cover - the child
            os.close(read)
            _compile_in_child(self.folder, write, self.COMMAND)
        os.close(write)
        stderr, finished = _read_until(read, self.timeout)
        if not finished:
            os.kill(child, signal.SIGKILL)
        _, wait_status = os.waitpid(child, 0)
        if not finished:
            return f"hang (over {self.timeout:g} s)", stderr
        status = os.waitstatus_to_exitcode(wait_status)
        why = verdict(status, stderr)
        return why, stderr if why else f"status {status}"


def _compile_in_child(folder: Path, write: int, command: list[str]) -> None:
    status = 3
    try:
        os.chdir(folder)
        sys.stdout = io.StringIO()
        sys.stderr = captured = io.StringIO()
        from cpsc.cli.main import main

        try:
            status = main(command)
        except BaseException:  # noqa: BLE001 - a traceback is what the fuzzer looks for
            import traceback

            traceback.print_exc(file=captured)
            status = 3
        os.write(write, captured.getvalue().encode("utf-8", "replace"))
    finally:
        os._exit(status)


def _read_until(fd: int, timeout: float) -> tuple[str, bool]:
    """What the child writes to `fd` until it closes it, and whether it did within `timeout`."""
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return b"".join(chunks).decode("utf-8", "replace"), False
            chunk = os.read(fd, 65536)
            if not chunk:
                return b"".join(chunks).decode("utf-8", "replace"), True
            chunks.append(chunk)
    finally:
        os.close(fd)


def run(count: int, seed: int, timeout: float, findings: Path, quiet: bool = False) -> list[Finding]:
    """Compile `count` mutants from `seed`; the findings, also written under `findings`."""
    found: list[Finding] = []
    mutator = Mutator(seeds(), seed)
    with tempfile.TemporaryDirectory() as tmp:
        worker = Worker(Path(tmp), timeout)
        started = time.monotonic()
        statuses = {"status 0": 0, "status 1": 0}
        for number, text in zip(range(count), mutator.mutants()):
            why, stderr = worker.compile(text)
            if why is not None:
                found.append(_record(findings, seed, number, text, why, stderr))
                print(f"fuzz: mutant {number} of seed {seed}: {why}", file=sys.stderr)
            else:
                statuses[stderr] += 1
            if not quiet and (number + 1) % 1000 == 0:
                rate = (number + 1) / (time.monotonic() - started)
                print(f"fuzz: {number + 1} mutants, {len(found)} findings, {rate:.0f}/s", file=sys.stderr)
        print(f"fuzz: seed {seed}: {statuses['status 0']} compiled, {statuses['status 1']} rejected with a "
              f"located error, {len(found)} findings", file=sys.stderr)
    return found


def _record(findings: Path, seed: int, number: int, text: str, why: str, stderr: str) -> Finding:
    findings.mkdir(parents=True, exist_ok=True)
    stem = findings / f"seed{seed}-{number}"
    stem.with_suffix(".fl").write_bytes(text.encode("latin-1"))
    stem.with_suffix(".txt").write_text(f"{why}\n\n{stderr}")
    return Finding(text, why, stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=300, help="mutants per job (default 300)")
    parser.add_argument("--seed", type=int, default=None, help="the first job's seed (default: from the clock)")
    parser.add_argument("--jobs", type=int, default=1, help="jobs in parallel, job i with seed + i")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a mutant is a hang")
    parser.add_argument("--findings", type=Path, default=Path("fuzz-findings"))
    parser.add_argument("--require-compiled", action="store_true",
                        help="fail unless the compiler runs compiled (mypyc), the build users get")
    args = parser.parse_args(argv)
    from cpsc.support import native

    print(f"fuzz: the compiler runs {native.mode()}")
    if args.require_compiled and native.mode() != "compiled":
        return 1
    seed = args.seed if args.seed is not None else int(time.time())
    children = []
    for job in range(args.jobs):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - a job
            found = run(args.count, seed + job, args.timeout, args.findings, quiet=job > 0)
            os._exit(1 if found else 0)
        children.append(pid)
    failed = sum(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) != 0 for pid in children)
    total = args.count * args.jobs
    print(f"fuzz: {total} mutants (seeds {seed}..{seed + args.jobs - 1}): "
          + (f"findings in {failed} job(s), see {args.findings}/" if failed else "no findings"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""The corpus of public programs (`scripts/conformance --corpus`): single-file OCaml programs
nobody here wrote, compared with `ocaml` (stdout and exit status).

Their texts never enter this repository. `tests/conformance/corpus.tsv` names each: repository,
commit, path, licence, the SHA-256 of the text, its stdin (escaped as a Python string literal
would be, `\\n`), an edit (`old=>new`: a size parameter made smaller, applied to the text whose
digest is the manifest's; empty for none) and, for a program that does not
agree yet, the cause (a key of `tests/conformance/causes.tsv`, the to-do list). The texts live
in a cache outside the repository, `$CPSC_CORPUS` (default `~/.cache/cpsc/corpus`), as
`OWNER+NAME/PATH`; `--fill MIRROR` copies them there from git directories fetched in a session
(`MIRROR/OWNER+NAME/repo`, read with `git show COMMIT:PATH`). What is present is checked
(its SHA-256), built by the compiled compiler at -O2 and run natively beside `ocaml`.

Reported: K/N agree; the programs whose cause is known, by cause; those that disagree without
one (a regression, or a new class: exit status 1); those that agree though a cause is listed
(remove it); those absent or changed.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "tests" / "conformance" / "corpus.tsv"
CAUSES = ROOT / "tests" / "conformance" / "causes.tsv"
COLUMNS = ("repository", "commit", "path", "licence", "sha256", "stdin", "edit", "cause")


@dataclass(frozen=True)
class Entry:
    repository: str
    commit: str
    path: str
    licence: str
    sha256: str
    stdin: str
    edit: str
    cause: str

    @property
    def name(self) -> str:
        return f"{self.repository}:{self.path}"

    def input(self) -> bytes:
        return ast.literal_eval(f'"{self.stdin}"').encode("latin-1") if self.stdin else b""

    def edited(self, text: bytes) -> bytes:
        if not self.edit:
            return text
        old, _, new = self.edit.partition("=>")
        return text.replace(old.encode("latin-1"), new.encode("latin-1"), 1)


def read_manifest(path: Path = MANIFEST) -> list[Entry]:
    lines = path.read_text(encoding="utf-8").splitlines()
    if tuple(lines[0].split("\t")) != COLUMNS:
        raise ValueError(f"{path}: the header is not {' '.join(COLUMNS)}")
    return [Entry(*line.split("\t")) for line in lines[1:] if line.strip()]


def read_causes(path: Path = CAUSES) -> dict[str, str]:
    """The known causes: key -> what it is."""
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    return dict(line.split("\t", 1) for line in lines if line.strip())  # type: ignore[misc]


def problems(entries: list[Entry], causes: dict[str, str]) -> list[str]:
    """What is wrong with the manifest (nothing when it is well formed)."""
    found = []
    seen: set[tuple[str, str]] = set()
    for e in entries:
        checks = [(len(e.commit) == 40 and all(c in "0123456789abcdef" for c in e.commit), "commit is not 40 hex digits"),
                  (len(e.sha256) == 64 and all(c in "0123456789abcdef" for c in e.sha256), "sha256 is not 64 hex digits"),
                  ("/" in e.repository and e.repository.count("/") == 1, "repository is not OWNER/NAME"),
                  (e.path.endswith(".ml") and not e.path.startswith("/"), "path is not a relative .ml file"),
                  (bool(e.licence), "no licence (write `unstated` when the repository states none)"),
                  (not e.cause or e.cause in causes, f"unknown cause {e.cause!r}"),
                  ((e.repository, e.path) not in seen, "listed twice"),
                  (not e.edit or "=>" in e.edit, "an edit is old=>new")]
        found += [f"{e.name}: {why}" for ok, why in checks if not ok]
        seen.add((e.repository, e.path))
    return found


def cache_folder() -> Path:
    return Path(os.environ.get("CPSC_CORPUS", Path.home() / ".cache" / "cpsc" / "corpus"))


def cached(entry: Entry, cache: Path) -> Path:
    return cache / entry.repository.replace("/", "+", 1) / entry.path


def fill(entries: list[Entry], mirror: Path, cache: Path) -> int:
    """Copy each text from a fetched git directory into the cache; how many were copied."""
    copied = 0
    for e in entries:
        git_dir = mirror / e.repository.replace("/", "+", 1) / "repo"
        done = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{e.commit}:{e.path}"], capture_output=True)
        if done.returncode == 0 and hashlib.sha256(done.stdout).hexdigest() == e.sha256:
            target = cached(e, cache)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(done.stdout)
            copied += 1
    return copied


def _run(command: list[str], cwd: Path, stdin: bytes) -> tuple[str, int]:
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, timeout=120, input=stdin)
    except subprocess.TimeoutExpired:
        return "(timed out)", -1
    return done.stdout.decode("latin-1"), done.returncode


def outcome(entry: Entry, cache: Path) -> str | None:
    """None if cpsc and ocaml agree on the program; else why not ("absent", "changed", ...)."""
    path = cached(entry, cache)
    if not path.exists():
        return "absent"
    original = path.read_bytes()
    if hashlib.sha256(original).hexdigest() != entry.sha256:
        return "changed (its sha256 is not the manifest's)"
    text = entry.edited(original)
    with tempfile.TemporaryDirectory(prefix="corpus-") as folder:
        here = Path(folder)
        (here / path.name).write_bytes(text)
        build = subprocess.run([sys.executable, "-m", "cpsc", "build", "-O2", path.name, "-o", "prog"], cwd=here,
                               capture_output=True, timeout=600)
        if build.returncode != 0:
            lines = build.stderr.decode("latin-1").strip().splitlines() or ["(nothing on stderr)"]
            return "cpsc build failed: " + next((line for line in lines if "error" in line), lines[-1])
        ours = _run([str(here / "prog")], here, entry.input())
        theirs = _run(["ocaml", path.name], here, entry.input())
    if ours == theirs:
        return None
    return f"status {ours[1]}, ocaml {theirs[1]}" if ours[1] != theirs[1] else "stdout differs"


def report(entries: list[Entry], causes: dict[str, str], results: list[str | None]) -> int:
    present = [(e, r) for e, r in zip(entries, results) if r is None or not r.startswith(("absent", "changed"))]
    agreeing = sum(1 for _, r in present if r is None)
    by_cause: dict[str, list[str]] = defaultdict(list)
    unexplained, fixed, missing = [], [], []
    for e, r in zip(entries, results):
        if r is not None and r.startswith(("absent", "changed")):
            missing.append(f"{e.name}: {r}")
        elif r is not None and e.cause:
            by_cause[e.cause].append(f"{e.name}: {r}")
        elif r is not None:
            unexplained.append(f"{e.name}: {r}")
        elif e.cause:
            fixed.append(f"{e.name}: agrees now (remove its cause {e.cause})")
    for cause, names in sorted(by_cause.items()):
        print(f"\n{cause} ({len(names)}): {causes[cause]}")
        print("".join(f"  {n}\n" for n in names), end="")
    for title, names in (("disagreeing without a known cause", unexplained), ("fixed", fixed),
                         ("absent or changed", missing)):
        if names:
            print(f"\n{title} ({len(names)}):")
            print("".join(f"  {n}\n" for n in names), end="")
    repositories = len({e.repository for e, _ in present})
    print(f"\ncorpus: {agreeing}/{len(present)} agree (from {repositories} repositories; "
          f"{len(entries) - len(present)} of {len(entries)} absent or changed)")
    return 1 if unexplained else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="conformance --corpus", description=__doc__.split("\n\n")[0])
    parser.add_argument("--fill", type=Path, metavar="MIRROR", help="copy the texts from fetched git directories first")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", help="the programs whose repository:path contains this")
    args = parser.parse_args(argv)
    entries, causes = read_manifest(), read_causes()
    wrong = problems(entries, causes)
    if wrong:
        print("\n".join(wrong))
        return 1
    cache = cache_folder()
    if args.fill:
        print(f"corpus: {fill(entries, args.fill, cache)} texts copied to {cache}")
    if args.only:
        entries = [e for e in entries if args.only in e.name]
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda e: outcome(e, cache), entries))
    return report(entries, causes, results)


if __name__ == "__main__":
    raise SystemExit(main())

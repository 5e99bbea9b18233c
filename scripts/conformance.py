"""See scripts/conformance. Each program is built and run from its own folder (as `ocaml
prog.fl` runs it), in parallel; programs marked `no-ocaml` (a documented difference from OCaml,
LANGUAGE.md) are listed apart and not counted."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(command: list[str], cwd: Path, stdin: bytes) -> tuple[str, int]:
    done = subprocess.run(command, cwd=cwd, capture_output=True, timeout=600, input=stdin)
    return done.stdout.decode("latin-1"), done.returncode


def check(path: Path, tmp: Path) -> tuple[Path, str | None]:
    """None if cpsc and ocaml agree on the program, else what differs."""
    exe = tmp / path.stem
    build = subprocess.run([sys.executable, "-m", "cpsc", "build", "-O2", path.name, "-o", str(exe)],
                           cwd=path.parent, capture_output=True, timeout=600)
    if build.returncode != 0:
        return path, "cpsc build failed: " + build.stderr.decode("latin-1").strip().splitlines()[-1]
    given = path.with_suffix(".input")
    stdin = given.read_bytes() if given.exists() else b""
    ours, theirs = run([str(exe)], path.parent, stdin), run(["ocaml", path.name], path.parent, stdin)
    if ours == theirs:
        return path, None
    if ours[1] != theirs[1]:
        return path, f"status {ours[1]}, ocaml {theirs[1]}"
    return path, "stdout differs"


def shown(path: Path) -> str:
    """The path from the repository's root, or as given when the program lives elsewhere."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def main() -> int:
    if "--corpus" in sys.argv[1:]:  # the public programs (scripts/corpus.py)
        import corpus

        return corpus.main([a for a in sys.argv[1:] if a != "--corpus"])
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("programs", nargs="*", type=Path, help="default: examples/ and tests/programs/")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    programs = [p.resolve() for p in args.programs] or \
        sorted(ROOT.glob("examples/*.fl")) + sorted(ROOT.glob("tests/programs/*.fl"))
    compared = [p for p in programs if "no-ocaml" not in p.read_text(encoding="latin-1")]
    skipped = [p for p in programs if p not in compared]
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda p: check(p, Path(tmp)), compared))
    failures = [(p, why) for p, why in results if why is not None]
    for path, why in failures:
        print(f"{shown(path)}: {why}")
    for path in skipped:
        print(f"{shown(path)}: not compared (a documented difference from OCaml)")
    print(f"conformance: {len(compared) - len(failures)}/{len(compared)} agree")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())

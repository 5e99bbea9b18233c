"""See scripts/public-projects. Public projects of several files (not written here) are named by
tests/projects/public/manifest.json: repository, commit, licence, the SHA-256 of their OCaml and
dune files, how cpsc names the program (`build`), what it reads on stdin, and the oracle it is
compared with (`ocamlopt` on the files in cpsc's link order, `dune build`, or `refused`: a
project that uses a library outside the standard library, which cpsc must refuse, naming it).
Their texts never enter this repository: each is looked for, checked out at its commit, in
$CPSC_PUBLIC_PROJECTS (default ~/.cache/cpsc/public-projects/OWNER+NAME), and those present run."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "tests" / "projects" / "public" / "manifest.json"


def project_files(folder: Path) -> list[str]:
    found = []
    for here, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d not in ("_build", ".git")]
        found += [os.path.relpath(os.path.join(here, f), folder) for f in files
                  if f.endswith((".ml", ".mli")) or f in ("dune", "dune-project")]
    return sorted(found)


def digest(folder: Path) -> str:
    h = hashlib.sha256()
    for name in project_files(folder):
        h.update(name.encode() + b"\0" + (folder / name).read_bytes() + b"\0")
    return h.hexdigest()


def run(command: list[str], cwd: Path, stdin: str = "") -> tuple[int, bytes]:
    done = subprocess.run(command, cwd=cwd, input=stdin.encode(), capture_output=True, timeout=600)
    return done.returncode, done.stdout + b"\n--- stderr\n" + done.stderr


def link_order(folder: Path, build: list[str]) -> list[str]:
    """The files of the program in cpsc's link order (what ocamlopt is given)."""
    code = ("import sys\nfrom pathlib import Path\nfrom cpsc.driver import find_program\nfrom cpsc.project import UnitFiles\n"
            "names = [a for a in sys.argv[1:] if a != '-I']\nincludes = [b for a, b in zip(sys.argv[1:], sys.argv[2:]) if a == '-I']\n"
            "files = [n for n in names if n not in includes]\n"
            "units, _ = find_program(files, includes, UnitFiles(lambda f: Path(f).read_bytes().decode('latin-1')))\n"
            "print(' '.join(f for u in units for f in u.files))")
    done = subprocess.run([sys.executable, "-c", code, *build], cwd=folder, capture_output=True, text=True, check=True)
    return done.stdout.split()


def oracle(entry: dict, work: Path) -> tuple[int, bytes] | str:
    """What OCaml's own tools make of the project: its run, or why they could not."""
    if entry["oracle"] == "ocamlopt":
        includes = [b for a, b in zip(entry["build"], entry["build"][1:]) if a == "-I"]
        flags = [f for d in includes for f in ("-I", d)]
        built = subprocess.run(["ocamlopt", *flags, *link_order(work, entry["build"]), "-o", "oracle.exe"],
                               cwd=work, capture_output=True)
        return run(["./oracle.exe"], work, entry["stdin"]) if built.returncode == 0 else "ocamlopt failed"
    project = work / "dune-project"
    if project.exists():  # the dune installed may be older than the language the project asks
        project.write_text(re.sub(r"\(lang dune [0-9.]+\)", "(lang dune 2.9)", project.read_text()))
    executable = subprocess.run(["dune", "build", "--root", "."], cwd=work, capture_output=True)
    exes = sorted(work.glob("_build/default/**/*.exe"))
    main = [e for e in exes if "test" not in e.parts[-2]]
    if not main:
        return f"dune failed: {executable.stderr.decode(errors='replace')[:200]}"
    return run([str(main[0])], work, entry["stdin"])


def check(entry: dict, folder: Path) -> str:
    if digest(folder) != entry["sha256"]:
        return "files differ from the manifest's (another commit?)"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "project"
        shutil.copytree(folder, work, ignore=shutil.ignore_patterns("_build", ".git"))
        built = subprocess.run([sys.executable, "-m", "cpsc", "build", *entry["build"], "-o", str(Path(tmp) / "cpsc.exe")],
                               cwd=work, capture_output=True, text=True)
        if entry["oracle"] == "refused":
            said = built.stderr.splitlines()[0] if built.stderr else ""
            return f"refused as expected: {said}" if built.returncode == 1 and "not found" in said \
                else f"NOT REFUSED: status {built.returncode} {said}"
        if built.returncode != 0:
            return "CPSC FAILED: " + (built.stderr.strip().splitlines() or ["?"])[0]
        ours = run([str(Path(tmp) / "cpsc.exe")], work, entry["stdin"])
        theirs = oracle(entry, work)
        if isinstance(theirs, str):
            return f"no oracle ({theirs})"
        if ours == theirs:
            lines = ours[1].count(b"\n")
            return f"agree with {entry['oracle']} (status {ours[0]}, {lines} lines)"
        return f"DIFFER from {entry['oracle']} (status {ours[0]} vs {theirs[0]})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.parse_args()
    cache = Path(os.environ.get("CPSC_PUBLIC_PROJECTS", Path.home() / ".cache" / "cpsc" / "public-projects"))
    entries = json.loads(MANIFEST.read_text())
    failed = present = 0
    for entry in entries:
        folder = cache / entry["repository"].replace("/", "+")
        if not folder.is_dir():
            print(f"{entry['repository']}: not present (clone it at {entry['commit'][:12]} into {folder})")
            continue
        present += 1
        said = check(entry, folder / entry["path"])
        failed += said.startswith(("CPSC", "DIFFER", "NOT", "files"))
        print(f"{entry['repository']}: {said}")
    print(f"public projects: {present - failed}/{present} as expected ({len(entries) - present} not present)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

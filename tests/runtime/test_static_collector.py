"""Executables carry the collector in them (ocamlopt's carry their runtime): they run where
libgc's shared library is not installed. `--static` makes one that needs no shared library."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROGRAM = "let () = let l = List.init 100_000 (fun i -> i) in print_int (List.fold_left ( + ) 0 l)\n"


def _build(tmp_path: Path, *options: str) -> Path:
    (tmp_path / "prog.ml").write_text(PROGRAM)
    subprocess.run([sys.executable, "-m", "cpsc", "build", *options, "prog.ml"], cwd=tmp_path, check=True)
    return tmp_path / "prog"


def _needed(executable: Path) -> list[str]:
    dynamic = subprocess.run(["readelf", "-d", str(executable)], capture_output=True, text=True, check=True).stdout
    return [line.split("[")[1].rstrip("]") for line in dynamic.splitlines() if "(NEEDED)" in line]


@pytest.mark.skipif(shutil.which("readelf") is None, reason="no readelf")
def test_an_executable_needs_only_libc_and_libm(tmp_path):
    assert set(_needed(_build(tmp_path))) <= {"libc.so.6", "libm.so.6"}


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("chroot") is None, reason="chroot needs root")
def test_it_runs_where_libgc_is_not_installed(tmp_path):
    """In a root holding the executable, the loader, libc and libm, and nothing else."""
    (tmp_path / "build").mkdir()
    executable = _build(tmp_path / "build")
    root = tmp_path / "root"
    loader = Path("/lib64/ld-linux-x86-64.so.2")
    libraries = [loader] + [Path(f"/lib/x86_64-linux-gnu/{name}") for name in ("libc.so.6", "libm.so.6")]
    for library in libraries:
        (root / library.relative_to("/")).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(library.resolve(), root / library.relative_to("/"))
    shutil.copy(executable, root / "prog")
    assert not list(root.rglob("libgc*"))
    done = subprocess.run(["chroot", str(root), "/prog"], capture_output=True, text=True)
    assert (done.stdout, done.returncode) == (str(sum(range(100_000))), 0), done.stderr


@pytest.mark.skipif(shutil.which("readelf") is None, reason="no readelf")
def test_static_needs_no_shared_library(tmp_path):
    executable = _build(tmp_path, "--static")
    assert _needed(executable) == []
    assert subprocess.run([str(executable)], capture_output=True, text=True).stdout == str(sum(range(100_000)))

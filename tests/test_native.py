"""The choice between the compiled (mypyc) modules and their sources (`cpsc.support.native`): an
edited source must run as edited, never as it was compiled."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cpsc.support import native

ROOT = Path(__file__).resolve().parents[1]


def _record(folder: Path, text: str) -> dict[str, dict[str, object]]:
    (folder / "m.py").write_text(text)
    return {"m.py": native.file_facts(folder / "m.py")}


def test_a_source_as_compiled_is_unchanged_even_if_touched(tmp_path: Path):
    recorded = _record(tmp_path, "x = 1\n")
    assert native._changed(tmp_path, recorded) is None
    os.utime(tmp_path / "m.py", ns=(1, 1))  # a checkout or a copy sets new times: the hash decides
    assert native._changed(tmp_path, recorded) is None


def test_an_edited_or_missing_source_is_changed(tmp_path: Path):
    recorded = _record(tmp_path, "x = 1\n")
    stat = (tmp_path / "m.py").stat()
    (tmp_path / "m.py").write_text("x = 2\n")  # the same size, a later time (as make, not the hash)
    os.utime(tmp_path / "m.py", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert native._changed(tmp_path, recorded) == "m.py"
    (tmp_path / "m.py").unlink()
    assert native._changed(tmp_path, recorded) == "m.py"


def test_a_checkout_without_a_manifest_is_stale_and_an_installed_copy_is_not(tmp_path: Path, monkeypatch):
    monkeypatch.delenv("CPSC_PURE", raising=False)
    (tmp_path / "cpsc").mkdir()
    assert native._stale(tmp_path) is None  # pip installed sources and extensions together
    (tmp_path / "setup.py").write_text("")
    assert native._stale(tmp_path) == f"no readable cpsc/{native.MANIFEST}"
    native.write_manifest(tmp_path / "cpsc" / native.MANIFEST, [])
    assert native._stale(tmp_path) is None


def test_cpsc_pure_runs_every_stage_from_its_source(tmp_path: Path):
    program = tmp_path / "p.fl"
    program.write_text("let rec f n = if n = 0 then 0 else n + f (n - 1)\nlet () = print_int (f 10)\n")
    script = ("import sys, cpsc, cpsc.support.native as n, cpsc.opt.simplify as s, cpsc.cps.ir as ir\n"
              "from cpsc.cli.main import main\n"
              "print(n.mode(), s.__file__, ir.__file__, sep='|')\n"
              f"sys.exit(main(['build', {str(program)!r}, '-o', {str(tmp_path / 'p')!r}]))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "CPSC_PURE": "1"})
    assert done.returncode == 0, done.stderr
    mode, simplify_file, ir_file = done.stdout.strip().split("|")
    assert mode.startswith("interpreted") and simplify_file.endswith(".py") and ir_file.endswith(".py")
    assert subprocess.run([str(tmp_path / "p")], capture_output=True, text=True).stdout == "55"

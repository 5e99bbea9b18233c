"""A user's passes, loaded with `--plugin`: a file path, or a module beside the program or in the
working directory (no PYTHONPATH needed); a pass that breaks the program is what `cpsc bisect`
blames, since the whole of a user's pass counts as one rewrite of the fuel."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STRENGTH = ROOT / "examples" / "passes" / "strength.py"
PROGRAM = "let f x = x * 8\nlet () = print_int (f 5)\n"

BUGGY = '''
from dataclasses import replace
import cpsc
from cpsc.cps import ir


def off_by_one(program):
    """x * 8 becomes x lsl 4."""
    def shifted(b):
        v = b.value
        if isinstance(v, ir.Prim) and v.op == "mul_int" and isinstance(v.args[1], ir.Const) and v.args[1].value == 8:
            return replace(b, value=ir.Prim("lsl_int", (v.args[0], ir.Const(4, v.args[1].type))))
        return b
    return program.with_conts({label: replace(c, bindings=tuple(map(shifted, c.bindings)))
                               for label, c in program.conts.items()})


cpsc.register_pass("buggy", off_by_one)
'''


def _cpsc(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "CPSC_PLUGINS")}
    return subprocess.run([sys.executable, "-m", "cpsc", *args], capture_output=True, text=True, cwd=cwd,
                          env={**env, "PYTHONPATH": str(ROOT)})


def test_a_plugin_beside_the_program_and_one_given_by_its_path(tmp_path: Path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "prog.fl").write_text(PROGRAM)
    shutil.copy(STRENGTH, project / "strength.py")
    beside = _cpsc("build", "project/prog.fl", "--plugin", "strength", "--passes", "strength", "--emit", "cps",
                   "-o", "-", cwd=tmp_path)
    assert beside.returncode == 0, beside.stderr
    assert "lsl_int(x, 3)" in beside.stdout
    by_path = _cpsc("build", "prog.fl", "--plugin", str(STRENGTH), "--passes", "strength", "--emit", "cps", "-o", "-",
                    cwd=project)
    assert by_path.returncode == 0 and "lsl_int(x, 3)" in by_path.stdout, by_path.stderr


def test_a_plugin_that_cannot_be_loaded_is_an_error_not_a_traceback(tmp_path: Path):
    (tmp_path / "prog.fl").write_text(PROGRAM)
    (tmp_path / "broken.py").write_text("import cpsc\nraise ValueError('half written')\n")
    for plugin, message in [("missing", "cannot load plugin missing: ModuleNotFoundError"),
                            ("nowhere/missing.py", "cannot load plugin nowhere/missing.py: FileNotFoundError"),
                            ("broken.py", "cannot load plugin broken.py: ValueError: half written")]:
        done = _cpsc("build", "prog.fl", "--plugin", plugin, cwd=tmp_path)
        assert done.returncode == 1 and message in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_bisect_blames_the_users_pass_that_breaks_the_program(tmp_path: Path):
    (tmp_path / "prog.fl").write_text(PROGRAM)
    (tmp_path / "buggy.py").write_text(BUGGY)
    done = _cpsc("bisect", "prog.fl", "--plugin", "buggy.py", "--passes", "simplify,buggy,simplify", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "bisect: buggy: the whole of a user's pass" in done.stdout
    assert "output before: '40'" in done.stdout

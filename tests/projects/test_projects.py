"""Programs of several files (`cpsc.project`), as users lay them out: units with interfaces
named by their main file or listed as for ocamlopt, and a dune project with wrapped and
unwrapped libraries. Each program's output (stdout, stderr, status) is in its folder's
`expected.txt`, which is OCaml's: `ocamlopt` on the same files in cpsc's link order, and `dune
build` on the dune project, check it. Every level gives it: the three interpreters and the
executable. The projects under `errors/` get OCaml's diagnostics (`expected.txt` too)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cpsc
from cpsc.project import UnitFiles, find_units
from cpsc.repl import directives
from cpsc.repl.session import Session, SessionError
from tests.kit import needs_ocaml

HERE = Path(__file__).parent
UPDATE = os.environ.get("CPSC_UPDATE_GOLDEN") == "1"

# (project, how the command line names it, the files in link order as ocamlopt is given them)
SHAPES_ORDER = ["banner.ml", "counter.mli", "counter.ml", "log.ml", "shape.mli", "shape.ml", "registry.mli",
                "registry.ml", "main.ml"]
PROGRAMS = [("shapes", ["main.ml"]), ("shapes", SHAPES_ORDER), ("dune_app", ["."]), ("dune_app", ["bin/main.ml"])]
ERRORS = sorted(p.name for p in (HERE / "errors").iterdir() if p.is_dir())


def cpsc_run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cpsc", *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def said(done: subprocess.CompletedProcess[str]) -> str:
    """A run as `expected.txt` holds it."""
    return f"status: {done.returncode}\n--- stdout\n{done.stdout}--- stderr\n{done.stderr}"


def expected(folder: Path) -> str:
    return (folder / "expected.txt").read_text()


@pytest.mark.parametrize("level", ["ast", "cps", "ssa"])
@pytest.mark.parametrize("project, named", PROGRAMS[::2] + PROGRAMS[3:], ids=["shapes", "dune", "dune_main"])
def test_every_interpreter_runs_the_project_as_ocaml_does(project, named, level):
    folder = HERE / project
    assert said(cpsc_run("interp", "--level", level, *named, cwd=folder)) == expected(folder)


@pytest.mark.parametrize("project, named", PROGRAMS, ids=["shapes", "shapes_listed", "dune", "dune_main"])
def test_the_executable_runs_as_ocaml_s(tmp_path, project, named):
    folder = HERE / project
    built = cpsc_run("build", *named, "-o", str(tmp_path / "prog"), cwd=folder)
    assert built.returncode == 0, built.stderr
    ran = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True, timeout=60)
    if UPDATE and named == PROGRAMS[0][1]:
        (folder / "expected.txt").write_text(said(ran))
    assert said(ran) == expected(folder)


def test_cpsc_links_the_units_in_dependency_order_by_name(monkeypatch):
    """Each unit as early as its dependencies allow, ties by name: the rule SHAPES_ORDER follows."""
    monkeypatch.chdir(HERE / "shapes")
    units, _ = find_units(["main.ml"], [], UnitFiles(lambda f: Path(f).read_text()))
    assert [f for unit in units for f in unit.files] == SHAPES_ORDER


@needs_ocaml
def test_expectations_are_what_ocamlopt_gives(tmp_path):
    for file in (HERE / "shapes").glob("*.ml*"):
        shutil.copy(file, tmp_path)
    subprocess.run(["ocamlopt", *SHAPES_ORDER, "-o", "prog"], cwd=tmp_path, check=True, capture_output=True)
    ran = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True, timeout=60)
    assert said(ran) == expected(HERE / "shapes")


@pytest.mark.skipif(shutil.which("dune") is None, reason="dune is not installed")
def test_expectations_are_what_dune_gives(tmp_path):
    project = tmp_path / "dune_app"
    shutil.copytree(HERE / "dune_app", project, ignore=shutil.ignore_patterns("expected.txt"))
    subprocess.run(["dune", "build", "--root", ".", "./bin/main.exe"], cwd=project, check=True, capture_output=True)
    ran = subprocess.run([str(project / "_build/default/bin/main.exe")], capture_output=True, text=True, timeout=60)
    assert said(ran) == expected(HERE / "dune_app")


@pytest.mark.parametrize("project", ERRORS)
def test_a_wrong_project_gets_ocaml_s_diagnostic(project):
    folder = HERE / "errors" / project
    named = "." if (folder / "dune-project").exists() else "main.ml"
    done = cpsc_run("check", named, cwd=folder)
    if UPDATE:
        (folder / "expected.txt").write_text(said(done))
    assert said(done) == expected(folder)


def test_the_python_api_compiles_a_project():
    program = cpsc.compile_files([str(HERE / "dune_app")])
    assert program.run().stdout == expected(HERE / "dune_app").split("--- stdout\n")[1].split("--- stderr")[0]


def test_the_toplevel_loads_the_units_a_phrase_names(monkeypatch):
    """`cpsc repl -I shapes`: `Shape.area ...` loads shape.ml with its interface (and what it
    needs); `#directory` adds to where units are looked for."""
    monkeypatch.chdir(HERE)
    session = Session()
    with pytest.raises(SessionError, match="Unbound module Shape"):
        session.phrase("Shape.area (Shape.circle 1.);;")
    session.load_path.append("shapes")
    out = session.phrase("Shape.area (Shape.circle 1.);;")
    assert "module Shape :" in out and "type t\n" in out and out.endswith("- : float = 3.\n")
    with pytest.raises(SessionError, match="Unbound value Shape.secret"):  # hidden by shape.mli
        session.phrase("Shape.secret;;")
    loaded = Session(["shapes"]).phrase("Registry.register (Shape.circle 2.);;")
    assert loaded.index("log: start") < loaded.index("module Log") < loaded.index("module Registry")
    directory = Session()
    assert directives.execute(directory, '#directory "shapes";;') == ""
    assert directory.phrase("Banner.width;;").endswith("- : int = 20\n")


def test_checking_an_interface_checks_its_unit_or_the_interface_alone(tmp_path):
    """`cpsc check util.mli`: with util.ml beside it, the unit (both files); alone, the
    interface, its types resolved as ocamlc -c resolves them."""
    mismatch = cpsc_run("check", "util.mli", cwd=HERE / "errors" / "mismatch")
    assert mismatch.returncode == 1 and "does not match the interface util.mli" in mismatch.stderr
    (tmp_path / "lone.mli").write_text("type t\nval make : int -> t\nval bad : nosuch -> t\n")
    lone = cpsc_run("check", "lone.mli", cwd=tmp_path)
    assert lone.returncode == 1 and lone.stderr.startswith("lone.mli:3:11: error: Unbound type constructor nosuch")
    (tmp_path / "lone.mli").write_text("type t\nval make : int -> t\nval shape : Shape.t -> t\n")
    assert cpsc_run("check", "lone.mli", "-I", str(HERE / "shapes"), cwd=tmp_path).returncode == 0

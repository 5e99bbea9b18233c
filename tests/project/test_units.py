"""Finding a program's units (`cpsc.project.units`) and reading dune files (`cpsc.project.dune`):
the link order's rule, and the errors OCaml users meet, each where it belongs."""

from __future__ import annotations

from pathlib import Path

import pytest

from cpsc.project import UnitFiles, find_units
from cpsc.project.dune import _ordered_set
from cpsc.project.units import Unit, link_order, units_as_listed
from cpsc.syntax.diagnostics import CompileError


def write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def names(units: list) -> list[str]:
    return [unit.name for unit in units]


def found(folder: Path, *files: str, include: tuple[str, ...] = ()) -> list:
    return find_units(list(files), list(include), UnitFiles(lambda f: Path(f).read_text(), cached=False))[0]


def test_each_unit_is_linked_as_early_as_it_may_be_ties_by_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"main.ml": "let () = Zeta.go (); Alpha.go (); Mid.go ()",
                     "zeta.ml": "let go () = ()", "alpha.ml": "let go () = Base.go ()",
                     "base.ml": "let go () = ()", "mid.ml": "let go () = Zeta.go ()"})
    assert names(found(tmp_path, "main.ml")) == ["Base", "Alpha", "Zeta", "Mid", "Main"]


def test_a_unit_found_in_an_include_folder_and_the_main_folder_first(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"bin/main.ml": "let () = Util.go ()", "bin/util.ml": "let go () = ()",
                     "lib/util.ml": "let go () = print_string \"lib\"", "lib/other.ml": ""})
    units = found(tmp_path, "bin/main.ml", include=("lib",))
    assert [u.implementation for u in units] == ["bin/util.ml", "bin/main.ml"]


def test_a_module_name_is_a_dependency_where_ocamldep_says_so(tmp_path, monkeypatch):
    """Dependencies are read from the names a unit's text uses, as ocamldep reads them (and
    dune links by it): a local module of a unit's name makes the unit a dependency too."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"main.ml": "module Helper = struct let x = 1 end\nlet () = print_int Helper.x",
                     "helper.ml": "let () = print_string \"linked\""})
    assert names(found(tmp_path, "main.ml")) == ["Helper", "Main"]


def test_a_cycle_is_said_from_the_first_unit_by_name():
    units = {name: Unit(name, f"{name.lower()}.ml") for name in ("A", "B", "C")}
    with pytest.raises(CompileError, match="Dependency cycle between the units B -> C -> B"):
        link_order({"A": {"B"}, "B": {"C"}, "C": {"B"}}, units)


def test_listed_files_keep_their_order_and_pair_interfaces(tmp_path):
    units = units_as_listed(["b.ml", "a.mli", "a.ml", "main.ml"])
    assert [(u.name, u.interface) for u in units] == [("B", None), ("A", "a.mli"), ("Main", None)]
    with pytest.raises(CompileError, match="The interface c.mli has no implementation"):
        units_as_listed(["c.mli", "main.ml"])
    with pytest.raises(CompileError, match="both define a module named Util"):
        units_as_listed(["util.ml", "lib/util.ml", "main.ml"])


@pytest.mark.parametrize("items, expected", [
    (["a", "B"], {"A", "B"}),
    ([":standard", "\\", "b"], {"A", "C"}),
    ([[":standard", "\\", "a", "c"]], {"B"}),
    ([], set()),
])
def test_the_modules_field_reads_dune_s_ordered_set_language(items, expected):
    assert _ordered_set(items, {"A", "B", "C"}) == expected


def test_a_file_beside_the_main_file_named_as_a_library_module_is_not_taken_for_it(tmp_path, monkeypatch):
    """A folder of programs often holds a `hashtbl.ml` of its own: `Hashtbl` in its neighbours
    is the library's. In an -I folder (a project's sources) such a file is the unit."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"main.ml": "let t = Hashtbl.create 1 let () = Format.printf \"x\"", "hashtbl.ml": "",
                     "src/format.ml": "let printf s = print_string s"})
    library = frozenset({"Hashtbl", "Format"})
    units = find_units(["main.ml"], ["src"], UnitFiles(lambda f: Path(f).read_text(), cached=False), library)[0]
    assert [u.implementation for u in units] == ["src/format.ml", "main.ml"]

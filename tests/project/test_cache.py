"""The parsed files kept on disk (`cpsc.project.cache`): a rebuild takes an unchanged file from
the cache, an edited one is parsed again, and a damaged entry is detected and never trusted."""

from __future__ import annotations

from pathlib import Path

import pytest

from cpsc.project import UnitFiles
from cpsc.project import cache as parse_cache
from cpsc.syntax import ast


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(parse_cache, "cache_dir", lambda: tmp_path / "cache")
    (tmp_path / "cache").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def parsed_value(file: str) -> tuple[object, UnitFiles]:
    files = UnitFiles(lambda f: Path(f).read_text())
    declaration = files.parsed(file).module.declarations[0]
    assert isinstance(declaration, ast.LetDecl)
    value = declaration.bindings[0].value
    assert isinstance(value, ast.Const)
    return value.value, files


def test_an_unchanged_file_comes_from_the_cache_and_an_edited_one_is_parsed(folder):
    (folder / "util.ml").write_text("let answer = 41\n")
    assert parsed_value("util.ml")[0] == 41
    value, files = parsed_value("util.ml")
    assert (value, files.counts.hits, files.counts.misses) == (41, 1, 0)
    (folder / "util.ml").write_text("let answer = 42\n")
    value, files = parsed_value("util.ml")
    assert (value, files.counts.hits, files.counts.misses) == (42, 0, 1)


@pytest.mark.parametrize("damage", ["flip", "truncate", "garbage"])
def test_a_damaged_entry_is_detected_and_parsed_again(folder, damage):
    text = "let answer = 41\n"
    (folder / "util.ml").write_text(text)
    parsed_value("util.ml")
    entry = parse_cache.entry_path(text, "util.ml")
    data = bytearray(entry.read_bytes())
    if damage == "flip":  # one byte changed: it may still unpickle, to something else
        data[data.rindex(41)] = 43
    entry.write_bytes(bytes(data[: len(data) // 2]) if damage == "truncate" else
                      b"\x80\x05 not a pickle" if damage == "garbage" else bytes(data))
    value, files = parsed_value("util.ml")
    assert (value, files.counts.hits, files.counts.misses) == (41, 0, 1)
    assert parsed_value("util.ml")[1].counts.hits == 1  # stored anew

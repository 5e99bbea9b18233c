"""The dataclass method cache (`cpsc.support.dataclass_cache`): classes made with it behave as the
standard library makes them, its file round-trips, and a damaged file only means compiling."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from cpsc.support import dataclass_cache


@pytest.fixture
def cache_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "methods.marshal"
    monkeypatch.setattr(dataclass_cache, "_cache_file", lambda: path)
    monkeypatch.setattr(dataclass_cache, "_compiled", {})
    return path


def _point_class() -> type:
    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: int = 3
        label: str = dataclasses.field(default="p", compare=False)

    return Point


def test_classes_made_from_cached_code_behave_as_the_standard_library_makes_them(cache_file: Path):
    assert dataclasses.exec is dataclass_cache._exec  # type: ignore[attr-defined]
    first = _point_class()
    methods = len(dataclass_cache._compiled)
    assert any(" def __init__(self," in source for source in dataclass_cache._compiled)
    second = _point_class()
    assert len(dataclass_cache._compiled) == methods  # made from cached code only
    for Point in (first, second):
        p = Point(1)
        assert (p.x, p.y, p.label) == (1, 3, "p")
        assert p == Point(1, 3, "other") and p != Point(2)
        assert hash(p) == hash(Point(1, 3))
        assert repr(p) == "_point_class.<locals>.Point(x=1, y=3, label='p')"
        with pytest.raises(dataclasses.FrozenInstanceError):
            p.x = 5  # type: ignore[misc]


def test_the_cache_file_round_trips(cache_file: Path, monkeypatch: pytest.MonkeyPatch):
    _point_class()
    compiled = dict(dataclass_cache._compiled)
    monkeypatch.setattr(dataclass_cache, "_added", True)
    dataclass_cache._save()
    dataclass_cache._compiled.clear()
    dataclass_cache._load()
    assert dataclass_cache._compiled.keys() == compiled.keys()
    assert list(cache_file.parent.iterdir()) == [cache_file]  # no temporary file left


@pytest.mark.parametrize("damage", [b"", b"\x00garbage", b"not marshal at all" * 100])
def test_a_damaged_cache_file_is_ignored(cache_file: Path, damage: bytes):
    cache_file.write_bytes(damage)
    dataclass_cache._load()
    assert dataclass_cache._compiled == {}
    assert _point_class()(1).y == 3

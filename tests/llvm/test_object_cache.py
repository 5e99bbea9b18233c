"""Objects kept by the LLVM IR they were made from (`cpsc.llvm.backend`): the same IR is not
compiled again, another IR is, and a damaged entry is made again, never linked."""

from __future__ import annotations

from pathlib import Path

import pytest

from cpsc.llvm import backend
from cpsc.support import cache

IR = "define i64 @answer() {\n  ret i64 42\n}\n"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(backend, "cache_dir", lambda: tmp_path)
    return tmp_path / "objects"


def test_the_same_ir_is_compiled_once(folder, monkeypatch):
    made, lowering, optimizing = backend.compile_timed(lambda: IR, 2)
    assert made[:4] == b"\x7fELF" and backend.cached_object(IR, 2) == made
    monkeypatch.setattr(backend, "optimize", lambda *args: pytest.fail("compiled again"))
    assert backend.compile_timed(lambda: IR, 2)[0] == made
    assert backend.cached_object(IR.replace("42", "43"), 2) is None
    assert backend.cached_object(IR, 0) is None  # another level, another object


def test_a_damaged_object_is_made_again(folder):
    made = backend.compile_timed(lambda: IR, 2)[0]
    [entry] = folder.iterdir()
    data = bytearray(entry.read_bytes())
    data[-1] ^= 1
    entry.write_bytes(bytes(data))
    assert backend.cached_object(IR, 2) is None
    assert backend.compile_timed(lambda: IR, 2)[0] == made


def test_the_oldest_entries_go(tmp_path):
    for index in range(5):
        (tmp_path / f"{index}.o").write_bytes(b"x")
    cache.trim_folder(tmp_path, 3)
    assert len(list(tmp_path.iterdir())) == 3

"""The prelude is checked once and cached on disk; a build that loads it agrees with one that
checked it, and a damaged cache is rebuilt."""

from __future__ import annotations

import os
import subprocess
import sys

PROGRAM = """
let pair = (max 3 7, min "b" "a")
let () = print_int (fst pair); print_string (snd pair); print_newline ()
let () = 5 |> abs |> print_int; print_endline (string_of_int (max 2 (abs (-9))))
"""


def build_and_run(tmp_path, cache):
    source = tmp_path / "p.fl"
    source.write_text(PROGRAM)
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    built = subprocess.run([sys.executable, "-m", "cpsc", "build", str(source), "-o", str(tmp_path / "p")],
                           capture_output=True, text=True, env=env)
    assert built.returncode == 0, built.stderr
    return subprocess.run([str(tmp_path / "p")], capture_output=True, text=True).stdout


def test_cached_prelude_gives_the_same_program(tmp_path):
    cache = tmp_path / "cache"
    checked = build_and_run(tmp_path, cache)
    pickles = list((cache / "cpsc").glob("prelude-*.pickle"))
    assert len(pickles) == 1
    assert build_and_run(tmp_path, cache) == checked == "7a\n59\n"
    pickles[0].write_bytes(b"not a pickle")
    assert build_and_run(tmp_path, cache) == checked
    assert pickles[0].read_bytes() != b"not a pickle"


def test_a_cache_folder_that_cannot_be_made_does_not_stop_a_build(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert build_and_run(tmp_path, blocker) == "7a\n59\n"  # falls back to the temporary folder


def test_a_prelude_just_checked_keys_only_its_own_nodes(tmp_path, monkeypatch):
    """What inference learned of nodes it made and dropped is left out of the prelude a first
    build uses, as it is of the cached one: their ids are free for a program's new nodes, which
    would otherwise find a stale type or scheme under theirs (a tuple `let` of a Format
    printer's expansion was once taken for a polymorphic one)."""
    from cpsc.support import cache
    from cpsc.types import prelude

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache.cache_dir.cache_clear()
    prelude.checked_prelude.cache_clear()
    try:
        checked = prelude.checked_prelude()
        typing = checked.typing
        live = prelude._nodes(checked.module, typing.positional)
        for table in (typing.types, typing.instances, typing.schemes, typing.constructors, typing.fields,
                      typing.positional):
            assert set(table) <= set(live)
    finally:
        cache.cache_dir.cache_clear()
        prelude.checked_prelude.cache_clear()

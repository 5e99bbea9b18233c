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

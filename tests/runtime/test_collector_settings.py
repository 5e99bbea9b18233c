"""A compiled program runs as OCaml's under the collector's own settings: libgc reads its
environment (GC_ENABLE_INCREMENTAL, GC_MARKERS, GC_INITIAL_HEAP_SIZE, ...) before the program
starts, and some of them change how the heap is managed underneath the runtime."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# Lists made and dropped, a table grown, strings built: enough to collect many times.
ALLOCATING = """
let rec range a b = if a > b then [] else a :: range (a + 1) b
let () =
  let table = Hashtbl.create 16 in
  let total = ref 0 in
  for round = 1 to 300 do
    let xs = List.map (fun x -> x * round) (range 1 1000) in
    total := !total + List.fold_left ( + ) 0 (List.filter (fun x -> x mod 3 = 0) xs);
    Hashtbl.replace table (string_of_int (round mod 50)) xs
  done;
  Printf.printf "%d %d\\n" !total (Hashtbl.length table)
"""

DEEP = "let rec down n = if n = -1 then [] else n :: down (n + 1)\nlet () = print_int (List.length (down 0))\n"


def _built(tmp_path: Path, source: str, name: str) -> str:
    path = tmp_path / f"{name}.fl"
    path.write_text(source)
    exe = str(tmp_path / name)
    subprocess.run([sys.executable, "-m", "cpsc", "build", "-O2", str(path), "-o", exe], check=True)
    return exe


# GC_ENABLE_INCREMENTAL=1 turned on libgc's incremental marking: its page faults reached the
# runtime's stack-overflow handler, which took them for a crash (status 139), and with them passed
# on, the table came out with 75 keys of 50. The runtime now starts libgc without it.
@pytest.mark.parametrize("setting", [{}, {"GC_ENABLE_INCREMENTAL": "1"}, {"GC_MARKERS": "1"},
                                     {"GC_INITIAL_HEAP_SIZE": "100000"}])
def test_a_program_gives_its_output_under_the_collectors_settings(tmp_path, setting):
    exe = _built(tmp_path, ALLOCATING, "allocating")
    done = subprocess.run([exe], capture_output=True, text=True, env={**os.environ, **setting}, timeout=120)
    assert (done.stdout, done.returncode) == ("12587565000 50\n", 0)


@pytest.mark.parametrize("setting", [{}, {"GC_ENABLE_INCREMENTAL": "1"}])
def test_a_stack_overflow_is_ocamls_exception_under_the_collectors_settings(tmp_path, setting):
    """Not 1 + down (n + 1), which LLVM makes a loop."""
    exe = _built(tmp_path, DEEP, "deep")
    done = subprocess.run([exe], capture_output=True, text=True, env={**os.environ, **setting}, timeout=120)
    assert (done.stderr, done.returncode) == ("Fatal error: exception Stack_overflow\n", 2)


def test_the_program_still_sees_the_setting(tmp_path):
    exe = _built(tmp_path, 'let () = print_string (Sys.getenv "GC_ENABLE_INCREMENTAL")\n', "env")
    done = subprocess.run([exe], capture_output=True, text=True, env={**os.environ, "GC_ENABLE_INCREMENTAL": "1"})
    assert done.stdout == "1"

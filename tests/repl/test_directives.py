"""OCaml's toplevel directives and its reading of phrases, against `ocaml` itself: the same
script, typed into `cpsc repl` and into `ocaml -noprompt`, gets the same answers."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

SCRIPT = """let x = [1;2];;
#show_val x;;
#show x;;
#show_val List.length;;
type t = A | B of int;;
#show_type t;;
#show t;;
#show_type option;;
module M = struct let y = 1 end;;
#show_module M;;
#show M;;
#print_length 3;;
[1;2;3;4;5];;
#print_length 300;;
#print_depth 2;;
[[1;2];[3]];;
Some (Some (Some 1));;
(1, (2, (3, 4)));;
[Some [1]];;
type u = L | N of u * int;;
N (N (N (L, 1), 2), 3);;
{contents = {contents = {contents = 1}}};;
#print_depth 0;;
[1];;
1;;
#print_depth 100;;
#mod_use "m.ml";;
#use "m.ml";;
z + 1;;
#use "nosuch.ml";;
#foo;;
let s = "abc;;
def";;
String.length s;;
(* a comment ;; *) 1;;
let c = '"' and q = {|x;;
y|};;
#quit;;
1;;
"""


def _answers(command: list[str], cwd) -> str:  # type: ignore[no-untyped-def]
    done = subprocess.run(command, input=SCRIPT, capture_output=True, text=True, cwd=cwd, timeout=300)
    return done.stdout + done.stderr


@pytest.mark.skipif(shutil.which("ocaml") is None, reason="ocaml is not installed")
def test_directives_and_phrases_are_answered_as_ocaml_answers(tmp_path):
    (tmp_path / "m.ml").write_text('let z = 5 let w = "a"\n')
    ours = _answers([sys.executable, "-m", "cpsc", "repl"], tmp_path)
    theirs = _answers(["ocaml", "-noprompt"], tmp_path).replace("        OCaml version 4.13.1\n\n", "")
    assert ours == theirs
    assert "val map" not in ours and "Cannot find file nosuch.ml." in ours and ours.rstrip().endswith('"x;;\\ny"')

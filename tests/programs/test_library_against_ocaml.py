"""The prelude's Set.Make and Map.Make, and Bytes, Digest and Random, against OCaml's: random
sequences of operations, rendered as one program printing every result, give the same output
under `ocaml` and cpsc (the AST interpreter, and the CPS interpreter after -O2, which runs the
code the optimiser made)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cpsc import driver
from cpsc.cps.interp import run_cps
from cpsc.mono.interp import run_ast
from cpsc.opt.pipeline import LEVELS

pytestmark = pytest.mark.skipif(shutil.which("ocaml") is None, reason="needs the ocaml toplevel")

HEADER = """module S = Set.Make (Int)
module M = Map.Make (struct type t = int let compare a b = compare (a mod 7, a) (b mod 7, b) end)
let show s = "{" ^ String.concat " " (List.map string_of_int (S.elements s)) ^ "}"
let show_map m = String.concat " " (List.map (fun (k, v) -> Printf.sprintf "%d:%d" k v) (M.bindings m))
let opt = function None -> "-" | Some x -> string_of_int x
let visits f = let seen = ref [] in f (fun x -> seen := x :: !seen); String.concat "," (List.rev_map string_of_int !seen)
let s = ref S.empty
let t = ref S.empty
let m = ref M.empty
let () =
"""

small = st.integers(min_value=-20, max_value=40).map("({})".format)  # a negative one needs them
# Each operation, as FL that updates the state or prints a result.
SET_OPERATIONS = [
    st.builds("  s := S.add {} !s;".format, small),
    st.builds("  s := S.remove {} !s;".format, small),
    st.builds("  t := S.of_list [{}];".format, st.lists(small, max_size=12).map(lambda xs: "; ".join(map(str, xs)))),
    st.just("  s := S.union !s !t;"),
    st.just("  print_endline (show (S.inter !s !t) ^ show (S.diff !s !t) ^ show (S.diff !t !s));"),
    st.builds("  print_endline (show (S.filter (fun x -> x mod {} = 0) !s));".format, st.integers(2, 5)),
    st.builds("  print_endline (show (S.map (fun x -> x * x mod {}) !s));".format, st.integers(3, 11)),
    st.builds("  (let a, b, c = S.split {} !s in print_endline (show a ^ string_of_bool b ^ show c));".format, small),
    st.just("  Printf.printf \"%d %b %b %d\\n\" (S.cardinal !s) (S.subset !t !s) (S.disjoint !s !t) (S.compare !s !t);"),
    st.just("  print_endline (opt (S.min_elt_opt !s) ^ opt (S.max_elt_opt !s) ^ opt (S.choose_opt !t));"),
    st.builds("  print_endline (opt (S.find_first_opt (fun x -> x > {0}) !s) ^ opt (S.find_last_opt (fun x -> x < {0}) !s));".format,
              small),
    st.just("  print_endline (visits (fun f -> ignore (S.for_all (fun x -> f x; x < 30) !s)));"),
    st.just("  print_endline (visits (fun f -> ignore (S.filter (fun x -> f x; x mod 2 = 0) !s)));"),
    st.builds("  print_endline (show (S.of_seq (S.to_seq_from {} !s)));".format, small),
]
MAP_OPERATIONS = [
    st.builds("  m := M.add {} {} !m;".format, small, small),
    st.builds("  m := M.remove {} !m;".format, small),
    st.builds("  m := M.update {} (function None -> Some 0 | Some v -> if v > 5 then None else Some (v + 1)) !m;".format,
              small),
    st.just("  print_endline (show_map !m);"),
    st.just("  print_endline (show_map (M.filter (fun k v -> (k + v) mod 2 = 0) !m));"),
    st.just("  print_endline (show_map (M.union (fun _ a b -> if a > b then Some (a - b) else None) !m (M.map (fun v -> v * 2) !m)));"),
    st.builds("  (let a, v, b = M.split {} !m in print_endline (show_map a ^ \"|\" ^ opt v ^ \"|\" ^ show_map b));".format,
              small),
    st.just("  print_endline (visits (fun f -> M.iter (fun k _ -> f k) !m));"),
    st.just("  print_endline (visits (fun f -> ignore (M.exists (fun k _ -> f k; k = 3) !m)));"),
    st.builds("  print_endline (opt (M.find_opt {} !m));".format, small),
]
operations = st.lists(st.one_of(*SET_OPERATIONS, *MAP_OPERATIONS), min_size=12, max_size=40)


def _ocaml(source: str) -> str:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "library.ml"
        path.write_text(source)
        done = subprocess.run(["ocaml", str(path)], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode("latin-1")  # as the interpreters print a byte


def _agrees(source: str) -> None:
    expected = _ocaml(source)
    program = driver.front_end(source, "library.fl")
    assert run_ast(program).stdout == expected
    level = LEVELS[2]
    optimised, _ = driver.optimise(driver.to_cps(program), level.passes, context=level.context())
    assert run_cps(optimised).stdout == expected


@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=30)
@given(operations)
def test_set_and_map_agree_with_ocaml(lines: list[str]):
    _agrees(HEADER + "\n".join(lines) + "\n  ()\n")


def _literal(data: bytes) -> str:
    """An OCaml string literal of any bytes."""
    return '"' + "".join(chr(c) if 32 <= c < 127 and c not in b'"\\' else f"\\{c:03d}" for c in data) + '"'


text = st.binary(max_size=80).map(_literal)
position = st.integers(min_value=-2, max_value=12).map("({})".format)
BYTES_HEADER = """let b = ref (Bytes.of_string "start")
let guard f = try f () with Invalid_argument m -> print_endline m | Not_found -> print_endline "Not_found"
let () =
"""
BYTES_AND_RANDOM_OPERATIONS = [
    st.builds("  Random.init {};".format, st.integers(min_value=0, max_value=1 << 40)),
    st.builds("  Random.full_init [| {} |];".format,
              st.lists(st.integers(0, 1 << 30), max_size=4).map(lambda xs: "; ".join(map(str, xs)))),
    st.builds("  print_int (Random.int {}); print_newline ();".format, st.integers(1, (1 << 30) - 1)),
    st.builds("  print_int (Random.full_int {}); print_newline ();".format, st.integers(1, 1 << 61)),
    st.builds("  Printf.printf \"%.17g\\n\" (Random.float {});".format, st.sampled_from(["1.0", "1e6", "0.5"])),
    st.just("  print_endline (string_of_bool (Random.bool ()));"),
    st.builds("  print_endline (Digest.to_hex (Digest.string {}));".format, text),
    st.builds("  b := Bytes.of_string {};".format, text),
    st.builds("  guard (fun () -> Bytes.blit_string {} 0 !b {} {});".format, text, position, position),
    st.builds("  guard (fun () -> Bytes.set !b {} 'x');".format, position),
    # shrinking only: what extend adds is left uninitialised by OCaml
    st.builds("  guard (fun () -> b := Bytes.extend !b ({}) ({}));".format, st.integers(-6, 0), st.integers(-6, 0)),
    st.builds("  guard (fun () -> print_endline (Bytes.sub_string !b {} {}));".format, position, position),
    st.builds("  guard (fun () -> Bytes.fill !b {} {} '-');".format, position, position),
    st.just("  print_endline (Bytes.to_string (Bytes.escaped !b));"),
    st.just("  print_endline (Bytes.to_string (Bytes.trim (Bytes.uppercase_ascii !b)));"),
    st.builds("  print_int (Bytes.compare !b (Bytes.of_string {})); print_newline ();".format, text),
    st.builds("  guard (fun () -> print_int (Bytes.index_from !b {} 'a'); print_newline ());".format, position),
]


@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=30)
@given(st.lists(st.one_of(*BYTES_AND_RANDOM_OPERATIONS), min_size=8, max_size=30))
def test_bytes_digest_and_random_agree_with_ocaml(lines: list[str]):
    _agrees(BYTES_HEADER + "\n".join(lines) + "\n  ()\n")

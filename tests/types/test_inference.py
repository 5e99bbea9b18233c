"""Inference on its own: top-level phrases and the types OCaml gives them, and ill-typed phrases
and OCaml's error for each. Each expectation is checked against `ocaml` too (when installed), so
the table cannot drift from what OCaml says."""

from __future__ import annotations

import pytest

from cpsc.api import infer_types
from tests.kit import assert_ocaml_error, assert_refused, needs_ocaml, ocaml_types

# (phrase, name, the type `ocaml` prints for `name`)
TYPED = [
    ("let id x = x", "id", "'a -> 'a"),
    ("let compose f g x = f (g x)", "compose", "('a -> 'b) -> ('c -> 'a) -> 'c -> 'b"),
    ("let pair x y = (x, y)", "pair", "'a -> 'b -> 'a * 'b"),
    ("let rec length = function [] -> 0 | _ :: t -> 1 + length t", "length", "'a list -> int"),
    ("let rec map f = function [] -> [] | x :: t -> f x :: map f t", "map", "('a -> 'b) -> 'a list -> 'b list"),
    ("let twice = let id x = x in (id 1, id true)", "twice", "int * bool"),
    ("let apply_label ~f x = f x", "apply_label", "f:('a -> 'b) -> 'a -> 'b"),
    ("let opt ?(step = 1) n = n + step", "opt", "?step:int -> int -> int"),
    ("let counter = let r = ref 0 in fun () -> incr r; !r", "counter", "unit -> int"),
    ("let swap (a, b) = (b, a)", "swap", "'a * 'b -> 'b * 'a"),
    ("let first = function Some x -> x | None -> failwith \"none\"", "first", "'a option -> 'a"),
    ("type point = { x : int; y : int }\nlet norm p = p.x * p.x + p.y * p.y", "norm", "point -> int"),
    ("type 'a tree = Leaf | Node of 'a tree * 'a * 'a tree\n"
     "let rec size = function Leaf -> 0 | Node (l, _, r) -> size l + 1 + size r", "size", "'a tree -> int"),
    ("let fold = List.fold_left (fun acc x -> acc + x) 0", "fold", "int list -> int"),
    ("let annotated (x : float) = x", "annotated", "float -> float"),
    ("let rec even n = n = 0 || odd (n - 1) and odd n = n <> 0 && even (n - 1)", "odd", "int -> bool"),
    ("let cmp a b = compare a b < 0", "cmp", "'a -> 'a -> bool"),
    ("let arr = [| 1.0; 2.0 |]", "arr", "float array"),
    ("let s = Printf.sprintf \"%d-%s\"", "s", "int -> string -> string"),
    ("exception Oops of string\nlet fail () = raise (Oops \"x\")", "fail", "unit -> 'a"),
    ("let seq = Seq.map (fun x -> x * 2)", "seq", "int Seq.t -> int Seq.t"),
    ("let lazy_v = lazy (1 + 1)", "lazy_v", "int lazy_t"),
    ("let result_of x = if x > 0 then Ok x else Error \"neg\"", "result_of", "int -> (int, string) result"),
    ("let rec fix f x = f (fix f) x", "fix", "(('a -> 'b) -> 'a -> 'b) -> 'a -> 'b"),
]

# (phrase, the first line of OCaml's error)
ILL_TYPED = [
    ("let x = 1 + \"a\"", "This expression has type string but an expression was expected of type int"),
    ("let f x = x x", "This expression has type 'a -> 'b"),
    ("let y = undefined_name", "Unbound value undefined_name"),
    ("let g = (fun x -> x) 1 2", "This expression has type int"),
    ("type t = A\nlet h = B", "Unbound constructor B"),
    ("let r = { nothing = 1 }", "Unbound record field nothing"),
    # a constructor's expected type is known before its arguments are checked
    ("let l = [1; true]", "This expression has type bool but an expression was expected of type int"),
    ("let p : int * string = (1, 2)", "This expression has type int but an expression was expected of type string"),
]


@pytest.mark.parametrize("phrase, name, expected", TYPED, ids=[t[1] for t in TYPED])
def test_inferred_type_is_ocaml_s(phrase: str, name: str, expected: str):
    assert infer_types(phrase)[name] == expected


@pytest.mark.parametrize("phrase, expected", ILL_TYPED, ids=[e[1][:40] for e in ILL_TYPED])
def test_ill_typed_phrase_gets_ocaml_s_error(phrase: str, expected: str):
    assert_refused(phrase, expected)


@needs_ocaml
def test_the_expectations_are_what_ocaml_says():
    types = ocaml_types("".join(f"{phrase};;\n" for phrase, _, _ in TYPED))
    assert {name: types.get(name) for _, name, _ in TYPED} == {name: expected for _, name, expected in TYPED}
    for phrase, expected in ILL_TYPED:
        assert_ocaml_error(phrase, expected)

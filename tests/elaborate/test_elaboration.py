"""Elaboration on its own: the flat names the module language becomes, the types OCaml gives
what modules export, and OCaml's errors for misused modules. Every expectation is checked
against `ocaml` too (when installed)."""

from __future__ import annotations

import pytest

from cpsc.api import infer_types
from cpsc.elaborate import elaborate_unit
from cpsc.syntax import ast
from cpsc.syntax.parser import parse
from cpsc.types.prelude import prelude_modules
from tests.kit import assert_ocaml_error, assert_refused, needs_ocaml, ocaml_types


def _declared(text: str) -> list[str]:
    module = elaborate_unit(parse(text, "prog.ml"), prelude_modules())
    return [name for d in module.declarations if isinstance(d, ast.LetDecl)
            for b in d.bindings for name in ast.pattern_names(b.pattern)]


def test_members_are_named_by_their_module_path():
    names = _declared("module M = struct let x = 1 module N = struct let y = x + 1 end end\nlet z = M.N.y")
    assert names[:2] == ["M.x", "M.N.y"] and names[-1] == "z"


def test_each_functor_application_declares_its_own_members():
    names = _declared("module F (X : sig val n : int end) = struct let twice = X.n * 2 end\n"
                      "module A = F (struct let n = 1 end)\nmodule B = F (struct let n = 2 end)")
    assert "A.twice" in names and "B.twice" in names


def test_a_text_without_modules_is_as_written():
    module = parse("let f x = x + 1\nlet g = f 2", "prog.ml").module
    assert elaborate_unit(parse("let f x = x + 1\nlet g = f 2", "prog.ml"), prelude_modules()) == module


# (program, a top-level name the program defines last, the type `ocaml` prints for it)
TYPED = [
    ("module M = struct let v = 3 let f x = x + v end\nlet m_f = M.f", "m_f", "int -> int"),
    ("module M = struct let v = 3 end\nopen M\nlet w = v", "w", "int"),
    ("module F (X : sig type t val x : t end) = struct let pair = (X.x, X.x) end\n"
     "module A = F (struct type t = string let x = \"a\" end)\nlet a_pair = A.pair", "a_pair", "string * string"),
    ("module C : sig type t val make : int -> t val get : t -> int end = "
     "struct type t = int let make x = x let get x = x end\nlet c_make = C.make", "c_make", "int -> C.t"),
    ("module S = Set.Make (String)\nlet s_add = S.add", "s_add", "S.elt -> S.t -> S.t"),
    ("module M = struct include List let twice l = l @ l end\nlet m_length = M.length", "m_length", "'a list -> int"),
    ("module L = List\nlet l_map = L.map", "l_map", "('a -> 'b) -> 'a list -> 'b list"),
    ("open Printf\nlet formatted = sprintf \"%d-%s\"", "formatted", "int -> string -> string"),
    ("let local = let module M = struct let k = 4 end in M.k * 2", "local", "int"),
    ("module type SHOW = sig type t val show : t -> string end\n"
     "module Int_show : SHOW with type t = int = struct type t = int let show = string_of_int end\n"
     "let shown = Int_show.show", "shown", "Int_show.t -> string"),
]

# (program, the first line of OCaml's error)
ILL_FORMED = [
    ("module M = struct let a = 1 end\nlet b = M.c", "Unbound value M.c"),
    ("module M : sig val f : int -> int end = struct let f x = x + 1 let hidden = 2 end\nlet h = M.hidden",
     "Unbound value M.hidden"),
    ("module C : sig type t val make : int -> t end = struct type t = int let make x = x end\n"
     "let bad = C.make 1 + 1", "This expression has type C.t but an expression was expected of type int"),
    ("let x = Nope.y", "Unbound module Nope"),
    ("let f = function Nope.A -> 1 | _ -> 2", "Unbound module Nope"),
    ("let f r = r.Nope.x", "Unbound module Nope"),
    ("type t = Nope.t", "Unbound module Nope"),
]

DIFFERENT = [
    # a program's own module named as a library module whose calls are syntax (Printf, Format,
    # Scanf): its functions are taken for the library's
    ("module Printf = struct let sprintf x = x end\nlet p_s = Printf.sprintf \"%d\"", "p_s", "string"),
]


@pytest.mark.parametrize("program, name, expected", TYPED, ids=[t[1] for t in TYPED])
def test_module_members_have_ocaml_s_types(program: str, name: str, expected: str):
    assert infer_types(program)[name] == expected


@pytest.mark.xfail(strict=True, reason="what cpsc does otherwise than OCaml (DIFFERENT)")
@pytest.mark.parametrize("program, name, expected", DIFFERENT, ids=[t[1] for t in DIFFERENT])
def test_known_differences(program: str, name: str, expected: str):
    test_module_members_have_ocaml_s_types(program, name, expected)


@pytest.mark.parametrize("program, expected", ILL_FORMED, ids=[e[1][:40] for e in ILL_FORMED])
def test_misused_module_gets_ocaml_s_error(program: str, expected: str):
    assert_refused(program, expected)


@needs_ocaml
def test_the_expectations_are_what_ocaml_says():
    for program, name, expected in TYPED + DIFFERENT:
        assert ocaml_types(program + ";;\n").get(name) == expected, program
    for program, expected in ILL_FORMED:
        assert_ocaml_error(program, expected)

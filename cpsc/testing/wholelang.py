"""Random programs over the whole language, for differential testing against `ocaml`.

`cpsc.testing.generate` makes random programs of the core language for hypothesis (ints,
floats, closures, data, loops, exceptions); this makes programs of what OCaml users write
beyond it, one top-level piece at a time, each printing what it computed:

- modules, signatures with abstract types, functors applied to several structures;
- Map, Set and Hashtbl over random keys (printed by iteration, so their orders are compared);
- Printf and Format with random conversions, flags, widths and precisions, boxes and breaks;
- exceptions with tuple, string and inline-record arguments raised through several calls,
  `match ... with exception`, `Fun.protect`, handlers with guards that re-raise;
- labelled and optional arguments, given in any order, omitted, partially applied;
- variants with inline records (mutable fields too);
- Buffer, Bytes, Seq, Lazy (its effects printed), string functions;
- polymorphic functions used at several types, polymorphic comparison of their results.

Programs are made from a seed by `random.Random`, so a seed names its program. Every piece
terminates and is deterministic, and no argument or operand has an effect (the order of
evaluation, where `ocaml` and ocamlopt differ, is `cpsc.testing.order`'s to test), so `ocaml`
is the oracle for stdout and exit status. `check` runs a program at every level (the AST interpreter; after each -O level's
pipeline, verified, the CPS and SSA interpreters and a native executable) and says where it
disagrees with `ocaml`; `scripts/wholelang` runs many and reduces each disagreement
(`cpsc.testing.reduce`) to a small program for a test.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WORDS = ["gnu", "jay", "fox", "owl", "Q", "rat", "newt", "hen", "lynx", "", "a b", "x,y", "Zed", "\\\\n", "caf\\233"]


def _quote(text: str) -> str:
    return '"' + text + '"'


@dataclass
class Gen:
    """One program's pieces, made from `random`."""

    random: random.Random
    counter: int = 0
    lines: list[str] = field(default_factory=list)

    def fresh(self, hint: str) -> str:
        self.counter += 1
        return f"{hint}{self.counter}"

    def pick(self, options: list[str]) -> str:
        return self.random.choice(options)

    def int_literal(self, low: int = -20, high: int = 300) -> str:
        n = self.random.randint(low, high)
        return f"({n})" if n < 0 else str(n)

    def word(self) -> str:
        return _quote(self.pick(WORDS))

    def int_list(self, length: int | None = None, low: int = -5, high: int = 12) -> str:
        count = self.random.randint(0, 7) if length is None else length
        return "[" + "; ".join(self.int_literal(low, high) for _ in range(count)) + "]"

    def word_list(self, length: int | None = None) -> str:
        count = self.random.randint(0, 6) if length is None else length
        return "[" + "; ".join(self.word() for _ in range(count)) + "]"

    def int_expr(self, depth: int = 2, names: tuple[str, ...] = ()) -> str:
        """A pure int expression (no effect, never raises)."""
        if depth <= 0 or self.random.random() < 0.3:
            return self.pick(list(names)) if names and self.random.random() < 0.5 else self.int_literal()
        a, b = self.int_expr(depth - 1, names), self.int_expr(depth - 1, names)
        kind = self.random.randrange(9)
        if kind == 0:
            return f"(({a} * {b} + {self.int_literal(0, 9)}) land 0xFFFF)"
        if kind == 1:
            return f"({a} - {b})"
        if kind == 2:
            return f"(max {a} {b})"
        if kind == 3:
            return f"(String.length {self.string_expr(depth - 1)})"
        if kind == 4:
            return f"(List.fold_left ( + ) {a} {self.int_list()})"
        if kind == 5:
            return f"(if {a} > {b} then {a} else {b} + 1)"
        if kind == 6:
            return f"({a} mod {self.random.randint(1, 9)})"
        if kind == 7:
            return f"(compare {self.word()} {self.word()} + {a})"
        return f"({a} lxor {b})"

    def string_expr(self, depth: int = 2) -> str:
        """A pure string expression."""
        if depth <= 0 or self.random.random() < 0.35:
            return self.word()
        a, b = self.string_expr(depth - 1), self.string_expr(depth - 1)
        kind = self.random.randrange(10)
        if kind == 0:
            return f"({a} ^ {b})"
        if kind == 1:
            return f"(String.uppercase_ascii {a})"
        if kind == 2:
            return f"(String.concat {self.word()} [{a}; {b}])"
        if kind == 3:
            return f"(String.make {self.random.randint(0, 4)} {self.char()})"
        if kind == 4:
            return f"(string_of_int {self.int_expr(depth - 1)})"
        if kind == 5:
            return f"(String.trim {a})"
        if kind == 6:
            return f"(String.map (fun c -> if c = 'a' then 'A' else c) {a})"
        if kind == 7:
            return f"(let s = {a} in String.sub s 0 (min 2 (String.length s)))"
        if kind == 8:
            return f"(String.escaped {a})"
        return f"(Printf.sprintf \"%s|%d\" {a} {self.int_expr(depth - 1)})"

    def char(self) -> str:
        return self.pick(["'a'", "'z'", "'0'", "' '", "'\\n'", "'\\''", "'\\t'", "'\\255'", "'#'"])

    # ------------------------------------------------------------------ pieces
    def piece(self) -> None:
        kind = self.pick(PIECES)
        getattr(self, "piece_" + kind)()

    def emit(self, text: str) -> None:
        self.lines.append(text)

    def piece_functor(self) -> None:
        """A signature with an abstract type, a functor over an ordering, applied to two or
        three structures; the results printed through the signature's operations."""
        ord_sig, bag, make = self.fresh("ORD"), self.fresh("Bag"), self.fresh("Make")
        sealed = self.random.random() < 0.5
        self.emit(f"module type {ord_sig} = sig\n  type t\n  val compare : t -> t -> int\n  val show : t -> string\nend")
        modulus = self.random.randint(2, 7)
        structures = [
            ("int", f"struct type t = int let compare a b = compare (a mod {modulus}, a) (b mod {modulus}, b) "
                    f"let show = string_of_int end", lambda: self.int_literal(-9, 30)),
            ("int", "struct type t = int let compare a b = compare b a let show n = \"#\" ^ string_of_int n end",
             lambda: self.int_literal(-9, 30)),
            ("string", "struct type t = string let compare a b = compare (String.length a, a) (String.length b, b) "
                       "let show s = Printf.sprintf \"%S\" s end", self.word),
            ("int * string", "struct type t = int * string let compare (a, _) (b, _) = compare a b "
                             "let show (a, s) = string_of_int a ^ \":\" ^ s end",
             lambda: f"({self.int_literal(0, 5)}, {self.word()})"),
        ]
        signature = ("sig type t type elt = O.t val empty : t val add : elt -> t -> t val to_list : t -> elt list "
                     "val size : t -> int end")
        self.emit(f"module {make} (O : {ord_sig}) : {signature} = struct\n"
                  f"  type elt = O.t\n  type t = elt list\n  let empty = []\n"
                  f"  let rec add x = function [] -> [x] | y :: r as l -> let c = O.compare x y in "
                  f"if c < 0 then x :: l else if c = 0 then {'l' if self.random.random() < 0.5 else 'x :: r'} "
                  f"else y :: add x r\n"
                  f"  let to_list l = l\n  let size = List.length\nend")
        for index, (type_, body, value) in enumerate(self.random.sample(structures, self.random.randint(2, 3))):
            structure, applied = f"{bag}S{index}", f"{bag}{index}"
            constraint = f" : {ord_sig} with type t = {type_}" if sealed and index == 0 else ""
            self.emit(f"module {structure}{constraint} = {body}")
            self.emit(f"module {applied} = {make} ({structure})")
            items = "; ".join(value() for _ in range(self.random.randint(0, 6)))
            self.emit(f"let () =\n  let b = List.fold_left (fun acc x -> {applied}.add x acc) {applied}.empty [{items}] in\n"
                      f"  Printf.printf \"{applied} %d:\" ({applied}.size b);\n"
                      f"  List.iter (fun x -> print_string (\" \" ^ {structure}.show x)) ({applied}.to_list b);\n"
                      f"  print_newline ()")

    def piece_map(self) -> None:
        """A Map over ints or strings: built with duplicates, changed, printed by iteration."""
        name = self.fresh("M")
        module, key = self.random.choice([("Int", "int"), ("String", "string")])
        self.emit(f"module {name} = Map.Make ({module})")

        def k() -> str:
            return self.int_literal(-5, 9) if key == "int" else self.word()
        show_key = "string_of_int" if key == "int" else "(fun s -> s)"
        pairs = "; ".join(f"({k()}, {self.int_literal(0, 50)})" for _ in range(self.random.randint(0, 8)))
        ops = []
        for _ in range(self.random.randint(1, 4)):
            ops.append(self.pick([
                f"let m = {name}.add {k()} {self.int_literal()} m in",
                f"let m = {name}.remove {k()} m in",
                f"let m = {name}.update {k()} (function None -> Some 7 | Some v -> if v > 20 then None else Some (v * 2)) m in",
                f"let m = {name}.filter (fun _ v -> v mod {self.random.randint(2, 4)} <> 0) m in",
                f"let m = {name}.map (fun v -> v + {self.int_literal(0, 9)}) m in",
                f"let m = {name}.union (fun _ a b -> if a < b then Some a else None) m "
                f"({name}.of_seq (List.to_seq [({k()}, 1); ({k()}, 99)])) in",
                f"let m = {name}.merge (fun _ a b -> match a, b with Some a, _ -> Some a | None, b -> b) m "
                f"({name}.singleton {k()} 5) in",
            ]))
        self.emit(f"let () =\n  let m = List.fold_left (fun m (k, v) -> {name}.add k v m) {name}.empty [{pairs}] in\n"
                  + "".join(f"  {op}\n" for op in ops)
                  + f"  {name}.iter (fun k v -> Printf.printf \"%s=%d \" ({show_key} k) v) m;\n"
                  f"  Printf.printf \"| %d %b %s\\n\" ({name}.cardinal m) ({name}.mem {k()} m)\n"
                  f"    (match {name}.min_binding_opt m with Some (k, _) -> {show_key} k | None -> \"-\");\n"
                  f"  print_endline (match {name}.find_opt {k()} m with Some v -> string_of_int v | None -> \"none\")")

    def piece_set(self) -> None:
        name = self.fresh("S")
        module, elements = self.random.choice([("Int", "int"), ("String", "string")])
        show = "string_of_int" if elements == "int" else "(fun s -> s)"

        def items() -> str:
            if elements == "int":
                return self.int_list(low=-3, high=9)
            return self.word_list()
        self.emit(f"module {name} = Set.Make ({module})")
        op = self.pick(["union", "inter", "diff"])
        pivot = self.int_literal(-3, 9) if elements == "int" else self.word()
        self.emit(f"let () =\n  let a = {name}.of_list {items()} and b = {name}.of_list {items()} in\n"
                  f"  let c = {name}.{op} a b in\n"
                  f"  {name}.iter (fun x -> print_string ({show} x ^ \" \")) c;\n"
                  f"  let (yes, no) = {name}.partition (fun x -> compare x {pivot} < 0) c in\n"
                  f"  Printf.printf \"| %d %d %d %b %b\\n\" ({name}.cardinal c) ({name}.cardinal yes) ({name}.cardinal no)\n"
                  f"    ({name}.subset a c) ({name}.equal c ({name}.union c a));\n"
                  f"  print_endline (String.concat \",\" (List.map {show} ({name}.elements ({name}.filter (fun x -> x <> {pivot}) c))));\n"
                  f"  print_endline (match {name}.find_first_opt (fun x -> x >= {pivot}) c with Some x -> {show} x | None -> \"-\")")

    def piece_hashtbl(self) -> None:
        """A Hashtbl with adds, replaces and removes, printed by iteration (its order is OCaml's
        hash and bucket order) and by fold and find_all."""
        table = self.fresh("h")
        keys_are_ints = self.random.random() < 0.5

        def k() -> str:
            return self.int_literal(-20, 40) if keys_are_ints else self.word()
        show = "string_of_int" if keys_are_ints else "(fun s -> s)"
        ops = []
        for _ in range(self.random.randint(2, 12)):
            ops.append(self.pick([f"Hashtbl.add {table} {k()} {self.int_literal(0, 99)}",
                                  f"Hashtbl.replace {table} {k()} {self.int_literal(0, 99)}",
                                  f"Hashtbl.remove {table} {k()}",
                                  f"Hashtbl.add {table} {k()} {self.int_literal(0, 99)}"]))
        self.emit(f"let {table} = Hashtbl.create {self.random.randint(1, 16)}\n"
                  f"let () =\n  " + ";\n  ".join(ops) + ";\n"
                  f"  Hashtbl.iter (fun k v -> Printf.printf \"%s:%d \" ({show} k) v) {table};\n"
                  f"  Printf.printf \"| %d %d\\n\" (Hashtbl.length {table}) "
                  f"(Hashtbl.fold (fun _ v acc -> acc * 3 + v) {table} 0 land 0xFFFFFF);\n"
                  f"  List.iter (fun v -> Printf.printf \"%d \" v) (Hashtbl.find_all {table} {k()});\n"
                  f"  print_endline (match Hashtbl.find_opt {table} {k()} with Some v -> string_of_int v | None -> \"-\");\n"
                  f"  print_endline (String.concat \",\" (List.map {show} (List.of_seq (Hashtbl.to_seq_keys {table}))))")

    def conversion(self) -> tuple[str, str]:
        """A Printf conversion with random flags, width and precision, and a value for it."""
        kind = self.pick(["d", "i", "x", "X", "o", "u", "s", "S", "c", "C", "b", "f", "e", "g", "F", "B", "ld", "Ld",
                          "nd", "E", "G", "h"])
        flags = ""
        if kind in ("d", "i", "f", "e", "g", "E", "G", "ld", "Ld", "nd"):
            flags = self.pick(["", "", "-", "0", "+", " ", "+0", "-+"])
        elif kind in ("x", "X", "o"):
            flags = self.pick(["", "#", "-", "0", "#0"])
        elif kind in ("s", "S", "c", "C", "b", "B", "u", "F", "h"):
            flags = self.pick(["", "-"])
        width = self.pick(["", "", "1", "4", "9"])
        if "0" in flags and not width:
            width = "5"
        precision = ""
        if kind in ("f", "e", "g", "E", "G", "F") and self.random.random() < 0.6:
            precision = "." + str(self.random.randint(0, 6))
        if kind in ("d", "i") and self.random.random() < 0.2 and "0" not in flags:
            precision = "." + str(self.random.randint(1, 4))
        spec = f"%{flags}{width}{precision}{kind}"
        # FL's ints are 64-bit, OCaml's 63: they print alike unless negative in %u, %x, %X, %o
        ints = self.pick(["0", "7", "123456", "1073741823", "255"] + (["(-42)", "(-1073741824)", "(-1)"]
                                                                        if kind in ("d", "i") else []))
        floats = self.pick(["0.", "1.5", "(-0.)", "3.14159", "1e10", "(-2.5e-3)", "123456.789", "nan", "infinity",
                            "(1. /. 3.)", "100.", "0.1"])
        value = {"d": ints, "i": ints, "x": ints, "X": ints, "o": ints, "u": ints, "s": self.word(), "S": self.word(),
                 "c": self.char(), "C": self.char(), "b": self.pick(["true", "false"]), "B": self.pick(["true", "false"]),
                 "ld": self.pick(["5l", "(-3l)", "2147483647l"]), "Ld": self.pick(["5L", "(-3L)", "Int64.max_int"]),
                 "nd": self.pick(["5n", "(-3n)"])}.get(kind, floats)
        if kind in ("f", "e", "g", "E", "G", "F", "h") and value in ("nan", "infinity") and kind == "h":
            value = "1.5"
        return spec, value

    def piece_printf(self) -> None:
        parts, args = [], []
        for _ in range(self.random.randint(1, 4)):
            spec, value = self.conversion()
            parts.append(self.pick(["", " ", "[", "|"]) + spec)
            args.append(value)
        text = "".join(parts) + "\\n"
        how = self.pick(["printf", "sprintf", "bprintf", "asprintf"])
        arguments = " ".join(args)
        if how == "printf":
            self.emit(f"let () = Printf.printf \"{text}\" {arguments}")
        elif how == "sprintf":
            self.emit(f"let () = print_string (Printf.sprintf \"{text}\" {arguments})")
        elif how == "bprintf":
            self.emit(f"let () = let b = Buffer.create 4 in Printf.bprintf b \"{text}\" {arguments}; "
                      f"print_string (Buffer.contents b)")
        else:
            self.emit(f"let () = print_string (Format.asprintf \"{text}\" {arguments})")

    def piece_format(self) -> None:
        """Format's boxes and breaks at a random margin, with %a printers of lists."""
        box = self.pick(["", "<h>", "<v 1>", "<hv 2>", "<hov 1>", "<b 2>", "<v 0>"])
        inner = self.pick(["<hov 2>", "<b 1>", "<v 2>", "<hv 0>"])
        words = self.word_list(self.random.randint(0, 9))
        margin = self.random.randint(8, 40)
        sep = self.pick(["Format.pp_print_space", "Format.pp_print_cut",
                         "(fun f () -> Format.fprintf f \";@ \")", "(fun f () -> Format.fprintf f \",@,\")"])
        self.emit(f"let () =\n  let b = Buffer.create 16 in\n  let f = Format.formatter_of_buffer b in\n"
                  f"  Format.pp_set_margin f {margin};\n"
                  f"  Format.fprintf f \"@[{box}[%d]@ %s@,@[{inner}%a@]@ %a@]@.\" {self.int_expr(1)} {self.string_expr(1)}\n"
                  f"    (Format.pp_print_list ~pp_sep:{sep} Format.pp_print_string) {words}\n"
                  f"    (fun f n -> Format.fprintf f \"<%d>@;<1 2>%s\" n {self.word()}) {self.int_expr(1)};\n"
                  f"  print_string (Buffer.contents b)")

    def piece_exceptions(self) -> None:
        """Exceptions with tuple, string and inline-record arguments, raised a few calls down,
        caught by guards that re-raise what they do not handle, by `match ... with exception`
        and around `Fun.protect`."""
        tuple_e, string_e, record_e = self.fresh("Bad"), self.fresh("Oops"), self.fresh("Need")
        self.emit(f"exception {tuple_e} of int * string\nexception {string_e} of string\n"
                  f"exception {record_e} of {{ need : int; why : string }}")
        level1, level2, level3 = self.fresh("lvl"), self.fresh("lvl"), self.fresh("lvl")
        m1, m2 = self.random.randint(2, 5), self.random.randint(2, 7)
        self.emit(f"let {level1} x =\n"
                  f"  if x mod {m1} = 0 then raise ({tuple_e} (x, {self.word()}))\n"
                  f"  else if x mod {m2} = 1 then raise ({string_e} {self.string_expr(1)})\n"
                  f"  else if x > {self.random.randint(5, 15)} then raise ({record_e} {{ need = x * 2; why = {self.word()} }})\n"
                  f"  else if x < 0 then raise Not_found else x * 3")
        guard = self.pick(["when n > 3", "when String.length s > 2", "", "when n mod 2 = 0"])
        self.emit(f"let {level2} x = try {level1} (x + 1) + 1 with {tuple_e} (n, s) {guard} -> n + String.length s")
        handlers = self.pick([
            f"| exception {string_e} s -> String.length s + 100 | exception {record_e} {{ need; _ }} -> need",
            f"| exception ({string_e} _ | Not_found) -> -1",
            f"| exception {record_e} r when r.need > 20 -> r.need + String.length r.why | exception _ -> -2",
        ])
        self.emit(f"let {level3} x = match {level2} x with v -> v * 10 {handlers}")
        inputs = "; ".join(self.int_literal(-3, 20) for _ in range(self.random.randint(2, 6)))
        protected = self.random.random() < 0.5
        body = (f"Fun.protect ~finally:(fun () -> print_string \"f \") (fun () -> {level3} x)" if protected
                else f"{level3} x")
        self.emit(f"let () =\n  List.iter (fun x ->\n    let r = (try {body} with\n"
                  f"      | {tuple_e} (n, s) -> Printf.printf \"[{tuple_e} %d %S]\" n s; 0\n"
                  f"      | {string_e} s -> Printf.printf \"[{string_e} %S]\" s; 1\n"
                  f"      | {record_e} {{ need; why }} -> Printf.printf \"[{record_e} %d %s]\" need why; 2\n"
                  f"      | e -> print_string (Printexc.to_string e); 3) in\n"
                  f"    Printf.printf \"%d \" r) [{inputs}];\n  print_newline ()")

    def piece_labels(self) -> None:
        """Labelled and optional arguments, in any order, omitted, partially applied."""
        f = self.fresh("lab")
        default = self.int_literal(0, 9)
        self.emit(f"let {f} ~a ?(b = {default}) ?c ~d e =\n"
                  f"  a * 100 + b * 10 + (match c with Some c -> c | None -> -1) + d - e")
        calls = [f"{f} ~a:1 ~d:2 3", f"{f} ~d:2 ~a:1 3", f"{f} ~a:1 ~b:5 ~d:2 3", f"{f} ~c:7 ~a:1 ~d:2 3",
                 f"{f} ~a:1 ?b:None ~d:2 3", f"{f} ~a:1 ?c:(Some 4) ~d:2 ~b:6 3",
                 f"(let g = {f} ~d:4 in g ~a:2 5)", f"(let g = {f} ~b:1 ~a:3 in g ~d:0 1)",
                 f"(List.fold_left (fun acc x -> acc + {f} ~a:x ~d:x x) 0 {self.int_list()})"]
        chosen = self.random.sample(calls, self.random.randint(2, 5))
        self.emit("let () = " + "; ".join(f"Printf.printf \"%d \" ({c})" for c in chosen) + "; print_newline ()")
        h = self.fresh("opt")
        self.emit(f"let {h} ?(sep = \",\") ?(last = \"\") l = String.concat sep l ^ last")
        self.emit(f"let () = print_endline ({h} {self.word_list()}); print_endline ({h} ~last:\"!\" ~sep:\"-\" {self.word_list()})")

    def piece_inline_records(self) -> None:
        t = self.fresh("shape")
        self.emit(f"type {t} = Circle of {{ r : int; mutable label : string }} | Rect of {{ w : int; h : int }} | Dot")
        values = []
        for _ in range(self.random.randint(1, 5)):
            values.append(self.pick([f"Circle {{ r = {self.int_literal(0, 9)}; label = {self.word()} }}",
                                     f"Rect {{ w = {self.int_literal(0, 9)}; h = {self.int_literal(0, 9)} }}", "Dot"]))
        self.emit(f"let () =\n  List.iter (fun s ->\n"
                  f"    (match s with Circle c when c.r > 3 -> c.label <- c.label ^ \"+\" | _ -> ());\n"
                  f"    match s with\n"
                  f"    | Circle {{ r; label }} -> Printf.printf \"C%d%s \" r label\n"
                  f"    | Rect {{ w; h }} when w = h -> Printf.printf \"Sq%d \" w\n"
                  f"    | Rect r -> Printf.printf \"R%d \" (r.w * r.h)\n"
                  f"    | Dot -> print_string \". \") [{'; '.join(values)}];\n  print_newline ()")

    def piece_buffers(self) -> None:
        b = self.fresh("buf")
        ops = []
        for _ in range(self.random.randint(1, 6)):
            ops.append(self.pick([f"Buffer.add_string {b} {self.string_expr(1)}",
                                  f"Buffer.add_char {b} {self.char()}",
                                  f"Buffer.add_substring {b} \"abcdefgh\" {self.random.randint(0, 3)} {self.random.randint(0, 4)}",
                                  f"Buffer.add_string {b} (string_of_int (Buffer.length {b}))",
                                  f"Buffer.truncate {b} (Buffer.length {b} / 2)"]))
        size = self.random.randint(0, 6)
        self.emit(f"let () =\n  let {b} = Buffer.create {self.random.randint(1, 8)} in\n  " + ";\n  ".join(ops) + ";\n"
                  f"  Printf.printf \"%S %d\\n\" (Buffer.contents {b}) (Buffer.length {b});\n"
                  f"  let by = Bytes.make {size} {self.char()} in\n"
                  f"  if {size} > 1 then Bytes.set by 1 'q';\n"
                  f"  Bytes.blit_string \"xyz\" 0 by 0 (min 3 {size});\n"
                  f"  let up = Bytes.uppercase_ascii by in\n"
                  f"  Printf.printf \"%S %S %b %d\\n\" (Bytes.to_string by) (Bytes.sub_string up 0 (Bytes.length up / 2))\n"
                  f"    (Bytes.equal by up) (Bytes.compare by up)")

    def piece_seq(self) -> None:
        self.emit(f"let () =\n  let s = List.to_seq {self.int_list()} in\n"
                  f"  let t = Seq.filter (fun x -> x mod {self.random.randint(2, 3)} <> 0) (Seq.map (fun x -> x * x - {self.random.randint(0, 9)}) s) in\n"
                  f"  Seq.iter (fun x -> Printf.printf \"%d \" x) t;\n"
                  f"  Printf.printf \"| %d\\n\" (Seq.fold_left ( + ) 0 t);\n"
                  f"  let rec count n () = if n > {self.random.randint(0, 6)} then Seq.Nil else Seq.Cons (n, count (n + 1)) in\n"
                  f"  print_endline (String.concat \";\" (List.of_seq (Seq.map string_of_int (count 0))));\n"
                  f"  print_endline (String.of_seq (Seq.filter (fun c -> c <> 'a') (String.to_seq {self.string_expr(1)})))")

    def piece_lazy(self) -> None:
        v = self.fresh("lz")
        self.emit(f"let {v} = lazy (print_string \"[forced]\"; {self.int_expr(2)})")
        self.emit(f"let () =\n  Printf.printf \"%b \" (Lazy.is_val {v});\n"
                  f"  let a = Lazy.force {v} in\n  let b = Lazy.force {v} in\n"
                  f"  Printf.printf \"%d %d %b\\n\" a b (Lazy.is_val {v});\n"
                  f"  let l = lazy (raise Exit) in\n"
                  f"  (try ignore (Lazy.force l) with Exit -> print_string \"exit \");\n"
                  f"  (try ignore (Lazy.force l) with Exit -> print_endline \"again\");\n"
                  f"  match lazy {self.int_expr(1)} with lazy n -> Printf.printf \"%d\\n\" n")

    def piece_strings(self) -> None:
        s = self.fresh("str")
        self.emit(f"let {s} = {self.string_expr(3)}")
        c, separator = self.char(), self.pick(["' '", "','", "'a'"])
        self.emit(f"let () =\n  Printf.printf \"%S %d\\n\" {s} (String.length {s});\n"
                  f"  print_endline (String.concat \"|\" (String.split_on_char {separator} {s}));\n"
                  f"  Printf.printf \"%s %s %b %b\\n\"\n"
                  f"    (match String.index_opt {s} {c} with Some i -> string_of_int i | None -> \"-\")\n"
                  f"    (match String.rindex_opt {s} {c} with Some i -> string_of_int i | None -> \"-\")\n"
                  f"    (String.contains {s} {c}) (String.equal {s} (String.lowercase_ascii {s}));\n"
                  f"  String.iteri (fun i ch -> if i < 3 then Printf.printf \"%d%C\" i ch) {s};\n"
                  f"  print_newline ();\n"
                  f"  Printf.printf \"%d %S\\n\" (compare {s} {self.string_expr(1)}) (String.capitalize_ascii (String.mapi (fun i c -> if i mod 2 = 0 then Char.uppercase_ascii c else c) {s}))")

    def piece_polymorphism(self) -> None:
        """Polymorphic functions of the program's own, used at several types; their results
        compared polymorphically."""
        pair_map, twice, assoc = self.fresh("pmap"), self.fresh("twice"), self.fresh("lookup")
        self.emit(f"let {pair_map} f (a, b) = (f a, f b)\nlet {twice} f x = f (f x)\n"
                  f"let rec {assoc} k = function [] -> None | (k', v) :: r -> if k = k' then Some v else {assoc} k r")
        self.emit(f"let () =\n  let (a, b) = {pair_map} (fun x -> x * 2) ({self.int_literal()}, {self.int_literal()}) in\n"
                  f"  let (c, d) = {pair_map} String.length ({self.word()}, {self.word()}) in\n"
                  f"  let (e, g) = {pair_map} (fun l -> List.rev l) ({self.int_list()}, {self.int_list()}) in\n"
                  f"  Printf.printf \"%d %d %d %d %b %d\\n\" a b c d (e < g) (compare e g);\n"
                  f"  Printf.printf \"%s %d\\n\" ({twice} (fun s -> s ^ s) {self.word()}) ({twice} (fun n -> n * 3) {self.int_literal()});\n"
                  f"  let table = [({self.word()}, 1); ({self.word()}, 2); ({self.word()}, 3)] in\n"
                  f"  print_endline (match {assoc} {self.word()} table with Some n -> string_of_int n | None -> \"none\");\n"
                  f"  Printf.printf \"%b %b\\n\" ({assoc} 2 [(1, 'a'); (2, 'b')] = Some 'b') "
                  f"(compare (Some [{self.int_literal(0, 3)}]) (Some [{self.int_literal(0, 3)}]) < 0)")

    def piece_closures(self) -> None:
        """Closures with state of their own made in loops and in tuples (the class of the
        miscompilation the generator was made to find)."""
        fs, counter = self.fresh("fs"), self.fresh("mk")
        if self.random.random() < 0.5:
            self.emit(f"let () = print_string (Format.asprintf \"@[<v 1>[%d]@]@.\" {self.int_expr(1)})")
        self.emit(f"let {counter} start step =\n  let n = ref start in\n"
                  f"  ((fun () -> n := (!n + step) land 0xFFFF; !n), (fun () -> n := start), (fun () -> !n))")
        self.emit(f"let {fs} = Array.init {self.random.randint(1, 5)} (fun i -> let acc = ref (i * {self.random.randint(1, 3)}) in "
                  f"fun x -> acc := (!acc + x) land 0xFFF; !acc)")
        self.emit(f"let () =\n  for round = 1 to 2 do Array.iter (fun f -> Printf.printf \"%d \" (f round)) {fs} done;\n"
                  f"  let (next, reset, get) = {counter} {self.int_literal(0, 9)} {self.int_literal(1, 5)} in\n"
                  f"  let a = next () in let b = next () in reset (); let c = get () in\n"
                  f"  Printf.printf \"| %d %d %d\\n\" a b c")

    def piece_floats(self) -> None:
        """Signed zeros, infinities and NaN through Float's functions and joins of branches
        (a phi of -0. and 0. is not a copy of one value)."""
        def value() -> str:
            return self.pick(["0.", "(-0.)", "1.5", "(-2.25)", "infinity", "neg_infinity", "nan", "(-. nan)", "1e-300"])
        pairs = "[" + "; ".join(f"({value()}, {value()})" for _ in range(self.random.randint(1, 4))) + "]"
        self.emit(f"let () =\n  List.iter (fun (a, b) ->\n"
                  f"    let pick = if a < b then a else if {self.pick(['true', 'false', 'a = b'])} then -0. else 0. in\n"
                  f"    Printf.printf \"%g %g %g %g %h %b %d|\" (Float.min a b) (Float.max a b) (copysign 1. pick) pick\n"
                  f"      (Float.abs a) (Float.equal a b) (compare a b)) {pairs};\n  print_newline ()")
        # the same on constants, which inlining folds into joins of constants
        self.emit(f"let () = Printf.printf \"%g %g %g\\n\" (Float.min {value()} {value()}) (Float.max {value()} {value()}) "
                  f"(if {self.int_expr(1)} > {self.int_literal()} then {value()} else {value()})")

    def piece_non_regular(self) -> None:
        """A non-regular data type (`('a * 'a) t` inside `'a t`), built, matched and passed
        around: the shape that once made the compiler run forever. (Comparing or hashing its
        values is refused at compile time, so never here.)"""
        t, leaf, node, total = self.fresh("nest"), self.fresh("Leaf"), self.fresh("Node"), self.fresh("total")
        self.emit(f"type 'a {t} = {leaf} of 'a | {node} of ('a * 'a) {t}")
        self.emit(f"let {total} = function\n  | {leaf} a -> a\n  | {node} ({leaf} (a, b)) -> a + b\n"
                  f"  | {node} ({node} ({leaf} ((a, b), (c, d)))) -> a * b + c * d\n  | {node} ({node} ({node} _)) -> -1")
        n = self.int_literal
        shapes = [lambda: f"{leaf} {n()}", lambda: f"{node} ({leaf} ({n()}, {n()}))",
                  lambda: f"{node} ({node} ({leaf} (({n()}, {n()}), ({n()}, {n()}))))",
                  lambda: f"{node} ({node} ({node} ({leaf} ((((1, 2), (3, 4)), ((5, 6), (7, 8)))))))"]
        values = "; ".join(self.random.choice(shapes)() for _ in range(self.random.randint(1, 4)))
        self.emit(f"let () =\n  let values = [{values}] in\n"
                  f"  List.iter (fun v -> Printf.printf \"%d \" ({total} v)) (List.rev values);\n"
                  f"  Printf.printf \"%d\\n\" (List.length values)")

    def piece_sorting(self) -> None:
        pairs = "; ".join(f"({self.int_literal(0, 4)}, {self.word()})" for _ in range(self.random.randint(0, 9)))
        self.emit(f"let () =\n  let l = [{pairs}] in\n  let cmp (a, _) (b, _) = compare a b in\n"
                  f"  let show l = List.iter (fun (a, s) -> Printf.printf \"%d%s \" a s) l; print_newline () in\n"
                  f"  show (List.sort cmp l); show (List.sort_uniq cmp l); show (List.stable_sort (fun a b -> cmp b a) l);\n"
                  f"  let a = Array.of_list l in Array.sort cmp a; show (Array.to_list a);\n"
                  f"  let a = Array.of_list l in Array.stable_sort cmp a; show (Array.to_list a)")


PIECES = [name[len("piece_"):] for name in dir(Gen) if name.startswith("piece_")]


def program(seed: int) -> str:
    """The program of `seed`: a few pieces over the whole language."""
    gen = Gen(random.Random(seed))
    for _ in range(gen.random.randint(2, 5)):
        gen.piece()
    return f"(* wholelang seed {seed} *)\n" + "\n".join(gen.lines) + "\n"


# ---------------------------------------------------------------------- running


@dataclass(frozen=True)
class Run:
    stdout: str
    status: int


def run_ocaml(source: str, timeout: float = 60.0) -> Run | None:
    """What `ocaml` prints for the program (None: ocaml refuses it, or is not installed)."""
    if shutil.which("ocaml") is None:
        return None
    with tempfile.TemporaryDirectory(prefix="wholelang-") as folder:
        path = Path(folder) / "prog.ml"
        path.write_text(source, encoding="latin-1")
        done = subprocess.run(["ocaml", "prog.ml"], cwd=folder, capture_output=True, timeout=timeout)
    stderr = done.stderr.decode("latin-1")
    if done.returncode == 2 and "\nError: " in "\n" + stderr and "Exception:" not in stderr:
        return None
    return Run(done.stdout.decode("latin-1"), done.returncode)


def levels(native: bool = True) -> list[str]:
    """Where `check` runs a program: the AST interpreter, then after each -O pipeline the CPS and
    SSA interpreters and (with `native`) the executable."""
    names = ["ast"]
    for opt in range(4):
        names += [f"cps-O{opt}", f"ssa-O{opt}"] + ([f"native-O{opt}"] if native else [])
    return names


def outcomes(source: str, native: bool = True, only: str | None = None) -> Iterator[tuple[str, Run | str]]:
    """The program's outcome at each level (or at `only`): a Run, or what went wrong in the
    compiler (a diagnostic, a verifier's complaint, a crash)."""
    from cpsc import driver
    from cpsc.cps.interp import run_cps
    from cpsc.mono.interp import run_ast
    from cpsc.opt.pipeline import LEVELS
    from cpsc.ssa.interp import run_ssa
    from cpsc.syntax.diagnostics import CompileError

    try:
        typed = driver.front_end(source, "prog.ml")
    except CompileError as error:
        yield "front end", f"rejected: {error}"
        return
    if only in (None, "ast"):
        yield "ast", _as_run(run_ast, typed)
    for opt in range(4):
        wanted = [level for level in (f"cps-O{opt}", f"ssa-O{opt}", f"native-O{opt}")
                  if only in (None, level) and (native or not level.startswith("native"))]
        if not wanted:
            continue
        try:
            cps, _ = driver.optimise(driver.to_cps(typed), LEVELS[opt].passes, verify_each=True,
                                     context=LEVELS[opt].context())
            module = driver.to_ssa_module(cps, verify_each=True)
        except Exception as error:  # noqa: BLE001 - a crash of the compiler is a finding
            for level in wanted:
                yield level, f"compiler failed: {type(error).__name__}: {error}"
            continue
        for level in wanted:
            if level.startswith("cps"):
                yield level, _as_run(run_cps, cps)
            elif level.startswith("ssa"):
                yield level, _as_run(run_ssa, module)
            else:
                yield level, _native(module, opt)


def _as_run(run: Callable[[Any, str], Any], program: object) -> Run | str:
    """`run(program, "")` (an interpreter, with empty stdin) as a Run."""
    try:
        outcome = run(program, "")
    except Exception as error:  # noqa: BLE001 - a crash of an interpreter is a finding
        return f"interpreter failed: {type(error).__name__}: {error}"
    return Run(outcome.stdout, outcome.status)


def _native(module: object, opt: int) -> Run | str:
    from cpsc import driver

    with tempfile.TemporaryDirectory(prefix="wholelang-") as folder:
        exe = str(Path(folder) / "prog")
        try:
            driver.native_executable(module, opt, exe, parts=1)  # type: ignore[arg-type]
        except Exception as error:  # noqa: BLE001
            return f"native build failed: {type(error).__name__}: {error}"
        try:
            done = subprocess.run([exe], capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            return "native run timed out"
    return Run(done.stdout.decode("latin-1"), done.returncode)


@dataclass
class Verdict:
    seed: int
    expected: Run | None
    disagreements: dict[str, str]  # level -> what it gave instead

    @property
    def valid(self) -> bool:
        return self.expected is not None


def check(seed: int, source: str | None = None, native: bool = True) -> Verdict:
    """The levels at which the program of `seed` (or `source`) disagrees with `ocaml`."""
    text = source if source is not None else program(seed)
    expected = run_ocaml(text)
    if expected is None:
        return Verdict(seed, None, {})
    disagreements = {}
    for level, got in outcomes(text, native):
        if got != expected:
            disagreements[level] = repr(got)
    return Verdict(seed, expected, disagreements)


def disagrees_at(level: str) -> Callable[[str], bool]:
    """A test for the reducer: `ocaml` accepts the candidate and `level` gives another outcome
    (a crash of the compiler at that level counts; "front end": cpsc refuses it)."""
    def test(candidate: str) -> bool:
        expected = run_ocaml(candidate, timeout=10)
        if expected is None:
            return False
        got = dict(outcomes(candidate, native=level.startswith("native"), only=level))
        if level == "front end":
            return "front end" in got
        return level in got and got[level] != expected
    return test


def main(argv: list[str] | None = None) -> int:
    parser = seeded_runs("wholelang", __doc__, "where each disagreement goes, with its reduced program")
    parser.add_argument("--no-reduce", action="store_true", help="keep findings as generated")
    args = parser.parse_args(argv)
    first = first_seed(args, "wholelang")
    signal.signal(signal.SIGTERM, _stop)
    invalid: list[int] = []
    found: list[Verdict] = []
    checked = 0
    try:
        for verdict in _check_all(list(range(first, first + args.count)), not args.no_native, args.jobs):
            checked += 1
            if not verdict.valid:
                invalid.append(verdict.seed)
            elif verdict.disagreements:
                found.append(verdict)
                _report(verdict, args.findings, not args.no_reduce)
    except KeyboardInterrupt:
        print("\nwholelang: stopped", file=sys.stderr)
    agreeing = checked - len(invalid) - len(found)
    print(f"\nwholelang: {checked} checked: {agreeing} agree, {len(found)} disagree "
          f"({', '.join(str(v.seed) for v in found)}), {len(invalid)} refused by ocaml", file=sys.stderr)
    print(f"{agreeing} passed, {len(found)} failed")
    return 1 if found else 0


def seeded_runs(prog: str, doc: str | None, findings: str) -> argparse.ArgumentParser:
    """The command line of a run of random programs named by seeds (this one's, `cpsc.testing.order`'s)."""
    parser = argparse.ArgumentParser(prog=prog, description=(doc or "").split("\n\n")[0])
    parser.add_argument("--count", type=int, default=20, help="how many programs")
    parser.add_argument("--seed", type=int, default=None, help="the first program's seed (default: from the clock)")
    parser.add_argument("--jobs", type=int, default=1, help="programs checked at once")
    parser.add_argument("--no-native", action="store_true", help="interpreters only")
    parser.add_argument("--findings", type=Path, default=Path(f"{prog}-findings"), help=findings)
    return parser


def first_seed(args: argparse.Namespace, prog: str) -> int:
    """The first seed asked for, or one from the clock; printed, to run the programs again."""
    first: int = args.seed if args.seed is not None else int(time.time()) % 1_000_000_000
    print(f"{prog}: seeds {first}..{first + args.count - 1}", file=sys.stderr)
    return first


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _check_all(seeds: list[int], native: bool, jobs: int) -> Iterator[Verdict]:
    """The verdicts in the order of the seeds, each as soon as it and those before it are known."""
    if jobs <= 1:
        yield from (_checked(seed, native) for seed in seeds)
        return
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(jobs)
    try:
        yield from pool.map(_checked, seeds, [native] * len(seeds))
    finally:  # stopped early: the programs not started yet are dropped, not waited for
        pool.shutdown(wait=False, cancel_futures=True)


def _checked(seed: int, native: bool) -> Verdict:
    verdict = check(seed, native=native)
    mark = "." if verdict.valid and not verdict.disagreements else ("x" if verdict.disagreements else "?")
    print(mark, end="", file=sys.stderr, flush=True)
    return verdict


def _report(verdict: Verdict, folder: Path, reduce_it: bool) -> None:
    from cpsc.testing.reduce import reduce

    folder.mkdir(parents=True, exist_ok=True)
    source = program(verdict.seed)
    (folder / f"seed{verdict.seed}.ml").write_text(source, encoding="latin-1")
    (folder / f"seed{verdict.seed}.json").write_text(json.dumps(
        {"seed": verdict.seed, "expected": verdict.expected.__dict__ if verdict.expected else None,
         "disagreements": verdict.disagreements}, indent=1))
    print(f"\nseed {verdict.seed}: disagrees at {', '.join(verdict.disagreements)}", file=sys.stderr)
    if reduce_it:
        level = next(iter(verdict.disagreements))
        small = reduce(source, disagrees_at(level))
        _write_test(folder / f"seed{verdict.seed}", small, level)
        print(f"seed {verdict.seed} reduced ({level}):\n{small}", file=sys.stderr)


def _write_test(base: Path, program: str, level: str) -> None:
    """The reduced program as a test of tests/programs: `.fl` (checked at every level) and
    `.expected` (what `ocaml` prints)."""
    expected = run_ocaml(program)
    text = f"(* Found by scripts/wholelang: it disagreed with ocaml at {level}. cpsc-test: every-level *)\n{program}"
    base.with_suffix(".fl").write_text(text, encoding="latin-1")
    if expected is not None:
        base.with_suffix(".expected").write_text(expected.stdout, encoding="latin-1")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())

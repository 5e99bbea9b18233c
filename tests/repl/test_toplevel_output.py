"""What the session says after each phrase is what OCaml's toplevel says: values and their
types, declarations of types, exceptions and modules, exception values, exceptions that escape
a phrase, and state that lives from one phrase to the next. Checked against the expected text below and, when `ocaml` is installed,
against the OCaml toplevel itself on the same phrases."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from cpsc.repl.session import Session

# (phrase, what OCaml 4.13's toplevel prints after it)
PHRASES = [
    ("exception E of int * string;;", "exception E of int * string\n"),
    ("exception F of int;;", "exception F of int\n"),
    ("module M = struct exception G let x = 1 let f y = y + x type t = A | B end;;",
     "module M : sig exception G val x : int val f : int -> int type t = A | B end\n"),
    ("module type S = sig type t val x : t val show : t -> string end;;",
     "module type S = sig type t val x : t val show : t -> string end\n"),
    ("module Sealed : S = struct type t = int let x = 1 let y = 2 let show = string_of_int end;;",
     "module Sealed : S\n"),
    ("Sealed.show Sealed.x;;", "- : string = \"1\"\n"),
    ("Sealed.x;;", "- : Sealed.t = <abstr>\n"),
    ("module L = List;;", "module L = List\n"),
    ("L.length [1; 2];;", "- : int = 2\n"),
    ("module N : sig type t val z : t end = struct type t = A | B let z = A let w = B end;;",
     "module N : sig type t val z : t end\n"),
    ("module P = struct let a = 1 module Q = struct let b = 2 end end;;",
     "module P : sig val a : int module Q : sig val b : int end end\n"),
    ("open P.Q;;", ""),
    ("b + P.a;;", "- : int = 3\n"),
    ("E (1, \"a\");;", "- : exn = E (1, \"a\")\n"),
    ("[Failure \"x\"; F (-3); M.G; Not_found; Exit];;",
     "- : exn list = [Failure \"x\"; F (-3); M.G; Not_found; Stdlib.Exit]\n"),
    ("Some (Invalid_argument \"i\");;", "- : exn option = Some (Invalid_argument \"i\")\n"),
    ("Match_failure (\"f.ml\", 1, 2);;", "- : exn = Match_failure (\"f.ml\", 1, 2)\n"),
    ("List.hd [];;", "Exception: Failure \"hd\".\n"),
    ("let boom = raise (E (2, \"b\"));;", "Exception: E (2, \"b\").\n"),
    ("raise (F 2);;", "Exception: F 2.\n"),
    ("1 / 0;;", "Exception: Division_by_zero.\n"),
    # two exceptions OCaml's toplevel words apart, raised or met
    ("raise Stack_overflow;;", "Stack overflow during evaluation (looping recursion?).\n"),
    ("print_string \"x\"; raise Out_of_memory;;", "xOut of memory during evaluation.\n"),
    ("Array.make (1 lsl 40) 0.5;;", "Out of memory during evaluation.\n"),
    ("Array.make (1 lsl 58) 0;;", "Exception: Invalid_argument \"Array.make\".\n"),
    ("print_string \"half\"; raise M.G;;", "halfException: M.G.\n"),
    ("let (a, b) = (1, [2]);;", "val a : int = 1\nval b : int list = [2]\n"),
    ("let l = [];;", "val l : 'a list = []\n"),
    ("type 'a tree = Leaf | Node of 'a tree * 'a * 'a tree and u = int * float;;",
     "type 'a tree = Leaf | Node of 'a tree * 'a * 'a tree\nand u = int * float\n"),
    ("type r = {x : int; mutable y : (int -> int)};;", "type r = { x : int; mutable y : int -> int; }\n"),
    ("type long = Aaaaaaaaaaaaaaaaaaaaaaa of int | Bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb of (int * int) | Ccccccccc;;",
     "type long =\n    Aaaaaaaaaaaaaaaaaaaaaaa of int\n  | Bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb of (int * int)\n  | Ccccccccc\n"),
    ("prerr_endline \"to stderr\";;", "to stderr\n- : unit = ()\n"),
    ("a + List.length b;;", "- : int = 2\n"),
    # Each phrase runs once: a ref keeps what a failed phrase did to it; a polymorphic function
    # is used at a new type; a weak type is fixed by a later phrase.
    # a cyclic list ends where a cell comes again
    ("let rec ones = 1 :: ones and xs = 0 :: 2 :: ones;;",
     "val ones : int list = [1; <cycle>]\nval xs : int list = [0; 2; 1; <cycle>]\n"),
    ("let r = ref 0;;", "val r : int ref = {contents = 0}\n"),
    ("incr r; failwith \"later\";;", "Exception: Failure \"later\".\n"),
    ("!r;;", "- : int = 1\n"),
    ("let id x = x;;", "val id : 'a -> 'a = <fun>\n"),
    ("(id 3, id \"s\");;", "- : int * string = (3, \"s\")\n"),
    ("let cell = ref [];;", "val cell : '_weak1 list ref = {contents = []}\n"),
    ("cell := [1.5]; !cell;;", "- : float list = [1.5]\n"),
    # The library's types by OCaml's names, and its modules' exceptions as OCaml qualifies them.
    ("let st = Stack.create ();;", "val st : '_weak2 Stack.t = <abstr>\n"),
    ("Stack.pop st;;", "Exception: Stdlib.Stack.Empty.\n"),
    ("Queue.pop (Queue.create ());;", "Exception: Stdlib.Queue.Empty.\n"),
    ("List.to_seq [1];;", "- : int Seq.t = <fun>\n"),
    ("(Buffer.create 1, Hashtbl.create 1);;", "- : Buffer.t * ('_weak3, '_weak4) Hashtbl.t = (<abstr>, <abstr>)\n"),
    ("Result.get_ok (Ok 1);;", "- : int = 1\n"),
    ("Bytes.of_string \"a\\n\";;", "- : bytes = Bytes.of_string \"a\\n\"\n"),
    ("[Some (Bytes.make 2 'x')];;", "- : bytes option list = [Some (Bytes.of_string \"xx\")]\n"),
    ("Random.State.make [|1|];;", "- : Random.State.t = <abstr>\n"),
    ("Random.State.int (Random.State.make [|1|]) 100;;", "- : int = 38\n"),
    ("Printexc.to_string (Failure \"x\");;", "- : string = \"Failure(\\\"x\\\")\"\n"),
    # Functors' signatures, and signatures too long for a line, broken where OCaml breaks them.
    ("module type ORD = sig type t val compare : t -> t -> int end;;",
     "module type ORD = sig type t val compare : t -> t -> int end\n"),
    ("module Twice (X : ORD) = struct let twice x = X.compare x x end;;",
     "module Twice : functor (X : ORD) -> sig val twice : X.t -> int end\n"),
    ("module Lex (X : ORD) (Y : ORD) = struct type t = X.t * Y.t\n"
     "  let compare (a, b) (c, d) = match X.compare a c with 0 -> Y.compare b d | n -> n end;;",
     "module Lex :\n  functor (X : ORD) (Y : ORD) ->\n"
     "    sig type t = X.t * Y.t val compare : X.t * Y.t -> X.t * Y.t -> int end\n"),
    ("module Named (X : ORD) : ORD = struct type t = X.t list let compare = compare end;;",
     "module Named : functor (X : ORD) -> ORD\n"),
    ("module Same (X : ORD) : ORD with type t = X.t = X;;",
     "module Same :\n  functor (X : ORD) -> sig type t = X.t val compare : t -> t -> int end\n"),
    ("module Many (X : sig val n : int end) = struct let y = X.n + 1 let z = \"a\" let w = [1] "
     "let v = (fun x -> x) let u = 1.5 end;;",
     "module Many :\n  functor (X : sig val n : int end) ->\n    sig\n      val y : int\n      val z : string\n"
     "      val w : int list\n      val v : 'a -> 'a\n      val u : float\n    end\n"),
    ("module Error (X : ORD) = struct exception E of X.t type 'a r = { a : 'a; b : X.t } end;;",
     "module Error :\n  functor (X : ORD) ->\n    sig exception E of X.t type 'a r = { a : 'a; b : X.t; } end\n"),
    ("module Width = struct let aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa = 1 let b = 2 end;;",
     "module Width :\n  sig val aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa : int val b : int end\n"),
    ("module Deep = struct module S = struct let aaaaaaaaaaaaaaaaaaaaaaaa = 1 "
     "let bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb = \"x\" end let c = 2 end;;",
     "module Deep :\n  sig\n    module S :\n      sig\n        val aaaaaaaaaaaaaaaaaaaaaaaa : int\n"
     "        val bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb : string\n      end\n    val c : int\n  end\n"),
    ("module InM = struct module F (X : ORD) = struct let x = 1 end let y = 2 end;;",
     "module InM :\n  sig module F : functor (X : ORD) -> sig val x : int end val y : int end\n"),
    ("module InN = struct let a = 1 module G (X : ORD) (Y : ORD) = struct type t = X.t * Y.t\n"
     "  let compare (a, b) (c, d) = match X.compare a c with 0 -> Y.compare b d | n -> n end end;;",
     "module InN :\n  sig\n    val a : int\n    module G :\n      functor (X : ORD) (Y : ORD) ->\n        sig\n"
     "          type t = X.t * Y.t\n          val compare : X.t * Y.t -> X.t * Y.t -> int\n        end\n  end\n"),
    ("module OnlyF = struct module F (X : ORD) = struct let x = 1 end end;;",
     "module OnlyF : sig module F : functor (X : ORD) -> sig val x : int end end\n"),
    ("lazy (1 + 2);;", "- : int lazy_t = <lazy>\n"),
    ("let lz = lazy (print_endline \"go\"; 4);;", "val lz : int lazy_t = <lazy>\n"),
    ("Lazy.force lz;;", "go\n- : int = 4\n"),
    ("(lz, Some (lazy 'c'));;", "- : int lazy_t * char lazy_t option = (lazy 4, Some (lazy 'c'))\n"),
    ("(5L, -3l, [12n], Int32.add Int32.max_int 1l);;",
     "- : int64 * int32 * nativeint list * int32 = (5L, -3l, [12n], -2147483648l)\n"),
    ("type inline = In of { x : int; mutable y : string } | Out;;",
     "type inline = In of { x : int; mutable y : string; } | Out\n"),
    ("In { x = 1; y = \"a\" };;", "- : inline = In {x = 1; y = \"a\"}\n"),
    ("module type WIDE = sig val aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa : int val b : int end;;",
     "module type WIDE =\n  sig val aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa : int val b : int end\n"),
    # Labelled and optional parameters in types, as OCaml prints them.
    ("let lf ~x ?(y = 2) z = x * 100 + y * 10 + z;;", "val lf : x:int -> ?y:int -> int -> int = <fun>\n"),
    ("lf ~y:3;;", "- : x:int -> int -> int = <fun>\n"),
    ("lf 4 ~x:1;;", "- : int = 124\n"),
    ("Option.value;;", "- : 'a option -> default:'a -> 'a = <fun>\n"),
    ("let lapp f = f ~x:1 ?y:None;;", "val lapp : (x:int -> ?y:'a -> 'b) -> 'b = <fun>\n"),
    # what Format's standard formatter holds comes before the result, once
    ('Format.printf "@[pending@ text@]";;', "pending text- : unit = ()\n"),
    ("let after_format = 1;;", "val after_format : int = 1\n"),
    ("Format.std_formatter;;", "- : Format.formatter = <abstr>\n"),
    ('Format.asprintf "@[<v 2>a@,%d@]" 5;;', '- : string = "a\\n  5"\n'),
    # formats as values, and their types by the library's abbreviations
    ("let say fmt = Printf.printf fmt;;", "val say : ('a, out_channel, unit) format -> 'a = <fun>\n"),
    ('say "%d-%s\\n" 1 "a";;', "1-a\n- : unit = ()\n"),
    ("let kpr = Printf.ksprintf;;", "val kpr : (string -> 'a) -> ('b, unit, string, 'a) format4 -> 'b = <fun>\n"),
    ("let fpr = Format.asprintf;;", "val fpr : ('a, Format.formatter, unit, string) format4 -> 'a = <fun>\n"),
    # a signature's value types are the module's, whether or not it seals a type
    ("module Restricted : sig val make : int -> int end = struct let make x = x end;;",
     "module Restricted : sig val make : int -> int end\n"),
    ("Restricted.make;;", "- : int -> int = <fun>\n"),
    ("type secret = private int;;", "type secret = private int\n"),
    ("type choice = private Yes | No of int;;", "type choice = private Yes | No of int\n"),
    ("module Fresh () = struct let x = 1 end;;", "module Fresh : functor () -> sig val x : int end\n"),
    ('external ident : \'a -> \'a = "%identity";;', 'external ident : \'a -> \'a = "%identity"\n'),
    ('external ( +! ) : int -> int -> int = "%addint";;', 'external ( +! ) : int -> int -> int = "%addint"\n'),
    ("ident (2 +! 3);;", "- : int = 5\n"),
    # a type variable keeps the name the program wrote; the others take the names left
    ("let same (x : 'elt) = x;;", "val same : 'elt -> 'elt = <fun>\n"),
    ("same;;", "- : 'elt -> 'elt = <fun>\n"),
    ("let pair (x : 'b) y = (x, y);;", "val pair : 'b -> 'a -> 'b * 'a = <fun>\n"),
    ("let swap ((x : 'first), (y : 'second)) = (y, x);;",
     "val swap : 'first * 'second -> 'second * 'first = <fun>\n"),
    # operators, binding operators among them, are shown in parentheses and usable after
    ("let ( +! ) a b = a * 10 + b;;", "val ( +! ) : int -> int -> int = <fun>\n"),
    ("1 +! 2;;", "- : int = 12\n"),
    ("let ( let* ) o f = match o with None -> None | Some x -> f x;;",
     "val ( let* ) : 'a option -> ('a -> 'b option) -> 'b option = <fun>\n"),
    ("let* x = Some 3 in Some (x + 1);;", "- : int option = Some 4\n"),
    ("module Ops = struct let ( ++ ) a b = a @ b end;;", "module Ops : sig val ( ++ ) : 'a list -> 'a list -> 'a list end\n"),
    # a module's constructors by their path
    ("module Qm = struct type t = A | B of int end;;", "module Qm : sig type t = A | B of int end\n"),
    ("[Qm.B 3; Qm.A];;", "- : Qm.t list = [Qm.B 3; Qm.A]\n"),
    ("Either.Left (Seq.Nil : int Seq.node);;", "- : (int Seq.node, 'a) Either.t = Either.Left Seq.Nil\n"),
    # a type annotation's abbreviation is how its type prints, not its expansion
    ("type point = float * float;;", "type point = float * float\n"),
    ("let origin : point = (0., 0.);;", "val origin : point = (0., 0.)\n"),
    ("let shift (p : point) dx = (fst p +. dx, snd p);;", "val shift : point -> float -> float * float = <fun>\n"),
    ("type 'a ignored = int;;", "type 'a ignored = int\n"),
    ("let keep (x : 'b ignored) = x;;", "val keep : 'b ignored -> 'b ignored = <fun>\n"),
    ("module Km : sig type t = int list val g : int -> t end = struct type t = int list let g x = [x] end;;",
     "module Km : sig type t = int list val g : int -> t end\n"),
    ("Km.g;;", "- : int -> Km.t = <fun>\n"),
    # a module sealed by a named module type, and functor applications, shown as OCaml shows them
    ("module type Mk = sig type t val make : int -> t end;;", "module type Mk = sig type t val make : int -> t end\n"),
    ("module Raw = struct type t = int let make x = x end;;", "module Raw : sig type t = int val make : 'a -> 'a end\n"),
    ("module Sealed_raw : Mk = Raw;;", "module Sealed_raw : Mk\n"),
    ("Sealed_raw.make 3;;", "- : Sealed_raw.t = <abstr>\n"),
    ("module Fm (X : sig val n : int end) : Mk = struct type t = int let make x = x + X.n end;;",
     "module Fm : functor (X : sig val n : int end) -> Mk\n"),
    ("module On = struct let n = 1 end;;", "module On : sig val n : int end\n"),
    ("module Fa = Fm (On);;", "module Fa : sig type t = Fm(On).t val make : int -> t end\n"),
    ("module Fb = Fm (struct let n = 2 end);;", "module Fb : Mk\n"),
    ("module Nest = struct module Fc = Fm (struct let n = 3 end) let y = 1 end;;",
     "module Nest : sig module Fc : Mk val y : int end\n"),
    ("module Ints = Set.Make (struct type t = int let compare = compare end);;", "module Ints :\n  sig\n    type elt = int\n    type t\n    val empty : t\n    val is_empty : t -> bool\n    val mem : elt -> t -> bool\n    val add : elt -> t -> t\n    val singleton : elt -> t\n    val remove : elt -> t -> t\n    val union : t -> t -> t\n    val inter : t -> t -> t\n    val disjoint : t -> t -> bool\n    val diff : t -> t -> t\n    val compare : t -> t -> int\n    val equal : t -> t -> bool\n    val subset : t -> t -> bool\n    val iter : (elt -> unit) -> t -> unit\n    val map : (elt -> elt) -> t -> t\n    val fold : (elt -> 'a -> 'a) -> t -> 'a -> 'a\n    val for_all : (elt -> bool) -> t -> bool\n    val exists : (elt -> bool) -> t -> bool\n    val filter : (elt -> bool) -> t -> t\n    val filter_map : (elt -> elt option) -> t -> t\n    val partition : (elt -> bool) -> t -> t * t\n    val cardinal : t -> int\n    val elements : t -> elt list\n    val min_elt : t -> elt\n    val min_elt_opt : t -> elt option\n    val max_elt : t -> elt\n    val max_elt_opt : t -> elt option\n    val choose : t -> elt\n    val choose_opt : t -> elt option\n    val split : elt -> t -> t * bool * t\n    val find : elt -> t -> elt\n    val find_opt : elt -> t -> elt option\n    val find_first : (elt -> bool) -> t -> elt\n    val find_first_opt : (elt -> bool) -> t -> elt option\n    val find_last : (elt -> bool) -> t -> elt\n    val find_last_opt : (elt -> bool) -> t -> elt option\n    val of_list : elt list -> t\n    val to_seq_from : elt -> t -> elt Seq.t\n    val to_seq : t -> elt Seq.t\n    val to_rev_seq : t -> elt Seq.t\n    val add_seq : elt Seq.t -> t -> t\n    val of_seq : elt Seq.t -> t\n  end\n"),
    # long answers broken over lines as OCaml's toplevel breaks them (Format, margin 78)
    ('List.init 40 (fun i -> i * 1000);;',
     '- : int list =\n[0; 1000; 2000; 3000; 4000; 5000; 6000; 7000; 8000; 9000; 10000; 11000;\n 12000; 13000; 14000; 15000; 16000; 17000; 18000; 19000; 20000; 21000; 22000;\n 23000; 24000; 25000; 26000; 27000; 28000; 29000; 30000; 31000; 32000; 33000;\n 34000; 35000; 36000; 37000; 38000; 39000]\n'),
    ('let long_string = String.make 100 (Char.chr 97);;',
     'val long_string : string =\n  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"\n'),
    ('type long_record = { label : string; items : int list; pair : (int * string) option };;',
     'type long_record = {\n  label : string;\n  items : int list;\n  pair : (int * string) option;\n}\n'),
    ('let long_record = { label = "a fairly long name for the record"; items = List.init 25 (fun i -> i * i); pair = Some (42, "forty-two") };;',
     'val long_record : long_record =\n  {label = "a fairly long name for the record";\n   items =\n    [0; 1; 4; 9; 16; 25; 36; 49; 64; 81; 100; 121; 144; 169; 196; 225; 256;\n     289; 324; 361; 400; 441; 484; 529; 576];\n   pair = Some (42, "forty-two")}\n'),
    ('let wide_function (a : (int * string) list) (b : string option array) (c : float -> float) (d : char) = a;;',
     'val wide_function :\n  (int * string) list ->\n  string option array -> (float -> float) -> char -> (int * string) list =\n  <fun>\n'),
    ("module Wide = struct let merge (f : int -> 'a option -> 'b option -> 'c option) (x : 'a list) (y : 'b list) : 'c list = [] let x = 1 end;;",
     "module Wide :\n  sig\n    val merge :\n      (int -> 'a option -> 'b option -> 'c option) ->\n      'a list -> 'b list -> 'c list\n    val x : int\n  end\n"),
    ("module F (X : sig val n : int end) = struct let merge (f : int -> 'a option -> 'b option -> 'c option) (x : 'a list) (y : 'b list) : 'c list = [] end;;",
     "module F :\n  functor (X : sig val n : int end) ->\n    sig\n      val merge :\n        (int -> 'a option -> 'b option -> 'c option) ->\n        'a list -> 'b list -> 'c list\n    end\n"),
    ("module Deep = struct module Inner = struct let merge (f : int -> 'a option -> 'b option -> 'c option) (x : 'a list) (y : 'b list) (z : 'c list) : 'c list = [] end end;;",
     "module Deep :\n  sig\n    module Inner :\n      sig\n        val merge :\n          (int -> 'a option -> 'b option -> 'c option) ->\n          'a list -> 'b list -> 'c list -> 'c list\n      end\n  end\n"),
    # OCaml's print length: 300 values shown, then `...`; a long string cut
    ('List.init 300 (fun i -> i);;',
     '- : int list =\n[0; 1; 2; 3; 4; 5; 6; 7; 8; 9; 10; 11; 12; 13; 14; 15; 16; 17; 18; 19; 20;\n 21; 22; 23; 24; 25; 26; 27; 28; 29; 30; 31; 32; 33; 34; 35; 36; 37; 38; 39;\n 40; 41; 42; 43; 44; 45; 46; 47; 48; 49; 50; 51; 52; 53; 54; 55; 56; 57; 58;\n 59; 60; 61; 62; 63; 64; 65; 66; 67; 68; 69; 70; 71; 72; 73; 74; 75; 76; 77;\n 78; 79; 80; 81; 82; 83; 84; 85; 86; 87; 88; 89; 90; 91; 92; 93; 94; 95; 96;\n 97; 98; 99; 100; 101; 102; 103; 104; 105; 106; 107; 108; 109; 110; 111; 112;\n 113; 114; 115; 116; 117; 118; 119; 120; 121; 122; 123; 124; 125; 126; 127;\n 128; 129; 130; 131; 132; 133; 134; 135; 136; 137; 138; 139; 140; 141; 142;\n 143; 144; 145; 146; 147; 148; 149; 150; 151; 152; 153; 154; 155; 156; 157;\n 158; 159; 160; 161; 162; 163; 164; 165; 166; 167; 168; 169; 170; 171; 172;\n 173; 174; 175; 176; 177; 178; 179; 180; 181; 182; 183; 184; 185; 186; 187;\n 188; 189; 190; 191; 192; 193; 194; 195; 196; 197; 198; 199; 200; 201; 202;\n 203; 204; 205; 206; 207; 208; 209; 210; 211; 212; 213; 214; 215; 216; 217;\n 218; 219; 220; 221; 222; 223; 224; 225; 226; 227; 228; 229; 230; 231; 232;\n 233; 234; 235; 236; 237; 238; 239; 240; 241; 242; 243; 244; 245; 246; 247;\n 248; 249; 250; 251; 252; 253; 254; 255; 256; 257; 258; 259; 260; 261; 262;\n 263; 264; 265; 266; 267; 268; 269; 270; 271; 272; 273; 274; 275; 276; 277;\n 278; 279; 280; 281; 282; 283; 284; 285; 286; 287; 288; 289; 290; 291; 292;\n 293; 294; 295; 296; 297; 298; ...]\n'),
    ('String.make 400 (Char.chr 97);;',
     '- : string =\n"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"... (* string length 400; truncated *)\n'),
    ('(List.init 299 (fun i -> i), 5);;',
     '- : int list * int =\n([0; 1; 2; 3; 4; 5; 6; 7; 8; 9; 10; 11; 12; 13; 14; 15; 16; 17; 18; 19; 20;\n  21; 22; 23; 24; 25; 26; 27; 28; 29; 30; 31; 32; 33; 34; 35; 36; 37; 38; 39;\n  40; 41; 42; 43; 44; 45; 46; 47; 48; 49; 50; 51; 52; 53; 54; 55; 56; 57; 58;\n  59; 60; 61; 62; 63; 64; 65; 66; 67; 68; 69; 70; 71; 72; 73; 74; 75; 76; 77;\n  78; 79; 80; 81; 82; 83; 84; 85; 86; 87; 88; 89; 90; 91; 92; 93; 94; 95; 96;\n  97; 98; 99; 100; 101; 102; 103; 104; 105; 106; 107; 108; 109; 110; 111;\n  112; 113; 114; 115; 116; 117; 118; 119; 120; 121; 122; 123; 124; 125; 126;\n  127; 128; 129; 130; 131; 132; 133; 134; 135; 136; 137; 138; 139; 140; 141;\n  142; 143; 144; 145; 146; 147; 148; 149; 150; 151; 152; 153; 154; 155; 156;\n  157; 158; 159; 160; 161; 162; 163; 164; 165; 166; 167; 168; 169; 170; 171;\n  172; 173; 174; 175; 176; 177; 178; 179; 180; 181; 182; 183; 184; 185; 186;\n  187; 188; 189; 190; 191; 192; 193; 194; 195; 196; 197; 198; 199; 200; 201;\n  202; 203; 204; 205; 206; 207; 208; 209; 210; 211; 212; 213; 214; 215; 216;\n  217; 218; 219; 220; 221; 222; 223; 224; 225; 226; 227; 228; 229; 230; 231;\n  232; 233; 234; 235; 236; 237; 238; 239; 240; 241; 242; 243; 244; 245; 246;\n  247; 248; 249; 250; 251; 252; 253; 254; 255; 256; 257; 258; 259; 260; 261;\n  262; 263; 264; 265; 266; 267; 268; 269; 270; 271; 272; 273; 274; 275; 276;\n  277; 278; 279; 280; 281; 282; 283; 284; 285; 286; 287; 288; 289; 290; 291;\n  292; 293; 294; 295; 296; 297; ...],\n ...)\n'),
    ('type steps_record = { sa : int list; sb : int; sc : string };;',
     'type steps_record = { sa : int list; sb : int; sc : string; }\n'),
    ('{ sa = List.init 298 (fun i -> i); sb = 1; sc = "x" };;',
     '- : steps_record =\n{sa =\n  [0; 1; 2; 3; 4; 5; 6; 7; 8; 9; 10; 11; 12; 13; 14; 15; 16; 17; 18; 19; 20;\n   21; 22; 23; 24; 25; 26; 27; 28; 29; 30; 31; 32; 33; 34; 35; 36; 37; 38;\n   39; 40; 41; 42; 43; 44; 45; 46; 47; 48; 49; 50; 51; 52; 53; 54; 55; 56;\n   57; 58; 59; 60; 61; 62; 63; 64; 65; 66; 67; 68; 69; 70; 71; 72; 73; 74;\n   75; 76; 77; 78; 79; 80; 81; 82; 83; 84; 85; 86; 87; 88; 89; 90; 91; 92;\n   93; 94; 95; 96; 97; 98; 99; 100; 101; 102; 103; 104; 105; 106; 107; 108;\n   109; 110; 111; 112; 113; 114; 115; 116; 117; 118; 119; 120; 121; 122; 123;\n   124; 125; 126; 127; 128; 129; 130; 131; 132; 133; 134; 135; 136; 137; 138;\n   139; 140; 141; 142; 143; 144; 145; 146; 147; 148; 149; 150; 151; 152; 153;\n   154; 155; 156; 157; 158; 159; 160; 161; 162; 163; 164; 165; 166; 167; 168;\n   169; 170; 171; 172; 173; 174; 175; 176; 177; 178; 179; 180; 181; 182; 183;\n   184; 185; 186; 187; 188; 189; 190; 191; 192; 193; 194; 195; 196; 197; 198;\n   199; 200; 201; 202; 203; 204; 205; 206; 207; 208; 209; 210; 211; 212; 213;\n   214; 215; 216; 217; 218; 219; 220; 221; 222; 223; 224; 225; 226; 227; 228;\n   229; 230; 231; 232; 233; 234; 235; 236; 237; 238; 239; 240; 241; 242; 243;\n   244; 245; 246; 247; 248; 249; 250; 251; 252; 253; 254; 255; 256; 257; 258;\n   259; 260; 261; 262; 263; 264; 265; 266; 267; 268; 269; 270; 271; 272; 273;\n   274; 275; 276; 277; 278; 279; 280; 281; 282; 283; 284; 285; 286; 287; 288;\n   289; 290; 291; 292; 293; 294; 295; 296; 297];\n sb = ...; sc = ...}\n'),
    ("open Qm;;", ""),  # (last: it opens Qm for what follows)
    ("[B 5; Qm.A];;", "- : Qm.t list = [B 5; A]\n"),
]


@pytest.fixture(scope="module")
def transcript() -> list[str]:
    session = Session()
    return [session.phrase(phrase) for phrase, _ in PHRASES]


@pytest.mark.parametrize("index", range(len(PHRASES)), ids=[p for p, _ in PHRASES])
def test_each_phrase_is_answered_as_the_ocaml_toplevel_answers_it(transcript, index):
    assert transcript[index] == PHRASES[index][1]


@pytest.mark.skipif(shutil.which("ocaml") is None, reason="the OCaml toplevel is not installed")
def test_the_expected_answers_are_ocamls_own():
    """Each answer above, checked against `ocaml` on the same phrases: a separator printed
    between phrases splits its output."""
    separator = "cpsc-test-separator"
    script = "".join(f"{phrase}\nprint_string \"{separator}\\n\";;\n" for phrase, _ in PHRASES)
    done = subprocess.run(["ocaml", "-noprompt", "-color=never"], input=script, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=60)
    output = done.stdout.split("\n", 2)[2]  # after OCaml's banner
    answers = output.split(f"{separator}\n- : unit = ()\n")
    assert answers[:len(PHRASES)] == [expected for _, expected in PHRASES]


def test_a_structure_given_to_a_functor_is_no_module_of_the_session():
    session = Session()
    session.phrase("module type S = sig type t val x : t end;;")
    session.phrase("module F (X : S) = struct let y = X.x let z = 3 end;;")
    answer = session.phrase("module A = F (struct type t = int let x = 4 end);;")
    assert answer == "module A : sig val y : int val z : int end\n"  # as OCaml's toplevel answers


def test_a_functor_inside_a_module_does_not_split_its_report():
    session = Session()
    session.phrase("module type S = sig type t end;;")
    answer = session.phrase("module M = struct let x = 1 module F (X : S) = struct let z = 0 end let y = 2 end;;")
    assert answer.count("module M") == 1 and "val x : int" in answer and "val y : int" in answer


def test_what_a_session_knows_is_shown_in_a_bounded_text():
    """A failing phrase's report shows the values in its traceback (pytest shows arguments):
    scopes and functors share one another, so a structural `repr` would double with each
    functor declared and exhaust the memory."""
    session = Session()
    session.phrase("module type S = sig type t end;;")
    for index in range(30):
        session.phrase(f"module F{index} (X : S) = struct type t = X.t let n = {index} end;;")
        session.phrase(f"module A{index} = F{index} (struct type t = int end);;")
    assert len(repr(session.toplevel.module_scope)) < 10_000


def test_an_inline_record_is_declared_after_a_module():
    session = Session()
    session.phrase("module P = struct let a = 1 end;;")
    assert session.phrase("type u = In of { x : int } | Out;;") == "type u = In of { x : int; } | Out\n"
    assert session.phrase("match In { x = 2 } with In r -> r.x | Out -> 0;;") == "- : int = 2\n"

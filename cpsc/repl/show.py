"""FL source of functions that show a value as OCaml's toplevel does (`[1; 2; 3]`, `Some (-1)`,
`{contents = 3}`, `<fun>`), generated from the value's type.

The printers are FL code, not Python reading an interpreter's values, so that every level
(the AST, CPS and SSA interpreters, native code) shows a value the same way, and `:run` can
compare them. Each printer is a function `bool -> t -> string`; the flag asks for parentheses
around a value that needs them as a constructor's argument (`Some (Some 1)`, `Some (-1)`).
The string is laid out as OCaml's toplevel lays a value out (`Oprint`): it holds the boxes and
break hints of `cpsc.types.types.layout`, which `cpsc__show_layout` gives Format, so that a
long value is broken over lines as OCaml breaks it.
"""

from __future__ import annotations

import re
from typing import Any, Union

from cpsc.elaborate.modules import FunctorValue, Scope, signature_items
from cpsc.syntax import ast
from cpsc.syntax import module_ast as m
from cpsc.syntax.diagnostics import CompileError
from cpsc.syntax.rules.parts import written_name
from cpsc.types.datatypes import DataType, DataTypes, display_name
from cpsc.types.types import TCon, TVar, Type, is_arrow, one_line, resolve, show

PREFIX = "cpsc__show"

# Printers of the base types, declared once before the generated ones.
# The layout's marks (`cpsc.types.types.BOX`...) as FL writes them in a string literal
OPEN0, OPEN1, OPEN2, CLOSE, BREAK = "\\001\\016", "\\001\\017", "\\001\\018", "\\002", "\\003"

BASE_PRINTERS = f"""
(* a layout (boxes and break hints) given to Format, on one line if it fits in the margin *)
let {PREFIX}_layout formatter s =
  let n = String.length s in
  let text i j = if j > i then Format.pp_print_string formatter (String.sub s i (j - i)) in
  let rec go start i =
    if i >= n then text start i
    else match s.[i] with
      | '\001' -> text start i; Format.pp_open_box formatter (Char.code s.[i + 1] - 16); go (i + 2) (i + 2)
      | '\002' -> text start i; Format.pp_close_box formatter (); go (i + 1) (i + 1)
      | '\003' -> text start i; Format.pp_print_space formatter (); go (i + 1) (i + 1)
      | _ -> go start (i + 1) in
  go 0 0; Format.pp_print_newline formatter ()
let {PREFIX}_lines s = List.iter ({PREFIX}_layout Format.std_formatter) (String.split_on_char '\\n' s)
let {PREFIX}_paren p s = if p then "{OPEN1}(" ^ s ^ "){CLOSE}" else s
let {PREFIX}_int p n = if n < 0 then {PREFIX}_paren p (string_of_int n) else string_of_int n
let {PREFIX}_float p f =
  let s =
    if f <> f then "nan"
    else if f = 1. /. 0. then "infinity"
    else if f = -1. /. 0. then "neg_infinity"
    else
      let s12 = Printf.sprintf "%.12g" f in
      if float_of_string s12 = f then s12
      else
        let s15 = Printf.sprintf "%.15g" f in
        if float_of_string s15 = f then s15 else Printf.sprintf "%.18g" f in
  let rec plain i =
    i >= String.length s || (match s.[i] with '.' | 'e' | 'n' | 'i' -> false | _ -> plain (i + 1)) in
  let s = if plain 0 then s ^ "." else s in
  if s.[0] = '-' then {PREFIX}_paren p s else s
(* as OCaml's toplevel (its print length, 300, and depth, 100): each value shown takes a step,
   and a value inside another (an item, an element, an argument, a field) is one level deeper;
   once the steps are spent, or below the depth, a value is `...`, which ends the list or tuple
   it is in (a record field is `...` alone); a string is cut. The depth also ends a cyclic
   value other than a list (its cycle unrolled). *)
let {PREFIX}_print_length = ref 300  (* #print_length *)
let {PREFIX}_print_depth = ref 100  (* #print_depth *)
let {PREFIX}_steps = ref 300
let {PREFIX}_depth = ref 100
let {PREFIX}_step show p v =
  decr {PREFIX}_steps;
  if !{PREFIX}_steps < 0 || !{PREFIX}_depth < 0 then "..."
  else (decr {PREFIX}_depth; let s = show p v in incr {PREFIX}_depth; s)
let {PREFIX}_top show v =
  {PREFIX}_steps := !{PREFIX}_print_length; {PREFIX}_depth := !{PREFIX}_print_depth; {PREFIX}_step show false v
let {PREFIX}_in_order shows = List.map (fun show -> show ()) shows  (* (the steps counted left to right) *)
let {PREFIX}_cut items =
  let rec go shown items = match items with
    | [] -> List.rev shown
    | "..." :: _ -> List.rev ("..." :: shown)
    | item :: rest -> go (item :: shown) rest in
  go [] items
let {PREFIX}_tuple items = "{OPEN1}(" ^ String.concat ",{BREAK}" ({PREFIX}_cut items) ^ "){CLOSE}"
let {PREFIX}_record fields =  (* (each field's value is `...` of its own, as OCaml's) *)
  let shown = List.map (fun (name, v) -> "{OPEN1}" ^ name ^ "{BREAK}={BREAK}" ^ v ^ "{CLOSE}") fields in
  "{OPEN1}{{" ^ String.concat ";{BREAK}" shown ^ "}}{CLOSE}"
let {PREFIX}_string prefix s =
  let n = String.length s and most = max !{PREFIX}_steps 8 in
  if n <= most then prefix ^ Printf.sprintf "%S" s
  else prefix ^ Printf.sprintf "%S... (* string length %d; truncated *)" (String.sub s 0 most) n
let {PREFIX}_items show l =
  (* a cyclic list (`let rec l = 1 :: l`) ends where a cell comes again, as OCaml shows it *)
  let rec cyclic slow fast = match fast with
    | _ :: _ :: fast' -> let slow' = List.tl slow in slow' == fast' || cyclic slow' fast'
    | _ -> false in
  let is_cyclic = cyclic l l in
  let rec upto seen shown l = match l with
    | [] -> List.rev shown
    | x :: rest ->
      if is_cyclic && List.exists (fun cell -> cell == l) seen then List.rev ("<cycle>" :: shown)
      else
        let item = {PREFIX}_step show false x in
        if item = "..." then List.rev (item :: shown)
        else upto (if is_cyclic then l :: seen else seen) (item :: shown) rest in
  String.concat ";{BREAK}" (upto [] [] l)
let {PREFIX}_exn_hook = ref (fun (_ : bool) (e : exn) -> Printexc.to_string e)
let {PREFIX}_exn p e =
  match e with
  | Failure s -> {PREFIX}_paren p ("{OPEN1}Failure{BREAK}" ^ {PREFIX}_step {PREFIX}_string "" s ^ "{CLOSE}")
  | Invalid_argument s -> {PREFIX}_paren p ("{OPEN1}Invalid_argument{BREAK}" ^ {PREFIX}_step {PREFIX}_string "" s ^ "{CLOSE}")
  | Not_found -> "Not_found"
  | Division_by_zero -> "Division_by_zero"
  | End_of_file -> "End_of_file"
  | Exit -> "Stdlib.Exit"
  | Stack.Empty -> "Stdlib.Stack.Empty"
  | Queue.Empty -> "Stdlib.Queue.Empty"
  | Stack_overflow -> "Stack_overflow"
  | Out_of_memory -> "Out_of_memory"
  | Match_failure (f, l, c) -> {PREFIX}_paren p (Printf.sprintf "{OPEN1}Match_failure{BREAK}{OPEN1}(%S,{BREAK}%d,{BREAK}%d){CLOSE}{CLOSE}" f l c)
  | Assert_failure (f, l, c) -> {PREFIX}_paren p (Printf.sprintf "{OPEN1}Assert_failure{BREAK}{OPEN1}(%S,{BREAK}%d,{BREAK}%d){CLOSE}{CLOSE}" f l c)
  | _ -> !{PREFIX}_exn_hook p e
let {PREFIX}_guard f =
  try f () with e -> ({PREFIX}_layout Format.err_formatter ("{OPEN0}Exception:{BREAK}" ^ {PREFIX}_top {PREFIX}_exn e ^ ".{CLOSE}"); exit 2)
"""

_SIMPLE = {
    "int": f"{PREFIX}_int",
    "float": f"{PREFIX}_float",
    "bool": "(fun _ b -> string_of_bool b)",
    "char": '(fun _ c -> Printf.sprintf "%C" c)',
    "string": f'(fun _ s -> {PREFIX}_string "" s)',
    "unit": '(fun _ () -> "()")',
    "->": '(fun _ _ -> "<fun>")',
    "exn": f"{PREFIX}_exn",
}


class ValuePrinters:
    """Printers for the types asked for, as FL expressions; `declarations()` is the FL source of
    the named (recursive) printers they use, to put before them."""

    def __init__(self, datatypes: DataTypes, visible: dict[str, str] | None = None) -> None:
        self.datatypes = datatypes
        # the constructors the session names without their module (`open M`): short -> whole name
        self.visible = visible or {}
        self.named: dict[str, str] = {}  # shown type -> printer name
        self.bodies: list[str] = []

    def printer(self, t: Type) -> str:
        t = resolve(t)
        if isinstance(t, TVar):
            return '(fun _ _ -> "<poly>")'
        name = "->" if is_arrow(t) else t.name  # a labelled function is shown as any other
        if name in _SIMPLE:
            return _SIMPLE[name]
        key = show(t)
        if t.name == "lazy_t":  # as OCaml's toplevel: forced or not
            shown = self.printer(t.args[0])
            return (f'(fun p l -> match l.fl_lazy with Fl_forced v -> {PREFIX}_paren p ("{OPEN1}lazy{BREAK}" ^ '
                    f'{shown} true v ^ "{CLOSE}") | _ -> "<lazy>")')
        if key in ast.INTEGER_SUFFIXES:  # abstract, but OCaml's toplevel shows them: 5L
            module = {"int32": "Int32", "int64": "Int64", "nativeint": "Nativeint"}[key]
            return f'(fun _ v -> string_of_int ({module}.to_int v) ^ "{ast.INTEGER_SUFFIXES[key]}")'
        if key == "bytes":  # abstract, but OCaml's toplevel shows it
            return f'(fun p b -> {PREFIX}_paren p ({PREFIX}_string "Bytes.of_string " (Bytes.to_string b)))'
        if key not in self.named and self.datatypes.irregular(t) is not None:
            return '(fun _ _ -> "<non-regular>")'  # its printers would be infinitely many, one per type
        if key not in self.named:
            self.named[key] = f"{PREFIX}_{len(self.named)}"
            self.bodies.append(f"{self.named[key]} p v = {self._body(t)}")
        return self.named[key]

    def exception_hook(self, constructor: str, args: tuple[Type, ...], shown: str = "") -> str:
        """FL that teaches the exn printer the exception `constructor` just declared (its
        source name, `M.E` in a module; a local exception's is `shown`): the exn type is
        open, so each declaration adds a case in front of the printer it had."""
        case = self._case(constructor, list(args), "", shown)
        return (f"let () = let {PREFIX}_before = !{PREFIX}_exn_hook in {PREFIX}_exn_hook := "
                f"(fun p v -> match v with {case} | _ -> {PREFIX}_before p v)\n")

    def declarations(self) -> str:
        return ("let rec " + "\nand ".join(self.bodies) + "\n") if self.bodies else ""

    def _body(self, t: TCon) -> str:
        if t.name == "*":
            names = [f"x{i}" for i in range(len(t.args))]
            shown = "; ".join(f"(fun () -> {PREFIX}_step {self.printer(a)} false {n})" for a, n in zip(t.args, names))
            return f'let ({", ".join(names)}) = v in {PREFIX}_tuple ({PREFIX}_in_order [{shown}])'
        if t.name == "list":
            return f'"{OPEN1}[" ^ {PREFIX}_items {self.printer(t.args[0])} v ^ "]{CLOSE}"'
        if t.name == "array":
            return f'"{OPEN2}[|" ^ {PREFIX}_items {self.printer(t.args[0])} (Array.to_list v) ^ "|]{CLOSE}"'
        datatype = self.datatypes.types.get(t.name)
        if datatype is None or not _printable(datatype):
            return '"<abstr>"'
        substitution = dict(zip(datatype.params, t.args))
        if datatype.is_record:
            fields = [(f.name, self.printer(_instance(f.type, substitution))) for f in datatype.fields]
            pattern = "; ".join(f"{name} = x{i}" for i, (name, _) in enumerate(fields))
            labels = "; ".join(f'"{name}"' for name, _ in fields)
            shown = "; ".join(f"(fun () -> {PREFIX}_step {p} false x{i})" for i, (_, p) in enumerate(fields))
            return f'match v with {{{pattern}}} -> {PREFIX}_record (List.combine [{labels}] ({PREFIX}_in_order [{shown}]))'
        return "match v with " + " | ".join(self._case(c.name, [_instance(a, substitution) for a in c.args],
                                                        _qualifier(datatype.name))
                                            for c in datatype.constructors)

    def _case(self, name: str, args: list[Type], qualifier: str, shown: str = "") -> str:
        constructor = qualifier + name
        # a module's constructor by its path (`M.B 3`), unless the session sees it without one
        name = shown or (name if self.visible.get(name) == constructor else constructor)
        if not args:
            return f'{constructor} -> "{name}"'
        names = [f"x{i}" for i in range(len(args))]
        if len(args) == 1:
            return (f'{constructor} x0 -> {PREFIX}_paren p ("{OPEN1}{name}{BREAK}" ^ {PREFIX}_step {self.printer(args[0])} true x0 '
                    f'^ "{CLOSE}")')
        shown = "; ".join(f"(fun () -> {PREFIX}_step {self.printer(a)} false {n})" for a, n in zip(args, names))
        return (f'{constructor} ({", ".join(names)}) -> {PREFIX}_paren p ("{OPEN1}{name}{BREAK}(" ^ '
                f'String.concat ",{BREAK}" ({PREFIX}_cut ({PREFIX}_in_order [{shown}])) ^ "){CLOSE}")')


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_']*")


def value_name(name: str) -> str:
    """A value's name as OCaml writes it: an operator in parentheses (`( +! )`, `( let* )`)."""
    return name if _IDENTIFIER.fullmatch(name) else f"( {written_name(name)} )"


def _printable(datatype: DataType) -> bool:
    """Types whose constructors or fields the program can name: the user's own, and the
    prelude's that OCaml shows (the others, as Hashtbl's, are abstract)."""
    return not datatype.name.startswith(("fl_", "Fl_")) and datatype.name not in _ABSTRACT


# the prelude's types that OCaml's library declares abstract, though FL's are not
_ABSTRACT = frozenset({"out_channel", "in_channel", "Format.formatter", "Format.symbolic_output_buffer", "format6"})


def _qualifier(type_name: str) -> str:
    """`M.` for a type declared in module M (constructors are named through it)."""
    head, _, _ = type_name.split("/")[0].rpartition(".")
    return head + "." if head else ""


def _instance(t: Type, substitution: dict[str, Type]) -> Type:
    """A constructor's or field's type (in terms of the type's parameters `'a`) at `t`'s arguments."""
    t = resolve(t)
    if isinstance(t, TVar):
        return t
    if t.name in substitution and not t.args:
        return substitution[t.name]
    return TCon(t.name, tuple(_instance(a, substitution) for a in t.args))


# ---------------------------------------------------------------------- declarations as OCaml shows them

MARGIN = 80


def type_expr(t: ast.TypeExpr, precedence: int = 0) -> str:
    """A type expression in OCaml's notation: `int list`, `(int, string) assoc`, `int -> int`."""
    if isinstance(t, ast.TyVar):
        return t.name
    if isinstance(t, ast.TyArrow):
        text = f"{type_expr(t.param, 1)} -> {type_expr(t.result, 0)}"
        return f"({text})" if precedence > 0 else text
    if isinstance(t, ast.TyTuple):
        text = " * ".join(type_expr(item, 2) for item in t.items)
        return f"({text})" if precedence > 1 else text
    return _applied([type_expr(a, 2 if len(t.args) == 1 else 0) for a in t.args], display_name(t.name))


def _applied(args: list[str], name: str) -> str:
    if not args:
        return name
    return f"{args[0]} {name}" if len(args) == 1 else f"({', '.join(args)}) {name}"


def _constructor(c: ast.ConstructorDecl, records: dict[str, ast.TypeDef] | None = None) -> str:
    if records and len(c.args) == 1 and isinstance(c.args[0], ast.TyName) and c.args[0].name in records:
        return f"{c.name} of {_fields(records[c.args[0].name])}"  # an inline record
    return c.name + (" of " + " * ".join(type_expr(a, 2) for a in c.args) if c.args else "")


def _fields(record: ast.TypeDef) -> str:
    return f"{{ {' '.join(_field_items(record))} }}"


def _field_items(record: ast.TypeDef) -> list[str]:
    return [("mutable " if f.mutable else "") + f"{f.name} : {type_expr(f.type)};" for f in record.fields]


def _type_definition(keyword: str, d: ast.TypeDef, indent: str, records: dict[str, ast.TypeDef] | None = None) -> str:
    head = f"{keyword} {_applied(list(d.params), display_name(d.name))} =" + (" private" if d.private else "")
    if d.abbreviation is not None:
        return f"{head} {type_expr(d.abbreviation)}"
    if d.fields:
        fields = _field_items(d)
        line = f"{head} {{ {' '.join(fields)} }}"
        if len(indent) + len(line) <= MARGIN:
            return line
        return f"{head} {{\n" + "".join(f"{indent}  {f}\n" for f in fields) + f"{indent}}}"
    line = f"{head} " + " | ".join(_constructor(c, records) for c in d.constructors)
    if len(indent) + len(line) <= MARGIN:
        return line
    first, *rest = d.constructors
    return (f"{head}\n{indent}    {_constructor(first, records)}"
            + "".join(f"\n{indent}  | {_constructor(c, records)}" for c in rest))


def type_declaration(decl: ast.TypeDecl, indent: str = "") -> str:
    """`type t = A | B` (then `and u = ...` on lines of their own), broken as OCaml's
    toplevel breaks a declaration longer than its margin; an inline record (the parser's
    type `t.C`) inside its constructor, `C of { x : int; }`."""
    records = {d.name: d for d in decl.definitions if d.fields and _is_inline(d, decl)}
    definitions = [d for d in decl.definitions if d.name not in records]
    return f"\n{indent}".join(_type_definition("type" if i == 0 else "and", d, indent, records)
                              for i, d in enumerate(definitions))


def _is_inline(record: ast.TypeDef, decl: ast.TypeDecl) -> bool:
    """Whether `record` is the record of an inline record of a variant of `decl` (the parser
    names it after the variant and the constructor: `t.C`)."""
    return any(len(c.args) == 1 and isinstance(c.args[0], ast.TyName) and c.args[0].name == record.name
               and display_name(record.name).endswith(f"{display_name(d.name).rpartition('.')[2]}.{c.name}")
               for d in decl.definitions for c in d.constructors)




def exception_declaration(decl: ast.ExceptionDecl) -> str:
    return "exception " + _constructor(ast.ConstructorDecl(decl.name, decl.args, decl.span))


# The longest line OCaml's toplevel writes a signature on (its margin, 80, less what Format
# keeps for the box it closes)
SIGNATURE_LINE = 77

# An item of a signature being shown: its text, or a module's name and items
Member = Union[str, list]


def module_signature(name: str, members: list[Member], indent: int = 0) -> str:
    """`module M : sig val x : int end` at column `indent`; when that is too long, `sig ...
    end` on a line of its own; when that is too, one item a line (a member module laid out
    the same way, deeper)."""
    return _signature_block(f"module {name} :", [_member(member, indent + 4) for member in members], indent)


def _member(member: Member, indent: int) -> str:
    return member if isinstance(member, str) else module_signature(member[0], member[1], indent)


def _signature_block(head: str, items: list[str], indent: int) -> str:
    """`head sig ... end`, broken as OCaml breaks it (the first line at column `indent`)."""
    sig = f"sig {' '.join(one_line(item) for item in items)} end" if items else "sig end"
    flat = not any("\n" in item for item in items)
    if flat and indent + len(head) + 1 + len(sig) <= SIGNATURE_LINE:
        return f"{head} {sig}"
    inner = " " * (indent + 2)
    if flat and len(inner) + len(sig) <= SIGNATURE_LINE:
        return f"{head}\n{inner}{sig}"
    return f"{head}\n{inner}sig\n" + "".join(f"{inner}  {_item_lines(item, inner + '  ')}\n" for item in items) \
        + f"{inner}end"


def _item_lines(item: str, at: str) -> str:
    """A signature item at column `len(at)`: on one line if it fits, else as laid out (a value
    `@[<2>val x :@ t@]`, which Format breaks as OCaml's toplevel does, `cpsc__show_lines`)."""
    if "\n" in item or len(at) + len(one_line(item)) > SIGNATURE_LINE:
        return item
    return one_line(item)


def module_type_declaration(name: str, module_type: Any) -> str:
    """`module type S = sig ... end` (a `cpsc.syntax.module_ast.ModuleType`), broken as
    OCaml's toplevel breaks it when it is too long."""
    if isinstance(module_type, m.Signature):
        return _signature_block(f"module type {name} =", [_signature_item(item) for item in module_type.items], 0)
    return f"module type {name} = {module_type_text(module_type)}"


def functor_parameters(functor: FunctorValue) -> tuple[list[m.FunctorParameter], m.ModuleExpr]:
    """A (curried) functor's parameters and its body."""
    parameters, body = [functor.parameter], functor.body
    while isinstance(body, m.Functor):
        parameters.append(body.parameter)
        body = body.body
    return parameters, body


def result_signature(module_type: m.ModuleType, scope: Scope) -> str | list[Member]:
    """A functor's result signature as OCaml's toplevel shows it: a named one by its name, any
    other by its items (`with` constraints applied, includes expanded)."""
    if isinstance(module_type, m.ModuleTypePath):
        return module_type.path
    try:
        return [_signature_item(item) for item in signature_items(module_type, scope)]
    except CompileError:
        return module_type_text(module_type)


def functor_signature(name: str, parameters: list[m.FunctorParameter], result: str | list[Member],
                      indent: int = 0) -> str:
    """`module F : functor (X : S) (Y : T) -> sig ... end` at column `indent`, broken as
    OCaml's toplevel breaks it when it is too long: after the colon, then after the arrow,
    then as a signature is."""
    head = "functor " + " ".join(_parameter_text(p) for p in parameters) + " ->"
    at = " " * indent
    if isinstance(result, str):
        text = result
    else:
        items = [_member(member, indent + 6) for member in result]
        text = f"sig {' '.join(one_line(item) for item in items)} end" if items else "sig end"
        if "\n" in text:
            return (f"module {name} :\n{at}  {head}\n{at}    sig\n"
                    + "".join(f"{at}      {_item_lines(item, at + '      ')}\n" for item in items) + f"{at}    end")
    if indent + len(f"module {name} : {head} {text}") <= SIGNATURE_LINE:
        return f"module {name} : {head} {text}"
    if indent + len(f"  {head} {text}") <= SIGNATURE_LINE:
        return f"module {name} :\n{at}  {head} {text}"
    if isinstance(result, str) or indent + len(f"    {text}") <= SIGNATURE_LINE:
        return f"module {name} :\n{at}  {head}\n{at}    {text}"
    return (f"module {name} :\n{at}  {head}\n{at}    sig\n"
            + "".join(f"{at}      {_item_lines(item, at + '      ')}\n" for item in items) + f"{at}    end")


def _parameter_text(parameter: m.FunctorParameter) -> str:
    """`(X : S)`, or `()` for a generative functor's."""
    return "()" if parameter.name == m.GENERATIVE else f"({parameter.name} : {module_type_text(parameter.type)})"


def module_type_text(module_type: Any) -> str:
    """A module type on one line: `S`, `S with type t = int`, `functor (X : S) -> T`, `sig ... end`."""
    if isinstance(module_type, m.ModuleTypePath):
        return module_type.path
    if isinstance(module_type, m.ModuleTypeWith):
        constraints = " and ".join(f"type {_applied(list(c.params), c.path)} = {type_expr(c.type)}"
                                   if isinstance(c, m.WithType) else f"module {c.path} = {c.module}"
                                   for c in module_type.constraints)
        return f"{module_type_text(module_type.base)} with {constraints}"
    if isinstance(module_type, m.FunctorType):
        parameter = module_type.parameter
        return f"functor {_parameter_text(parameter)} -> {module_type_text(module_type.result)}"
    items = [_signature_item(item) for item in module_type.items]
    return f"sig {' '.join(items)} end" if items else "sig end"


def _signature_item(item: Any) -> str:
    if isinstance(item, m.SigVal):
        return f"val {value_name(item.name)} : {type_expr(item.type)}"
    if isinstance(item, m.SigType):
        return "\n    ".join(f"{'type' if i == 0 else 'and'} {_applied(list(d.params), d.name)}"
                              if d.name in item.abstract else _type_definition("type" if i == 0 else "and", d, "    ")
                              for i, d in enumerate(item.declaration.definitions))
    if isinstance(item, m.SigException):
        return exception_declaration(item.declaration)
    if isinstance(item, m.SigModule):
        return f"module {item.name} : {module_type_text(item.type)}"
    if isinstance(item, m.SigModuleType):
        return f"module type {item.name} = {module_type_text(item.type)}"
    return f"include {module_type_text(item.type)}"

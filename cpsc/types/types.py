"""Type terms. Type variables are union-find nodes with levels (Remy's generalisation)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Union

_ids = itertools.count()


class TVar:
    """A unification variable; `link` is set when it is bound (only during inference)."""

    __slots__ = ("id", "level", "link", "name")

    def __init__(self, level: int, name: str | None = None) -> None:
        self.id = next(_ids)
        self.level = level
        self.link: Type | None = None
        # the name a program wrote for it (`'elt` in `(x : 'elt)`), which OCaml prints it by
        self.name = name

    def __repr__(self) -> str:
        return f"TVar({self.id})" if self.link is None else repr(self.link)

    def __reduce__(self) -> tuple[Any, ...]:
        # Made again by the constructor: compiled by mypyc, a class is not made without it.
        # (The cached prelude's variables get fresh ids anyway: `renumber`.)
        return _unpickled_variable, (self.level, self.link, self.name)


def _unpickled_variable(level: int, link: Type | None, name: str | None = None) -> TVar:
    variable = TVar(level, name)
    variable.link = link
    return variable


@dataclass(slots=True, unsafe_hash=True)  # not frozen, its own __init__: see cpsc.cps.ir
class TCon:
    """A type constructor: int, float, bool, char, string, unit, `->` (2 args), `*` (n args).
    `alias` is the abbreviation a type annotation named, of which this is the expansion
    (`u` of `type u = int * int`): the type is its expansion, and prints as the abbreviation, as
    OCaml's does."""

    name: str
    args: tuple[Type, ...] = ()
    alias: TCon | None = field(default=None, compare=False, repr=False)

    def __init__(self, name: str, args: tuple[Type, ...] = (), alias: TCon | None = None) -> None:
        self.name = name
        self.args = args
        self.alias = alias


Type = Union[TVar, TCon]

INT = TCon("int")
FLOAT = TCon("float")
BOOL = TCon("bool")
CHAR = TCon("char")
STRING = TCon("string")
UNIT = TCon("unit")
BASE_TYPES = {t.name: t for t in (INT, FLOAT, BOOL, CHAR, STRING, UNIT)}
EXN = TCon("exn")  # the open type of exceptions (blocks: identity, then arguments)
EXNID = TCon("exnid")  # an exception's identity (slot 0 of its values): an `ExceptionId` constant


def arrow(param: Type, result: Type, label: str = "") -> TCon:
    """`param -> result`; with a label, `x:param -> result` (label "~x") or `?x:t -> result`
    (label "?x", param the option type `t option` its function receives)."""
    return TCon(label or "->", (param, result))


def is_arrow(t: TCon) -> bool:
    """A function type, labelled or not: only `->`, `~x` and `?x` are named so."""
    return t.name == "->" or t.name[0] in "~?"


def arrow_label(t: TCon) -> str:
    return "" if t.name == "->" else t.name


def tuple_type(items: list[Type] | tuple[Type, ...]) -> TCon:
    return TCon("*", tuple(items))


def resolve(t: Type) -> Type:
    """Follow links (with path compression)."""
    while isinstance(t, TVar) and t.link is not None:
        if isinstance(t.link, TVar) and t.link.link is not None:
            t.link = t.link.link
        t = t.link
    return t


# The prelude's types that OCaml's library declares in its modules, by OCaml's names (the
# prelude declares them outside, `fl_`-prefixed, so that a program's own `t` stays its own).
LIBRARY_TYPE_NAMES = {"fl_hashtbl": "Hashtbl.t", "fl_stack": "Stack.t", "fl_queue": "Queue.t", "fl_stream": "Stream.t",
                      "fl_buffer": "Buffer.t", "Bytes.t": "bytes", "Int32.t": "int32", "Int64.t": "int64",
                      "Nativeint.t": "nativeint"}


# A type laid out for Format (`layout`): text with boxes and break hints, as OCaml's printer of
# types (Oprint) lays it out; `show` is the same on one line.
BOX = "\x01"  # followed by the box's indentation n as the character 16 + n: `@[<n>`
CLOSE = "\x02"  # `@]`
BREAK = "\x03"  # `@ `
BOX0, BOX1, BOX2 = (BOX + chr(16 + n) for n in range(3))  # (not a digit: a regular expression's \w)
_LAYOUT = re.compile("\x01.|\x02|\x03", re.DOTALL)


def show(t: Type, names: dict[int, str] | None = None) -> str:
    """Print a type in OCaml's notation: a variable by the name the program wrote for it, the
    others 'a, 'b, ... in order of appearance, skipping the names taken."""
    return one_line(layout(t, names))


def one_line(text: str) -> str:
    """A layout's text on one line."""
    return _LAYOUT.sub(lambda m: " " if m.group() == BREAK else "", text)


def layout(t: Type, names: dict[int, str] | None = None) -> str:
    """`show`'s text with OCaml's boxes and break hints (see `BOX`)."""
    names = {} if names is None else names
    for variable in type_variables([t]):
        written = f"'{variable.name}" if variable.name is not None else None
        if variable.id not in names and written is not None and written not in names.values():
            names[variable.id] = written
    taken = set(names.values())

    def fresh_name() -> str:
        index = 0
        while "'" + _var_name(index) in taken:
            index += 1
        taken.add("'" + _var_name(index))
        return "'" + _var_name(index)

    def constructor(args: list[str], name: str) -> str:
        if not args:
            return f"{BOX0}{name}{CLOSE}"
        if len(args) == 1:
            return f"{BOX0}{args[0]}{BREAK}{name}{CLOSE}"
        return f"{BOX0}{BOX1}({f',{BREAK}'.join(args)}){CLOSE}{BREAK}{name}{CLOSE}"

    def go(t: Type, prec: int) -> str:
        """prec 0: any type; 1: an arrow's parameter (an arrow in parentheses); 2: simple."""
        t = resolve(t)
        if isinstance(t, TVar):
            if t.id not in names:
                names[t.id] = fresh_name()
            return names[t.id]
        if t.alias is not None:
            return go(t.alias, prec)
        if t.name == "->" and _is_seq(t):  # `'a Seq.t` abbreviates `unit -> 'a Seq.node`
            return constructor([go(resolve(t.args[1]).args[0], 2)], "Seq.t")  # type: ignore[union-attr]
        if is_arrow(t):
            text = f"{BOX0}{_label_text(t)}{go(_labelled_parameter(t), 1)} ->{BREAK}{go(t.args[1], 0)}{CLOSE}"
            return f"{BOX1}({text}){CLOSE}" if prec > 0 else text
        if t.name == "*":
            text = BOX0 + f" *{BREAK}".join(go(a, 2) for a in t.args) + CLOSE
            return f"{BOX1}({text}){CLOSE}" if prec > 1 else text
        name = t.name.split("/")[0]  # a redeclared type's internal name is `t/2`
        name = LIBRARY_TYPE_NAMES.get(name, name)
        args = list(t.args)
        if name == "format6":  # by its abbreviations where they fit, as the library declares them
            name, args = _format_abbreviation(args)
        return constructor([go(a, 2) if len(args) == 1 else go(a, 0) for a in args], name)

    return go(t, 0)


def show_expanded(t: Type, names: dict[int, str] | None = None) -> str:
    """A type as OCaml's type errors print it: an abbreviation with its expansion (`point =
    float * float`)."""
    t = resolve(t)
    if isinstance(t, TCon) and t.alias is not None:
        return f"{show(t, names)} = {show(TCon(t.name, t.args), names)}"
    return show(t, names)


def _format_abbreviation(args: list[Type]) -> tuple[str, list[Type]]:
    """`('a, 'b, 'c, 'c, 'c, 'd) format6` is `('a, 'b, 'c, 'd) format4`, and `('a, 'b, 'c)
    format` when 'd is 'c too."""
    a, b, c, d, e, f = (resolve(x) for x in args)
    if not (_same(c, d) and _same(c, e)):
        return "format6", args
    return ("format", [a, b, c]) if _same(c, f) else ("format4", [a, b, c, f])


def _same(x: Type, y: Type) -> bool:
    return x is y or isinstance(x, TCon) and isinstance(y, TCon) and x == y


def _label_text(t: TCon) -> str:
    return "" if t.name == "->" else (t.name[1:] if t.name[0] == "~" else t.name) + ":"


def _labelled_parameter(t: TCon) -> Type:
    """An optional parameter's type as OCaml prints it: `?x:int`, not `?x:int option`."""
    param = resolve(t.args[0])
    if t.name[0] == "?" and isinstance(param, TCon) and param.name == "option":
        return param.args[0]
    return param


def _is_seq(t: TCon) -> bool:
    param, result = resolve(t.args[0]), resolve(t.args[1])
    return (isinstance(param, TCon) and param.name == "unit" and isinstance(result, TCon)
            and result.name == "Seq.node")


def _var_name(index: int) -> str:
    letter = chr(ord("a") + index % 26)
    return letter if index < 26 else f"{letter}{index // 26}"


def type_variables(roots: Iterable[Type]) -> list[TVar]:
    """Every type variable reachable from `roots` (through links too), each once."""
    seen: set[int] = set()
    found: list[TVar] = []
    stack = list(roots)
    while stack:
        t = stack.pop()
        if isinstance(t, TVar):
            if id(t) not in seen:
                seen.add(id(t))
                found.append(t)
                if t.link is not None:
                    stack.append(t.link)
        else:
            stack.extend(t.args)
            if t.alias is not None:
                stack.append(t.alias)
    return found


def renumber(variables: Iterable[TVar]) -> None:
    """Give each type variable a fresh id. Ids key substitutions, so variables loaded from
    another process (the cached prelude) must not reuse this one's."""
    for t in variables:
        t.id = next(_ids)

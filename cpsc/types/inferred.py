"""What inference gives the later stages: `Typing` (the type of every node, the instances of
each polymorphic variable's occurrence), type schemes and the declarations in scope."""

from __future__ import annotations

from dataclasses import dataclass, field

from cpsc.syntax import ast
from cpsc.syntax.diagnostics import CompileError
from cpsc.types.datatypes import DataTypes, substitute
from cpsc.types.types import (
    BASE_TYPES,
    TCon,
    TVar,
    Type,
    resolve,
)

# The library's types by their qualified names (a program's modules declare theirs by their
# flat names, `M.t`: `cpsc.elaborate.modules`)
LIBRARY_TYPES = {"Hashtbl.t": "fl_hashtbl", "Array.t": "array", "List.t": "list", "String.t": "string",
                  "Char.t": "char", "Stdlib.ref": "ref", "Stdlib.option": "option", "Option.t": "option",
                  "Stdlib.result": "result", "Result.t": "result", "Int.t": "int", "Bool.t": "bool",
                  "Float.t": "float", "Stack.t": "fl_stack", "Queue.t": "fl_queue", "Buffer.t": "fl_buffer",
                  "Stream.t": "fl_stream"}


def unqualified_type_name(name: str) -> str:
    """The type a qualified name declares: the library's (`Hashtbl.t`) by their internal names,
    a program's modules' by their flat names, as written (`M.t`)."""
    return LIBRARY_TYPES.get(name, name)


@dataclass(frozen=True)
class Scheme:
    """`forall quantified. type`."""

    quantified: tuple[TVar, ...]
    type: Type


@dataclass
class Typing:
    """What inference learned: node types and instantiations, keyed by `id(node)`."""

    types: dict[int, Type] = field(default_factory=dict)
    # Var occurrence -> (scheme it refers to, the instance type of each quantified variable)
    instances: dict[int, tuple[Scheme, tuple[Type, ...]]] = field(default_factory=dict)
    # binding pattern id (PVar of a let) -> its scheme
    schemes: dict[int, Scheme] = field(default_factory=dict)
    # constructor (expression or pattern) -> its key in `DataTypes`
    constructors: dict[int, str] = field(default_factory=dict)
    # record, field access or record pattern -> the keys of its fields (in the order written)
    fields: dict[int, tuple[str, ...]] = field(default_factory=dict)
    # an abstract type a signature made (`ast.AbstractType`) -> its parameters and definition
    abstract: dict[str, tuple[tuple[str, ...], TCon]] = field(default_factory=dict)
    # an application with labels, or leaving out optional arguments (its outermost `ast.App`)
    # -> the same in positional order, which later stages see instead (`cpsc.types.labels`)
    positional: dict[int, ast.Expr] = field(default_factory=dict)
    # the modules whose values the program names (`List` for `List.map`), its own and the library's
    modules_named: set[str] = field(default_factory=set)
    warnings: list[CompileError] = field(default_factory=list)  # OCaml's warnings found by inference
    # the library's Int32.t, Int64.t, Nativeint.t and Bytes.t: internal name -> source name
    # (`cpsc.types.datatypes.hashed_apart`), which monomorphisation keeps apart from their
    # definitions for `Hashtbl.hash`; the first three are the types of patterns `5l`, `5L`, `5n`
    hashed_apart: dict[str, str] = field(default_factory=dict)

    def reveal(self, t: Type, only: frozenset[str] | None = None, kept: frozenset[str] = frozenset()) -> Type:
        """`t` with its abstract types replaced by their definitions (what later stages see), or
        just those named `only` (a module's own, seen from inside: the abstract types of the
        modules it uses stay abstract), but for those `kept`."""
        t = resolve(t)
        if isinstance(t, TVar):
            return t
        revealed = t.name in self.abstract and (only is None or t.name in only) and t.name not in kept
        if not t.args and not revealed:
            return t
        args = tuple(self.reveal(a, only, kept) for a in t.args)
        if revealed:
            params, definition = self.abstract[t.name]
            return self.reveal(substitute(definition, dict(zip(params, args))), only, kept)
        return TCon(t.name, args)


_BUILTIN_TYPES: dict[str, tuple[str, int]] = {name: (name, 0) for name in BASE_TYPES}
_BUILTIN_TYPES.update({"list": ("list", 1), "array": ("array", 1), "exn": ("exn", 0)})


@dataclass
class Declarations:
    """The type-level names in scope: type constructors (source name -> internal name, arity),
    abbreviations, and the constructors and record fields visible by source name."""

    datatypes: DataTypes = field(default_factory=DataTypes)
    type_names: dict[str, tuple[str, int]] = field(default_factory=lambda: dict(_BUILTIN_TYPES))
    abbreviations: dict[str, tuple[tuple[str, ...], ast.TypeExpr]] = field(default_factory=dict)
    constructors: dict[str, str] = field(default_factory=lambda: {"[]": "[]", "::": "::"})
    fields: dict[str, str] = field(default_factory=dict)
    # the exception declared last of each name (outside modules), for an `exn` expected where
    # a constructor of another type hides it (`Failure (Failure "x")` with `type t = Failure of exn`)
    exceptions: dict[str, str] = field(default_factory=dict)

    def copy(self) -> Declarations:
        return Declarations(self.datatypes.copy(), dict(self.type_names), dict(self.abbreviations),
                            dict(self.constructors), dict(self.fields), dict(self.exceptions))

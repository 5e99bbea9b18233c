"""Declared data types (variants and records) and the representation of their values.

The representation is the contract of every later stage (interpreters, CPS conversion, LLVM
lowering, runtime); `docs/representation.md` writes it down. In short:

- a constant constructor is an immediate: the `index`-th constant constructor of its type;
- a constructor with arguments is a heap block of one 8-byte slot per argument, preceded by a
  slot holding its tag (the `index`-th such constructor) only when its type has several of them
  (`tagged`): `x :: xs` and `Some x` need no tag;
- a record is a block of one slot per field, in declaration order; it is mutable when one of
  its fields is.

Type names are unique within a program: a type declared again under a name already used is
given the internal name `name/2` (printed as `name`), and the same for its constructors, so
later stages never confuse two types that the source calls alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from cpsc.semantics.builtins import EXCEPTION_FORMATS, ExceptionId, FlArray
from cpsc.types.types import INT, TCon, Type


@dataclass(frozen=True)
class ConstructorInfo:
    """`key` is the constructor's unique name (its source name, unless redeclared);
    `args` are the argument types in terms of the type's parameters (`TCon("'a")`)."""

    key: str
    name: str
    type_name: str
    args: tuple[Type, ...]
    index: int
    tagged: bool
    # An exception (a constructor of the open type `exn`): its identity, slot 0 of its values
    exception: ExceptionId | None = None

    @property
    def constant(self) -> bool:
        """Represented as an immediate (an exception never is: it is a block, its identity first)."""
        return not self.args and self.exception is None

    @property
    def offset(self) -> int:
        """The slot of the first argument."""
        return 1 if self.tagged or self.exception is not None else 0


@dataclass(frozen=True)
class FieldInfo:
    key: str  # `type_name.field`
    name: str
    type_name: str
    index: int
    mutable: bool
    type: Type


@dataclass(frozen=True)
class DataType:
    name: str
    params: tuple[str, ...]
    constructors: tuple[ConstructorInfo, ...] = ()
    fields: tuple[FieldInfo, ...] = ()

    @property
    def is_record(self) -> bool:
        return bool(self.fields)

    @property
    def mutable(self) -> bool:
        return any(f.mutable for f in self.fields)

    @property
    def constant_count(self) -> int:
        return sum(1 for c in self.constructors if c.constant)

    @property
    def block_count(self) -> int:
        return sum(1 for c in self.constructors if not c.constant)


def variant(name: str, params: tuple[str, ...], constructors: list[tuple[str, str, tuple[Type, ...]]]) -> DataType:
    """A variant type from (key, source name, argument types) in declaration order: constant
    and non-constant constructors are numbered separately, as OCaml does."""
    blocks = sum(1 for _, _, args in constructors if args)
    infos = []
    counts = [0, 0]
    for key, source, args in constructors:
        kind = 1 if args else 0
        infos.append(ConstructorInfo(key, source, name, args, counts[kind], blocks > 1))
        counts[kind] += 1
    return DataType(name, params, constructors=tuple(infos))


def record(name: str, params: tuple[str, ...], fields: list[tuple[str, bool, Type]]) -> DataType:
    infos = tuple(FieldInfo(f"{name}.{field_name}", field_name, name, i, mutable, t)
                  for i, (field_name, mutable, t) in enumerate(fields))
    return DataType(name, params, fields=infos)


# The library's abstract types that `Hashtbl.hash` tells from their definitions, OCaml's
# representation being other than FL's: int32, int64 and nativeint are FL's int but OCaml's
# custom blocks, each hashed by its own function (`Hashtbl.hash 5L` is not `Hashtbl.hash 5`);
# bytes are FL's array of chars, OCaml's string. Their kinds in a hash descriptor.
HASHED_APART = {"Int32.t": "l", "Int64.t": "L", "Nativeint.t": "n", "Bytes.t": "B"}


def hashed_apart(library_abstract_types: Iterable[str]) -> dict[str, str]:
    """The internal names of the library's `HASHED_APART` types -> their source names."""
    return {name: display_name(name) for name in library_abstract_types if display_name(name) in HASHED_APART}


EXN = DataType("exn", ())  # open: `exception E` adds a constructor

LIST = variant("list", ("'a",), [("[]", "[]", ()), ("::", "::", (TCon("'a"), TCon("list", (TCon("'a"),))))])


@dataclass
class DataTypes:
    """Every data type of a program by internal name, every constructor and field by key."""

    types: dict[str, DataType] = field(default_factory=lambda: {"list": LIST, "exn": EXN})
    constructors: dict[str, ConstructorInfo] = field(
        default_factory=lambda: {c.key: c for c in LIST.constructors})
    fields: dict[str, FieldInfo] = field(default_factory=dict)
    # The same with `HASHED_APART` types kept, as `Hashtbl.hash` sees them (see `reveal`).
    hashed: DataTypes | None = None
    hashed_apart: dict[str, str] = field(default_factory=dict)  # as `hashed_apart` gives them
    definitions: dict[str, Type] = field(default_factory=dict)  # of the `hashed_apart` types
    _holding_bytes: dict[TCon, bool] = field(default_factory=dict, repr=False)  # `holds_bytes`, known

    def add(self, datatype: DataType) -> None:
        self.types[datatype.name] = datatype
        self.constructors.update((c.key, c) for c in datatype.constructors)
        self.fields.update((f.key, f) for f in datatype.fields)

    def add_exception(self, key: str, name: str, args: tuple[Type, ...], display: str, listed: bool = True) -> None:
        """`exception name of args`, printed `display` when uncaught. A local exception is
        `listed` among the constructors of `exn` (which later stages go through) only at each
        ground instance monomorphisation makes of it: its arguments may name type variables."""
        kinds = "T" if display in EXCEPTION_FORMATS else self.exception_kinds(args)
        info = ConstructorInfo(key, name, "exn", args, 0, False, ExceptionId(display, kinds))
        if listed:
            exn = self.types["exn"]
            self.types["exn"] = DataType("exn", (), exn.constructors + (info,))
        self.constructors[key] = info

    def exception_kinds(self, args: tuple[Type, ...]) -> str:
        """How the uncaught-exception message prints each argument (see `ExceptionId`)."""
        def kind(t: Type) -> str:
            if not isinstance(t, TCon):  # a local exception's, until monomorphisation
                return "_"
            if t.name in ("int", "char", "bool", "unit"):
                return "i"
            if t.name in ("string", "float"):
                return t.name[0]
            datatype = self.types.get(t.name)
            return "d" if datatype is not None and datatype.constant_count else "_"

        inline = args[0] if len(args) == 1 and isinstance(args[0], TCon) else None
        if inline is not None and (inline.name.startswith("exn.") or ".exn." in inline.name):
            # `exception E of { fields }`: the fields, printed as E's arguments (as OCaml's)
            return "R" + "".join(kind(f.type) for f in self.types[inline.name].fields)
        return "".join(kind(a) for a in args)

    def hash_descriptor(self, t: TCon) -> str:
        """The descriptor of type t that guides `Hashtbl.hash` (see `cpsc.semantics.hashing`):
        t as monomorphisation grounds it, `HASHED_APART` types kept."""
        if self.hashed is not None:
            return self.hashed.hash_descriptor(t)
        nodes: list[str] = []
        index: dict[TCon, int] = {}

        def node(t: TCon) -> int:
            if t in index:
                return index[t]
            index[t] = len(nodes)
            nodes.append("")
            nodes[index[t]] = describe(t)
            return index[t]

        def describe(t: TCon) -> str:
            if t.name in ("int", "char", "bool", "unit"):
                return "i"
            if t.name in ("float", "string"):
                return t.name[0]
            if t.name in self.hashed_apart:
                return HASHED_APART[self.hashed_apart[t.name]]
            if t.name == "*":
                return ",".join(["t"] + [str(node(a)) for a in t.args])  # type: ignore[arg-type]
            if t.name == "array":
                element = t.args[0]
                if element in (TCon("bool"), TCon("char")):
                    return f"b,{node(element)}"  # type: ignore[arg-type]  # bytes at run time
                return "A" if element == TCon("float") else f"a,{node(element)}"  # type: ignore[arg-type]
            datatype = self.types.get(t.name)
            if datatype is None or t.name == "exn":
                return "_"
            if datatype.fields:
                types = [self.field_type(f.key, t) for f in datatype.fields]
                if all(ft == TCon("float") for ft in types):
                    return f"F,{len(types)}"
                return ",".join(["t"] + [str(node(ft)) for ft in types])
            blocks = [c for c in datatype.constructors if not c.constant]
            args = [":".join(str(node(a)) for a in self.constructor_args(c.key, t)) for c in blocks]
            return ",".join(["v", "1" if datatype.block_count > 1 else "0"] + args)

        node(t)
        return ";".join(nodes)

    def copy(self) -> DataTypes:
        return DataTypes(dict(self.types), dict(self.constructors), dict(self.fields), self.hashed)

    def reveal(self, reveal: Callable[[Type], Type], reveal_for_hash: Callable[[Type], Type],
               hashed_apart: dict[str, str]) -> None:
        """Every argument and field type with `reveal` applied (a signature's abstract types
        made their definitions again, for the stages after type checking). The data types as
        `Hashtbl.hash` sees them keep the `HASHED_APART` types (`reveal_for_hash`)."""
        self.hashed = DataTypes(dict(self.types), dict(self.constructors), dict(self.fields), None, hashed_apart,
                                {name: reveal(TCon(name)) for name in hashed_apart})
        self.hashed._reveal(reveal_for_hash)
        self._reveal(reveal)

    def kept_apart(self) -> DataTypes:
        """The data types with `HASHED_APART` types kept (as `Hashtbl.hash` and `compare` see
        them), or these if there is no such view."""
        return self.hashed if self.hashed is not None else self

    def is_bytes(self, t: TCon) -> bool:
        """Whether t is `Bytes.t` kept apart: its values are compared as strings, where a
        `char array` (its definition) is compared as an array, by length first."""
        return self.hashed_apart.get(t.name) == "Bytes.t"

    def holds_bytes(self, t: TCon) -> bool:
        """Whether a value of type t (`HASHED_APART` types kept) may hold a `Bytes.t`: whether
        one is among the types reachable from t (found once per type asked about)."""
        if t not in self._holding_bytes:
            seen: set[TCon] = set()
            pending = [t]
            while pending and not self.is_bytes(pending[-1]):
                part = pending.pop()
                if part not in seen:
                    seen.add(part)
                    pending += [p for p in self._parts(part) if isinstance(p, TCon)]
            self._holding_bytes[t] = bool(pending)
        return self._holding_bytes[t]

    def irregular(self, t: TCon) -> tuple[str, TCon] | None:
        """A data type among those values of type t may hold that is not regular (`type 'a t =
        Leaf of 'a | Node of ('a * 'a) t`: a `'a t` holds an `('a * 'a) t`, which holds ...), with
        the instance of it its own definition holds; None if there is none. Such a type has no
        finite set of types below it, so nothing specialised per type (comparison, hashing)
        can be made for it. Each data type is looked at once: linear in the types reachable."""
        seen: set[str] = set()
        pending: list[Type] = [t]
        while pending:
            part = pending.pop()
            if not isinstance(part, TCon):
                continue
            pending.extend(part.args)
            if part.name in self.types and part.name != "exn" and part.name not in seen:
                seen.add(part.name)
                generic = self._generic(part.name)
                nested = self._nested_instance(generic)
                if nested is not None:
                    return part.name, nested
                pending.extend(self._parts(generic)[len(generic.args):])
        return None

    def _generic(self, name: str) -> TCon:
        return TCon(name, tuple(TCon(p) for p in self.types[name].params))

    def _nested_instance(self, generic: TCon) -> TCon | None:
        """An instance of `generic`'s data type, other than itself, that its values hold (through
        other data types too, each expanded once), or None: then the type is regular."""
        expanded: set[str] = {generic.name}
        pending: list[Type] = self._parts(generic)[len(generic.args):]
        while pending:
            part = pending.pop()
            if not isinstance(part, TCon):
                continue
            if part.name == generic.name and part != generic:
                return part
            pending.extend(part.args)
            if part.name in self.types and part.name != "exn" and part.name not in expanded:
                expanded.add(part.name)
                pending.extend(self._parts(part)[len(part.args):])
        return None

    def _parts(self, t: TCon) -> list[Type]:
        """The types of what a value of type t holds directly."""
        parts: list[Type] = list(t.args)
        datatype = self.types.get(t.name)
        if datatype is not None and t.name != "exn":
            parts += [self.field_type(f.key, t) for f in datatype.fields]
            parts += [a for k in datatype.constructors for a in self.constructor_args(k.key, t)]
        return parts

    def compared_value(self, value: Any, t: TCon) -> Any:
        """A value of type t (`HASHED_APART` types kept) in the interpreters, with its bytes
        made the strings that polymorphic comparison compares them as (`builtins.compare_values`
        orders a bytes, a char array there, by length first)."""
        if self.is_bytes(t):
            return "".join(value)
        if not self.holds_bytes(t) or not isinstance(value, (tuple, list)):
            return value
        if t.name == "array":
            return FlArray(self.compared_value(v, t.args[0]) for v in value)  # type: ignore[arg-type]
        datatype = self.types.get(t.name)
        if t.name == "*" or datatype is None:
            types: list[TCon] = list(t.args)  # type: ignore[arg-type]
        elif datatype.fields:
            types = [self.field_type(f.key, t) for f in datatype.fields]
        else:
            blocks = [k for k in datatype.constructors if not k.constant]
            tagged = len(blocks) > 1
            constructor = next(k for k in blocks if k.index == value[0]) if tagged else blocks[0]
            types = [INT] * tagged + list(self.constructor_args(constructor.key, t))
        return type(value)(self.compared_value(v, a) for v, a in zip(value, types))

    def later(self, t: TCon) -> TCon:
        """t, whose `HASHED_APART` types are kept, as the stages after monomorphisation see it."""
        if not self.definitions:
            return t
        if not t.args:
            definition = self.definitions.get(t.name, t)
            assert isinstance(definition, TCon)
            return definition
        return TCon(t.name, tuple(self.later(a) for a in t.args))  # type: ignore[arg-type]

    def _reveal(self, reveal: Callable[[Type], Type]) -> None:
        for datatype in list(self.types.values()):
            constructors = tuple(replace(c, args=tuple(reveal(a) for a in c.args)) for c in datatype.constructors)
            infos = tuple(replace(f, type=reveal(f.type)) for f in datatype.fields)
            self.add(replace(datatype, constructors=constructors, fields=infos))

    def instance(self, t: Type, ground: TCon) -> TCon:
        """`t` (a constructor argument or field type, in terms of the parameters of the data type
        `ground` is an instance of) at that instance."""
        datatype = self.types[ground.name]
        result = substitute(t, dict(zip(datatype.params, ground.args)))
        assert isinstance(result, TCon)
        return result

    def constructor_args(self, key: str, ground: TCon) -> tuple[TCon, ...]:
        return tuple(self.instance(a, ground) for a in self.constructors[key].args)

    def field_type(self, key: str, ground: TCon) -> TCon:
        return self.instance(self.fields[key].type, ground)


def substitute(t: Type, mapping: dict[str, Type]) -> Type:
    if not isinstance(t, TCon):  # a local exception's argument: the enclosing function's type
        return t
    if t.name in mapping and not t.args:
        return mapping[t.name]
    if not t.args:
        return t
    return TCon(t.name, tuple(substitute(a, mapping) for a in t.args))


def display_name(name: str) -> str:
    """The source name of a type or constructor (`t/2` is the second type called `t`)."""
    return name.split("/")[0]

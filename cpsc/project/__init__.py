"""Programs of several files: compilation units (`units.py`), dune projects (`dune.py`), and
the one module the units make for the stages after parsing.

cpsc compiles a whole program at once, as MLton compiles the files of a `.mlb`: each unit
becomes the structure `module Util : sig <util.mli> end = struct <util.ml> end`, in link
order, so that elaboration seals it with its interface and every later stage sees across
units (monomorphisation, inlining, specialisation).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from cpsc.project.cache import ParseCounts, cached_parse
from cpsc.project.dune import dune_units, in_dune_project
from cpsc.project.units import (
    INTERFACES,
    Aliases,
    References,
    Unit,
    UnitFinder,
    file_start,
    implementation_of,
    units_as_listed,
    units_from_main,
    valid_module_name,
)
from cpsc.syntax import ast
from cpsc.syntax import module_ast as m
from cpsc.syntax.diagnostics import CompileError, Span
from cpsc.syntax.parser import Parsed, parse, parse_interface
from cpsc.syntax.units import unit_name

# The first of the files of the module the units make (it is no unit's): the type checker
# qualifies a unit's exceptions by the unit's module alone (`Util.Bad`, not `Main.Util.Bad`)
PROGRAM_FILE = "<program>"

_MISMATCH = "Signature mismatch:\n       "
_UNBOUND = "Unbound module "


def assemble(units: list[Unit | Aliases], parsed: Callable[[str], Parsed],
             text: Callable[[str], str] = lambda file: "") -> Parsed:
    """The units, each parsed (`parsed(file)`), as one text whose items are their structures
    (`text(file)`: a file's text, for `__MODULE__` in a unit that dune names otherwise)."""
    items: list[Any] = []
    read = [parsed(file) for unit in units for file in unit.files]
    for unit in units:
        if isinstance(unit, Aliases):
            items.append(_aliases(unit.name, unit.members, unit.span))
        elif not unit.implementation:  # an interface alone (`cpsc check util.mli`)
            items.append(_checked_interface(unit.name, parsed(unit.interface or "")))
        else:
            items.extend(_unit_items(unit, parsed, text))
    files = tuple(file for unit in units for file in unit.files)
    return Parsed(ast.Module(tuple(items), files), PROGRAM_FILE, True,
                  frozenset(path for p in read for path in p.module_paths), any(p.names_function for p in read),
                  frozenset(file for p in read for file in p.formats))


def _unit_items(unit: Unit, parsed: Callable[[str], Parsed], text: Callable[[str], str]) -> list[Any]:
    """`module Util : sig <util.mli> end = struct <util.ml> end`, after the module of aliases
    the unit opens if dune gave it one."""
    at = file_start(unit.implementation)
    items: list[Any] = []
    declarations: tuple[Any, ...] = parsed(unit.implementation).module.declarations
    if unit.name != unit_name(unit.implementation) and "__MODULE__" in text(unit.implementation):
        declarations = _module_named(declarations, unit.name, text(unit.implementation).split("\n"))
    if unit.aliases:
        items.append(_aliases(unit.alias_module, unit.aliases, at))
        declarations = (m.OpenDecl(unit.alias_module, at),) + declarations
    module: m.ModuleExpr = m.Structure(declarations, at)
    if unit.interface is not None:
        signature = parsed(unit.interface).signature
        assert signature is not None
        if unit.aliases:  # (a signature has no `open`: its paths are renamed instead)
            signature = _renamed(signature, dict(unit.aliases))
        module = m.Constrained(module, signature, at)
    items.append(m.ModuleDecl(unit.name, module, at, unit.printed))
    return items


def _checked_interface(name: str, interface: Parsed) -> m.ModuleDecl:
    """An interface alone, checked as OCaml checks an `.mli` it compiles: as the parameter of a
    functor (`module Util (Util : sig ... end) = struct end`), whose types are then resolved."""
    assert interface.signature is not None
    at = file_start(interface.file)
    parameter = m.FunctorParameter(name, interface.signature, at)
    return m.ModuleDecl(name, m.Functor(parameter, m.Structure((), at), at), at)


def _renamed(signature: m.Signature, aliases: dict[str, str]) -> m.Signature:
    """The signature with the module paths that begin with an alias begun with what it stands for."""

    def rename(path: str, kind: str) -> str | None:
        head, dot, rest = path.partition(".")
        return aliases[head] + dot + rest if head in aliases and (dot or kind == "module") else None

    renamed = m.renamed_paths(signature, rename)
    assert isinstance(renamed, m.Signature)
    return renamed


def _module_named(node: Any, name: str, lines: list[str]) -> Any:
    """`node` with each `__MODULE__` (which the parser made its file's module) the unit's `name`."""
    if isinstance(node, tuple):
        return tuple(_module_named(item, name, lines) for item in node)
    if isinstance(node, ast.Const) and node.span.line == node.span.end_line \
            and lines[node.span.line - 1][node.span.col - 1:node.span.end_col - 1] == "__MODULE__":
        return replace(node, value=name)
    if not hasattr(node, "__dataclass_fields__") or isinstance(node, Span):
        return node
    return replace(node, **{f: _module_named(getattr(node, f), name, lines) for f in node.__dataclass_fields__
                            if f not in ("span", "ty")})


def _aliases(name: str, members: tuple[tuple[str, str], ...], at: Span) -> m.ModuleDecl:
    aliased = tuple(m.ModuleDecl(member, m.ModulePath(target, at), at) for member, target in members)
    return m.ModuleDecl(name, m.Structure(aliased, at), at)


def bad_unit_names(units: list[Unit | Aliases]) -> tuple[CompileError, ...]:
    """OCaml's warning 24 for a unit whose file's name is no module's (`my-util.ml`)."""
    return tuple(CompileError(file_start(unit.implementation), f'bad source file name: "{unit.name}" is not a '
                              "valid module name.") for unit in units
                 if isinstance(unit, Unit) and not valid_module_name(unit.name))


def explained(error: CompileError, units: list[Unit | Aliases], finder: UnitFinder | None = None) -> CompileError:
    """An error said as OCaml says it of units: a signature mismatch in a unit's interface at
    the implementation (the note says where the interface declares what it expected); an
    unbound module with where `finder` looked for its file."""
    if error.message.startswith(_MISMATCH):
        for unit in units:
            if isinstance(unit, Unit) and unit.interface is not None and error.span.file in unit.files:
                message = (f"The implementation {unit.implementation} does not match the interface "
                           f"{unit.interface}:\n       {error.message[len(_MISMATCH):]}")
                return CompileError(file_start(unit.implementation), message, error.notes)
    name = error.message.removeprefix(_UNBOUND)
    if finder is not None and name != error.message and "." not in name:
        looked = f"no unit {name}: cpsc looked for {name[:1].lower() + name[1:]}.ml in {finder.described()}"
        return CompileError(error.span, error.message, error.notes + (looked,))
    return error


class UnitFiles:
    """A program's files, each read once (by `read`, which says why it cannot) and parsed
    once: finding the units parses them, and the front end uses what it parsed."""

    def __init__(self, read: Callable[[str], str], cached: bool = True) -> None:
        self.read = read
        self.cached = cached  # kept on disk (`cache.py`)
        self.counts = ParseCounts()
        self.texts: dict[str, str] = {}
        self._parsed: dict[str, Parsed] = {}

    def text(self, file: str) -> str:
        if file not in self.texts:
            self.texts[file] = self.read(file)
        return self.texts[file]

    def parsed(self, file: str) -> Parsed:
        if file not in self._parsed:
            reader = parse_interface if file.endswith(INTERFACES) else parse
            text = self.text(file)
            self._parsed[file] = cached_parse(text, file, reader, self.counts) if self.cached and file != "-" \
                else reader(text, file)
        return self._parsed[file]

    def references(self, unit: Unit) -> frozenset[str]:
        """The modules a unit's files name (the units it needs are among them)."""
        return frozenset().union(*(self.parsed(file).qualifiers for file in unit.files))

    def module_paths(self, unit: Unit) -> frozenset[str]:
        """The module paths a unit's files name (`Mylib.Util` of `Mylib.Util.x`)."""
        return frozenset().union(*(self.parsed(file).module_paths for file in unit.files))


def find_units(files: list[str], folders: list[str], unit_files: UnitFiles,
               library: frozenset[str] = frozenset()) -> tuple[list[Unit | Aliases], UnitFinder | None]:
    """The program named by `files`: a dune project's executable (its folder or main file); its
    main file alone, the units it needs found beside it and in `folders`; or every file in link
    order, as for `ocamlopt` (the units they need that are not given are found in `folders` and
    linked first). `library`: the standard library's modules, which a file beside the main file
    does not stand for (`UnitFinder`)."""
    if len(files) == 1 and in_dune_project(files[0]):
        return dune_units(files[0], unit_files.module_paths)[0], None
    if len(files) == 1:
        if files[0].endswith(INTERFACES) and implementation_of(files[0]) is not None:
            files = [implementation_of(files[0]) or ""]  # (`cpsc check util.mli`: the unit, both files)
        finder = UnitFinder([os.path.dirname(files[0])] + folders, library, beside=1)
        return [*units_from_main(files[0], finder, unit_files.references)], finder
    finder = UnitFinder(folders, library)
    listed = units_as_listed(files)
    names = {unit.name for unit in listed}
    found: dict[str, Unit] = {}
    for unit in listed:
        for needed in _needed(unit, finder, unit_files.references, names):
            found.setdefault(needed.name, needed)
    units: list[Unit | Aliases] = [*found.values(), *listed]
    return units, finder


def _needed(unit: Unit, finder: UnitFinder, references: References, given: set[str]) -> list[Unit]:
    """The units `unit` needs that are not `given`, in link order."""
    needed = units_from_main(unit.implementation, finder, lambda u: references(u) - given)
    return [n for n in needed[:-1] if n.name not in given]

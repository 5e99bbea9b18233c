"""Dune projects of plain OCaml, read far enough to build an executable.

A project is the folder holding `dune-project` (or, without one, the executable's folder);
its `dune` files declare executables and libraries, one library per folder:
`(executable (name main) (libraries mylib))`, `(library (name mylib) (wrapped false))`,
`(modules ...)`. The files are s-expressions, read with `sexpdata`.

Units are named as dune names them, so that exceptions print as in a program dune built:
an executable's module `main` is the unit `Dune__exe__Main`; a wrapped library `mylib`'s
module `util` is `Mylib__Util`, which the library's own modules call `Util` and the others
`Mylib.Util` (the module `Mylib` made of aliases, or the library's module of its own name
if it has one). As in OCaml, only the units the executable needs are linked: the libraries'
first, each library after those it uses, then the executable's.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

import sexpdata

from cpsc.project.units import (
    IMPLEMENTATIONS,
    INTERFACES,
    Aliases,
    Unit,
    file_start,
    link_order,
    valid_module_name,
)
from cpsc.syntax.diagnostics import CompileError, Span

_SKIPPED_FOLDERS = ("_build", "_opam", "node_modules")
_EXECUTABLE_RANK = 1 << 30


@dataclass
class Stanza:
    """An `executable(s)` or a `library` of a dune file, with the modules of its folder."""

    kind: str  # "executable" or "library"
    names: tuple[str, ...]  # the executables' names, or the library's
    folder: str
    dune_file: str
    libraries: tuple[str, ...]
    modules: dict[str, tuple[str, str | None]]  # module name -> implementation, interface
    wrapped: bool = True
    public_name: str | None = None
    rank: int = _EXECUTABLE_RANK

    @property
    def module_name(self) -> str:
        """A library's module: `Mylib` of `mylib`."""
        return self.names[0][:1].upper() + self.names[0][1:]

    @property
    def has_main_module(self) -> bool:
        return self.kind == "library" and self.module_name in self.modules

    def unit_name(self, module: str) -> str:
        if self.kind == "executable":
            return f"Dune__exe__{module}"
        if not self.wrapped or module == self.module_name:
            return module
        return f"{self.module_name}__{module}"

    def alias_module(self) -> str:
        return "Dune__exe" if self.kind == "executable" else f"{self.module_name}__"


def in_dune_project(path: str) -> bool:
    """Whether `path` names a dune project to build: a folder with `dune-project` or `dune`, or
    an executable's main file."""
    if os.path.isdir(path):
        return any(os.path.isfile(os.path.join(path, name)) for name in ("dune-project", "dune"))
    folder = os.path.dirname(path) or "."
    if not os.path.isfile(os.path.join(folder, "dune")):
        return False
    stem = os.path.basename(path).split(".")[0]
    return any(s.kind == "executable" and stem in s.names for s in _stanzas(os.path.join(folder, "dune"), folder))


def dune_units(path: str, references: Any) -> tuple[list[Unit | Aliases], str]:
    """The units of the executable `path` names (a folder: its one executable), in link order,
    and the executable's name. `references(unit)`: the module paths a unit's files name."""
    folder = path if os.path.isdir(path) else os.path.dirname(path) or "."
    root = _project_root(folder)
    stanzas = [s for dune in _dune_files(root) for s in _stanzas(dune, os.path.dirname(dune))]
    executable, main = _executable(path, folder, root, stanzas)
    libraries = _libraries(executable, stanzas)
    return _Linker(executable, libraries, references).units(main), main


def _project_root(folder: str) -> str:
    here = os.path.abspath(folder)
    while True:
        if os.path.isfile(os.path.join(here, "dune-project")):
            return os.path.relpath(here) if not os.path.isabs(folder) else here
        parent = os.path.dirname(here)
        if parent == here:
            return folder
        here = parent


def _dune_files(root: str) -> list[str]:
    found = []
    for here, folders, files in os.walk(root):
        folders[:] = sorted(f for f in folders if not f.startswith(".") and f not in _SKIPPED_FOLDERS)
        if "dune" in files:
            found.append(os.path.normpath(os.path.join(here, "dune")))
    return found


def _stanzas(dune_file: str, folder: str) -> list[Stanza]:
    try:
        with open(dune_file, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise CompileError(file_start(dune_file), f"cannot read {dune_file}: {error.strerror}") from None
    try:
        forms = sexpdata.parse(text)
    except Exception as error:  # noqa: BLE001 - sexpdata's errors have no common base
        raise CompileError(file_start(dune_file), f"Invalid dune file: {error}") from None
    stanzas = []
    for form in forms:
        head = _atom(form[0]) if isinstance(form, list) and form else ""
        if head in ("executable", "executables", "library"):
            stanzas.append(_stanza(head, form[1:], folder, dune_file, text))
    return stanzas


def _stanza(head: str, fields: list[Any], folder: str, dune_file: str, text: str) -> Stanza:
    options = {_atom(f[0]): [_atom(v) if not isinstance(v, list) else v for v in f[1:]]
               for f in fields if isinstance(f, list) and f}
    names = tuple(str(n) for n in options.get("names" if head == "executables" else "name", []))
    if not names:
        raise CompileError(_where(text, dune_file, head), f"This {head} stanza has no name")
    available = _folder_modules(folder)
    kept = _ordered_set(options["modules"], set(available)) if "modules" in options else set(available)
    return Stanza("library" if head == "library" else "executable", names, folder, dune_file,
                  tuple(str(n) for n in options.get("libraries", []) if not isinstance(n, list)),
                  {name: available[name] for name in sorted(kept) if name in available},
                  wrapped=options.get("wrapped", ["true"]) != ["false"],
                  public_name=str(options["public_name"][0]) if options.get("public_name") else None)


def _atom(value: Any) -> str:
    return value.value() if isinstance(value, sexpdata.Symbol) else str(value)


def _folder_modules(folder: str) -> dict[str, tuple[str, str | None]]:
    """The modules of a folder's `.ml` files (and their `.mli`s)."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return {}
    modules: dict[str, tuple[str, str | None]] = {}
    for name in names:
        stem, ext = os.path.splitext(name)
        if ext in IMPLEMENTATIONS and "." not in stem:
            interface = stem + INTERFACES[IMPLEMENTATIONS.index(ext)]
            module = stem[:1].upper() + stem[1:]
            if valid_module_name(module):
                modules[module] = (os.path.join(folder, name),
                                   os.path.join(folder, interface) if interface in names else None)
    return modules


def _ordered_set(items: list[Any], standard: set[str]) -> set[str]:
    """Dune's ordered set language, as `(modules ...)` uses it: names, `:standard` (every
    module of the folder), `\\` (all but what follows), nested lists."""
    result: set[str] = set()
    removing = False
    for item in items:
        if isinstance(item, list):
            named = _ordered_set([_atom(v) if not isinstance(v, list) else v for v in item], standard)
        elif item == "\\":
            removing = True
            continue
        elif item == ":standard":
            named = set(standard)
        else:
            named = {item[:1].upper() + item[1:]}
        result = result - named if removing else result | named
    return result


def _where(text: str, dune_file: str, word: str) -> Span:
    """Where `word` is first written in a dune file (its start if nowhere)."""
    found = re.search(rf"(?<![\w.-]){re.escape(word)}(?![\w.-])", text)
    if found is None:
        return file_start(dune_file)
    line = text.count("\n", 0, found.start()) + 1
    col = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
    return Span(dune_file, line, col, line, col + len(word))


def _executable(path: str, folder: str, root: str, stanzas: list[Stanza]) -> tuple[Stanza, str]:
    """The executable to build, and the name of its main module."""
    if not os.path.isdir(path):
        stem = os.path.basename(path).split(".")[0]
        for stanza in stanzas:
            if stanza.kind == "executable" and _same(stanza.folder, folder) and stem in stanza.names:
                return stanza, stem
    here = [s for s in stanzas if s.kind == "executable" and _same(s.folder, folder)] \
        or [s for s in stanzas if s.kind == "executable"]
    choices = [(s, name) for s in here for name in s.names]
    if len(choices) == 1:
        return choices[0]
    dune_file = os.path.join(folder, "dune")
    at = file_start(dune_file if os.path.isfile(dune_file) else os.path.join(root, "dune-project"))
    if not choices:
        raise CompileError(at, f"The dune project in {root} declares no executable to build")
    named = ", ".join(os.path.join(s.folder, f"{n}.ml") for s, n in choices)
    raise CompileError(at, f"The dune project in {root} declares several executables; name the main file of "
                       f"one: {named}")


def _same(folder: str, other: str) -> bool:
    return os.path.abspath(folder) == os.path.abspath(other)


def _libraries(executable: Stanza, stanzas: list[Stanza]) -> list[Stanza]:
    """The libraries the executable uses, directly or not, each ranked after those it uses."""
    by_name = {n: s for s in stanzas if s.kind == "library" for n in (s.names[0], s.public_name) if n}
    used: list[Stanza] = []
    visiting: set[int] = set()

    def visit(stanza: Stanza) -> None:
        for name in stanza.libraries:
            library = by_name.get(name)
            if library is None:
                text = open(stanza.dune_file, encoding="utf-8").read()
                raise CompileError(_where(text, stanza.dune_file, name),
                                   f'Library "{name}" not found: cpsc builds programs of plain OCaml, whose '
                                   "libraries are the standard library and the project's own")
            if library in used:
                continue
            if id(library) in visiting:
                raise CompileError(file_start(library.dune_file), f'Library "{name}" depends on itself')
            visiting.add(id(library))
            visit(library)
            library.rank = len(used)
            used.append(library)

    visit(executable)
    return used


class _Linker:
    """Finds the units the executable needs, from its main module, and their link order."""

    def __init__(self, executable: Stanza, libraries: list[Stanza], references: Any) -> None:
        self.executable = executable
        self.libraries = libraries
        self.references = references
        self.found: dict[str, Unit] = {}
        self.stanza_of: dict[str, Stanza] = {}
        self.needs: dict[str, set[str]] = {}

    def units(self, main: str) -> list[Unit | Aliases]:
        first = self.unit(self.executable, main[:1].upper() + main[1:])
        pending = [first]
        seen = {first.name}
        while pending:
            unit = pending.pop()
            stanza = self.stanza_of[unit.name]
            aliases: dict[str, str] = {}
            for path in sorted(self.references(unit)):
                for needed, alias in self.resolve(stanza, unit.name, path):
                    self.needs[unit.name].add(needed)
                    if alias is not None:
                        aliases[alias] = needed
                    if needed not in seen and needed in self.found:
                        seen.add(needed)
                        pending.append(self.found[needed])
            if aliases:
                self.found[unit.name] = Unit(unit.name, unit.implementation, unit.interface,
                                             tuple(sorted(aliases.items())), stanza.alias_module(), unit.printed)
        self.add_wrappers()
        ranks = {name: self.stanza_of[name].rank for name in self.needs}
        order = link_order(self.needs, self.found, ranks.__getitem__)
        return [self.found[name] if name in self.found else self.wrapper(name) for name in order]

    def unit(self, stanza: Stanza, module: str) -> Unit:
        name = stanza.unit_name(module)
        if name not in self.found:
            implementation, interface = stanza.modules[module]
            printed = f"{stanza.module_name}.{module}" if stanza.kind == "library" and name != module \
                and not stanza.has_main_module else None
            self.found[name] = Unit(name, implementation, interface, printed=printed)
            self.stanza_of[name] = stanza
            self.needs.setdefault(name, set())
        return self.found[name]

    def resolve(self, stanza: Stanza, own: str, path: str) -> list[tuple[str, str | None]]:
        """The units a module path needs (and the short name the unit sees one by)."""
        head, _, rest = path.partition(".")
        if head in stanza.modules and stanza.unit_name(head) != own:
            unit = self.unit(stanza, head).name
            return [(unit, head if unit != head else None)]
        visible = self.libraries if stanza.kind == "executable" else self.libraries[:stanza.rank]
        for library in visible:
            if library.wrapped and head == library.module_name:
                if library.has_main_module:
                    return [(self.unit(library, head).name, None)]
                member = rest.partition(".")[0]
                members = [member] if member in library.modules else sorted(library.modules)
                needed: list[tuple[str, str | None]] = [(self.unit(library, m).name, None) for m in members]
                return needed + [(head, None)]
            if not library.wrapped and head in library.modules:
                return [(self.unit(library, head).name, None)]
        return []

    def add_wrappers(self) -> None:
        """Each wrapped library without a module of its own name: its module of aliases, after
        the library's units that are linked."""
        for library in self.libraries:
            name = library.module_name
            if name not in self.found and any(name in needed for needed in self.needs.values()):
                self.stanza_of[name] = library
                self.needs[name] = {u for u, s in self.stanza_of.items() if s is library and u in self.found}

    def wrapper(self, name: str) -> Aliases:
        library = self.stanza_of[name]
        members = tuple((module, library.unit_name(module)) for module in sorted(library.modules)
                        if library.unit_name(module) in self.needs)
        return Aliases(name, members, file_start(library.dune_file))

"""The compilation units of a program and the order they are linked in.

A file `my_util.ml` is the unit `My_util`; `my_util.mli` beside it, when there is one, is its
interface. A program is named either as `ocamlopt` names it, every file in link order
(`units_as_listed`), or by its main file alone (`units_from_main`): the units it refers to are
looked for beside it and in the `-I` folders, then theirs, and all are linked in dependency
order, each as early as its dependencies allow, ties broken by module name. A unit's top-level
effects run in link order, as OCaml runs them.
"""

from __future__ import annotations

import heapq
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from cpsc.syntax.diagnostics import CompileError, Span
from cpsc.syntax.units import unit_name

# The extensions of implementations (FL's own and OCaml's) and of interfaces
IMPLEMENTATIONS = (".ml", ".fl")
INTERFACES = (".mli", ".fli")
_MODULE_NAME = re.compile(r"[A-Z][A-Za-z0-9_']*\Z")


@dataclass(frozen=True)
class Unit:
    """A compilation unit: the module `name`, its implementation and its interface if any.
    In a dune project, a unit may see others by shorter names, as dune's wrapping has it
    (`Util` for `Mylib__Util` inside library mylib): `aliases` (name, unit), held by the
    module `alias_module`, which the unit opens."""

    name: str
    implementation: str
    interface: str | None = None
    aliases: tuple[tuple[str, str], ...] = ()
    alias_module: str = ""
    printed: str | None = None  # the path its exceptions print under, if not its name

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(file for file in (self.interface, self.implementation) if file)


@dataclass(frozen=True)
class Aliases:
    """A module of aliases alone, `module Mylib = struct module Util = Mylib__Util ... end`:
    what dune makes of a wrapped library with no module of its own name."""

    name: str
    members: tuple[tuple[str, str], ...]
    span: Span

    @property
    def files(self) -> tuple[str, ...]:
        return ()


def valid_module_name(name: str) -> bool:
    return _MODULE_NAME.match(name) is not None


def file_start(file: str) -> Span:
    """Where OCaml places what it says of a whole file (`File "util.ml", line 1`)."""
    return Span(file, 1, 1, 1, 1)


def units_as_listed(files: Iterable[str]) -> list[Unit]:
    """The units of the files as `ocamlopt` takes them: in the order given, each `.mli` the
    interface of the implementation of its name (given before it or after)."""
    interfaces: dict[tuple[str, str], str] = {}
    implementations: list[str] = []
    for file in files:
        if file.endswith(INTERFACES):
            interfaces[_unit_key(file)] = file
        else:
            implementations.append(file)
    units = [Unit(unit_name(file), file, interfaces.pop(_unit_key(file), None)) for file in implementations]
    for interface in interfaces.values():
        raise CompileError(file_start(interface), f"The interface {interface} has no implementation: cpsc "
                           f"needs {os.path.splitext(interface)[0]}.ml, given with it")
    _refuse_twins(units)
    return units


def _unit_key(file: str) -> tuple[str, str]:
    return os.path.dirname(os.path.abspath(file)), unit_name(file)


def _refuse_twins(units: list[Unit]) -> None:
    seen: dict[str, Unit] = {}
    for unit in units:
        other = seen.setdefault(unit.name, unit)
        if other is not unit:
            raise CompileError(file_start(unit.implementation),
                               f"The files {other.implementation} and {unit.implementation} both define a "
                               f"module named {unit.name}")


class UnitFinder:
    """Finds a unit's files by its name, as OCaml's load path does: in the main file's folder,
    then in each `-I` folder in order; `util.ml` or `Util.ml` is `Util`. A file named as a
    module of the standard library (`list.ml`) is not taken for it in the first `beside`
    folders (the main file's: a folder of programs often holds one), only in the others."""

    def __init__(self, folders: list[str], library: frozenset[str] = frozenset(), beside: int = 0) -> None:
        self.folders = [folder or "." for folder in folders]
        self.library = library
        self.beside = beside
        self._listings: dict[str, dict[str, str]] = {}

    def find(self, name: str) -> Unit | None:
        for index, folder in enumerate(self.folders):
            if index < self.beside and name in self.library:
                continue
            listing = self._listing(folder)
            implementation = next((listing[f"{stem}{ext}"] for stem in (name[:1].lower() + name[1:], name)
                                   for ext in IMPLEMENTATIONS if f"{stem}{ext}" in listing), None)
            if implementation is not None:
                return Unit(name, implementation, interface_of(implementation))
        return None

    def _listing(self, folder: str) -> dict[str, str]:
        if folder not in self._listings:
            try:
                names = os.listdir(folder)
            except OSError:
                names = []
            self._listings[folder] = {n: os.path.join(folder, n) if folder != "." else n for n in names}
        return self._listings[folder]

    def described(self) -> str:
        return ", ".join(self.folders)


def interface_of(implementation: str) -> str | None:
    """The interface file beside an implementation (`util.mli` for `util.ml`), if there is one."""
    stem, ext = os.path.splitext(implementation)
    candidate = stem + INTERFACES[IMPLEMENTATIONS.index(ext)] if ext in IMPLEMENTATIONS else None
    return candidate if candidate is not None and os.path.isfile(candidate) else None


def implementation_of(interface: str) -> str | None:
    """The implementation beside an interface (`util.ml` for `util.mli`), if there is one."""
    stem, ext = os.path.splitext(interface)
    candidates = [stem + IMPLEMENTATIONS[INTERFACES.index(ext)]] if ext in INTERFACES else []
    return next((c for c in candidates if os.path.isfile(c)), None)


References = Callable[[Unit], frozenset[str]]


def units_from_main(main: str, finder: UnitFinder, references: References) -> list[Unit]:
    """The main file's unit and every unit it needs, found by `finder`, in link order.
    `references` gives the modules a unit's files name (some are its own or the library's)."""
    first = Unit(unit_name(main) or "Main", main, interface_of(main)) if not main.endswith(INTERFACES) \
        else Unit(unit_name(main), "", main)  # an interface alone: checked as a module type
    units = {first.name: first}
    needs: dict[str, set[str]] = {}
    pending = [first]
    while pending:
        unit = pending.pop()
        needs[unit.name] = set()
        for name in sorted(references(unit) - {unit.name}):
            found = units.get(name) or finder.find(name)
            if found is None:
                continue  # the library's, or a module of its own: else elaboration says it is unbound
            needs[unit.name].add(name)
            if name not in units:
                units[name] = found
                pending.append(found)
    return [units[name] for name in link_order(needs, units)]


def link_order(needs: dict[str, set[str]], units: dict[str, Unit],
               rank: Callable[[str], int] = lambda name: 0) -> list[str]:
    """Each unit after those it needs and as early as they allow, ties broken by `rank` (a
    dune library's units before those of the libraries and executable that use it), then by
    name (Kahn's algorithm with the ready units in a heap); a cycle is an error."""
    waiting = {name: len(needed) for name, needed in needs.items()}
    needed_by: dict[str, list[str]] = {name: [] for name in needs}
    for name, needed in needs.items():
        for other in needed:
            needed_by[other].append(name)
    ready = [(rank(name), name) for name, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        _, name = heapq.heappop(ready)
        order.append(name)
        for user in needed_by[name]:
            waiting[user] -= 1
            if waiting[user] == 0:
                heapq.heappush(ready, (rank(user), user))
    if len(order) < len(needs):
        raise _cycle(needs, [name for name in sorted(needs) if name not in order], units)
    return order


def _cycle(needs: dict[str, set[str]], stuck: list[str], units: dict[str, Unit]) -> CompileError:
    """The error for units that need each other: the cycle, from the first of them by name."""
    path = [stuck[0]]
    while True:
        following = min(n for n in needs[path[-1]] if n in stuck)
        if following in path:
            cycle = path[path.index(following):] + [following]
            break
        path.append(following)
    described = " -> ".join(cycle)
    return CompileError(reference_span(units[cycle[0]], cycle[1]),
                        f"Dependency cycle between the units {described}: a unit may use only the units "
                        "linked before it")


def reference_span(unit: Unit, name: str) -> Span:
    """Where a unit's file first names module `name` (its first line if the text is not found)."""
    for file in (unit.implementation, unit.interface):
        if file is None:
            continue
        try:
            with open(file, encoding="latin-1") as handle:
                text = handle.read()
        except OSError:
            continue
        found = re.search(rf"(?<![\w.']){re.escape(name)}\b", text)
        if found is not None:
            line = text.count("\n", 0, found.start()) + 1
            col = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
            return Span(file, line, col, line, col + len(name))
    return file_start(unit.implementation)

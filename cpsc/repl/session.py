"""A REPL session: OCaml's toplevel (`cpsc.repl.toplevel`) for FL phrases, and a history of
versions of the program's CPS IR, each a workbench `Program` (`cpsc.workbench`), which the `:`
commands transform (one call site inlined, a pass, a pipeline) and look at.

Each accepted phrase makes a new base version: the session's CPS at -O0, with every monomorphic
top-level function kept even if unused. A transformation makes a new version from the current
one; `:undo` and `:redo` move along the history. `:run EXPR` and `:count EXPR` build the
current version's code again with the expression added and replay the version's steps on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cpsc.project import UnitFiles
from cpsc.project.units import Unit, UnitFinder, units_from_main
from cpsc.repl.toplevel import SessionError, Toplevel, after_marker, outcome_text
from cpsc.syntax.diagnostics import CompileError
from cpsc.syntax.parser import parse
from cpsc.workbench import Program

__all__ = ["Session", "SessionError"]


def unit_phrase(unit: Unit, files: UnitFiles) -> str:
    """A unit as one phrase: `module Util : sig (util.mli) end = struct (util.ml) end`."""
    signature = f": sig\n{files.text(unit.interface)}\nend " if unit.interface else ""
    return f"module {unit.name} {signature}= struct\n{files.text(unit.implementation)}\nend"


@dataclass(frozen=True)
class Version:
    program: Program
    label: str
    declarations: int  # how many of the session's declarations its base was built from


class Session:
    def __init__(self, load_path: list[str] | None = None) -> None:
        self.toplevel = Toplevel()
        self.versions: list[Version] = []
        self.current = -1
        # where units and `#use`'s files are looked for, after the working directory (`-I`, `#directory`)
        self.load_path = list(load_path or [])

    # ------------------------------------------------------------ phrases
    def phrase(self, text: str) -> str:
        """Evaluate FL input as OCaml's toplevel does (`Toplevel.phrase`); an accepted phrase
        makes a new base version. The units it names that the session does not have yet are
        loaded first, from the working directory and the load path, as `#mod_use` loads a
        file (with its interface): `Util.square 3` loads `util.ml`."""
        return self._load_units(text) + self._phrase(text)

    def find(self, file: str) -> str | None:
        """A file named by a directive: as given, else in the load path (as OCaml looks)."""
        if Path(file).exists() or Path(file).is_absolute():
            return file if Path(file).exists() else None
        return next((str(Path(d) / file) for d in self.load_path if (Path(d) / file).exists()), None)

    def _load_units(self, text: str) -> str:
        try:
            named = parse(text, "[phrase]").qualifiers
        except CompileError:
            return ""  # said by the phrase itself
        known = self.toplevel.module_scope.modules
        finder = UnitFinder(["."] + self.load_path)
        files = UnitFiles(lambda file: Path(file).read_bytes().decode("latin-1"))
        said = ""
        for name in sorted(n for n in named if n not in known):
            found = finder.find(name)
            if found is None:
                continue
            try:
                units = units_from_main(found.implementation, finder, files.references)
            except (CompileError, OSError):
                continue  # the phrase says the module is unbound
            for unit in units:
                if unit.name not in known:
                    said += self._phrase(unit_phrase(unit, files))
        return said

    def _phrase(self, text: str) -> str:
        accepted = self.toplevel.accepted
        out = self.toplevel.phrase(text)
        if self.toplevel.accepted != accepted:
            count = len(self.toplevel.declarations)
            cps, typed, origins = self.toplevel.program(count)
            self._add(Version(Program(cps, source=typed, origins=origins), "after " + _summary(text), count))
        return out

    def load(self, path: str) -> str:
        try:
            text = Path(path).read_text(encoding="latin-1")
        except OSError as error:
            raise SessionError(f"cannot read {path}: {error.strerror}") from None
        return self.phrase(text)

    def completions(self, word: str) -> list[str]:
        """The names a user can type that start with `word`, as typed (`List.fold_` gives
        `List.fold_left` and `List.fold_right`): the prelude's and the session's values and
        modules, a module's members after its path; never the compiler's own names."""
        *path, last = word.split(".")
        members: Any = self.toplevel.module_scope
        for name in path:
            members = members.modules.get(name)
            if members is None:
                return []
        names = set(members.values) | {m + "." for m in members.modules} | set(members.constructors)
        if not path:
            names |= set(_prelude_values()) | set(self.toplevel.top_level_names())
        prefix = "".join(p + "." for p in path)
        return sorted(prefix + n for n in names if n.startswith(last) and _typable(n))

    def type_of(self, text: str) -> str:
        return self.toplevel.type_of(text)

    # ------------------------------------------------------------ versions
    @property
    def version(self) -> Version:
        if self.current < 0:
            raise SessionError("no program yet: declare something first (or :load a file)")
        return self.versions[self.current]

    @property
    def program(self) -> Program:
        return self.version.program

    def _add(self, version: Version) -> None:
        del self.versions[self.current + 1:]
        self.versions.append(version)
        self.current = len(self.versions) - 1

    def _advance(self, program: Program) -> str:
        """Make `program`, one step from the current version, the current version."""
        self._add(Version(program, str(program.steps[-1]), self.version.declarations))
        return f"version {self.current}: {program.steps[-1]}\n"

    def inline(self, function: str, site: int) -> str:
        self._advance(self.program.inline(function, site))
        return f"version {self.current}: inlined call site {site} of {function}\n" + self.cps(function)

    def run_pass(self, name: str, function: str | None = None) -> str:
        return self._advance(self.program.run_pass(name, function)) + (self.cps(function) if function else "")

    def pipeline(self, level: str) -> str:
        return self._advance(self.program.pipeline(level))

    def undo(self) -> str:
        if self.current <= 0:
            raise SessionError("nothing to undo")
        self.current -= 1
        return f"version {self.current}: {self.version.label}\n"

    def redo(self) -> str:
        if self.current + 1 >= len(self.versions):
            raise SessionError("nothing to redo")
        self.current += 1
        return f"version {self.current}: {self.version.label}\n"

    def history(self) -> str:
        return "".join(f"{'*' if i == self.current else ' '} {i}: {v.label}\n" for i, v in enumerate(self.versions))

    def diff(self, first: int | None = None, second: int | None = None) -> str:
        """Unified diff of two versions' CPS (by default the previous and the current one)."""
        second = self.current if second is None else second
        first = second - 1 if first is None else first
        for index in (first, second):
            if not 0 <= index < len(self.versions):
                raise SessionError(f"no version {index} (there are {len(self.versions)}; see :history)")
        before, after = self.versions[first].program, self.versions[second].program
        return before.diff(after, (f"version {first}", f"version {second}")) or "no change\n"

    # ------------------------------------------------------------ looking at the current version
    def function_names(self) -> list[str]:
        return self.program.functions if self.current >= 0 else []

    def cps(self, name: str) -> str:
        return self.program.function(name)

    def calls(self, name: str) -> str:
        function = self.program.function_name(name)
        sites = self.program.call_sites(function)
        if not sites:
            return f"{function} makes no direct call\n"
        return "".join(f"{i}: {site.callee} in {site.label}" + (f" @{site.loc}" if site.loc else "") + "\n"
                       for i, site in enumerate(sites))

    def size(self) -> str:
        rows = [f"{name:<32} {blocks:>6} {values:>7} {calls:>6}\n"
                for name, (blocks, values, calls) in self.program.sizes().items()]
        return f"{'function':<32} {'blocks':>6} {'values':>7} {'calls':>6}\n" + "".join(rows)

    def remarks(self) -> str:
        """The inliner's decision at each call site of the current version (nothing is changed)."""
        return "".join(f"{r}\n" for r in self.program.remarks()) or "no call sites\n"

    def ssa(self, name: str) -> str:
        return self.program.ssa(name)

    def llvm(self, name: str, opt: int = 2) -> str:
        return self.program.llvm(name, opt)

    def asm(self, name: str, opt: int = 2) -> str:
        return self.program.asm(name, opt)

    def dot(self, name: str, directory: str = ".") -> str:
        picture = self.program.cfg(name)
        base = Path(directory) / re.sub(r"[^\w.-]", "_", self.program.function_name(name))
        base.with_suffix(".dot").write_text(picture.dot)
        written = [str(base.with_suffix(".dot"))]
        svg = picture.svg()
        if svg is not None:
            base.with_suffix(".svg").write_text(svg)
            written.append(str(base.with_suffix(".svg")))
        return "wrote " + " and ".join(written) + "\n"

    # ------------------------------------------------------------ running the current version
    def _with_expression(self, text: str, show: bool = True) -> Program:
        """The current version's program with `text` evaluated (and shown) at the end of main,
        the version's steps replayed on it."""
        return self.program.replayed_on(*self.toplevel.program_with(text, self.version.declarations, show))

    def run(self, text: str) -> str:
        """Evaluate an expression with the current version of the code, in the CPS interpreter
        and natively (LLVM's JIT, in a child process), and say whether they agree."""
        program = self._with_expression(text)
        interpreted = after_marker(program.run("cps"))
        native = after_marker(program.run("jit"))
        if interpreted == native:
            return outcome_text(interpreted) + "(interpreted and native agree)\n"
        return ("interpreted:\n" + outcome_text(interpreted) + "native:\n" + outcome_text(native)
                + "(interpreted and native DISAGREE)\n")

    def count(self, text: str) -> str:
        """The CPS interpreter's dynamic counts of evaluating an expression, on the current
        version: the program's with the expression, less the same program's with `()` in its
        place (the session's set-up, the printers), so that they are the expression's own."""
        outcome, _ = self._with_expression(text).run_counted()
        _, with_it = self._with_expression(text, show=False).run_counted()
        _, without = self._with_expression("()", show=False).run_counted()
        from cpsc.cps.interp import COUNTED

        own = {key: max(0, with_it[key] - without[key]) for key in sorted(COUNTED)}
        return outcome_text(after_marker(outcome)) + "".join(f"{key:<16} {value}\n" for key, value in own.items())


def _prelude_values() -> list[str]:
    from cpsc.types.prelude import checked_prelude

    return [name for name in checked_prelude().env if _typable(name)]


def _typable(name: str) -> bool:
    """A name of the language a user may type (not an operator, not the library's own `fl_`)."""
    return re.fullmatch(r"[A-Za-z_][A-Za-z0-9_']*\.?", name) is not None and not name.startswith(("fl_", "cpsc__"))


def _summary(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= 60 else line[:57] + "..."

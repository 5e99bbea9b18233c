"""Where the code of a program built with -g is in its source (filled in by CPS conversion,
`cpsc.to_cps.debug`), for the native back end's backtraces and DWARF (`cpsc.llvm`): each
function by its qualified name as OCaml's backtraces name it (`Prog.g.k`, `Prog` for a unit's
top-level code, `Stdlib__List.map` for the prelude's), each call by `file "f.ml", line L,
characters A-B` (A and B count from the start of line L, from 0, B after the end)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Site:
    """A place in the source: the function it is written in, and its span."""

    function: str  # the qualified name (`Prog.g`)
    file: str
    line: int
    column: int  # from 1, as a Span's
    start: int  # OCaml's characters A-B
    end: int

    def describe(self, inlined: bool = False) -> str:
        """As OCaml's backtraces: `Prog.g in file "prog.ml", line 7, characters 10-13` (with
        `(inlined)` after the file for a call that inlining removed)."""
        mark = " (inlined)" if inlined else ""
        return f'{self.function} in file "{self.file}"{mark}, line {self.line}, characters {self.start}-{self.end}'


@dataclass
class DebugSites:
    """What -g knows of the source; `source(file)` gives a file's text (for a span over several
    lines; "" if unknown), `paths` where a debugger finds a file named otherwise (the prelude's)."""

    source: Callable[[str], str] = lambda file: ""
    calls: dict[str, Site] = field(default_factory=dict)  # Call.loc -> its site
    functions: dict[str, Site] = field(default_factory=dict)  # CPS function -> where it is defined
    toplevel: set[str] = field(default_factory=set)  # main and the top-level statements' functions
    paths: dict[str, str] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)  # CPS function -> its name in the source
    variables: dict[str, str] = field(default_factory=dict)  # CPS variable -> the name `let` gave it
    # a program of several units, each a module: a function's name begins with its unit's
    units: bool = False

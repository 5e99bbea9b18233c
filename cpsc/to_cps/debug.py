"""How CPS conversion fills in a program's `DebugSites` (-g, `cpsc.cps.sites`): the source names
of functions and the spans of calls and raises. The native back end reads them: a propagated
exception's frames are the calls it leaves through, named by `Call.loc`, and a raise's place is
the text of its `raise_at` primitive."""

from __future__ import annotations

from cpsc.cps.sites import DebugSites, Site
from cpsc.syntax.diagnostics import Span
from cpsc.syntax.units import unit_name
from cpsc.types.prelude import PRELUDE_FILE, prelude_path


class SiteRecorder:
    def __init__(self, sites: DebugSites) -> None:
        self.sites = sites
        sites.paths.setdefault(PRELUDE_FILE, prelude_path())

    def define(self, function: str, source_name: str, parent: str | None, span: Span) -> None:
        """A function made of the source: `source_name` as monomorphisation named it
        (`List.map<int, string>`), inside `parent`."""
        base = source_name.split("<")[0]
        base = "(fun)" if base == "fun" else base
        outer = self.sites.names.get(parent) if parent is not None and parent not in self.sites.toplevel else None
        self.sites.names[function] = base if outer is None else f"{outer}.{base}"
        self.sites.functions[function] = self.site(function, span)

    def call(self, loc: str, function: str, span: Span) -> None:
        """An application at `loc`; of those starting there (`f x + 1`, `f x`), the call is the
        innermost."""
        site = self.site(function, span)
        known = self.sites.calls.get(loc)
        if known is None or (site.line, site.end) < (known.line, known.end):
            self.sites.calls[loc] = site

    def raise_point(self, kind: str, function: str, span: Span) -> str:
        """The text of a `raise_at`: its kind (`R` a raise, `r` raising again what a handler
        caught, `P` a primitive operation) and where it is."""
        return kind + self.site(function, span).describe()

    def qualified(self, function: str, file: str) -> str:
        """`function`'s name in backtraces, the unit of `file` first."""
        name = None if function in self.sites.toplevel else self.sites.names.get(function)
        if file != PRELUDE_FILE:
            unit = unit_name(file)
            if name is None:
                return unit
            return name if self.sites.units else f"{unit}.{name}"
        if name is None:
            return "Stdlib"
        module, dot, rest = name.partition(".")
        return f"Stdlib__{module}.{rest}" if dot and module[:1].isupper() else f"Stdlib.{name}"

    def site(self, function: str, span: Span) -> Site:
        start = span.col - 1
        end = span.end_col - 1
        if span.end_line != span.line:
            lines = self.sites.source(span.file).split("\n")
            if len(lines) >= span.end_line:
                end += sum(len(line) + 1 for line in lines[span.line - 1:span.end_line - 1])
        return Site(self.qualified(function, span.file), span.file, span.line, span.col, start, end)

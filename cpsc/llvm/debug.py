"""DWARF for a program built with -g: a subprogram per function, named as OCaml's backtraces
name it (`Prog.g.k`, `cpsc.to_cps.debug`), and a line for each call, so that gdb can stop at
`prog.ml:12`, `bt` shows FL functions and source lines, and perf attributes time to them.

The CPS IR carries a source location on calls only (`Call.loc`): an instruction's line is that
of the call before it in its block, or the function's own line. Code that inlining moved from
another file (the prelude's, say) keeps that file, through a `DILexicalBlockFile`.
"""

from __future__ import annotations

import os
import re

from cpsc.cps.sites import DebugSites, Site
from cpsc.llvm import text as ll

# What monomorphisation, specialisation and closure conversion add to a function's name: its
# copies share their original's place (`g.3`, `f.curry2`, `k.spec1`).
_COPY_SUFFIX = re.compile(r"(\.(curry|spec|copy)?[0-9]+)+$")


class DebugInfo:
    """The debug metadata of one LLVM module."""

    def __init__(self, module: ll.Module, sites: DebugSites) -> None:
        self.module = module
        self.sites = sites
        self.directory = os.getcwd()
        self.files: dict[str, str] = {}
        self.scopes: dict[tuple[str, str], str] = {}  # (subprogram, file) -> scope
        self.locations: dict[tuple[str, int, int], str] = {}
        self.types: dict[str, str] = {}
        self.lines: dict[str, int] = {}  # subprogram -> the line its function is defined on
        main_file = next((s.file for s in sites.functions.values() if s.file not in sites.paths), "")
        self.main_file = main_file
        self.unit = module.add_metadata(
            f"distinct !DICompileUnit(language: DW_LANG_OCaml, file: {self.file(main_file)}, "
            'producer: "cpsc", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug)')
        self.routine_type = module.add_metadata("!DISubroutineType(types: !{null})")
        module.named_metadata["llvm.dbg.cu"] = [self.unit]
        module.named_metadata["llvm.module.flags"] = [
            module.add_metadata('!{i32 7, !"Dwarf Version", i32 5}'),
            module.add_metadata('!{i32 2, !"Debug Info Version", i32 3}')]

    def file(self, name: str) -> str:
        if name not in self.files:
            path = self.sites.paths.get(name, name)
            directory, base = os.path.split(path if os.path.isabs(path) else os.path.join(self.directory, path))
            self.files[name] = self.module.add_metadata(
                f"!DIFile(filename: {ll.quoted(base)}, directory: {ll.quoted(directory)})")
        return self.files[name]

    def site_of(self, function: str) -> Site | None:
        sites = self.sites.functions
        return sites.get(function) or sites.get(_COPY_SUFFIX.sub("", function))

    def subprogram(self, function: str, symbol: str) -> tuple[str, str]:
        """The DISubprogram of a function, and the location of its first line."""
        site = self.site_of(function)
        name = site.function if site is not None else function
        file = site.file if site is not None else self.main_file
        line = site.line if site is not None else 0
        program = self.module.add_metadata(
            f"distinct !DISubprogram(name: {ll.quoted(name)}, "
            f"scope: {self.file(file)}, file: {self.file(file)}, line: {line}, type: {self.routine_type}, "
            f"scopeLine: {line}, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: {self.unit})")
        self.lines[program] = line
        return program, self.location(program, file, file, line, site.column if site is not None else 0)

    def location(self, program: str, program_file: str, file: str, line: int, column: int) -> str:
        """`, !dbg !N` for a place in `program`, which is written in `program_file`."""
        scope = program
        if file != program_file:
            if (program, file) not in self.scopes:
                self.scopes[program, file] = self.module.add_metadata(
                    f"!DILexicalBlockFile(scope: {program}, file: {self.file(file)}, discriminator: 0)")
            scope = self.scopes[program, file]
        key = (scope, line, column)
        if key not in self.locations:
            self.locations[key] = ", !dbg " + self.module.add_metadata(
                f"!DILocation(line: {line}, column: {column}, scope: {scope})")
        return self.locations[key]

    def parameter(self, program: str, program_file: str, name: str, index: int, type_name: str,
                  value: ll.Value) -> str:
        """The record that says parameter `index` (from 1) of `program`, `name` in the source
        (`x.1` is `x`), is `value` (for gdb's `info args`)."""
        line = self.lines[program]
        location = self.location(program, program_file, program_file, line, 0)
        return self.variable_value(program, program_file, _COPY_SUFFIX.sub("", name), f"arg: {index}, ", type_name,
                                   value, location)

    def variable_value(self, program: str, program_file: str, name: str, argument: str, type_name: str,
                       value: ll.Value, location: str) -> str:
        """The record that says the variable `name` of `program` is `value` from here on (at
        `location`, `, !dbg !N`): a parameter (`argument`: `arg: N, `) or a `let`'s (for gdb's
        `info locals`)."""
        line = self.lines[program]
        variable = self.module.add_metadata(
            f"!DILocalVariable(name: {ll.quoted(name)}, {argument}scope: {program}, "
            f"file: {self.file(program_file)}, line: {line}, type: {self.type(type_name)})")
        return f"#dbg_value({value}, {variable}, !DIExpression(), {location[len(', !dbg '):]})"

    def type(self, name: str) -> str:
        """A value's DWARF type: an int, float, bool or char as such, anything else a pointer."""
        if name not in self.types:
            encodings = {"int": ("DW_ATE_signed", 64), "float": ("DW_ATE_float", 64),
                         "bool": ("DW_ATE_boolean", 8), "char": ("DW_ATE_unsigned_char", 8)}
            if name in encodings:
                encoding, bits = encodings[name]
                node = f"!DIBasicType(name: {ll.quoted(name)}, size: {bits}, encoding: {encoding})"
            else:
                node = f"!DIDerivedType(tag: DW_TAG_pointer_type, name: {ll.quoted(name)}, baseType: null, size: 64)"
            self.types[name] = self.module.add_metadata(node)
        return self.types[name]

    def call_location(self, program: str, program_file: str, loc: str | None) -> str | None:
        """The location of the call at `loc` (`Call.loc`), if the source has it."""
        site = self.sites.calls.get(loc) if loc is not None else None
        if site is None:
            return None
        return self.location(program, program_file, site.file, site.line, site.column)

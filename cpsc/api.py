"""The Python API (`import cpsc`): what the REPL does, for scripts and notebooks.

    import cpsc
    p = cpsc.compile(open("prog.fl").read())      # a Program: the CPS IR at -O0
    p.call_sites("sum")                            # [CallSite(...), ...], numbered as inline takes them
    q = p.inline("sum", 0).run_pass("simplify")    # new Programs; p is unchanged
    print(p.diff(q)); q.run().stdout; q.cfg("sum") # a diff, the output, a CFG picture

`Program` is the workbench (`cpsc.workbench`), which the REPL's IR commands use too. It is
immutable (persistent maps): every operation returns a new one, sharing what it did not change.
In Jupyter a Program shows its IR, and `cfg(name)` its CFG as SVG.
"""

from __future__ import annotations

from pathlib import Path

from cpsc import driver
from cpsc.elaborate import parse_module
from cpsc.opt.pipeline import register_pass
from cpsc.opt.substitute import CallSite
from cpsc.project import UnitFiles
from cpsc.semantics.values import Outcome
from cpsc.syntax import ast
from cpsc.to_cps.convert import cps_convert_with_origins
from cpsc.types.infer import infer_module
from cpsc.types.prelude import checked_prelude, prelude_modules
from cpsc.types.types import show
from cpsc.workbench import Program, WorkbenchError

__all__ = ["Program", "CallSite", "Outcome", "WorkbenchError", "parse", "infer_types", "compile", "compile_files",
           "register_pass"]


def parse(text: str, file: str = "program.fl") -> ast.Module:
    """The program's declarations (a `CompileError` says what is wrong, where)."""
    return parse_module(text, file, prelude_modules())


def infer_types(text: str, file: str = "program.fl") -> dict[str, str]:
    """The type of each top-level name, as OCaml prints it (`'a list -> int`)."""
    module = parse(text, file)
    typing, _ = infer_module(module, checked_prelude())
    out = {}
    for declaration in module.declarations:
        if isinstance(declaration, ast.LetDecl):
            for binding in declaration.bindings:
                if isinstance(binding.pattern, ast.PVar) and id(binding.pattern) in typing.schemes:
                    out[binding.pattern.name] = show(typing.schemes[id(binding.pattern)].type)
    return out


def compile_files(files: list[str], include: list[str] | None = None) -> Program:
    """`compile` for a program of several files, named as on the command line: its main file
    (the units it uses are found beside it and in the `include` folders), every file in link
    order (`.mli` before `.ml`), or a dune project's folder."""
    unit_files = UnitFiles(lambda file: Path(file).read_bytes().decode("latin-1"))
    units, finder = driver.find_program(files, list(include or []), unit_files)
    typed = driver.front_end_units(units, unit_files, finder=finder)
    cps, origins = cps_convert_with_origins(typed)
    return Program(cps, source=typed, origins=origins)


def compile(text: str, filename: str = "program.fl") -> Program:  # noqa: A001 - the API's verb
    """Parse, type-check, monomorphise and convert to CPS (no pass run yet). `filename` names
    the program in diagnostics and is its unit (`prog.ml`: exceptions print as `Prog.E`)."""
    typed = driver.front_end(text, filename)
    cps, origins = cps_convert_with_origins(typed)
    return Program(cps, source=typed, origins=origins)

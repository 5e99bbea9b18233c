"""The compilation pipeline as plain functions; the CLI, the REPL and the tests all call these.

Each function takes an optional `Stages` recorder and times the stages it runs under their
`--time-passes` names: parse, infer, mono, cps (then the optimiser's passes), closure, ssa,
lower (SSA to LLVM IR), llvm-opt, codegen, link.
"""

from __future__ import annotations

import dataclasses
import functools
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from cpsc.closure.convert import closure_convert
from cpsc.cps.program import Program
from cpsc.cps.sites import DebugSites
from cpsc.elaborate import elaborate_unit
from cpsc.llvm.backend import (
    ForkedCompile,
    cached_object,
    compile_timed,
    emit_object,
    link,
    optimize,
    store_object,
)
from cpsc.llvm.lower import functions_that_may_raise, lower_module, lower_part
from cpsc.llvm.partition import part_count, partition
from cpsc.mono.mono import monomorphise
from cpsc.opt.context import PassContext
from cpsc.opt.pipeline import PassReport, run_pipeline
from cpsc.project import PROGRAM_FILE, UnitFiles, assemble, bad_unit_names, explained, find_units
from cpsc.project.units import Aliases, Unit, UnitFinder
from cpsc.ssa import ir as ssa_ir
from cpsc.ssa.from_cps import to_ssa
from cpsc.ssa.verify import verify_module
from cpsc.support.stages import Stages
from cpsc.syntax import ast
from cpsc.syntax.diagnostics import CompileError, SourceFiles
from cpsc.syntax.lexical import latin1_alerts
from cpsc.syntax.parser import Parsed, parse
from cpsc.to_cps.convert import cps_convert
from cpsc.types.datatypes import DataTypes
from cpsc.types.infer import infer_module
from cpsc.types.inferred import Typing
from cpsc.types.prelude import FORMAT_AT_EXIT, PRELUDE_FILE, checked_prelude, prelude_modules, prelude_text


def parse_program(text: str, file: str, sources: SourceFiles | None = None,
                  stages: Stages | None = None, parsed: Parsed | None = None) -> ast.Module:
    """The user's program (without the prelude, which `front_end` adds already checked);
    `parsed`: the text parsed already."""
    stages = stages or Stages()
    if sources is not None:
        sources.add(file, text)
        sources.add(PRELUDE_FILE, prelude_text())
    if parsed is None:
        with stages.stage("parse"):
            parsed = parse(text, file)
    with stages.stage("elaborate"):
        return elaborate_unit(parsed, prelude_modules())


def front_end(text: str, file: str, sources: SourceFiles | None = None,
              stages: Stages | None = None, parsed: Parsed | None = None,
              finder: UnitFinder | None = None) -> ast.Program:
    """Parse, type-check and monomorphise: the whole program, prelude first, as one typed
    expression with its data types and warnings. The prelude is parsed and checked once
    (`cpsc.types.prelude`), not per build. (`finder`: where the units it names were looked for.)"""
    stages = stages or Stages()
    with _said_of_units([], finder):
        user = parse_program(text, file, sources, stages, parsed)
        typing, datatypes = type_check(user, stages)
    program = monomorphic(user, typing, datatypes, stages=stages)
    return dataclasses.replace(program, warnings=tuple(latin1_alerts(text, file)) + program.warnings)


def type_check(user: ast.Module, stages: Stages | None = None) -> tuple[Typing, DataTypes]:
    """The types of the user's declarations, after the prelude's (a `CompileError` if wrong)."""
    with (stages or Stages()).stage("infer"):
        return infer_module(user, checked_prelude(), "" if user.files[:1] == (PROGRAM_FILE,) else None)


def find_program(files: list[str], folders: list[str], unit_files: UnitFiles) -> tuple[list[Unit | Aliases], UnitFinder | None]:
    """The units of the program `files` name (`cpsc.project.find_units`), the standard library's
    modules known."""
    return find_units(files, folders, unit_files, frozenset(prelude_modules().modules))


def parse_units(units: list[Unit | Aliases], files: UnitFiles, sources: SourceFiles | None = None,
                stages: Stages | None = None) -> ast.Module:
    """The units of a program of several files, in link order, as one module whose items are
    the units' structures."""
    stages = stages or Stages()
    if sources is not None:
        for unit in units:
            for file in unit.files:
                sources.add(file, files.text(file))
        sources.add(PRELUDE_FILE, prelude_text())
    with stages.stage("elaborate"):
        module = elaborate_unit(assemble(units, files.parsed, files.text), prelude_modules())
    return ast.Module(module.declarations, (PROGRAM_FILE,) + module.files)


def front_end_units(units: list[Unit | Aliases], files: UnitFiles, sources: SourceFiles | None = None,
                    stages: Stages | None = None, finder: UnitFinder | None = None) -> ast.Program:
    """`front_end` for a program of units (`cpsc.project.find_units`); one file with no
    interface is compiled as that file alone (its exceptions are `Prog.E`)."""
    stages = stages or Stages()
    if len(units) == 1 and isinstance(units[0], Unit) and units[0].interface is None:
        main = units[0].implementation
        return front_end(files.text(main), main, sources, stages, files.parsed(main), finder)
    with _said_of_units(units, finder):
        user = parse_units(units, files, sources, stages)
        typing, datatypes = type_check(user, stages)
    program = monomorphic(user, typing, datatypes, stages=stages)
    alerts = tuple(alert for unit in units for file in unit.files for alert in latin1_alerts(files.text(file), file))
    return dataclasses.replace(program, warnings=bad_unit_names(units) + alerts + program.warnings)


@contextmanager
def _said_of_units(units: list[Unit | Aliases], finder: UnitFinder | None) -> Iterator[None]:
    """Errors about units said as OCaml says them: an interface mismatch at the implementation;
    an unbound module with where cpsc looked for its file."""
    try:
        yield
    except CompileError as error:
        raised = explained(error, units, finder)
        if raised is error:
            raise
        raise raised from None


def monomorphic(user: ast.Module, typing: Typing, datatypes: DataTypes,
                keep: Callable[[ast.Binding], bool] | None = None, stages: Stages | None = None,
                at_exit: bool = True) -> ast.Program:
    """The prelude and the user's declarations, type-checked, as one monomorphic expression
    (`keep`: the top-level bindings kept although unused, as the REPL keeps its phrases';
    `at_exit`: whether the program's end runs `at_exit`'s functions, as a program's does and a
    toplevel phrase's does not)."""
    with (stages or Stages()).stage("mono"):
        module = ast.Module(_prelude_declarations(typing) + user.declarations, (PRELUDE_FILE,) + user.files)
        return monomorphise(module, typing, datatypes, keep, at_exit)


def _prelude_declarations(typing: Typing) -> tuple[ast.Declaration, ...]:
    """The prelude's declarations, without the one that flushes Format's standard formatters
    at exit when the program names nothing of Format (it would keep them in every program)."""
    declarations = checked_prelude().module.declarations
    if "Format" in typing.modules_named:
        return declarations
    return tuple(d for d in declarations if not (isinstance(d, ast.LetDecl) and len(d.bindings) == 1
                                                 and isinstance(d.bindings[0].pattern, ast.PVar)
                                                 and d.bindings[0].pattern.name == FORMAT_AT_EXIT))


def to_cps(program: ast.Program, stages: Stages | None = None, sites: DebugSites | None = None) -> Program:
    """The CPS IR of the program; with `sites` (-g), what backtraces and DWARF need is noted."""
    with (stages or Stages()).stage("cps"):
        return cps_convert(program, sites)


def optimise(program: Program, passes: list[str], verify_each: bool = False,
             after_each: Callable[[str, Program], None] | None = None,
             stages: Stages | None = None,
             context: PassContext | None = None) -> tuple[Program, list[PassReport]]:
    """Run passes by name; with `verify_each` the verifier checks every intermediate program;
    `context` sets the level and the fuel and collects remarks."""

    from cpsc.cps.verify import VerifyError, verify  # only with verify_each; a plain build skips the import

    def after(name: str, p: Program) -> None:
        if verify_each:
            try:
                verify(p)
            except VerifyError as error:
                raise VerifyError(f"after {name}: {error}") from None
        if after_each is not None:
            after_each(name, p)

    if verify_each:
        verify(program)
    with (stages or Stages()).stage("opt"):
        return run_pipeline(program, passes, after, context)


def to_ssa_module(program: Program, verify_each: bool = False,
                  stages: Stages | None = None) -> ssa_ir.Module:
    stages = stages or Stages()
    with stages.stage("closure"):
        closed = closure_convert(program)
    if verify_each:
        from cpsc.cps.verify import verify

        verify(closed)
    with stages.stage("ssa"):
        module = to_ssa(closed)
        verify_module(module)
        return module


def to_llvm(module: ssa_ir.Module, stages: Stages | None = None, sites: DebugSites | None = None) -> str:
    with (stages or Stages()).stage("lower"):
        return str(lower_module(module, sites))


def native_executable(module: ssa_ir.Module, opt: int, output: str, stages: Stages | None = None,
                      parts: int | None = None, static: bool = False, sites: DebugSites | None = None) -> None:
    """Build the executable. A large program is split into parts (`cpsc.llvm.partition`; at
    most `parts` when given) that are lowered and compiled at once, each but the first in a
    process of its own; then `lower` and `llvm-opt` are the longest of any part, and `codegen`
    the rest of the time until every part's object is ready."""
    stages = stages or Stages()
    count = part_count(module) if parts is None else parts
    if count == 1:
        llvm_ir = to_llvm(module, stages, sites)
        cached = cached_object(llvm_ir, opt)
        if cached is not None:
            objects = [cached]
        else:
            with stages.stage("llvm-opt"):
                optimized = optimize(llvm_ir, opt)
            with stages.stage("codegen"):
                objects = [store_object(llvm_ir, opt, emit_object(optimized, opt))]
    else:
        objects = _compile_parts(module, opt, count, stages, sites)
    with stages.stage("link"):
        link(objects, output, static)


def _compile_parts(module: ssa_ir.Module, opt: int, count: int, stages: Stages,
                   sites: DebugSites | None) -> list[bytes]:
    start = time.perf_counter()
    split = partition(module, count)
    may_raise = functions_that_may_raise(module)
    with tempfile.TemporaryDirectory() as folder:
        others = [ForkedCompile(functools.partial(_lowered_part, module, part, may_raise, sites), opt, folder)
                  for part in split[1:]]
        results = [compile_timed(functools.partial(_lowered_part, module, split[0], may_raise, sites), opt)]
        results += [other.result() for other in others]
    lowering = max(r[1] for r in results)
    optimizing = max(r[2] for r in results)
    stages.record("lower", lowering)
    stages.record("llvm-opt", optimizing)
    stages.record("codegen", max(0.0, time.perf_counter() - start - lowering - optimizing))
    return [r[0] for r in results]


def _lowered_part(module: ssa_ir.Module, part: set[str], may_raise: set[str], sites: DebugSites | None) -> str:
    return str(lower_part(module, part, may_raise, sites))

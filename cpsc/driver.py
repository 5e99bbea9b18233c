"""The compilation pipeline as plain functions; the CLI, the REPL and the tests all call these."""

from __future__ import annotations

import functools
from collections.abc import Callable

from cpsc.closure.convert import closure_convert
from cpsc.cps import ir as cps_ir
from cpsc.cps.convert import cps_convert
from cpsc.cps.verify import verify
from cpsc.llvm.backend import emit_object, link, optimize
from cpsc.llvm.lower import lower_module
from cpsc.mono.mono import monomorphise
from cpsc.opt.pipeline import PassReport, run_pipeline
from cpsc.ssa import ir as ssa_ir
from cpsc.ssa.from_cps import to_ssa
from cpsc.ssa.verify import verify_module
from cpsc.syntax import ast
from cpsc.syntax.diagnostics import SourceFiles
from cpsc.syntax.parser import lang_file, parse_module
from cpsc.types.infer import infer_module

PRELUDE_FILE = "<prelude>"


@functools.cache
def _prelude() -> ast.Module:
    return parse_module(lang_file("prelude.fl"), PRELUDE_FILE)


def parse_program(text: str, file: str, sources: SourceFiles | None = None) -> ast.Module:
    """The user's program with the prelude's declarations in front."""
    if sources is not None:
        sources.add(file, text)
        sources.add(PRELUDE_FILE, lang_file("prelude.fl"))
    user = parse_module(text, file)
    return ast.Module(_prelude().declarations + user.declarations, (PRELUDE_FILE, file))


def front_end(text: str, file: str, sources: SourceFiles | None = None) -> ast.Expr:
    """Parse, type-check and monomorphise: the whole program as one typed expression."""
    module = parse_program(text, file, sources)
    typing = infer_module(module)
    return monomorphise(module, typing)


def to_cps(program: ast.Expr) -> cps_ir.Program:
    return cps_convert(program)


def optimise(program: cps_ir.Program, passes: list[str], verify_each: bool = False,
             after_each: Callable[[str, cps_ir.Program], None] | None = None,
             ) -> tuple[cps_ir.Program, list[PassReport]]:
    """Run passes by name; with `verify_each` the verifier checks every intermediate program."""

    def after(name: str, p: cps_ir.Program) -> None:
        if verify_each:
            verify(p)
        if after_each is not None:
            after_each(name, p)

    if verify_each:
        verify(program)
    return run_pipeline(program, passes, after)


def to_ssa_module(program: cps_ir.Program, verify_each: bool = False) -> ssa_ir.Module:
    closed = closure_convert(program)
    if verify_each:
        verify(closed)
    module = to_ssa(closed)
    verify_module(module)
    return module


def to_llvm(module: ssa_ir.Module) -> str:
    return str(lower_module(module))


def native_executable(module: ssa_ir.Module, opt: int, output: str) -> None:
    link(emit_object(optimize(to_llvm(module), opt), opt), output)

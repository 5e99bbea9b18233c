"""The compilation pipeline as plain functions; the CLI, the REPL and the tests all call these.

Each function takes an optional `Stages` recorder and times the stages it runs under their
`--time-passes` names: parse, infer, mono, cps (then the optimiser's passes), closure, ssa,
lower (SSA to LLVM IR), llvm-opt, codegen, link.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable

from cpsc.closure.convert import closure_convert
from cpsc.cps import ir as cps_ir
from cpsc.cps.convert import cps_convert
from cpsc.llvm.backend import ForkedCompile, emit_object, link, optimize
from cpsc.llvm.lower import lower_module, lower_parts
from cpsc.llvm.partition import part_count, partition
from cpsc.mono.mono import monomorphise
from cpsc.opt.context import PassContext
from cpsc.opt.pipeline import PassReport, run_pipeline
from cpsc.ssa import ir as ssa_ir
from cpsc.ssa.from_cps import to_ssa
from cpsc.ssa.verify import verify_module
from cpsc.stages import Stages
from cpsc.syntax import ast
from cpsc.syntax.diagnostics import SourceFiles
from cpsc.syntax.parser import parse_module
from cpsc.types.infer import infer_module
from cpsc.types.prelude import PRELUDE_FILE, checked_prelude, prelude_modules, prelude_text


def parse_program(text: str, file: str, sources: SourceFiles | None = None,
                  stages: Stages | None = None) -> ast.Module:
    """The user's program (without the prelude, which `front_end` adds already checked)."""
    stages = stages or Stages()
    if sources is not None:
        sources.add(file, text)
        sources.add(PRELUDE_FILE, prelude_text())
    with stages.stage("parse"):
        return parse_module(text, file, prelude_modules())


def front_end(text: str, file: str, sources: SourceFiles | None = None,
              stages: Stages | None = None) -> ast.Program:
    """Parse, type-check and monomorphise: the whole program, prelude first, as one typed
    expression with its data types and warnings. The prelude is parsed and checked once
    (`cpsc.types.prelude`), not per build."""
    stages = stages or Stages()
    user = parse_program(text, file, sources, stages)
    with stages.stage("infer"):
        prelude = checked_prelude()
        typing, datatypes = infer_module(user, prelude)
    with stages.stage("mono"):
        module = ast.Module(prelude.module.declarations + user.declarations, (PRELUDE_FILE, file))
        return monomorphise(module, typing, datatypes)


def to_cps(program: ast.Program, stages: Stages | None = None) -> cps_ir.Program:
    with (stages or Stages()).stage("cps"):
        return cps_convert(program)


def optimise(program: cps_ir.Program, passes: list[str], verify_each: bool = False,
             after_each: Callable[[str, cps_ir.Program], None] | None = None,
             stages: Stages | None = None,
             context: PassContext | None = None) -> tuple[cps_ir.Program, list[PassReport]]:
    """Run passes by name; with `verify_each` the verifier checks every intermediate program;
    `context` sets the level and the fuel and collects remarks."""

    from cpsc.cps.verify import verify  # only with verify_each; a plain build skips the import

    def after(name: str, p: cps_ir.Program) -> None:
        if verify_each:
            verify(p)
        if after_each is not None:
            after_each(name, p)

    if verify_each:
        verify(program)
    with (stages or Stages()).stage("opt"):
        return run_pipeline(program, passes, after, context)


def to_ssa_module(program: cps_ir.Program, verify_each: bool = False,
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


def to_llvm(module: ssa_ir.Module, stages: Stages | None = None) -> str:
    with (stages or Stages()).stage("lower"):
        return str(lower_module(module))


def native_executable(module: ssa_ir.Module, opt: int, output: str, stages: Stages | None = None,
                      parts: int | None = None) -> None:
    """Build the executable. A large program is split into parts (`cpsc.llvm.partition`; at
    most `parts` when given) that LLVM compiles in parallel processes; then `llvm-opt` and
    `codegen` time the first part, here, and `codegen` includes the wait for the others."""
    stages = stages or Stages()
    count = part_count(module) if parts is None else parts
    if count == 1:
        llvm_irs = [to_llvm(module, stages)]
    else:
        with stages.stage("lower"):
            llvm_irs = [str(m) for m in lower_parts(module, partition(module, count))]
    with tempfile.TemporaryDirectory() as folder:
        with stages.stage("llvm-opt"):
            others = [ForkedCompile(text, opt, folder) for text in llvm_irs[1:]]
            optimized = optimize(llvm_irs[0], opt)
        with stages.stage("codegen"):
            objects = [emit_object(optimized, opt)] + [other.result() for other in others]
    with stages.stage("link"):
        link(objects, output)

"""The Python API (`import cpsc`): what the REPL does, for scripts and notebooks.

    import cpsc
    p = cpsc.compile(open("prog.fl").read())      # a Program: the CPS IR at -O0
    p.call_sites("sum")                            # [CallSite(...), ...], numbered as :calls shows
    q = p.inline("sum", 0).run_pass("simplify")    # new Programs; p is unchanged
    print(p.diff(q)); q.run().stdout; q.cfg("sum") # a diff, the output, a CFG picture

A `Program` is immutable (persistent maps): every operation returns a new one, sharing what
it did not change. In Jupyter a Program shows its IR, and `cfg(name)` its CFG as SVG.
"""

from __future__ import annotations

import difflib
import html
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass

from cpsc import driver
from cpsc.cps.printer import print_function, print_program
from cpsc.cps.program import Program as CpsProgram
from cpsc.cps.verify import verify
from cpsc.opt.context import PassContext
from cpsc.opt.inline import call_sites, inline_call_site
from cpsc.opt.pipeline import LEVELS, PASSES, register_pass, run_pipeline
from cpsc.opt.substitute import CallSite
from cpsc.semantics.values import Outcome
from cpsc.syntax import ast
from cpsc.syntax.parser import parse_module
from cpsc.types.infer import infer_module
from cpsc.types.prelude import checked_prelude, prelude_modules
from cpsc.types.types import show

__all__ = ["Program", "CallSite", "Outcome", "parse", "infer_types", "compile", "register_pass"]


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


def compile(text: str, file: str = "program.fl") -> Program:  # noqa: A001 - the API's verb
    """Parse, type-check, monomorphise and convert to CPS (no pass run yet)."""
    return Program(driver.to_cps(driver.front_end(text, file)))


@dataclass(frozen=True)
class Program:
    """One version of a program's CPS IR."""

    cps: CpsProgram

    @property
    def functions(self) -> list[str]:
        return sorted(self.cps.functions)

    def function(self, name: str) -> str:
        """One function's CPS text."""
        return "\n".join(print_function(self.cps, name)) + "\n"

    def call_sites(self, function: str) -> list[CallSite]:
        return call_sites(self.cps, function)

    def inline(self, function: str, site: int) -> Program:
        """Inline call site number `site` of `function` by return-continuation substitution."""
        return Program(inline_call_site(self.cps, call_sites(self.cps, function)[site]))

    def run_pass(self, name: str) -> Program:
        """Run one pass of the registry (built in, or registered with `register_pass`)."""
        return Program(PASSES[name].run(self.cps, PassContext())[0])

    def pipeline(self, level: int = 2) -> Program:
        return Program(run_pipeline(self.cps, LEVELS[level].passes, context=LEVELS[level].context())[0])

    def verify(self) -> None:
        """Raise `VerifyError` if an invariant of the IR is broken."""
        verify(self.cps)

    @property
    def text(self) -> str:
        return print_program(self.cps)

    def diff(self, other: Program) -> str:
        return "".join(difflib.unified_diff(self.text.splitlines(keepends=True),
                                            other.text.splitlines(keepends=True), "before", "after"))

    def run(self, level: str = "cps", stdin: str = "") -> Outcome:
        """Run with the CPS or SSA interpreter, or natively (`"native"`: LLVM's JIT, in a child process)."""
        if level == "cps":
            from cpsc.cps.interp import run_cps

            return run_cps(self.cps, stdin=stdin)
        module = driver.to_ssa_module(self.cps)
        if level == "ssa":
            from cpsc.ssa.interp import run_ssa

            return run_ssa(module, stdin=stdin)
        from cpsc.llvm.jit import run_jit_in_child

        return run_jit_in_child(driver.to_llvm(module), 2)

    def count(self) -> Counter[str]:
        """The CPS interpreter's dynamic counts (values, calls, closure calls, allocations, jumps)."""
        from cpsc.cps.interp import run_cps

        counts: Counter[str] = Counter()
        run_cps(self.cps, stdin="", counts=counts)
        return counts

    def dot(self, function: str | None = None) -> str:
        from cpsc.cps.dot import function_dot, program_dot

        return function_dot(self.cps, function) if function else program_dot(self.cps)

    def cfg(self, function: str) -> Picture:
        return Picture(self.dot(function))

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(self.text)}</pre>"


@dataclass(frozen=True)
class Picture:
    """A CFG: `dot` text, shown as SVG in Jupyter when Graphviz is installed."""

    dot: str

    def svg(self) -> str | None:
        if shutil.which("dot") is None:
            return None
        return subprocess.run(["dot", "-Tsvg"], input=self.dot, capture_output=True, text=True, check=True).stdout

    def _repr_svg_(self) -> str | None:
        return self.svg()

    def __str__(self) -> str:
        return self.dot

"""The workbench: one program's CPS IR, and the versions that transformations make of it (one
call site inlined, a pass, an `-O` pipeline), looked at and run. The Python API (`import cpsc`)
hands it out as it is, and the REPL's IR commands are a thin layer over it.

A `Program` is immutable: every transformation returns a new one, sharing what it did not
change (persistent maps), and remembers the steps that made it from its base, so that they can
be replayed on another program (`replayed_on`: the REPL's `:run EXPR` rebuilds the session's
code with an expression added and runs the same steps on it).

Every mistake of a user (a function, call site, pass, level or interpreter that does not exist)
is a `WorkbenchError` whose message says what there is instead.
"""

from __future__ import annotations

import difflib
import html
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cpsc import driver
from cpsc.cps import ir
from cpsc.cps.printer import print_function, print_program
from cpsc.cps.program import Program as CpsProgram
from cpsc.cps.verify import VerifyError, verify
from cpsc.opt.context import PassContext, Remark
from cpsc.opt.inline import NotInlinable, call_sites, inline_call_site
from cpsc.opt.pipeline import LEVELS, PASSES, run_pipeline
from cpsc.opt.substitute import CallSite
from cpsc.semantics.values import Outcome
from cpsc.syntax import ast

RUN_LEVELS = ("ast", "cps", "ssa", "jit", "native")


class WorkbenchError(Exception):
    """A request the program cannot answer: the message says why and what there is."""


@dataclass(frozen=True)
class Step:
    """One transformation: `("inline", function, site)`, `("pass", name, function or "")` or
    `("pipeline", level)`."""

    kind: str
    args: tuple[str | int, ...]

    def __str__(self) -> str:
        if self.kind == "inline":
            return f":inline {self.args[0]} {self.args[1]}"
        if self.kind == "pipeline":
            return f":pipeline -O{self.args[0]}"
        return f":pass {self.args[0]}" + (f" {self.args[1]}" if self.args[1] else "")

    def renamed(self, renaming: Mapping[str, str]) -> Step:
        """The same step naming the functions `renaming` renames by their new names."""
        def new(arg: str | int) -> str | int:
            return renaming.get(arg, arg) if isinstance(arg, str) else arg
        if self.kind == "inline":
            return Step(self.kind, (new(self.args[0]), self.args[1]))
        if self.kind == "pass":
            return Step(self.kind, (self.args[0], new(self.args[1])))
        return self

    def apply(self, program: CpsProgram) -> CpsProgram:
        if self.kind == "pipeline":
            level = LEVELS[int(self.args[0])]
            return run_pipeline(program, level.passes, context=level.context())[0]
        if self.kind == "inline":
            function, site = str(self.args[0]), int(self.args[1])
            try:
                return inline_call_site(program, call_sites(program, function)[site])
            except NotInlinable as reason:
                raise WorkbenchError(f"cannot inline call site {site} of {function}: {reason}") from None
        name, function = str(self.args[0]), str(self.args[1])
        if not function:
            return PASSES[name].run(program, PassContext())[0]
        # Run on the program rooted at the function, so that a function nothing calls yet (a
        # declaration the REPL's session has not used) is not removed as dead; keep only its changes.
        rooted = CpsProgram(program.functions, program.conts, function, program.closed, program.globals)
        return _restricted(program, PASSES[name].run(rooted, PassContext())[0], function)


@dataclass(frozen=True, eq=False)
class Program:
    """One version of a program's CPS IR. `source` is the typed program it was converted from
    (what `run("ast")` interprets: the program as written, before any step)."""

    cps: CpsProgram
    steps: tuple[Step, ...] = ()
    source: ast.Program | None = field(default=None, repr=False)
    # where each function of the program the steps started from is written (`cps_convert_with_origins`)
    origins: Mapping[str, str] = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        steps = f", after {' '.join(str(s) for s in self.steps)}" if self.steps else ""
        return f"<cpsc.Program: {len(self.cps.function_table)} functions, main {self.cps.main}{steps}>"

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(self.text)}</pre>"

    # ------------------------------------------------------------ looking
    @property
    def functions(self) -> list[str]:
        return sorted(self.cps.function_table)

    def function_name(self, name: str) -> str:
        """A function by its CPS name, or by its source name if that names one instance
        (`map` for `map_int_int`)."""
        if name in self.cps.function_table:
            return name
        candidates = sorted(f for f in self.cps.function_table if re.fullmatch(re.escape(name) + r"(_\w+)?", f))
        if len(candidates) == 1:
            return candidates[0]
        if candidates:
            raise WorkbenchError(f"{name} names several functions: {', '.join(candidates)}")
        raise WorkbenchError(f"no function {name} (the functions: {_listed(self.functions)})")

    def function(self, name: str) -> str:
        """One function's CPS text."""
        return "\n".join(print_function(self.cps, self.function_name(name))) + "\n"

    @property
    def text(self) -> str:
        return print_program(self.cps)

    def diff(self, other: Program, names: tuple[str, str] = ("before", "after")) -> str:
        """A unified diff of the two versions' CPS."""
        return "".join(difflib.unified_diff(self.text.splitlines(keepends=True),
                                            other.text.splitlines(keepends=True), *names))

    def call_sites(self, function: str) -> list[CallSite]:
        """The direct calls in `function`; a call's position in this list is the number
        `inline` takes (`CallSite.binding` is where it is in its continuation)."""
        return call_sites(self.cps, self.function_name(function))

    def sizes(self) -> dict[str, tuple[int, int, int]]:
        """Each function's continuations, values and calls (tail calls included)."""
        rows: dict[str, list[int]] = {name: [0, 0, 0] for name in self.cps.function_table}
        for cont in self.cps.cont_table.values():
            row = rows[cont.function]
            row[0] += 1
            row[1] += len(cont.bindings)
            row[2] += sum(isinstance(b.value, (ir.Call, ir.Apply)) for b in cont.bindings)
            row[2] += isinstance(cont.terminator, (ir.TailCall, ir.TailApply))
        return {name: (row[0], row[1], row[2]) for name, row in sorted(rows.items())}

    def remarks(self) -> list[Remark]:
        """The inliner's decision and its reason at each call site (nothing is changed)."""
        context = PassContext()
        PASSES["inline"].run(self.cps, context)
        return [r for r in context.remarks if r.pass_name == "inline"]

    def verify(self) -> None:
        """Raise `VerifyError` if an invariant of the IR is broken."""
        verify(self.cps)

    # ------------------------------------------------------------ transforming
    def inline(self, function: str, site: int | CallSite) -> Program:
        """Inline call site number `site` of `function` (as `call_sites` numbers them) by
        return-continuation substitution."""
        name = self.function_name(function)
        sites = call_sites(self.cps, name)
        number = sites.index(site) if isinstance(site, CallSite) and site in sites else site
        if not isinstance(number, int) or not 0 <= number < len(sites):
            raise WorkbenchError(f"{name} has {len(sites)} call sites"
                                 + (f" (0 to {len(sites) - 1})" if sites else "") + f", not {site}")
        return self.then(Step("inline", (name, number)))

    def run_pass(self, name: str, function: str | None = None) -> Program:
        """Run one pass of the registry (built in, or registered with `register_pass`); with
        `function`, on that function only."""
        if name not in PASSES:
            raise WorkbenchError(f"unknown pass '{name}' (known: {', '.join(sorted(PASSES))})")
        return self.then(Step("pass", (name, self.function_name(function) if function else "")))

    def pipeline(self, level: int | str = 2) -> Program:
        """Run an `-O` level's passes: 2, "2" and "-O2" say the same."""
        return self.then(Step("pipeline", (level_number(level),)))

    def then(self, step: Step) -> Program:
        """The version `step` makes of this one; its result must pass the verifier."""
        program = step.apply(self.cps)
        try:
            verify(program)
        except VerifyError as error:
            raise WorkbenchError(f"{step} would leave a program the verifier rejects: {error}") from None
        return Program(program, self.steps + (step,), self.source, self.origins)

    def replayed_on(self, cps: CpsProgram, source: ast.Program | None = None,
                    origins: Mapping[str, str] | None = None) -> Program:
        """`cps` with this version's steps done on it (the same program with more code). With
        the `origins` of `cps`'s functions, a step names the function written where the one it
        named here is (the other program's code may have taken its name first)."""
        renaming = _same_origins(self.origins, origins or {})
        steps = tuple(step.renamed(renaming) for step in self.steps)
        for step in steps:
            cps = step.apply(cps)
        return Program(cps, steps, source, origins or {})

    # ------------------------------------------------------------ running
    def run(self, level: str = "cps", stdin: str = "", args: Sequence[str] = ()) -> Outcome:
        """Run with an interpreter (`"ast"`: the source before any step; `"cps"`, `"ssa"`: this
        version), with LLVM's JIT at -O2 in a child process (`"jit"`), or as an executable built
        at -O2 (`"native"`), reading `stdin`, with `args` as Sys.argv after the program's name."""
        if level not in RUN_LEVELS:
            raise WorkbenchError(f"no level {level!r} to run at (the levels: {', '.join(RUN_LEVELS)})")
        if level == "ast" and self.source is None:
            raise WorkbenchError("this program has no source to interpret (it was not made by cpsc.compile)")
        argv = [self.cps.main, *args]
        if level in ("ast", "cps", "ssa"):
            return _interpreted(level, self, stdin, argv)
        module = driver.to_ssa_module(self.cps)
        if level == "jit":
            from cpsc.llvm.jit import run_jit_in_child

            return run_jit_in_child(driver.to_llvm(module), 2, stdin, argv)
        return _built_and_run(module, stdin, argv)

    def count(self, stdin: str = "") -> Counter[str]:
        """The CPS interpreter's dynamic counts (values, calls, closure calls, allocations, jumps)."""
        return self.run_counted(stdin)[1]

    def run_counted(self, stdin: str = "") -> tuple[Outcome, Counter[str]]:
        from cpsc.cps.interp import run_cps

        counts: Counter[str] = Counter()
        return run_cps(self.cps, stdin=stdin, counts=counts), counts

    # ------------------------------------------------------------ the later stages
    def ssa(self, function: str) -> str:
        """A function's basic-block SSA, after closure conversion."""
        from cpsc.ssa.printer import print_function as print_ssa

        name = self.function_name(function)
        found = [f for f in driver.to_ssa_module(self.cps).functions if f.name == name]
        if not found:
            raise WorkbenchError(f"{name} has no SSA function of its own")
        return "\n".join(print_ssa(found[0])) + "\n"

    def llvm(self, function: str, opt: int = 2) -> str:
        """A function's LLVM IR after LLVM's -O`opt`."""
        name = self.function_name(function)
        match = re.search(rf'^define [^\n]*@"?{re.escape(f"fl.{name}")}"?\(.*?^}}\n', str(self._optimised(name, opt)),
                          re.M | re.S)
        if match is None:
            raise WorkbenchError(f"{name} has no LLVM function of its own")
        return match.group(0)

    def asm(self, function: str, opt: int = 2) -> str:
        """A function's x86-64 assembly."""
        from cpsc.llvm.backend import emit_assembly

        name = self.function_name(function)
        text = emit_assembly(self._optimised(name, opt), opt)  # type: ignore[arg-type]
        symbol = re.escape(f"fl.{name}")
        match = re.search(rf'^"?{symbol}"?:[^\n]*\n(.*?)^\.Lfunc_end', text, re.M | re.S)
        if match is None:
            raise WorkbenchError(f"{name} has no code of its own")
        return f"fl.{name}:\n{match.group(1)}"

    def _optimised(self, function: str, opt: int) -> Any:
        """This version through LLVM's -O`opt`, with `function` exported so that LLVM keeps it
        even if nothing calls it (a declared function the program has not used)."""
        from cpsc.llvm.backend import optimize

        symbol = re.escape(f"fl.{function}")
        text = driver.to_llvm(driver.to_ssa_module(self.cps))
        return optimize(re.sub(rf'^define internal (.*@"?{symbol}"?\()', r"define \1", text, count=1, flags=re.M),
                        opt)

    def dot(self, function: str | None = None) -> str:
        """A function's CFG (or the call graph) in Graphviz's `dot` language."""
        from cpsc.cps.dot import function_dot, program_dot

        return function_dot(self.cps, self.function_name(function)) if function else program_dot(self.cps)

    def cfg(self, function: str) -> Picture:
        return Picture(self.dot(function))


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


def level_number(level: int | str) -> int:
    """An `-O` level given as 2, "2", "O2" or "-O2"."""
    text = str(level).removeprefix("-").removeprefix("O")
    if not text.isdigit() or int(text) not in LEVELS:
        raise WorkbenchError(f"no level {level!r} (the levels: {', '.join(f'-O{n}' for n in LEVELS)})")
    return int(text)


def _listed(names: list[str], most: int = 12) -> str:
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")


def _interpreted(level: str, program: Program, stdin: str, argv: list[str]) -> Outcome:
    """One of the interpreters, with `argv` as the program's Sys.argv while it runs."""
    from cpsc.semantics import builtins

    saved = list(builtins.PROGRAM_ARGUMENTS)
    builtins.PROGRAM_ARGUMENTS[:] = argv
    try:
        if level == "ast":
            from cpsc.mono.interp import run_ast

            assert program.source is not None
            return run_ast(program.source, stdin)
        if level == "cps":
            from cpsc.cps.interp import run_cps

            return run_cps(program.cps, stdin=stdin)
        from cpsc.ssa.interp import run_ssa

        return run_ssa(driver.to_ssa_module(program.cps), stdin=stdin)
    finally:
        builtins.PROGRAM_ARGUMENTS[:] = saved


def _built_and_run(module: Any, stdin: str, argv: list[str]) -> Outcome:
    """An executable built at -O2, run in a folder of its own."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory(prefix="cpsc-") as folder:
        executable = str(Path(folder) / argv[0])
        driver.native_executable(module, 2, executable, parts=1)
        done = subprocess.run(argv, executable=executable, input=stdin.encode("latin-1"), capture_output=True)
    return Outcome(done.stdout.decode("latin-1"), done.stderr.decode("latin-1"), done.returncode)


def _same_origins(old: Mapping[str, str], new: Mapping[str, str]) -> dict[str, str]:
    """Each function of `old` to the function of `new` written at the same place (the instances
    of a polymorphic function, which share a place, in the order of their names)."""
    def by_place(origins: Mapping[str, str]) -> dict[str, list[str]]:
        places: dict[str, list[str]] = {}
        for name in sorted(origins):
            places.setdefault(origins[name], []).append(name)
        return places

    new_places = by_place(new)
    renaming: dict[str, str] = {}
    for place, names in by_place(old).items():
        renaming.update(zip(names, new_places.get(place, [])))
    return renaming


def _restricted(before: CpsProgram, after: CpsProgram, function: str) -> CpsProgram:
    """`after`'s version of `function` (its record and continuations) in `before`."""
    old = {c.label for c in before.conts.values() if c.function == function}
    new = {c.label: c for c in after.conts.values() if c.function == function}
    program = before.with_conts(new, old - set(new))
    functions = program.functions.set(function, after.functions[function]) if function in after.functions \
        else program.functions
    return CpsProgram(functions, program.conts, program.main, program.closed, program.globals)

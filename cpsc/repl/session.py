"""A toplevel session: FL phrases evaluated as OCaml's toplevel does, and versions of the
program's CPS IR that transformations (inlining one call site, a pass, a pipeline) make.

Phrases. The session keeps the declarations accepted so far. A new phrase is type-checked
after them and the whole is run by the reference (AST) interpreter, followed by printers of the
phrase's values (FL code from `cpsc.repl.show`); what the earlier phrases print again is cut
off at a marker. A phrase that raises or exits is reported and not kept. (Running everything
again keeps each phrase's effects, refs included, with no interpreter state to save.)

Versions. Each accepted declaration makes a new base version: the session's CPS at -O0, with
every monomorphic top-level function kept even if unused. Each transformation makes a new
version from the current one; a version remembers the steps from its base, so that `:run` and
`:count` can build the program again with an expression added and replay the same steps on it.
Persistent maps make a version cheap: it shares everything a step did not change.
"""

from __future__ import annotations

import difflib
import re
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from cpsc import driver
from cpsc.cps import ir
from cpsc.cps.convert import cps_convert
from cpsc.cps.printer import print_function, print_program
from cpsc.cps.verify import VerifyError, verify
from cpsc.llvm.jit import run_jit_in_child
from cpsc.mono.mono import monomorphise
from cpsc.opt.context import PassContext
from cpsc.opt.inline import NotInlinable, call_sites, inline_call_site
from cpsc.opt.pipeline import LEVELS, PASSES, run_pipeline
from cpsc.repl.show import BASE_PRINTERS, ValuePrinters
from cpsc.syntax import ast
from cpsc.syntax.diagnostics import CompileError, SourceFiles, render
from cpsc.syntax.parser import parse_module
from cpsc.syntax.values import Outcome
from cpsc.types.infer import Typing, infer_module
from cpsc.types.prelude import PRELUDE_FILE, checked_prelude, prelude_modules
from cpsc.types.types import Type, show

MARKER = "\x02cpsc-repl\x03"
UNIT_FILE = "toplevel.fl"


class SessionError(Exception):
    """A diagnostic or a command error: printed, and the session goes on."""


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


@dataclass(frozen=True)
class Version:
    program: ir.Program
    label: str
    declarations: int  # how many of the session's declarations its base was built from
    steps: tuple[Step, ...] = ()


@dataclass(frozen=True)
class Checked:
    """A program type-checked: the user's part, its typing and data types."""

    declarations: tuple[ast.Declaration, ...]
    typing: Typing
    datatypes: object


class Session:
    def __init__(self) -> None:
        self.declarations: list[ast.Declaration] = []
        self.sources = SourceFiles()
        self.sources.add(PRELUDE_FILE, "")
        self.phrases = 0
        self.versions: list[Version] = []
        self.current = -1
        self._base_printers = self._parse(BASE_PRINTERS, "<repl>")
        self._marker = self._parse(f"let () = print_string {_fl_string(MARKER)}", "<repl>")

    # ------------------------------------------------------------ phrases
    def phrase(self, text: str) -> str:
        """Evaluate FL input (declarations and expressions, `;;`-separated): what it prints,
        then `val x : t = v` for each name it binds and `- : t = v` for each expression."""
        self.phrases += 1
        file = f"[{self.phrases}]"
        declarations = tuple(_name_expressions(self._parse(text, file), self.phrases))
        checked = self._check(self.declarations + list(declarations))
        shown: list[ast.Declaration] = []
        for index, declaration in enumerate(declarations):
            shown.append(declaration)
            shown.extend(self._parse(self._report(declaration, checked, f"{file}{index}"), "<repl>"))
        outcome = self._run(list(shown), file)
        if outcome.status == 0:
            self.declarations.extend(declarations)
            self._new_base(text)
        return outcome_text(outcome)

    def load(self, path: str) -> str:
        try:
            text = Path(path).read_text(encoding="latin-1")
        except OSError as error:
            raise SessionError(f"cannot read {path}: {error.strerror}") from None
        return self.phrase(text)

    def type_of(self, text: str) -> str:
        """`- : t` for an expression, without running it."""
        self.phrases += 1
        declarations = self._parse(f"let cpsc__type = ({text})", f"[{self.phrases}]")
        checked = self._check(self.declarations + declarations)
        return f"- : {show(_scheme_type(checked.typing, _bound_vars(declarations[-1])[0]))}\n"

    def _parse(self, text: str, file: str) -> list[ast.Declaration]:
        self.sources.add(file, text)
        try:
            return list(parse_module(text, file, prelude_modules()).declarations)
        except CompileError as error:
            raise SessionError(render(error, self.sources)) from None

    def _check(self, declarations: list[ast.Declaration]) -> Checked:
        try:
            typing, datatypes = infer_module(ast.Module(tuple(declarations), (UNIT_FILE,)), checked_prelude())
        except CompileError as error:
            raise SessionError(render(error, self.sources)) from None
        return Checked(tuple(declarations), typing, datatypes)

    def _report(self, declaration: ast.Declaration, checked: Checked, tag: str) -> str:
        """FL source that prints what OCaml's toplevel says after `declaration`."""
        if isinstance(declaration, (ast.TypeDecl, ast.ExceptionDecl)):
            return f"let () = print_string {_fl_string(self._source(declaration.span) + chr(10))}\n"
        if not isinstance(declaration, ast.LetDecl):
            return ""
        printers = ValuePrinters(checked.datatypes)  # type: ignore[arg-type]
        lines = []
        for binding in declaration.bindings:
            for var in _bound_vars(binding.pattern):
                t = _scheme_type(checked.typing, var)
                head = "- " if var.name.startswith("cpsc__it") else f"val {var.name} "
                value = f"{printers.printer(t)} false {var.name}"
                lines.append(f"print_string ({_fl_string(f'{head}: {show(t)} = ')} ^ {value} ^ \"\\n\")")
        if not lines:
            return ""
        return printers.declarations() + "let () = " + "; ".join(lines) + "\n"

    def _source(self, span: object) -> str:
        text = self.sources.text(span.file)  # type: ignore[attr-defined]  # a Span
        lines = text.split("\n")[span.line - 1:span.end_line]  # type: ignore[attr-defined]
        lines[-1] = lines[-1][:span.end_col - 1]  # type: ignore[attr-defined]
        lines[0] = lines[0][span.col - 1:]  # type: ignore[attr-defined]
        return " ".join(" ".join(lines).split())

    def _run(self, phrase: list[ast.Declaration], file: str) -> Outcome:
        """Run the session with `phrase` after it; only what the phrase prints is kept."""
        from cpsc.syntax.interp import run_ast

        program = self._front_end(self._base_printers + self.declarations + self._marker + phrase, file)
        return _after_marker(run_ast(program, stdin=""))

    def _front_end(self, declarations: list[ast.Declaration], file: str | None = None,
                   keep: bool = False) -> ast.Program:
        checked = self._check(declarations)
        prelude = checked_prelude()
        module = ast.Module(prelude.module.declarations + tuple(declarations), (PRELUDE_FILE, UNIT_FILE))
        try:
            program = monomorphise(module, checked.typing, checked.datatypes,  # type: ignore[arg-type]
                                   keep=_from_toplevel if keep else None)
        except CompileError as error:
            raise SessionError(render(error, self.sources)) from None
        warnings = [w for w in program.warnings if file is not None and w.span.file == file]
        if warnings:
            sys.stderr.write("".join(render(w, self.sources, "warning") for w in warnings))
        return program

    # ------------------------------------------------------------ versions
    @property
    def version(self) -> Version:
        if self.current < 0:
            raise SessionError("no program yet: declare something first (or :load a file)")
        return self.versions[self.current]

    def _new_base(self, text: str) -> None:
        program = cps_convert(self._front_end(list(self.declarations), keep=True))
        self._add(Version(program, "after " + _summary(text), len(self.declarations)))

    def _add(self, version: Version) -> None:
        del self.versions[self.current + 1:]
        self.versions.append(version)
        self.current = len(self.versions) - 1

    def transform(self, step: Step) -> str:
        """Apply `step` to the current version, making a new one; returns what it did."""
        context = PassContext()
        program = self._apply(self.version.program, step, context)
        try:
            verify(program)
        except VerifyError as error:
            raise SessionError(f"{step} would leave a program the verifier rejects: {error}") from None
        self._add(Version(program, str(step), self.version.declarations, self.version.steps + (step,)))
        return f"version {self.current}: {step}\n"

    def _apply(self, program: ir.Program, step: Step, context: PassContext) -> ir.Program:
        if step.kind == "pipeline":
            level = int(step.args[0])
            context.level = level
            return run_pipeline(program, LEVELS[level], context=context)[0]
        if step.kind == "inline":
            function, site = str(step.args[0]), int(step.args[1])
            sites = call_sites(program, self._function(program, function))
            if not 0 <= site < len(sites):
                raise SessionError(f"{function} has {len(sites)} call sites (0 to {len(sites) - 1}); see :calls")
            try:
                return inline_call_site(program, sites[site])
            except NotInlinable as reason:
                raise SessionError(f"cannot inline call site {site} of {function}: {reason}") from None
        name, function = str(step.args[0]), str(step.args[1])
        if name not in PASSES:
            raise SessionError(f"unknown pass '{name}' (known: {', '.join(sorted(PASSES))})")
        if not function:
            return PASSES[name].run(program, context)[0]
        # Run on the program rooted at the function, so that a function nothing calls yet (a
        # declaration the session has not used) is not removed as dead; keep only its changes.
        function = self._function(program, function)
        result = PASSES[name].run(replace(program, main=function), context)[0]
        return _restricted(program, result, function)

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
        before = print_program(self.versions[first].program).splitlines(keepends=True)
        after = print_program(self.versions[second].program).splitlines(keepends=True)
        return "".join(difflib.unified_diff(before, after, f"version {first}", f"version {second}")) or "no change\n"

    # ------------------------------------------------------------ looking at one function
    def function_names(self) -> list[str]:
        return sorted(self.versions[self.current].program.functions) if self.current >= 0 else []

    def _function(self, program: ir.Program, name: str) -> str:
        """A function by its CPS name, or by its source name if that names one instance."""
        if name in program.functions:
            return name
        candidates = sorted(f for f in program.functions if re.fullmatch(re.escape(name) + r"(_\w+)?", f))
        if len(candidates) == 1:
            return candidates[0]
        if candidates:
            raise SessionError(f"{name} names several functions: {', '.join(candidates)}")
        raise SessionError(f"no function {name} in the current version (see :size)")

    def cps(self, name: str) -> str:
        program = self.version.program
        return "\n".join(print_function(program, self._function(program, name))) + "\n"

    def calls(self, name: str) -> str:
        program = self.version.program
        function = self._function(program, name)
        sites = call_sites(program, function)
        if not sites:
            return f"{function} makes no direct call\n"
        return "".join(f"{i}: {site.callee} in {site.label}" + (f" @{site.loc}" if site.loc else "") + "\n"
                       for i, site in enumerate(sites))

    def size(self) -> str:
        program = self.version.program
        rows = []
        for name in sorted(program.functions):
            conts = [c for c in program.conts.values() if c.function == name]
            values = sum(len(c.bindings) for c in conts)
            calls = sum(isinstance(b.value, (ir.Call, ir.Apply)) for c in conts for b in c.bindings)
            calls += sum(isinstance(c.terminator, (ir.TailCall, ir.TailApply)) for c in conts)
            rows.append(f"{name:<32} {len(conts):>6} {values:>7} {calls:>6}\n")
        return f"{'function':<32} {'blocks':>6} {'values':>7} {'calls':>6}\n" + "".join(rows)

    def remarks(self) -> str:
        """The inliner's decision at each call site of the current version (nothing is changed)."""
        context = PassContext()
        PASSES["inline"].run(self.version.program, context)
        return "".join(f"{r}\n" for r in context.remarks if r.pass_name == "inline") or "no call sites\n"

    def _closed(self) -> tuple[object, str]:
        module = driver.to_ssa_module(self.version.program)
        return module, driver.to_llvm(module)

    def ssa(self, name: str) -> str:
        from cpsc.ssa.printer import print_function as print_ssa

        function = self._function(self.version.program, name)
        module, _ = self._closed()
        found = [f for f in module.functions if f.name == function]  # type: ignore[attr-defined]
        if not found:
            raise SessionError(f"{function} has no SSA function of its own")
        return "\n".join(print_ssa(found[0])) + "\n"

    def _optimised(self, function: str, opt: int) -> object:
        """The current version through LLVM's -O`opt`, with `function` exported so that LLVM
        keeps it even if nothing calls it (a declared function the session has not used)."""
        from cpsc.llvm.backend import optimize

        symbol = re.escape(f"fl.{function}")
        text = re.sub(rf'^define internal (.*@"?{symbol}"?\()', r"define \1", self._closed()[1], count=1, flags=re.M)
        return optimize(text, opt)

    def llvm(self, name: str, opt: int = 2) -> str:
        function = self._function(self.version.program, name)
        found = _llvm_function(str(self._optimised(function, opt)), function)
        if found is None:
            raise SessionError(f"{function} has no LLVM function of its own")
        return found

    def asm(self, name: str, opt: int = 2) -> str:
        from cpsc.llvm.backend import emit_assembly

        function = self._function(self.version.program, name)
        text = emit_assembly(self._optimised(function, opt), opt)  # type: ignore[arg-type]
        symbol = re.escape(f"fl.{function}")
        match = re.search(rf'^"?{symbol}"?:[^\n]*\n(.*?)^\.Lfunc_end', text, re.M | re.S)
        if match is None:
            raise SessionError(f"{function} has no code of its own")
        return f"fl.{function}:\n{match.group(1)}"

    def dot(self, name: str, directory: str = ".") -> str:
        from cpsc.cps.dot import function_dot

        program = self.version.program
        function = self._function(program, name)
        base = Path(directory) / re.sub(r"[^\w.-]", "_", function)
        base.with_suffix(".dot").write_text(function_dot(program, function))
        written = [str(base.with_suffix(".dot"))]
        if shutil.which("dot"):
            subprocess.run(["dot", "-Tsvg", str(base.with_suffix(".dot")), "-o", str(base.with_suffix(".svg"))],
                           check=True)
            written.append(str(base.with_suffix(".svg")))
        return "wrote " + " and ".join(written) + "\n"

    # ------------------------------------------------------------ running the current version
    def _with_expression(self, text: str) -> ir.Program:
        """The current version's program with `text` evaluated and shown at the end of main,
        the version's steps replayed on it."""
        self.phrases += 1
        file = f"[{self.phrases}]"
        declarations = self.declarations[:self.version.declarations]
        expression = self._parse(f"let cpsc__it = ({text})", file)
        checked = self._check(declarations + expression)
        shown = self._parse(self._report(expression[0], checked, file), "<repl>")
        program = cps_convert(self._front_end(self._base_printers + declarations + self._marker + expression + shown,
                                              file, keep=True))
        for step in self.version.steps:
            program = self._apply(program, step, PassContext())
        return program

    def run(self, text: str) -> str:
        """Evaluate an expression with the current version of the code, in the CPS interpreter
        and natively (LLVM's JIT, in a child process), and say whether they agree."""
        from cpsc.cps.interp import run_cps

        program = self._with_expression(text)
        interpreted = _after_marker(run_cps(program, stdin=""))
        native = _after_marker(run_jit_in_child(driver.to_llvm(driver.to_ssa_module(program)), 2))
        if interpreted == native:
            return outcome_text(interpreted) + "(interpreted and native agree)\n"
        return ("interpreted:\n" + outcome_text(interpreted) + "native:\n" + outcome_text(native)
                + "(interpreted and native DISAGREE)\n")

    def count(self, text: str) -> str:
        """The CPS interpreter's dynamic counts for an expression, on the current version."""
        from cpsc.cps.interp import run_cps

        counts: Counter[str] = Counter()
        outcome = _after_marker(run_cps(self._with_expression(text), stdin="", counts=counts))
        return outcome_text(outcome) + "".join(f"{key:<16} {value}\n" for key, value in sorted(counts.items()))


# ---------------------------------------------------------------------- helpers


def _from_toplevel(binding: ast.Binding) -> bool:
    return binding.span.file.startswith("[")


def _name_expressions(declarations: list[ast.Declaration], phrase: int) -> list[ast.Declaration]:
    """`e;;` is `let _ = e`: give it a name, so that its value can be shown."""
    out: list[ast.Declaration] = []
    for index, d in enumerate(declarations):
        if isinstance(d, ast.LetDecl) and len(d.bindings) == 1 and isinstance(d.bindings[0].pattern, ast.PWild):
            binding = d.bindings[0]
            name = ast.PVar(f"cpsc__it{phrase}_{index}", binding.pattern.span)
            d = replace(d, bindings=(replace(binding, pattern=name),))
        out.append(d)
    return out


def _bound_vars(pattern: object) -> list[ast.PVar]:
    """The variables a pattern (or a `let` declaration) binds, left to right."""
    if isinstance(pattern, ast.LetDecl):
        return [v for b in pattern.bindings for v in _bound_vars(b.pattern)]
    if isinstance(pattern, ast.PVar):
        return [pattern]
    children: list[object] = []
    if isinstance(pattern, ast.PTuple):
        children = list(pattern.items)
    elif isinstance(pattern, ast.PConstruct):
        children = list(pattern.args)
    elif isinstance(pattern, ast.PRecord):
        children = [p for _, p in pattern.fields]
    elif isinstance(pattern, (ast.PAnnot, ast.PAlias)):
        children = [pattern.pattern]
    return [v for child in children for v in _bound_vars(child)]


def _scheme_type(typing: Typing, var: ast.PVar) -> Type:
    scheme = typing.schemes.get(id(var))
    return scheme.type if scheme is not None else typing.types[id(var)]


def _fl_string(text: str) -> str:
    return '"' + "".join(c if c.isprintable() and c not in '"\\' else f"\\{ord(c):03d}" for c in text) + '"'


def _summary(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= 60 else line[:57] + "..."


def _restricted(before: ir.Program, after: ir.Program, function: str) -> ir.Program:
    """`after`'s version of `function` (its record and continuations) in `before`."""
    old = {c.label for c in before.conts.values() if c.function == function}
    new = {c.label: c for c in after.conts.values() if c.function == function}
    program = before.with_conts(new, old - set(new))
    functions = program.functions.set(function, after.functions[function]) if function in after.functions \
        else program.functions
    return ir.Program(functions, program.conts, program.main, program.closed, program.globals)


def _llvm_function(text: str, function: str) -> str | None:
    symbol = re.escape(f"fl.{function}")
    match = re.search(rf'^define [^\n]*@"?{symbol}"?\(.*?^}}\n', text, re.M | re.S)
    return match.group(0) if match else None


def _after_marker(outcome: Outcome) -> Outcome:
    return replace(outcome, stdout=outcome.stdout.partition(MARKER)[2])


def outcome_text(outcome: Outcome) -> str:
    """What a phrase printed, then how it ended if not normally, as OCaml's toplevel says it."""
    text = outcome.stdout
    if text and not text.endswith("\n") and outcome.status != 0:
        text += "\n"
    if outcome.status == 0:
        return text
    fatal = "Fatal error: exception "
    if outcome.stderr.startswith(fatal):
        return text + f"Exception: {outcome.stderr[len(fatal):].strip()}.\n"
    return text + outcome.stderr + f"(the phrase exited with status {outcome.status}; the session goes on)\n"

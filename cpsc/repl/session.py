"""A toplevel session: FL phrases evaluated as OCaml's toplevel does, and versions of the
program's CPS IR that transformations (inlining one call site, a pass, a pipeline) make.

Phrases. The session keeps the declarations accepted so far. A new phrase is type-checked
after them and the whole is run by the reference (AST) interpreter, followed by printers of the
phrase's values (FL code from `cpsc.repl.show`). Earlier phrases are not evaluated again: their
top-level bindings keep the values they were given (`cpsc.repl.toplevel`). A phrase that raises
or exits is reported and its declarations are not kept; what it did to existing refs and
arrays stays done, as in OCaml's toplevel.

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
from cpsc.cps.printer import print_function, print_program
from cpsc.cps.program import Program
from cpsc.cps.verify import VerifyError, verify
from cpsc.llvm.jit import run_jit_in_child
from cpsc.mono.mono import monomorphise
from cpsc.opt.context import PassContext
from cpsc.opt.inline import NotInlinable, call_sites, inline_call_site
from cpsc.opt.pipeline import LEVELS, PASSES, run_pipeline
from cpsc.repl.show import (
    BASE_PRINTERS,
    PREFIX,
    ValuePrinters,
    exception_declaration,
    module_signature,
    type_declaration,
)
from cpsc.repl.toplevel import Toplevel
from cpsc.semantics.values import Outcome
from cpsc.syntax import ast
from cpsc.syntax.diagnostics import CompileError, SourceFiles, render, terminal_text
from cpsc.syntax.parser import parse_module
from cpsc.to_cps.convert import cps_convert
from cpsc.types.infer import Typing, infer_module
from cpsc.types.prelude import PRELUDE_FILE, checked_prelude, prelude_modules
from cpsc.types.types import TVar, Type, resolve, show

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
    program: Program
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
        self.declarations: list[ast.Declaration] = []  # the user's, accepted so far
        self.code: list[ast.Declaration] = []  # the same with the session's own code among them
        self.sources = SourceFiles()
        self.sources.add(PRELUDE_FILE, "")
        self.phrases = 0
        self.toplevel = Toplevel()
        self.weak_variables = 0
        self.versions: list[Version] = []
        self.current = -1
        self._base_printers = self._parse(BASE_PRINTERS, "<repl>")
        self._marker = self._parse(f"let () = print_string {_fl_string(MARKER)}; prerr_string {_fl_string(MARKER)}",
                                   "<repl>")

    # ------------------------------------------------------------ phrases
    def phrase(self, text: str) -> str:
        """Evaluate FL input (declarations and expressions, `;;`-separated): what it prints,
        then what OCaml's toplevel says of each declaration (`val x : t = v`, `- : t = v`,
        `type ...`, `module M : sig ... end`), or `Exception: E.` if it raises."""
        self.phrases += 1
        file = f"[{self.phrases}]"
        weak_variables = self.weak_variables
        declarations = tuple(_name_expressions(self._parse(text, file), self.phrases))
        checked = self._check(self.declarations + list(declarations))
        kept = self._with_exception_printers(declarations, checked)
        own = {id(d) for d in declarations}
        shown: list[ast.Declaration] = []
        for declaration, report in zip(kept, self._reports(kept, checked)):
            shown.append(_guarded(declaration) if id(declaration) in own else declaration)
            if report:
                shown.extend(self._parse(report, "<repl>"))
        outcome = self._run(shown, file)
        if outcome.status == 0:
            self.declarations.extend(declarations)
            self.code.extend(kept)
            self._new_base(text)
        else:
            self.weak_variables = weak_variables  # OCaml numbers those it has shown
        return outcome_text(outcome)

    def _with_exception_printers(self, declarations: tuple[ast.Declaration, ...],
                                 checked: Checked) -> list[ast.Declaration]:
        """The phrase's declarations, each exception followed by the FL that teaches the
        value printers to show it (kept with the session, so that later phrases can)."""
        exceptions = [d for d in declarations if isinstance(d, ast.ExceptionDecl)]
        if not exceptions:
            return list(declarations)
        # The phrase is checked last, so its exceptions are the last constructors of `exn`.
        constructors = checked.datatypes.types["exn"].constructors[-len(exceptions):]  # type: ignore[attr-defined]
        hooks = {id(d): c.args for d, c in zip(exceptions, constructors)}
        out: list[ast.Declaration] = []
        for d in declarations:
            out.append(d)
            if isinstance(d, ast.ExceptionDecl):
                printers = ValuePrinters(checked.datatypes)  # type: ignore[arg-type]
                name = f"{d.module}.{d.name}" if d.module else d.name
                hook = printers.exception_hook(name, hooks[id(d)])
                out.extend(self._parse(printers.declarations() + hook, "<repl>"))
        return out

    def _reports(self, declarations: list[ast.Declaration], checked: Checked) -> list[str]:
        """For each declaration, FL source that prints what OCaml's toplevel says after it; the
        members of a module are summed up once, after its last one, as its signature."""
        reports: list[str] = []
        members: list[str] = []
        for index, declaration in enumerate(declarations):
            module = _module_of(declaration)
            if module is None:
                reports.append(self._report(declaration, checked))
                continue
            members.extend(self._signature_items(declaration, checked))
            if _continues(declarations, index + 1, module):
                reports.append("")
            else:
                reports.append(_print_line(module_signature(module, members)))
                members = []
        return reports

    def _signature_items(self, declaration: ast.Declaration, checked: Checked) -> list[str]:
        if isinstance(declaration, ast.TypeDecl):
            return [type_declaration(declaration, "    ")]
        if isinstance(declaration, ast.ExceptionDecl):
            return [exception_declaration(declaration)]
        if isinstance(declaration, ast.LetDecl):
            return [f"val {var.name.rpartition('.')[2]} : {self._show(checked, var)}"
                    for var in _bound_vars(declaration)]
        return []

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

    def _report(self, declaration: ast.Declaration, checked: Checked) -> str:
        """FL source that prints what OCaml's toplevel says after `declaration`."""
        if isinstance(declaration, ast.TypeDecl):
            return _print_line(type_declaration(declaration))
        if isinstance(declaration, ast.ExceptionDecl):
            return _print_line(exception_declaration(declaration))
        if not isinstance(declaration, ast.LetDecl) or _is_session_code(declaration):
            return ""
        printers = ValuePrinters(checked.datatypes)  # type: ignore[arg-type]
        lines = []
        for binding in declaration.bindings:
            for var in _bound_vars(binding.pattern):
                t = _scheme_type(checked.typing, var)
                head = "- " if var.name.startswith("cpsc__it") else f"val {var.name} "
                value = f"{printers.printer(t)} false {var.name}"
                lines.append(f"print_string ({_fl_string(f'{head}: {self._show(checked, var)} = ')} ^ {value} ^ "
                             '"\\n")')
        if not lines:
            return ""
        return printers.declarations() + "let () = " + "; ".join(lines) + "\n"

    def _show(self, checked: Checked, var: ast.PVar) -> str:
        """The type of a bound variable as OCaml shows it: a type variable that was not
        generalised (the value restriction) is weak, `'_weak1`."""
        scheme = checked.typing.schemes.get(id(var))
        quantified = {v.id for v in scheme.quantified} if scheme is not None else set()
        names: dict[int, str] = {}
        for v in _type_variables(_scheme_type(checked.typing, var)):
            if v.id not in quantified and v.id not in names:
                self.weak_variables += 1
                names[v.id] = f"'_weak{self.weak_variables}"
        return show(_scheme_type(checked.typing, var), names)

    def _run(self, phrase: list[ast.Declaration], file: str) -> Outcome:
        """Run the session with `phrase` after it; only what the phrase prints is kept."""
        program = self._front_end(self._base_printers + self.code + self._marker + phrase, file)
        return _after_marker(self.toplevel.run(program, file))

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

    def _apply(self, program: Program, step: Step, context: PassContext) -> Program:
        if step.kind == "pipeline":
            level = int(step.args[0])
            context.inline_budget = LEVELS[level].inline_budget
            return run_pipeline(program, LEVELS[level].passes, context=context)[0]
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
        rooted = Program(program.functions, program.conts, function, program.closed, program.globals)
        result = PASSES[name].run(rooted, context)[0]
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

    def _function(self, program: Program, name: str) -> str:
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
    def _with_expression(self, text: str) -> Program:
        """The current version's program with `text` evaluated and shown at the end of main,
        the version's steps replayed on it."""
        self.phrases += 1
        file = f"[{self.phrases}]"
        declarations = self.declarations[:self.version.declarations]
        expression = self._parse(f"let cpsc__it = ({text})", file)
        checked = self._check(declarations + expression)
        shown = self._parse(self._report(expression[0], checked), "<repl>")
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


def _type_variables(t: Type) -> list[TVar]:
    """The type variables of `t`, left to right."""
    found: list[TVar] = []
    stack = [t]
    while stack:
        t = resolve(stack.pop())
        if isinstance(t, TVar):
            found.append(t)
        else:
            stack.extend(reversed(t.args))
    return found


def _fl_string(text: str) -> str:
    return '"' + "".join(c if c.isprintable() and c not in '"\\' else f"\\{ord(c):03d}" for c in text) + '"'


def _summary(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= 60 else line[:57] + "..."


def _restricted(before: Program, after: Program, function: str) -> Program:
    """`after`'s version of `function` (its record and continuations) in `before`."""
    old = {c.label for c in before.conts.values() if c.function == function}
    new = {c.label: c for c in after.conts.values() if c.function == function}
    program = before.with_conts(new, old - set(new))
    functions = program.functions.set(function, after.functions[function]) if function in after.functions \
        else program.functions
    return Program(functions, program.conts, program.main, program.closed, program.globals)


def _llvm_function(text: str, function: str) -> str | None:
    symbol = re.escape(f"fl.{function}")
    match = re.search(rf'^define [^\n]*@"?{symbol}"?\(.*?^}}\n', text, re.M | re.S)
    return match.group(0) if match else None


def _after_marker(outcome: Outcome) -> Outcome:
    return replace(outcome, stdout=outcome.stdout.partition(MARKER)[2], stderr=outcome.stderr.partition(MARKER)[2])


def outcome_text(outcome: Outcome) -> str:
    """What a phrase printed, then how it ended if not normally, as OCaml's toplevel says it.
    Its stderr comes first when it ends normally: the toplevel's stdout is buffered until the
    end of the phrase, its stderr is not."""
    outcome = Outcome(terminal_text(outcome.stdout), terminal_text(outcome.stderr), outcome.status)
    text = outcome.stdout
    if outcome.status == 0:
        return outcome.stderr + text
    fatal = "Fatal error: exception "
    if outcome.stderr.startswith(fatal):  # raised where no guard was (`:run`, `:count`)
        return text + f"Exception: {outcome.stderr[len(fatal):].strip()}.\n"
    if outcome.status == 2 and "Exception: " in outcome.stderr:
        return text + outcome.stderr  # as OCaml's toplevel: right after what the phrase printed
    if text and not text.endswith("\n"):
        text += "\n"
    return text + outcome.stderr + f"(the phrase exited with status {outcome.status}; the session goes on)\n"


def _print_line(text: str) -> str:
    return f"let () = print_string {_fl_string(text + chr(10))}\n"


def _module_of(declaration: ast.Declaration) -> str | None:
    """The module a (flattened) declaration came from, if any."""
    if isinstance(declaration, (ast.TypeDecl, ast.ExceptionDecl)):
        return declaration.module
    if isinstance(declaration, ast.LetDecl):
        modules = {v.name.rpartition(".")[0] for v in _bound_vars(declaration)}
        if len(modules) == 1 and "" not in modules:
            return modules.pop()
    return None


def _continues(declarations: list[ast.Declaration], start: int, module: str) -> bool:
    """Whether the module's members go on after declarations that name nothing (a module's
    `let () = ...`) or the session's own code."""
    for position in range(start, len(declarations)):  # no copy of the rest per member
        d = declarations[position]
        if _module_of(d) == module:
            return True
        if not (isinstance(d, ast.LetDecl) and (not _bound_vars(d) or _is_session_code(d))):
            return False
    return False


def _is_session_code(declaration: ast.LetDecl) -> bool:
    """The REPL's own declarations (value printers, exception printers)."""
    return declaration.span.file == "<repl>"


def _guarded(declaration: ast.Declaration) -> ast.Declaration:
    """`let x = e` as `let x = cpsc__show_guard (fun () -> e)` when `e` may raise, so that an
    escaping exception is reported as the toplevel reports it. Values (which cannot raise) are
    left alone: they stay polymorphic."""
    if not isinstance(declaration, ast.LetDecl) or declaration.is_rec:
        return declaration
    bindings = []
    for b in declaration.bindings:
        if not _is_syntactic_value(b.value):
            guard = ast.Var(f"{PREFIX}_guard", b.value.span)
            b = replace(b, value=ast.App(guard, ast.Fun(ast.PUnit(b.value.span), b.value, b.value.span), b.value.span))
        bindings.append(b)
    return replace(declaration, bindings=tuple(bindings))


def _is_syntactic_value(e: ast.Expr) -> bool:
    if isinstance(e, (ast.Const, ast.Var, ast.Fun)):
        return True
    if isinstance(e, ast.Annot):
        return _is_syntactic_value(e.expr)
    if isinstance(e, ast.Tuple):
        return all(_is_syntactic_value(i) for i in e.items)
    if isinstance(e, ast.Construct):
        return all(_is_syntactic_value(a) for a in e.args)
    return False

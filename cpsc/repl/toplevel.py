"""OCaml's toplevel, emulated: FL phrases evaluated as `ocaml` evaluates them, and what it says
of each (`val x : int = 3`, `- : string = "a"`, `type t = ...`, `Exception: Not_found.`).

The toplevel keeps the declarations accepted so far. A new phrase is type-checked after them
and the whole is run by the reference (AST) interpreter, followed by printers of the phrase's
values (FL code from `cpsc.repl.show`). Earlier phrases are not evaluated again: their top-level
bindings keep the values they were given (`cpsc.repl.kept_values`). A phrase that raises or exits
is reported and its declarations are not kept; what it did to existing refs and arrays stays
done, as in OCaml's toplevel.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass, replace
from typing import Any

from cpsc import driver
from cpsc.cps.program import Program as CpsProgram
from cpsc.elaborate import parse_module
from cpsc.elaborate.modules import Env, FunctorValue, ModuleReport, Scope
from cpsc.repl.kept_values import KeptValues
from cpsc.repl.show import (
    BASE_PRINTERS,
    PREFIX,
    ValuePrinters,
    exception_declaration,
    functor_parameters,
    functor_signature,
    module_signature,
    module_type_declaration,
    result_signature,
    type_declaration,
    type_expr,
    value_name,
)
from cpsc.semantics.values import Outcome
from cpsc.syntax import ast
from cpsc.syntax.diagnostics import CompileError, SourceFiles, Span, render, terminal_text
from cpsc.syntax.module_ast import Constrained, ModuleDecl, ModulePath, ModuleTypeDecl, ModuleTypePath
from cpsc.to_cps.convert import cps_convert_with_origins
from cpsc.types.inferred import Typing
from cpsc.types.prelude import PRELUDE_FILE, prelude_modules
from cpsc.types.types import BOX, BOX0, BOX2, BREAK, CLOSE, TVar, Type, layout, one_line, resolve, show
from cpsc.workbench import WorkbenchError

MARKER = "\x02cpsc-repl\x03"
UNIT_FILE = "toplevel.fl"


class SessionError(WorkbenchError):
    """A diagnostic or a command error: printed, and the session goes on."""


@dataclass(frozen=True)
class Checked:
    """A program type-checked: the user's part, its typing and data types."""

    declarations: tuple[ast.Declaration, ...]
    typing: Typing
    datatypes: object

    @functools.cached_property
    def anonymous_abbreviations(self) -> dict[str, ast.TypeDef]:
        """`_anonymous_abbreviations` of its declarations, found once for all it shows."""
        return _anonymous_abbreviations(self.declarations)


class Toplevel:
    def __init__(self) -> None:
        self.declarations: list[ast.Declaration] = []  # the user's, accepted so far
        self.code: list[ast.Declaration] = []  # the same with the session's own code among them
        self.accepted = 0  # phrases accepted
        self.sources = SourceFiles()
        self.sources.add(PRELUDE_FILE, "")
        self.phrases = 0
        self.kept = KeptValues()
        self.weak_variables = 0
        # the modules the accepted phrases declared, beside the prelude's
        self.module_scope: Scope = prelude_modules()
        self._visible: dict[str, str] = {}  # the phrase's constructors by their short names
        self.print_length = 300  # OCaml's #print_length: the values an answer shows
        self.print_depth = 100  # and #print_depth: how deep in a value it shows them
        self._wrapped: set[str] = set()  # the files whose first line is ours (`_parse_named`)
        self.modules_shown: dict[str, str] = {}  # what was said of each module declared (#show_module)
        self._base_printers = self._parse(BASE_PRINTERS, "<repl>")
        self._marker = self._parse(f"let () = print_string {_fl_string(MARKER)}; prerr_string {_fl_string(MARKER)}",
                                   "<repl>")

    def phrase(self, text: str) -> str:
        """Evaluate FL input (declarations and expressions, `;;`-separated): what it prints,
        then what OCaml's toplevel says of each declaration (`val x : t = v`, `- : t = v`,
        `type ...`, `module M : sig ... end`), or `Exception: E.` if it raises."""
        self.phrases += 1
        file = f"[{self.phrases}]"
        weak_variables = self.weak_variables
        scope = self.module_scope.copy()
        declarations = tuple(_name_expressions(self._parse(text, file, scope), self.phrases))
        checked = self._check(self.declarations + list(declarations))
        kept = self._with_exception_printers(declarations, checked)
        self._visible = scope.constructors
        own = {id(d) for d in declarations}
        shown: list[ast.Declaration] = []
        for declaration, report in zip(kept, self._reports(kept, checked, scope.reports)):
            shown.append(_guarded(declaration) if id(declaration) in own else declaration)
            if report and "Format" in checked.typing.modules_named:
                # what Format's standard formatters hold is printed before the result, as
                # OCaml's toplevel prints that through them
                shown.extend(self._parse(_FLUSH_FORMAT, "<repl>"))
            if report:
                shown.extend(self._parse(report, "<repl>"))
        lines = self._module_lines(scope.reports, kept, checked)
        if lines:
            shown.extend(self._parse(lines, "<repl>"))
        if (self.print_length, self.print_depth) != (300, 100):
            shown[:0] = self._parse(f"let () = {PREFIX}_print_length := {self.print_length}; "
                                    f"{PREFIX}_print_depth := {self.print_depth}", "<repl>")
        outcome = self._run(shown, file)
        if outcome.status == 0:
            self.declarations.extend(declarations)
            self.module_scope = scope
            self.code.extend(kept)
            self.accepted += 1
            self.modules_shown.update(_modules_said(outcome_text(outcome)))
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
                hook = printers.exception_hook(name, hooks[id(d)], d.shown)
                out.extend(self._parse(printers.declarations() + hook, "<repl>"))
        return out

    def _reports(self, declarations: list[ast.Declaration], checked: Checked,
                 modules: list[ModuleReport]) -> list[str]:
        """For each declaration, FL source that prints what OCaml's toplevel says after it; the
        members of a module are summed up once, after its last one, as its signature (what
        the signature it was given lets be seen, or the signature's name)."""
        shown = {r.item.name: r for r in modules}
        reports: list[str] = []
        members: list[Any] = []
        for index, declaration in enumerate(declarations):
            module = _module_of(declaration)
            if module is None:
                reports.append(self._report(declaration, checked))
                continue
            top = module.partition(".")[0]
            if re.search(r"'\d+$", top):  # a structure given to a functor (`F (struct ... end)`)
                reports.append("")
                continue
            report = shown.get(top)
            visible = _visible(report.value) if report is not None and isinstance(report.value, Env) else None
            if isinstance(declaration, ast.CheckOnly):  # a functor the module defines
                functor = _functor_named(report.value if report is not None else None, declaration.functor)
                items = [] if functor is None else [self._functor_signature(
                    declaration.functor.rpartition(".")[2], functor, declaration, checked, 4 * module.count(".") + 4)]
            else:
                items = self._signature_items(declaration, checked, visible)
            for item in items:
                _add_member(members, module.split(".")[1:], _relative(item, module))
            if _continues(declarations, index + 1, top):
                reports.append("")
            else:
                named = report is not None and _signature_name(report)
                top_env = report.value if report is not None and isinstance(report.value, Env) else None
                line = f"module {top} : {named}" if named else module_signature(top, _named_submodules(members, top_env))
                reports.append(_print_line(line))
                members = []
        return reports

    def _signature_items(self, declaration: ast.Declaration, checked: Checked,
                         visible: tuple[set[str], set[str]] | None = None) -> list[str]:
        """What a module's declaration adds to its signature (of what is `visible`: the flat
        names of its values and types, when a signature hides some)."""
        values, types = visible if visible is not None else (None, None)
        if isinstance(declaration, ast.TypeDecl):
            anonymous = checked.anonymous_abbreviations
            definitions = tuple(d if d.abbreviation is None else replace(d, abbreviation=_expanded(d.abbreviation, anonymous))
                                for d in declaration.definitions if types is None or d.name in types)
            return [type_declaration(replace(declaration, definitions=definitions), "    ")] if definitions else []
        if isinstance(declaration, ast.AbstractType):
            if types is not None and declaration.name not in types:
                return []
            params = tuple(ast.TyVar(p, declaration.span) for p in declaration.params)
            text = f"type {type_expr(ast.TyName(declaration.name, params, declaration.span))}"
            if declaration.application is not None:
                text += f" = {type_expr(ast.TyName(declaration.application, params, declaration.span))}"
            return [text]
        if isinstance(declaration, ast.ExceptionDecl):
            return [exception_declaration(declaration)]
        if isinstance(declaration, ast.LetDecl):
            # laid out (`layout`): a value too long for its line is broken as OCaml breaks it
            return [f"{BOX2}val {value_name(var.name.rpartition('.')[2].partition('/')[0])} :{BREAK}"
                    f"{self._layout(checked, var)}{CLOSE}"
                    for var in _bound_vars(declaration) if values is None or var.name in values]
        return []

    def _module_lines(self, modules: list[ModuleReport], declarations: list[ast.Declaration],
                      checked: Checked) -> str:
        """What the toplevel says of the phrase's modules that declare nothing of their own:
        module types, aliases, functors."""
        owners = {m_.partition(".")[0] for m_ in map(_module_of, declarations) if m_}
        lines = []
        for report in modules:
            if report.item.name in owners:
                continue
            if isinstance(report.item, ModuleTypeDecl):
                lines.append(module_type_declaration(report.item.name, report.item.type))
            elif isinstance(report.item.module, ModulePath):
                lines.append(f"module {report.item.name} = {report.item.module.path}")
            elif isinstance(report.value, FunctorValue):
                check = next((d for d in declarations
                              if isinstance(d, ast.CheckOnly) and d.functor == report.item.name), None)
                lines.append(self._functor_signature(report.item.name, report.value, check, checked))
            elif _signature_name(report):
                lines.append(f"module {report.item.name} : {_signature_name(report)}")
        return "".join(_print_line(line) for line in lines)

    def _functor_signature(self, name: str, functor: FunctorValue, check: ast.CheckOnly | None, checked: Checked,
                           indent: int = 0) -> str:
        """`module F : functor (X : S) -> sig ... end` (at column `indent`): the result's
        signature as given, or as the functor's check inferred it, each parameter's types
        `X.t`."""
        parameters, body = functor_parameters(functor)
        if isinstance(body, Constrained):
            return functor_signature(name, parameters, result_signature(body.type, functor.scope), indent)
        members: list[Any] = []
        inside = f"{check.functor if check is not None else name}'checked"
        visible = _visible(functor.checked) if functor.checked is not None else None
        for declaration in check.declarations if check is not None else ():
            module = _module_of(declaration)
            if module is not None and (module + ".").startswith(inside + "."):
                for item in self._signature_items(declaration, checked, visible):
                    _add_member(members, module[len(inside):].split(".")[1:], _relative(_relative(item, module), inside))
        functor_path = check.functor if check is not None else name
        return functor_signature(name, parameters, _parameters_named(members, functor_path), indent)

    def top_level_names(self) -> list[str]:
        """The values the session's phrases declared."""
        return [var.name for d in self.declarations if isinstance(d, ast.LetDecl) for var in _bound_vars(d)]

    def type_of(self, text: str) -> str:
        """`- : t` for an expression, without running it."""
        self.phrases += 1
        declarations = self._parse_named("cpsc__type", text, f"[{self.phrases}]")
        checked = self._check(self.declarations + declarations)
        return f"- : {show(_scheme_type(checked.typing, _bound_vars(declarations[-1])[0]))}\n"

    def _parse_named(self, name: str, expression: str, file: str) -> list[ast.Declaration]:
        """`let name = expression` (for `:type`, `:run`, `:count`), the binding on a line of its
        own before what the user typed: a diagnostic is located in the user's text (`_located`)."""
        self._wrapped.add(file)
        declarations = self._parse(f"let {name} =\n{expression}", file, self.module_scope.copy())
        self.sources.add(file, expression)
        return declarations

    def _located(self, error: CompileError) -> CompileError:
        """The error located in what the user typed, where its text went after a line of ours."""
        span = error.span
        if span.file not in self._wrapped or span.line < 2:
            return error
        return CompileError(Span(span.file, span.line - 1, span.col, span.end_line - 1, span.end_col),
                            error.message, error.notes)

    def _parse(self, text: str, file: str, scope: Scope | None = None) -> list[ast.Declaration]:
        """The declarations of a phrase (in `scope`, which it updates: the user's phrases) or
        of the session's own code."""
        self.sources.add(file, text)
        try:
            return list(parse_module(text, file, prelude_modules() if scope is None else scope,
                                     generated=scope is None).declarations)
        except CompileError as error:
            self.sources.add(file, text.split("\n", 1)[1] if file in self._wrapped else text)
            raise SessionError(render(self._located(error), self.sources)) from None

    def _check(self, declarations: list[ast.Declaration]) -> Checked:
        try:
            typing, datatypes = driver.type_check(ast.Module(tuple(declarations), (UNIT_FILE,)))
        except CompileError as error:
            raise SessionError(render(self._located(error), self.sources)) from None
        return Checked(tuple(declarations), typing, datatypes)

    def _report(self, declaration: ast.Declaration, checked: Checked) -> str:
        """FL source that prints what OCaml's toplevel says after `declaration`."""
        if isinstance(declaration, ast.TypeDecl):
            return _print_line(type_declaration(declaration))
        if isinstance(declaration, ast.ExceptionDecl):  # (not a local one: OCaml says nothing of it)
            return "" if declaration.shown else _print_line(exception_declaration(declaration))
        if not isinstance(declaration, ast.LetDecl) or _is_session_code(declaration):
            return ""
        if declaration.primitives:  # `external f : t = "p"`: said as declared, with no value
            var = _bound_vars(declaration)[0]
            names = " ".join(f'"{p}"' for p in declaration.primitives)
            return _print_line(f"external {value_name(var.name)} : {self._show(checked, var)} = {names}")
        printers = ValuePrinters(checked.datatypes, self._visible)  # type: ignore[arg-type]
        lines = []
        for binding in declaration.bindings:
            for var in _bound_vars(binding.pattern):
                t = _scheme_type(checked.typing, var)
                value = f"{PREFIX}_top {printers.printer(t)} {value_name(var.name)}"
                # as OCaml's toplevel lays them out: `@[- : %a@ =@ %a@]`, `@[<2>@[<2>val x :@ %a@] =@ %a@]`
                if var.name.startswith("cpsc__it"):
                    head = f"{BOX0}- : {self._layout(checked, var)}{BREAK}={BREAK}"
                else:
                    head = f"{BOX2}{BOX2}val {value_name(var.name)} :{BREAK}{self._layout(checked, var)}{CLOSE} ={BREAK}"
                lines.append(f"{PREFIX}_layout Format.std_formatter ({_fl_string(head)} ^ {value} ^ {_fl_string(CLOSE)})")
        if not lines:
            return ""
        return printers.declarations() + "let () = " + "; ".join(lines) + "\n"

    def _show(self, checked: Checked, var: ast.PVar) -> str:
        """The type of a bound variable as OCaml shows it, on one line."""
        return one_line(self._layout(checked, var))

    def _layout(self, checked: Checked, var: ast.PVar) -> str:
        """The type of a bound variable as OCaml shows it, laid out (`layout`): a type variable
        that was not generalised (the value restriction) is weak, `'_weak1`."""
        scheme = checked.typing.schemes.get(id(var))
        quantified = {v.id for v in scheme.quantified} if scheme is not None else set()
        names: dict[int, str] = {}
        for v in _type_variables(_scheme_type(checked.typing, var)):
            if v.id not in quantified and v.id not in names:
                self.weak_variables += 1
                names[v.id] = f"'_weak{self.weak_variables}"
        return layout(_scheme_type(checked.typing, var), names)

    def _run(self, phrase: list[ast.Declaration], file: str) -> Outcome:
        """Run the session with `phrase` after it; only what the phrase prints is kept."""
        program = self._front_end(self._base_printers + self.code + self._marker + phrase, file)
        return after_marker(self.kept.run(program, file))

    def _front_end(self, declarations: list[ast.Declaration], file: str | None = None,
                   keep: bool = False) -> ast.Program:
        checked = self._check(declarations)
        user = ast.Module(tuple(declarations), (UNIT_FILE,))
        try:
            program = driver.monomorphic(user, checked.typing, checked.datatypes,  # type: ignore[arg-type]
                                         _from_toplevel if keep else None, at_exit=False)
        except CompileError as error:
            raise SessionError(render(error, self.sources)) from None
        warnings = [w for w in program.warnings if file is not None and w.span.file == file]
        if warnings:
            sys.stderr.write("".join(render(w, self.sources, "warning") + "\n" for w in warnings))
        return program

    # ------------------------------------------------------------ the code, for the workbench
    def program(self, declarations: int) -> tuple[CpsProgram, ast.Program, dict[str, str]]:
        """The CPS (and the typed program, and its functions' origins) of the first
        `declarations` accepted, with every monomorphic top-level function kept even if unused."""
        typed = self._front_end(self.declarations[:declarations], keep=True)
        cps, origins = cps_convert_with_origins(typed)
        return cps, typed, origins

    def program_with(self, expression: str, declarations: int,
                     show: bool = True) -> tuple[CpsProgram, ast.Program, dict[str, str]]:
        """The same with `expression` evaluated and (with `show`) shown at the end of main;
        what it prints comes after `MARKER` (`after_marker`)."""
        self.phrases += 1
        file = f"[{self.phrases}]"
        code = self.declarations[:declarations]
        named = self._parse_named("cpsc__it", expression, file)
        checked = self._check(code + named)
        shown = self._parse(self._report(named[0], checked), "<repl>") if show else []
        typed = self._front_end(self._base_printers + code + self._marker + named + shown, file, keep=True)
        cps, origins = cps_convert_with_origins(typed)
        return cps, typed, origins


# ---------------------------------------------------------------------- helpers


_FLUSH_FORMAT = "let () = Format.fl_flush_standard_formatters ()"


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
    """The type variables of `t` as printed, left to right (an abbreviation's, not its
    expansion's)."""
    found: list[TVar] = []
    stack = [t]
    while stack:
        t = resolve(stack.pop())
        if isinstance(t, TVar):
            found.append(t)
        else:
            stack.extend(reversed((t if t.alias is None else t.alias).args))
    return found


def _fl_string(text: str) -> str:
    return '"' + "".join(c if c.isprintable() and c not in '"\\' else f"\\{ord(c):03d}" for c in text) + '"'


def after_marker(outcome: Outcome) -> Outcome:
    """What a run printed after the session's code: the phrase's, or the expression's."""
    return replace(outcome, stdout=outcome.stdout.partition(MARKER)[2], stderr=outcome.stderr.partition(MARKER)[2])


# What OCaml's toplevel says of these two exceptions, raised or met, instead of `Exception: E.`
_DURING_EVALUATION = {"Exception: Stack_overflow.\n": "Stack overflow during evaluation (looping recursion?).\n",
                      "Exception: Out_of_memory.\n": "Out of memory during evaluation.\n"}


def _modules_said(text: str) -> dict[str, str]:
    """Each `module M : ...` answer of a phrase (with its indented lines), by the module's name."""
    said: dict[str, str] = {}
    name = None
    for line in text.splitlines(keepends=True):
        match = re.match(r"module (?:type )?([A-Z]\w*)", line)
        if match:
            name = match.group(1) if not line.startswith("module type") else None
            if name is not None:
                said[name] = line
        elif name is not None and line.startswith(" "):
            said[name] += line
        else:
            name = None
    return said


def outcome_text(outcome: Outcome) -> str:
    """What a phrase printed, then how it ended if not normally, as OCaml's toplevel says it.
    Its stderr comes first when it ends normally: the toplevel's stdout is buffered until the
    end of the phrase, its stderr is not."""
    outcome = Outcome(terminal_text(outcome.stdout), terminal_text(outcome.stderr), outcome.status)
    text = outcome.stdout
    if outcome.status == 0:
        return outcome.stderr + text
    fatal = "Fatal error: exception "
    if outcome.stderr.startswith(fatal):  # raised where no guard was (`:run`, `:count`), or not catchable
        ending = f"Exception: {outcome.stderr[len(fatal):].strip()}.\n"
        return text + _DURING_EVALUATION.get(ending, ending)
    if outcome.status == 2 and "Exception: " in outcome.stderr:
        # as OCaml's toplevel: right after what the phrase printed
        return text + _DURING_EVALUATION.get(outcome.stderr, outcome.stderr)
    if text and not text.endswith("\n"):
        text += "\n"
    return text + outcome.stderr + f"(the phrase exited with status {outcome.status}; the session goes on)\n"


def _print_line(text: str) -> str:
    """FL that prints `text` and a newline; its lines laid out by Format if it holds a layout's
    marks (`cpsc.types.types.layout`)."""
    if BOX in text:
        return f"let () = {PREFIX}_lines {_fl_string(text)}\n"
    return f"let () = print_string {_fl_string(text + chr(10))}\n"


def _relative(item: str, module: str) -> str:
    """A signature item as OCaml shows it inside the module: its own names unqualified."""
    return re.sub(rf"(?<![\w.']){re.escape(module)}\.(?=[A-Za-z_])", "", item)


def _visible(env: Env) -> tuple[set[str], set[str]]:
    """The flat names of the values and types a structure lets be seen, its modules' too."""
    values, types = set(env.values.values()), set(env.types.values())
    for inner in env.modules.values():
        if isinstance(inner, Env):
            inner_values, inner_types = _visible(inner)
            values |= inner_values
            types |= inner_types
    return values, types


def _anonymous_abbreviations(declarations: tuple[ast.Declaration, ...]) -> dict[str, ast.TypeDef]:
    """The abbreviations of the structures given to functors (`F (struct type t = int end)`):
    their types have no path, and OCaml shows each as its definition (`type elt = int`)."""
    return {d.name: d for declaration in declarations
            if isinstance(declaration, ast.TypeDecl) and declaration.module and re.search(r"'\d+", declaration.module)
            for d in declaration.definitions if d.abbreviation is not None}


def _expanded(t: ast.TypeExpr, anonymous: dict[str, ast.TypeDef], bound: dict[str, ast.TypeExpr] | None = None) -> ast.TypeExpr:
    """`t` with the types of `anonymous` replaced by their definitions."""
    if isinstance(t, ast.TyVar):
        return (bound or {}).get(t.name, t)
    if isinstance(t, ast.TyArrow):
        return replace(t, param=_expanded(t.param, anonymous, bound), result=_expanded(t.result, anonymous, bound))
    if isinstance(t, ast.TyTuple):
        return replace(t, items=tuple(_expanded(i, anonymous, bound) for i in t.items))
    args = tuple(_expanded(a, anonymous, bound) for a in t.args)
    definition = anonymous.get(t.name)
    if definition is None or definition.abbreviation is None:
        return replace(t, args=args)
    return _expanded(definition.abbreviation, anonymous, dict(zip(definition.params, args)))


def _named_submodules(members: list[Any], env: Env | None) -> list[Any]:
    """A module's members, each submodule given a module type by name shown by that name (`module
    FA : S`), as OCaml's toplevel shows it."""
    if env is None:
        return members
    named: list[Any] = []
    for member in members:
        inner = env.modules.get(member[0]) if isinstance(member, list) else None
        if not isinstance(inner, Env):
            named.append(member)
        elif inner.module_type is not None:
            named.append(f"module {member[0]} : {inner.module_type}")
        else:
            named.append([member[0], _named_submodules(member[1], inner)])
    return named


def _signature_name(report: ModuleReport) -> str | None:
    """`S` for `module M : S = ...` (OCaml's toplevel says `module M : S`)."""
    item = report.item
    if isinstance(item, ModuleDecl) and isinstance(item.module, Constrained) \
            and isinstance(item.module.type, ModuleTypePath):
        return item.module.type.path
    if isinstance(report.value, Env) and report.value.module_type is not None:  # `F (struct ... end)`
        return report.value.module_type
    return None


def _functor_named(module: Any, path: str) -> FunctorValue | None:
    """The functor `path` (`M.N.F`) names in the top-level module `module` (M)."""
    for name in path.split(".")[1:]:
        module = module.modules.get(name) if isinstance(module, Env) else None
    return module if isinstance(module, FunctorValue) else None


def _module_of(declaration: ast.Declaration) -> str | None:
    """The module a (flattened) declaration came from, if any (a functor's check: the module
    the functor is in)."""
    if isinstance(declaration, ast.CheckOnly):
        return declaration.functor.rpartition(".")[0] or None
    if isinstance(declaration, (ast.TypeDecl, ast.ExceptionDecl)):
        return declaration.module
    if isinstance(declaration, ast.AbstractType):
        return declaration.name.rpartition(".")[0] or None

    if isinstance(declaration, ast.LetDecl):
        modules = {v.name.rpartition(".")[0] for v in _bound_vars(declaration)}
        if len(modules) == 1 and "" not in modules:
            return modules.pop()
    return None


def _continues(declarations: list[ast.Declaration], start: int, module: str) -> bool:
    """Whether the (top-level) module's members go on after declarations that name nothing
    (a module's `let () = ...`, a signature's or a functor's checks) or the session's own code."""
    for position in range(start, len(declarations)):  # no copy of the rest per member
        d = declarations[position]
        owner = _module_of(d)
        if owner is not None and owner.partition(".")[0] == module:
            return True
        if not (isinstance(d, (ast.SignatureCheck, ast.CheckOnly))
                or isinstance(d, ast.LetDecl) and (not _bound_vars(d) or _is_session_code(d))):
            return False
    return False


def _add_member(members: list[Any], path: list[str], item: str) -> None:
    """An item of a module's signature, in its submodule `path` (a submodule is a
    `[name, items]` entry among the items, where its first member comes)."""
    if not path:
        members.append(item)
        return
    if not (members and isinstance(members[-1], list) and members[-1][0] == path[0]):
        members.append([path[0], []])
    _add_member(members[-1][1], path[1:], item)


def _parameters_named(members: list[Any], functor: str) -> list[Any]:
    """Members of a functor's checked body, its parameters' types named as OCaml names them
    (`X.t`, not the check's `F(X).t`)."""
    pattern = rf"(?<![\w.']){re.escape(functor)}\(([A-Z][\w']*)\)\."
    return [re.sub(pattern, r"\1.", m_) if isinstance(m_, str) else [m_[0], _parameters_named(m_[1], functor)]
            for m_ in members]


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

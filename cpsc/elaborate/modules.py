"""The module language, elaborated away: structures, functors and signatures become flat core
declarations whose names carry their module's path (`module M = struct let x = ... end`
declares `M.x`).

This is MLton's defunctorisation, done as the parser's last step: a functor is applied at
compile time, its body elaborated again for each application (so `Map.Make (Int)`'s `find` is
an ordinary, monomorphic, inlinable function named `IntMap.find`), and no module exists at run
time. Every name a program writes is resolved here to the flat name of what it denotes: a
structure's member, a member of an opened module, a functor's argument, a module alias. The type
checker then sees declarations like any others; what a signature hides is unreachable because no
name resolves to it, and what it says about types is checked by `ast.SignatureCheck` declarations.

A structure's static description is an `Env`: its members by source name, each the flat name the
core declarations give it. A `Scope` is what the names mean at one point of the program.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any, Union

from cpsc.semantics.builtins import PRIMITIVE_TYPES
from cpsc.syntax import ast
from cpsc.syntax import module_ast as m
from cpsc.syntax.diagnostics import CompileError, Span
from cpsc.syntax.rules.parts import STDLIB_PREFIX
from cpsc.syntax.units import PRELUDE_FILE


@dataclass(repr=False)
class Members:
    """Names by what they name: values, types, constructors (and exceptions), record fields,
    modules and module types, each the flat name (or the module, the module type) it denotes.

    Scopes, structures and functors share one another (a functor keeps the scope it was
    defined in), so a generated `repr` would be exponential in the session's length; theirs
    name only what they hold (a failing test's report, which shows arguments, stays small)."""

    values: dict[str, str] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)
    constructors: dict[str, str] = field(default_factory=dict)
    modules: dict[str, ModuleValue] = field(default_factory=dict)
    module_types: dict[str, SignatureValue] = field(default_factory=dict)
    fields: dict[str, str] = field(default_factory=dict)

    def merge_into(self, other: Members) -> None:
        """Make these members other's too (`include`, `open`)."""
        other.values.update(self.values)
        other.types.update(self.types)
        other.constructors.update(self.constructors)
        other.fields.update(self.fields)
        other.modules.update(self.modules)
        other.module_types.update(self.module_types)

    def __repr__(self) -> str:
        return (f"<{type(self).__name__}: {len(self.values)} values, {len(self.types)} types, "
                f"{len(self.constructors)} constructors, modules {sorted(self.modules)}, "
                f"module types {sorted(self.module_types)}>")


@dataclass(repr=False)
class Env(Members):
    """A structure: its members, declared under `path`. A library module (the prelude's, seen
    from a program) lists only some: the others are left to the type checker, which knows them
    by their qualified names."""

    path: str = ""
    library: bool = False
    # the path OCaml's native code names its exceptions under (`Printexc.to_string`): `M.N`, a
    # functor's body `F(X)`; None in an anonymous structure or a local module (named bare)
    printed: str | None = ""
    # a signature sealed a type of it: its values are seen through bindings of their own
    seals: bool = False
    # the module type a functor's result is given by name, for an application to a structure
    # (OCaml's toplevel says `module A : S` of `module A = F (struct ... end)`)
    module_type: str | None = None

    @property
    def sealed(self) -> bool:
        """Whether a signature sealed a type of it or of a module in it, so that `M.x` is not
        always the qualified name of M's x."""
        return self.seals or any(isinstance(inner, Env) and inner.sealed for inner in self.modules.values())

    @property
    def renamed(self) -> bool:
        """Whether some member is not named after M (`M.x` is another module's x: `include`),
        here or in a module of M (`StdLabels.List`, an alias)."""
        return any(flat != f"{self.path}.{member}" for member, flat in self.values.items()) \
            or any(isinstance(inner, Env) and (inner.renamed or inner.path != f"{self.path}.{name}")
                   for name, inner in self.modules.items())


@dataclass(repr=False)
class Scope(Members):
    """What each name means at one point of the program (a name not here means itself: a local
    variable, a top-level definition, or one of the prelude's)."""

    # whether a declaration of the module language has changed it (so that a text read in
    # it must be elaborated, even one that declares no module)
    declared: bool = False
    # the top-level module items of the text last elaborated in it (for the toplevel's answers)
    reports: list[ModuleReport] = field(default_factory=list)
    # the functors applied to module paths so far, for applications of the same functor to the
    # same module to give the same types (`_Elaborator.application`)
    applications: dict[Any, Application] = field(default_factory=dict)

    def copy(self) -> Scope:
        return Scope(dict(self.values), dict(self.types), dict(self.constructors), dict(self.modules),
                     dict(self.module_types), dict(self.fields), self.declared, applications=dict(self.applications))


@dataclass(repr=False)
class ModuleReport:
    """A top-level `module` or `module type` item, for the toplevel to say what it declared:
    `item` as written, `value` what it denotes (the structure as its signature lets it be seen)."""

    item: Any
    value: ModuleValue | SignatureValue

    def __repr__(self) -> str:
        return f"<report of {self.item.name}: {self.value!r}>"


@dataclass(repr=False)
class FunctorValue:
    """A functor: applied at compile time, its body elaborated in the scope it was defined in."""

    parameter: m.FunctorParameter
    body: m.ModuleExpr
    scope: Scope
    # its body as its check elaborated it (`_Elaborator.check_functor`): what it lets be seen
    checked: Env | None = None
    # the path its body's exceptions are printed under (`Env.printed`)
    printed: str | None = None

    def __repr__(self) -> str:
        return f"<functor ({self.parameter.name}) at {self.body.span}>"


ModuleValue = Union[Env, FunctorValue]


@dataclass(repr=False)
class Application:
    """The first application of a functor to a module path: the names it gave the types it
    declared, by where they were declared (`_Applying.key`), which a later application of the
    same functor to the same module gives its own (OCaml's functors are applicative:
    `Set.Make(String).t` is one type). Its values are its own: a functor's body may have effects,
    run again by each application. `functor` and `argument` are kept for their identities."""

    functor: ModuleValue
    argument: ModuleValue
    names: dict[tuple[str, int], Any]
    result: ModuleValue

    def __repr__(self) -> str:
        return f"<application: {len(self.names)} names>"


@dataclass
class _Applying:
    """A functor application being elaborated: its declarations' names are `names[key]` (found
    there when an earlier application of the same functor to the same module declared them)."""

    path: str
    names: dict[tuple[str, int], Any]
    occurrences: dict[str, int] = field(default_factory=dict)
    printed: str | None = None  # `F(A)`, as OCaml names an application to a module path

    def key(self, flat: str) -> tuple[str, int]:
        """Where a declaration is in the application, the same in every application: its flat
        name relative to the application's path, with the numbers of anonymous modules left out
        (and how many times that name was declared before)."""
        relative = flat[len(self.path) + 1:] if flat.startswith(self.path + ".") else flat
        relative = re.sub(r"'\d+", "'", relative)
        occurrence = self.occurrences.get(relative, 0)
        self.occurrences[relative] = occurrence + 1
        return relative, occurrence


@dataclass(repr=False)
class SignatureValue:
    """A module type and the scope its names are resolved in."""

    type: m.ModuleType
    scope: Scope

    def __repr__(self) -> str:
        return f"<module type at {self.type.span}>"


def elaborate(declarations: tuple[Any, ...], scope: Scope) -> list[Any]:
    """The core declarations of a compilation unit's items; `scope` (the prelude's modules and
    what earlier toplevel phrases declared) is updated with what they declare."""
    elaborator = _Elaborator(scope.applications)
    elaborator.library = {name: module for name, module in scope.modules.items()
                          if isinstance(module, Env) and module.library}
    elaborator.structure_items(declarations, scope, Env())
    elaborator.out[:0] = elaborator.stdlib_aliases.values()
    scope.declared = scope.declared or has_module_items(declarations)
    scope.reports = [ModuleReport(item, scope.modules[item.name] if isinstance(item, m.ModuleDecl)
                                  else scope.module_types[item.name])
                     for item in declarations if isinstance(item, (m.ModuleDecl, m.ModuleTypeDecl))]
    return elaborator.out


def signature_items(module_type: m.ModuleType, scope: Scope) -> list[Any]:
    """The items of a module type read in `scope`: named ones looked up, includes expanded,
    `with` constraints applied."""
    return _Elaborator({}).signature_items(SignatureValue(module_type, scope), module_type.span)


def has_module_items(declarations: tuple[Any, ...]) -> bool:
    return any(isinstance(d, m.MODULE_ITEMS) for d in declarations)


_ERROR_PREFIX = "Signature mismatch:\n       "


class _Undescribed(Exception):
    """A functor's parameter whose signature `_Elaborator.described` cannot describe."""


class _Elaborator:
    def __init__(self, applications: dict[Any, Application]) -> None:
        self.out: list[Any] = []
        # `let stdlib/x = x` before the unit's declarations, for `Stdlib.x` where x is hidden
        self.stdlib_aliases: dict[str, ast.LetDecl] = {}
        self.library: dict[str, Env] = {}  # the standard library's modules, for `Stdlib.M.x`
        self.fresh = itertools.count(1)
        self.applications = applications
        # the functor applications being elaborated, outermost first
        self.applying: list[_Applying] = []
        # inside a functor's body: every node is made anew, since inference keys its facts by
        # node and each application of the functor is a program of its own
        self.instantiating = 0
        # checking a functor's body (`check_functor`): the functors it defines are checked
        # with it
        self.checking = False

    # ---------------------------------------------------------------- structures
    def structure_items(self, items: tuple[Any, ...], scope: Scope, env: Env) -> None:
        declared: set[tuple[str, str]] = set()
        for item in items:
            _declared_once(item, declared)
            if isinstance(item, ast.LetDecl):
                self.let_declaration(item, scope, env)
            elif isinstance(item, ast.TypeDecl):
                self.type_declaration(item, scope, env)
            elif isinstance(item, ast.ExceptionDecl):
                self.exception_declaration(item, scope, env)
            elif isinstance(item, ast.SignatureCheck):  # `let f : 'a. t = ...` (the parser's)
                self.out.append(replace(item, value=scope.values.get(item.value, item.value),
                                        type=_Renamer(self, scope).type(item.type)))
            elif isinstance(item, m.ModuleDecl):
                printed = None if env.printed is None else _qualified(env.printed, item.printed or item.name)
                value = self.module_expr(item.module, scope, _qualified(env.path, item.name), printed)
                scope.modules[item.name] = env.modules[item.name] = value
            elif isinstance(item, m.ModuleTypeDecl):
                signature = SignatureValue(item.type, scope.copy())
                if not isinstance(item.type, m.FunctorType):
                    self.signature_items(signature, item.span)  # what it names exists, as OCaml checks
                scope.module_types[item.name] = env.module_types[item.name] = signature
            elif isinstance(item, m.OpenDecl):
                self.structure(item.path, scope, item.span).merge_into(scope)
            elif isinstance(item, m.IncludeDecl):
                included = self.module_expr(item.module, scope, env.path)
                if not isinstance(included, Env):
                    raise CompileError(item.span, "This module is a functor: it cannot be included")
                included.merge_into(env)
                included.merge_into(scope)
            else:
                raise AssertionError(f"not a structure item: {item!r}")

    def let_declaration(self, decl: ast.LetDecl, scope: Scope, env: Env) -> None:
        names = [n for b in decl.bindings for n in ast.pattern_names(b.pattern)]
        flat = {n: _qualified(env.path, n) for n in names}
        inner = scope
        if decl.is_rec:
            inner = scope.copy()
            inner.values.update(flat)
        renamer = _Renamer(self, inner)
        bindings = tuple(ast.Binding(_qualify_pattern(renamer.pattern(b.pattern, frozenset()), flat),
                                     renamer.expr(b.value, frozenset()), b.span)
                         for b in decl.bindings)
        if not decl.is_rec:  # (`let a, b = M.(x, y)`: a tuple of values once resolved)
            bindings = tuple(c for b in bindings for c in ast.tuple_components(b))
        self.out.extend(renamer.hoisted)
        self.out.append(ast.LetDecl(decl.is_rec, bindings, decl.span, primitives=decl.primitives))
        scope.values.update(flat)
        env.values.update(flat)

    def type_declaration(self, decl: ast.TypeDecl, scope: Scope, env: Env) -> None:
        flat = {d.name: _qualified(env.path, d.name) for d in decl.definitions}
        constructors = {c.name: _qualified(env.path, c.name) for d in decl.definitions for c in d.constructors}
        record_fields = {f.name: _qualified(env.path, f.name) for d in decl.definitions for f in d.fields}
        earlier = self.applicative(flat[decl.definitions[0].name], (flat, constructors, record_fields))
        if earlier is not None:  # the types an earlier application declared, under names of its own
            earlier_flat, constructors, record_fields = earlier
            definitions = tuple(_alias(d, flat[d.name], earlier_flat[d.name]) for d in decl.definitions)
        else:
            inner = scope.copy()
            inner.types.update(flat)  # the definitions of a `type ... and ...` name each other
            renamer = _Renamer(self, inner)
            definitions = tuple(replace(d, name=flat[d.name],
                                        constructors=tuple(replace(c, args=tuple(renamer.type(a) for a in c.args))
                                                           for c in d.constructors),
                                        fields=tuple(replace(f, type=renamer.type(f.type)) for f in d.fields),
                                        abbreviation=None if d.abbreviation is None else renamer.type(d.abbreviation))
                                for d in decl.definitions)
        self.out.append(replace(decl, definitions=definitions, module=env.path or decl.module))
        for target in (scope, env):
            target.types.update(flat)
            target.constructors.update(constructors)
            target.fields.update(record_fields)

    def exception_declaration(self, decl: ast.ExceptionDecl, scope: Scope, env: Env) -> None:
        renamer = _Renamer(self, scope)
        self.out.append(replace(decl, args=tuple(renamer.type(a) for a in decl.args), module=env.path or decl.module,
                                printed_path=env.printed))
        scope.constructors[decl.name] = env.constructors[decl.name] = _qualified(env.path, decl.name)

    # ---------------------------------------------------------------- module expressions
    def module_expr(self, expr: m.ModuleExpr, scope: Scope, path: str, printed: str | None = None) -> ModuleValue:
        """What `expr` denotes; a structure's declarations, named under `path` (and `printed`
        under that, see `Env.printed`), go to `out`."""
        if isinstance(expr, m.Structure):
            env = Env(path=path, printed=printed)
            self.structure_items(expr.items, scope.copy(), env)
            return env
        if isinstance(expr, m.ModulePath):
            return self.module(expr.path, scope, expr.span)
        if isinstance(expr, m.Functor):
            functor = FunctorValue(expr.parameter, expr.body, scope.copy(), printed=printed)
            if not self.checking:
                self.check_functor(functor, path, expr.span)
            return functor
        if isinstance(expr, m.Apply):
            return self.application(expr, scope, path)
        if isinstance(expr, m.Constrained):
            return self.ascribe(self.module_expr(expr.module, scope, path, printed), SignatureValue(expr.type, scope),
                                expr.span, path=path)
        raise AssertionError(f"not a module expression: {expr!r}")

    def application(self, expr: m.Apply, scope: Scope, path: str) -> ModuleValue:
        """`F (A)`: F's body, elaborated with its parameter bound to A as F's signature for it
        sees it, its declarations named under `path` (the name the result is bound to). When A
        is a module path F was applied to before, the types are that application's."""
        functor = self.module_expr(expr.functor, scope, path)
        if not isinstance(functor, FunctorValue):
            raise CompileError(expr.functor.span, "This module is not a functor; it has no parameter")
        argument = self.module_expr(expr.argument, scope, f"{path}'{next(self.fresh)}")
        key = self.path_key(expr, scope)
        earlier = None if key is None else self.applications.get(key)
        if earlier is not None and isinstance(earlier.result, FunctorValue):
            return earlier.result  # `F (A)` of a curried F: a functor, made once
        parameter = self.ascribe(argument, SignatureValue(functor.parameter.type, functor.scope), expr.argument.span,
                                 seal=False)
        body_scope = functor.scope.copy()
        body_scope.modules[functor.parameter.name] = parameter
        names = {} if earlier is None else earlier.names
        self.instantiating += 1
        generative = functor.parameter.name == m.GENERATIVE
        self.applying.append(_Applying(path, names, printed=None if key is None or generative else _printed_path(expr)))
        try:
            # (OCaml names a generative functor's exceptions bare, as an anonymous structure's)
            printed = None if functor.printed is None or generative else f"{functor.printed}({functor.parameter.name})"
            result = self.module_expr(functor.body, body_scope, path, printed)
        finally:
            self.instantiating -= 1
            self.applying.pop()
        if key is not None and earlier is None and not self.checking:
            self.applications[key] = Application(functor, argument, names, result)
        if key is not None and isinstance(result, Env):  # OCaml shows it strengthened: `type t = F(A).t`
            result.module_type = None
        return result

    def path_key(self, expr: m.ModuleExpr, scope: Scope) -> Any:
        """What the module an extended path (`A.B`, `F (A)`, `F (G (A)) (B)`) denotes is
        known by, the same for each of its applications; None for other module expressions."""
        if isinstance(expr, m.ModulePath):
            return id(self.module(expr.path, scope, expr.span))
        if isinstance(expr, m.Apply):
            functor, argument = self.path_key(expr.functor, scope), self.path_key(expr.argument, scope)
            return None if functor is None or argument is None else (functor, argument)
        return None

    def applicative(self, flat: str, names: Any) -> Any:
        """Inside a functor application, the names an earlier application of the same functor
        to the same module gave the declaration of the types `flat` (else None: the
        declaration's own, `names`, are recorded for the applications it is in, except in a
        functor's check, whose declarations are dropped)."""
        keys = [(applying, applying.key(flat)) for applying in self.applying]
        found = next((applying.names[key] for applying, key in keys if key in applying.names), None)
        if not self.checking:
            for applying, key in keys:
                applying.names.setdefault(key, names if found is None else found)
        return found

    def check_functor(self, functor: FunctorValue, path: str, span: Span) -> None:
        """Type-check a functor's body once with each parameter as its signature describes it
        (its abstract types abstract), as OCaml does, so that an error in a functor nobody
        applies is reported; what this elaborates is checked, then dropped (`ast.CheckOnly`).
        A parameter whose signature has a functor in it is not described: the body is then
        checked where it is applied."""
        saved, self.out = self.out, []
        self.checking, self.instantiating = True, self.instantiating + 1
        try:
            value: ModuleValue = functor
            while isinstance(value, FunctorValue):
                body_scope = value.scope.copy()
                try:
                    body_scope.modules[value.parameter.name] = self.described(
                        SignatureValue(value.parameter.type, value.scope), f"{path}({value.parameter.name})", span)
                except (CompileError, _Undescribed):
                    return
                value = self.module_expr(value.body, body_scope, f"{path}'checked")
            functor.checked = value
        finally:
            checked, self.out = self.out, saved
            self.checking, self.instantiating = False, self.instantiating - 1
        self.out.append(ast.CheckOnly(tuple(checked), span, path))

    def described(self, signature: SignatureValue, path: str, span: Span) -> Env:
        """A module with just what `signature` lists, to check a functor's body with: its
        abstract types of no definition the body could see, its values known by their types
        (`ast.ValueSpec`)."""
        scope, env = signature.scope.copy(), Env(path=path)
        for item in self.signature_items(signature, span):
            if isinstance(item, m.SigVal):
                flat = _qualified(path, item.name)
                self.out.append(ast.ValueSpec(flat, _Renamer(self, scope).type(item.type), item.span))
                scope.values[item.name] = env.values[item.name] = flat
            elif isinstance(item, m.SigType):  # each abstract type a type of its own
                opaque = ast.ConstructorDecl("Fl_described'", (), span)
                definitions = tuple(replace(d, constructors=(opaque,), abbreviation=None) if d.name in item.abstract
                                    else d for d in item.declaration.definitions)
                self.type_declaration(replace(item.declaration, definitions=definitions), scope, env)
            elif isinstance(item, m.SigException):
                self.exception_declaration(item.declaration, scope, env)
            elif isinstance(item, m.SigModule):
                if isinstance(item.type, m.FunctorType):
                    raise _Undescribed
                inner = self.described(SignatureValue(item.type, scope), _qualified(path, item.name), item.span)
                scope.modules[item.name] = env.modules[item.name] = inner
            elif isinstance(item, m.SigModuleType):
                scope.module_types[item.name] = env.module_types[item.name] = SignatureValue(item.type, scope.copy())
        return env

    def module(self, path: str, scope: Scope, span: Span) -> ModuleValue:
        """The module a path names."""
        head, *rest = path.split(".")
        found = scope.modules.get(head)
        if found is None:
            raise CompileError(span, f"Unbound module {head}")
        for index, name in enumerate(rest):
            prefix = ".".join([head, *rest[:index]])
            if not isinstance(found, Env):
                raise CompileError(span, f"The module {prefix} is a functor, it cannot have any components")
            inner = found.modules.get(name)
            if inner is None:
                raise CompileError(span, f"Unbound module {prefix}.{name}")
            found = inner
        return found

    def structure(self, path: str, scope: Scope, span: Span) -> Env:
        if path == "Stdlib":
            return Env(path="Stdlib", library=True)
        found = self.module(path, scope, span)
        if not isinstance(found, Env):
            raise CompileError(span, f"The module {path} is a functor: it cannot be opened")
        return found

    # ---------------------------------------------------------------- signatures
    def ascribe(self, module: ModuleValue, signature: SignatureValue, span: Span, seal: bool = True,
                outer: _View | None = None, path: str = "") -> ModuleValue:
        """`(M : S)`: M as S sees it (what S does not list is hidden, what it makes abstract is
        sealed), after checking that M provides all that S requires; the types of its values the
        type checker checks later. A functor's parameter is not sealed (`seal`): its body is
        elaborated with the argument itself, so the argument's types are the parameter's, as
        OCaml's applicative functors make them in the result. The abstract types and values
        sealing makes are the module's being declared (`path`: `D.t` of `module D : S = B`)."""
        named = signature.type.path if isinstance(signature.type, m.ModuleTypePath) else None
        while isinstance(signature.type, m.ModuleTypePath):
            signature = self.module_type(signature.type.path, signature.scope, signature.type.span)
        if isinstance(signature.type, m.FunctorType):
            if not isinstance(module, FunctorValue):
                raise CompileError(span, f"{_ERROR_PREFIX}Modules do not match: this structure is not a functor")
            return module
        if not isinstance(module, Env):
            raise CompileError(span, f"{_ERROR_PREFIX}Modules do not match: a functor is not a structure")
        view = _View(module, Env(path=module.path), signature.scope.copy(), signature.scope.copy(),
                     seal and not module.library, path or module.path)
        if outer is not None:  # a module specification: the enclosing signature's abstract types are its
            view.sealed, view.abstracts = outer.sealed, outer.abstracts
            if named is None:  # (a module type named is read where it was declared)
                view.outside = outer.outside.copy()
        for item in self.signature_items(signature, span):
            self.match_item(item, view, span)
        view.seen.seals = view.sealed
        view.seen.module_type = named if seal else None
        return view.seen

    def signature_items(self, signature: SignatureValue, span: Span) -> list[Any]:
        """The items of a module type (includes expanded, `with type` applied)."""
        module_type = signature.type
        if isinstance(module_type, m.ModuleTypePath):
            named = self.module_type(module_type.path, signature.scope, module_type.span)
            return self.signature_items(named, span)
        if isinstance(module_type, m.ModuleTypeWith):
            items = self.signature_items(SignatureValue(module_type.base, signature.scope), span)
            for constraint in module_type.constraints:
                items = self.constrained(items, constraint, signature.scope)
            return items
        if isinstance(module_type, m.FunctorType):
            raise CompileError(span, f"{_ERROR_PREFIX}Modules do not match: a functor type is not a signature")
        out: list[Any] = []
        opened = _Opened()
        for item in module_type.items:
            if isinstance(item, m.SigOpen):
                opened.open(item.path, self.structure(item.path, signature.scope, item.span))
                continue
            item = opened.qualified(item)
            if isinstance(item, m.SigInclude):
                out.extend(self.signature_items(SignatureValue(item.type, signature.scope), span))
            else:
                out.append(item)
        return out

    def constrained(self, items: list[Any], constraint: m.Constraint, scope: Scope) -> list[Any]:
        """A signature's items with a `with` constraint applied to the one it names (an error if
        none does, as in OCaml); `with type M.t = e` and `with module M.N = P` apply to the
        module specification M's type."""
        head, dot, rest = constraint.path.partition(".")
        for index, item in enumerate(items):
            constrained: m.ModuleType
            if dot and isinstance(item, m.SigModule) and item.name == head:
                inner = replace(constraint, path=rest)
                constrained = m.ModuleTypeWith(item.type, (inner,), constraint.span)
            elif not dot and isinstance(constraint, m.WithType) and isinstance(item, m.SigType) \
                    and any(d.name == head for d in item.declaration.definitions):
                if constraint.destructive:
                    return [*items[:index], *_substituted(items[index + 1:], constraint)]
                return [*items[:index], _with_type(item, constraint), *items[index + 1:]]
            elif not dot and isinstance(constraint, m.WithModule) and isinstance(item, m.SigModule) \
                    and item.name == head:
                constrained = self.with_module(item, constraint, scope)
            else:
                continue
            return [*items[:index], replace(item, type=constrained), *items[index + 1:]]
        raise CompileError(constraint.span, f"The signature constrained by `with' has no component named {head}")

    def with_module(self, item: m.SigModule, constraint: m.WithModule, scope: Scope) -> m.ModuleType:
        """`module M : T` under `with module M = P`: T with each of its types (its modules'
        too) made P's, after checking that P is a T."""
        module = self.module(constraint.module, scope, constraint.span)
        try:
            self.ascribe(module, SignatureValue(item.type, scope), constraint.span, seal=False)
        except CompileError as error:
            raise CompileError(error.span, f"In this `with' constraint, the new definition of {constraint.path}\n"
                               "       does not match its original definition in the constrained signature:\n"
                               "       " + error.message.removeprefix(_ERROR_PREFIX)) from None
        constraints: list[m.Constraint] = []
        for inner in self.signature_items(SignatureValue(item.type, scope), constraint.span):
            if isinstance(inner, m.SigType):
                constraints.extend(
                    m.WithType(d.params, d.name, ast.TyName(f"{constraint.module}.{d.name}",
                                                            tuple(ast.TyVar(p, d.span) for p in d.params), d.span),
                               constraint.span)
                    for d in inner.declaration.definitions)
            elif isinstance(inner, m.SigModule) and not isinstance(inner.type, m.FunctorType):
                constraints.append(m.WithModule(inner.name, f"{constraint.module}.{inner.name}", constraint.span))
        return m.ModuleTypeWith(item.type, tuple(constraints), constraint.span) if constraints else item.type

    def module_type(self, path: str, scope: Scope, span: Span) -> SignatureValue:
        module_path, _, name = path.rpartition(".")
        table = self.structure(module_path, scope, span).module_types if module_path else scope.module_types
        if name not in table:
            raise CompileError(span, f"Unbound module type {path}")
        return table[name]

    def match_item(self, item: Any, view: _View, span: Span) -> None:
        """One signature item against the module: what it names, made visible in `view.seen`.
        A mismatch says where the signature declares what was expected, as OCaml does."""
        try:
            self.match_item_here(item, view, span)
        except CompileError as error:
            declared = _item_span(item)
            if not error.message.startswith(_ERROR_PREFIX) or error.notes or declared.file == PRELUDE_FILE:
                raise  # (a line of the library's text would tell the user nothing)
            raise CompileError(error.span, error.message, (f"{declared}: Expected declaration",)) from None

    def match_item_here(self, item: Any, view: _View, span: Span) -> None:
        module, seen = view.module, view.seen
        if isinstance(item, m.SigVal):
            self.match_value(item, view, span)
        elif isinstance(item, m.SigType):
            for definition in item.declaration.definitions:
                flat = self.member(module.types, module, definition.name, "type", span)
                view.inside.types[definition.name] = flat
                if view.seal and definition.name in item.abstract:
                    flat = self.abstract_type(flat, definition, module, span, view)
                    view.sealed = True
                else:
                    for constructor in definition.constructors:
                        key = self.member(module.constructors, module, constructor.name, "constructor", span)
                        seen.constructors[constructor.name] = key
                    for record_field in definition.fields:
                        seen.fields[record_field.name] = self.member(module.fields, module, record_field.name,
                                                                     "field", span)
                seen.types[definition.name] = view.outside.types[definition.name] = flat
        elif isinstance(item, m.SigException):
            name = item.declaration.name
            seen.constructors[name] = self.member(module.constructors, module, name, "extension constructor", span)
        elif isinstance(item, m.SigModule):
            inner = module.modules.get(item.name)
            if inner is None:
                raise CompileError(span, f"{_ERROR_PREFIX}The module `{item.name}' is required but not provided")
            seen.modules[item.name] = self.ascribe(inner, SignatureValue(item.type, view.inside), span, view.seal,
                                                   view, _qualified(view.target, item.name))
            view.inside.modules[item.name] = view.outside.modules[item.name] = seen.modules[item.name]
        elif isinstance(item, m.SigModuleType):
            seen.module_types[item.name] = SignatureValue(item.type, view.outside.copy())
            view.inside.module_types[item.name] = view.outside.module_types[item.name] = seen.module_types[item.name]

    def match_value(self, item: m.SigVal, view: _View, span: Span) -> None:
        """`val x : t`: the module's x, checked against t, and seen through t, as a value of its
        own whose type names the abstract types the signature made (`M.make` of a `val make :
        int -> int` is no longer polymorphic, as in OCaml); a functor's parameter is its argument."""
        flat = self.member(view.module.values, view.module, item.name, "value", span)
        self.out.append(ast.SignatureCheck(flat, item.name, _Renamer(self, view.inside).type(item.type), span,
                                           item.span))
        if view.seal:
            outside = _Renamer(self, view.outside).type(item.type)
            sealed = f"{_qualified(view.target, item.name)}/{next(self.fresh)}"
            value = ast.Annot(ast.Var(flat, span), outside, span, sealing=frozenset(view.abstracts))
            self.out.append(ast.LetDecl(False, (ast.Binding(ast.PVar(sealed, span), value, span),), span))
            flat = sealed
        view.seen.values[item.name] = flat

    def abstract_type(self, flat: str, definition: ast.TypeDef, module: Env, span: Span, view: _View) -> str:
        """The abstract type a signature makes of `module`'s type `flat` (in a functor
        application, an alias of the one an earlier application made, if any), added to the
        view's."""
        made = view.abstracts
        sealed = f"{_qualified(view.target, definition.name)}/abstract{next(self.fresh)}"
        made.add(sealed)
        earlier = self.applicative(f"{module.path}.{definition.name}/abstract", sealed)
        if earlier is not None:
            made.add(earlier)
            self.out.append(ast.TypeDecl((_alias(definition, sealed, earlier),), span, module.path))
            return sealed
        params = tuple(ast.TyVar(p, span) for p in definition.params)
        self.out.append(ast.AbstractType(sealed, definition.params, ast.TyName(flat, params, span), span,
                                         self.application_path(view.target, definition.name)))
        return sealed

    def application_path(self, target: str, name: str) -> str | None:
        """How OCaml names the type `name` of the module `target` when a functor's application
        to a module path makes it (`F(A).t`, `F(A).M.t`)."""
        application = self.applying[-1] if self.applying else None
        if application is None or application.printed is None:
            return None
        if target != application.path and not target.startswith(application.path + "."):
            return None
        return f"{application.printed}{target[len(application.path):]}.{name}"

    def member(self, table: dict[str, str], module: Env, name: str, kind: str, span: Span) -> str:
        if name in table:
            return table[name]
        if module.library and kind == "value":  # (its primitives: the type checker knows which there are)
            return f"{module.path}.{name}"
        raise CompileError(span, f"{_ERROR_PREFIX}The {kind} `{name}' is required but not provided")


class _Opened:
    """The modules a signature opened so far: in the items after `open M`, M's types, modules
    and module types are named without `M.`, unless the signature declares its own after."""

    def __init__(self) -> None:
        self.opened: list[tuple[str, Env, set[tuple[str, str]]]] = []  # path, module, what was declared since

    def open(self, path: str, module: Env) -> None:
        self.opened.append((path, module, set()))

    def qualified(self, item: Any) -> Any:
        """The item with what it names of the opened modules qualified (`cell` -> `M.cell`)."""
        if not self.opened:
            return item
        item = m.renamed_paths(item, self.rename)
        for _, _, declared in self.opened:
            declared.update(_declared_names(item))
        return item

    def rename(self, path: str, kind: str) -> str | None:
        head, dot, _ = path.partition(".")
        for opened, module, declared in reversed(self.opened):
            members = module.modules if dot or kind == "module" else \
                module.types if kind == "type" else module.module_types
            if head in members and (kind if not dot else "module", head) not in declared:
                return f"{opened}.{path}"
        return None


def declared_once(items: tuple[Any, ...]) -> None:
    """OCaml's error for a type, module or module type that the structure `items` declares twice."""
    declared: set[tuple[str, str]] = set()
    for item in items:
        _declared_once(item, declared)


def _declared_once(item: Any, declared: set[tuple[str, str]]) -> None:
    """OCaml's error for a type, module or module type a structure declares twice (values and
    exceptions may be declared again: the new one hides the old)."""
    if isinstance(item, ast.TypeDecl):
        names = [("type", d.name) for d in item.definitions]
    elif isinstance(item, m.ModuleDecl):
        names = [("module", item.name)]
    elif isinstance(item, m.ModuleTypeDecl):
        names = [("module type", item.name)]
    else:
        return
    for kind, name in names:
        if (kind, name) in declared:
            raise CompileError(item.span, f"Multiple definition of the {kind} name {name}.\n"
                               "       Names must be unique in a given structure or signature.")
        declared.add((kind, name))


def _declared_names(item: Any) -> set[tuple[str, str]]:
    """What a signature item declares, as (kind, name)."""
    if isinstance(item, m.SigType):
        return {("type", d.name) for d in item.declaration.definitions}
    if isinstance(item, m.SigModule):
        return {("module", item.name)}
    if isinstance(item, m.SigModuleType):
        return {("module type", item.name)}
    return set()


def _item_span(item: Any) -> Span:
    """Where a signature item is written."""
    return item.declaration.span if isinstance(item, (m.SigType, m.SigException)) else item.span


def _alias(definition: ast.TypeDef, name: str, original: str) -> ast.TypeDef:
    """`type name = original` (with definition's parameters)."""
    params = tuple(ast.TyVar(p, definition.span) for p in definition.params)
    return ast.TypeDef(name, definition.params, definition.span,
                       abbreviation=ast.TyName(original, params, definition.span))


def _with_type(item: m.SigType, constraint: m.WithType) -> m.SigType:
    """`S with type t = e` on S's item declaring t: its abstract `t` made `e` (a manifest type
    is not sealed)."""
    definitions = tuple(replace(d, abbreviation=constraint.type) if d.name == constraint.path else d
                        for d in item.declaration.definitions)
    return m.SigType(replace(item.declaration, definitions=definitions), item.abstract - {constraint.path})


def _substituted(items: list[Any], constraint: m.WithType) -> list[Any]:
    """The items after `type ('a, ...) t` in `S with type ('a, ...) t := e`: e (its parameters
    given the arguments) wherever they name t."""
    def walk(node: Any) -> Any:
        if isinstance(node, ast.TyName) and node.name == constraint.path:
            given = dict(zip(constraint.params, (walk(a) for a in node.args)))
            return _instantiated(constraint.type, given)
        if isinstance(node, tuple):
            return tuple(walk(n) for n in node)
        if is_dataclass(node) and not isinstance(node, (Span, type)):
            return replace(node, **{f.name: walk(getattr(node, f.name)) for f in fields(node)})
        return node
    return [walk(item) for item in items]


def _instantiated(texpr: Any, given: dict[str, Any]) -> Any:
    """`texpr` with its type variables given (`'a` -> the argument for 'a)."""
    if isinstance(texpr, ast.TyVar) and texpr.name in given:
        return given[texpr.name]
    if isinstance(texpr, tuple):
        return tuple(_instantiated(t, given) for t in texpr)
    if isinstance(texpr, (ast.TyName, ast.TyArrow, ast.TyTuple)):
        return replace(texpr, **{f.name: _instantiated(getattr(texpr, f.name), given) for f in fields(texpr)
                                 if f.name not in ("span", "ty")})
    return texpr


@dataclass
class _View:
    """An ascription in progress: the module, what the signature lets be seen of it, the scopes
    a signature item's names are resolved in (`inside`: as the module's own, to check its values;
    `outside`: as the signature shows them, abstract types sealed) and whether it seals."""

    module: Env
    seen: Env
    inside: Scope
    outside: Scope
    seal: bool
    target: str  # the path of the module being declared, whose the sealed types and values are
    sealed: bool = False
    # the abstract types this ascription (and those it is in) made
    abstracts: set[str] = field(default_factory=set)


def _printed_path(expr: m.ModuleExpr) -> str:
    """An extended module path as OCaml prints it: `Map.Make(String)`."""
    if isinstance(expr, m.Apply):
        return f"{_printed_path(expr.functor)}({_printed_path(expr.argument)})"
    assert isinstance(expr, m.ModulePath)
    return expr.path


def _qualified(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _qualify_pattern(pattern: ast.Pattern, flat: dict[str, str]) -> ast.Pattern:
    """A declaration's pattern with the names it binds made flat."""
    if isinstance(pattern, ast.PVar):
        return ast.PVar(flat.get(pattern.name, pattern.name), pattern.span)
    if isinstance(pattern, ast.PAlias):
        return replace(pattern, pattern=_qualify_pattern(pattern.pattern, flat), name=flat.get(pattern.name, pattern.name))
    children = {f: _map_patterns(getattr(pattern, f), flat) for f in _child_fields(pattern)}
    return replace(pattern, **children) if children else pattern


def _map_patterns(value: Any, flat: dict[str, str]) -> Any:
    if isinstance(value, tuple):
        return tuple(_map_patterns(v, flat) for v in value)
    if hasattr(value, "__dataclass_fields__") and not isinstance(value, (ast.TyName, ast.TyVar, ast.TyArrow, ast.TyTuple)):
        return _qualify_pattern(value, flat)
    return value


class _Renamer:
    """Resolves the names an expression uses: each to the flat name of what it denotes. A local
    binding hides a member of the same name in its scope. A `let module` inside is elaborated,
    its types and exceptions hoisted before the declaration (`hoisted`)."""

    def __init__(self, elaborator: _Elaborator, scope: Scope) -> None:
        self.elaborator = elaborator
        self.scope = scope
        self.hoisted: list[Any] = []
        self.fresh = elaborator.instantiating > 0

    def value(self, name: str, bound: frozenset[str], span: Span) -> str:
        if "." not in name:
            return name if name in bound else self.scope.values.get(name, name)
        if name.startswith(STDLIB_PREFIX):
            return self.stdlib_value(name[len(STDLIB_PREFIX):], bound, span)
        path, _, member = name.rpartition(".")
        if name in PRIMITIVE_TYPES and path.partition(".")[0] not in self.scope.modules:
            return name  # the prelude's primitives (`Char.code`) before it declares their module
        module = self.elaborator.structure(path, self.scope, span)
        if member in module.values:
            return module.values[member]
        if module.library or f"{module.path}.{member}" in PRIMITIVE_TYPES:
            return f"{module.path}.{member}" if module.path != "Stdlib" else member
        raise CompileError(span, f"Unbound value {name}")

    def stdlib_value(self, name: str, bound: frozenset[str], span: Span) -> str:
        """`Stdlib.x`: the prelude's x, which the program's own x hides (a local one, or the
        unit's or its module's): then an alias of it bound before the unit's declarations.
        `Stdlib.M.x` likewise, where the program's own module M hides the library's."""
        head, dot, member = name.partition(".")
        target = name
        if dot:
            library = self.elaborator.library.get(head)
            if library is None or "." in member:
                return self.value(name, bound, span)
            # always an alias: a program's module named as M declares flat names as M's
            target = library.values.get(member, f"{library.path}.{member}")
        elif name not in bound and name not in self.scope.values:
            return name
        alias = f"stdlib/{name}"
        aliases = self.elaborator.stdlib_aliases
        if alias not in aliases:
            aliases[alias] = ast.LetDecl(False, (ast.Binding(ast.PVar(alias, span), ast.Var(target, span), span),),
                                         span)
        return alias

    def constructor(self, name: str, span: Span) -> str:
        if "." not in name:  # (the type checker's `C` is the `C` declared last: not always this)
            return self.scope.constructors.get(name, name)
        return self.module_member(name, span, lambda module: module.constructors, "constructor")

    def field(self, name: str, span: Span) -> str:
        """A record field by the name written (`x`, `M.x`): the flat name of the one in scope."""
        if "." not in name:
            return self.scope.fields.get(name, name)
        return self.module_member(name, span, lambda module: module.fields, "record field")

    def module_member(self, name: str, span: Span, table: Callable[[Members], dict[str, str]], kind: str) -> str:
        """`M.x`: the flat name of module M's x (a library module's the type checker knows by
        the name written, the standard library's by its own)."""
        path, _, member = name.rpartition(".")
        module = self.elaborator.structure(path, self.scope, span)
        if member in table(module):
            return table(module)[member]
        if module.library:
            return name if module.path != "Stdlib" else member
        raise CompileError(span, f"Unbound {kind} {name}")

    def type(self, texpr: Any) -> Any:
        if isinstance(texpr, ast.TyName):
            return replace(texpr, name=self.type_name(texpr.name, texpr.span),
                           args=tuple(self.type(a) for a in texpr.args))
        if isinstance(texpr, ast.TyArrow):
            return replace(texpr, param=self.type(texpr.param), result=self.type(texpr.result))
        if isinstance(texpr, ast.TyTuple):
            return replace(texpr, items=tuple(self.type(i) for i in texpr.items))
        return replace(texpr) if self.fresh else texpr

    def type_name(self, name: str, span: Span) -> str:
        if "." not in name or name[0].islower():  # `t.C`: the record of t's constructor C
            return self.scope.types.get(name, name)
        if name.rpartition(".")[0] == "Stdlib":
            return name
        return self.module_member(name, span, lambda module: module.types, "type constructor")

    def pattern(self, p: Any, bound: frozenset[str]) -> Any:
        if isinstance(p, ast.PConstruct):
            return replace(p, name=self.constructor(p.name, p.span), args=tuple(self.pattern(a, bound) for a in p.args))
        if isinstance(p, ast.PRecord):
            return replace(p, fields=tuple((self.field(name, p.span), self.pattern(item, bound)) for name, item in p.fields))
        if isinstance(p, ast.PAnnot):
            return replace(p, pattern=self.pattern(p.pattern, bound), annotation=self.type(p.annotation))
        if isinstance(p, (ast.PVar, ast.PWild, ast.PUnit, ast.PConst)):
            return replace(p) if self.fresh else p
        return self.generic(p, bound)

    def expr(self, e: Any, bound: frozenset[str]) -> Any:
        if isinstance(e, ast.Var):
            name = self.value(e.name, bound, e.span)
            return e if name == e.name and not self.fresh else ast.Var(name, e.span)
        if isinstance(e, ast.App):
            function, argument = self.expr(e.function, bound), self.expr(e.argument, bound)
            return e if function is e.function and argument is e.argument and not self.fresh else \
                replace(e, function=function, argument=argument)
        if isinstance(e, ast.Construct):
            return replace(e, name=self.constructor(e.name, e.span), args=tuple(self.expr(a, bound) for a in e.args))
        if isinstance(e, ast.Record):
            return replace(e, fields=tuple((self.field(name, e.span), self.expr(value, bound)) for name, value in e.fields),
                           base=None if e.base is None else self.expr(e.base, bound))
        if isinstance(e, ast.GetField):
            return replace(e, record=self.expr(e.record, bound), name=self.field(e.name, e.span))
        if isinstance(e, ast.SetField):
            return replace(e, record=self.expr(e.record, bound), name=self.field(e.name, e.span),
                           value=self.expr(e.value, bound))
        if isinstance(e, ast.Annot):
            return replace(e, expr=self.expr(e.expr, bound), annotation=self.type(e.annotation))
        if isinstance(e, ast.Fun):
            return replace(e, param=self.pattern(e.param, bound),
                           body=self.expr(e.body, bound | set(ast.pattern_names(e.param))))
        if isinstance(e, ast.Let):
            names = {n for b in e.bindings for n in ast.pattern_names(b.pattern)}
            inner = bound | names
            bindings = tuple(ast.Binding(self.pattern(b.pattern, bound),
                                         self.expr(b.value, inner if e.is_rec else bound), b.span)
                             for b in e.bindings)
            return replace(e, bindings=bindings, body=self.expr(e.body, inner))
        if isinstance(e, ast.Case):
            inner = bound | set(ast.pattern_names(e.pattern))
            guard = None if e.guard is None else self.expr(e.guard, inner)
            return replace(e, pattern=self.pattern(e.pattern, bound), guard=guard, body=self.expr(e.body, inner))
        if isinstance(e, ast.For):
            return replace(e, start=self.expr(e.start, bound), stop=self.expr(e.stop, bound),
                           body=self.expr(e.body, bound | {e.var}))
        if isinstance(e, ast.LocalOpen):
            return self.local_open(e, bound)
        if isinstance(e, ast.LetModule):
            return self.let_module(e, bound)
        return self.generic(e, bound)

    def generic(self, e: Any, bound: frozenset[str]) -> Any:
        """Any node: its children resolved, each as what it is."""
        changes = {}
        for name in _child_fields(e):
            child = getattr(e, name)
            new = self.child(child, bound)
            if new is not child:
                changes[name] = new
        return replace(e, **changes) if changes or self.fresh else e

    def child(self, node: Any, bound: frozenset[str]) -> Any:
        if isinstance(node, tuple):
            items = tuple(self.child(i, bound) for i in node)
            return node if all(a is b for a, b in zip(items, node)) and not self.fresh else items
        if not hasattr(node, "__dataclass_fields__"):
            return node
        if _is_pattern(node):
            return self.pattern(node, bound)
        if _is_type(node):
            return self.type(node)
        return self.expr(node, bound)

    def local_open(self, e: ast.LocalOpen, bound: frozenset[str]) -> Any:
        """`M.(e)`: M's members in scope in e (a local binding of e still hides one)."""
        opened = self.elaborator.structure(e.path, self.scope, e.span)
        inner = self.scope.copy()
        opened.merge_into(inner)
        # the opened members hide the locals of the same name
        renamer = _Renamer(self.elaborator, inner)
        body = renamer.expr(e.body, frozenset(bound - set(opened.values)))
        self.hoisted.extend(renamer.hoisted)
        return body

    def let_module(self, e: ast.LetModule, bound: frozenset[str]) -> Any:
        """`let module M = ... in body`: M's values bound around the body (they may use the
        enclosing function's variables), its types and exceptions declared before."""
        elaborator = self.elaborator
        saved = elaborator.out
        elaborator.out = []
        path = f"{e.name}'{next(elaborator.fresh)}"
        inner = self.scope.copy()
        inner.modules[e.name] = elaborator.module_expr(e.module, self.scope, path)
        produced, elaborator.out = elaborator.out, saved
        body = _Renamer(elaborator, inner)
        result = body.expr(e.body, bound)
        # (a signature check stays behind: it names values bound here, not at top level; the
        # sealing bindings, which are lets, still check them against the signature)
        self.hoisted.extend(d for d in produced if not isinstance(d, (ast.LetDecl, ast.SignatureCheck)))
        self.hoisted.extend(body.hoisted)
        for declaration in reversed([d for d in produced if isinstance(d, ast.LetDecl)]):
            result = ast.Let(declaration.is_rec, declaration.bindings, result, e.span)
        return result


def _child_fields(node: Any) -> Iterator[str]:
    for f in fields(node):
        if f.name not in ("span", "ty", "tree", "name", "kind", "value", "var", "up", "is_rec", "reraise", "quiet"):
            yield f.name
        elif f.name == "value" and not isinstance(node, (ast.Const, ast.PConst)):
            yield f.name


_PATTERNS = (ast.PVar, ast.PWild, ast.PUnit, ast.PTuple, ast.PAnnot, ast.PConst, ast.PConstruct, ast.POr,
             ast.PAlias, ast.PRecord)
_TYPES = (ast.TyName, ast.TyVar, ast.TyArrow, ast.TyTuple)


def _is_pattern(node: Any) -> bool:
    return isinstance(node, _PATTERNS)


def _is_type(node: Any) -> bool:
    return isinstance(node, _TYPES)



"""Hindley-Milner inference over the AST (levels for generalisation, value restriction).

The result, `Typing`, records the type of every expression and pattern node and, for every
variable occurrence of a polymorphic binding, the types its quantified variables were
instantiated with; monomorphisation (`cpsc.mono`) reads both.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace

from cpsc.elaborate.modules import Scope as ModuleScope
from cpsc.formats.format_printf import PRINTERS, format_value, printer_function
from cpsc.semantics.builtins import PREDEFINED_EXCEPTIONS, PRIMITIVE_TYPES
from cpsc.support.scope import Scope
from cpsc.syntax import ast, recursive_values
from cpsc.syntax.diagnostics import CompileError, Span
from cpsc.syntax.parser import parse_type
from cpsc.syntax.rules.parts import written_name
from cpsc.syntax.units import PRELUDE_FILE, unit_name
from cpsc.types.datatypes import DataType, DataTypes, display_name, record, substitute, variant
from cpsc.types.inferred import Declarations, Scheme, Typing, unqualified_type_name
from cpsc.types.labels import LabelledApplication, eliminate_optional, has_labels, is_inferred, option_type
from cpsc.types.types import (
    BASE_TYPES,
    BOOL,
    CHAR,
    EXN,
    FLOAT,
    INT,
    STRING,
    UNIT,
    TCon,
    TVar,
    Type,
    arrow,
    arrow_label,
    is_arrow,
    resolve,
    show,
    show_expanded,
    tuple_type,
)
from cpsc.types.unify import Occurs, UnificationError, unify


@functools.cache
def _primitive_schemes() -> dict[str, tuple[ast.TypeExpr, ...]]:
    return {name: (parse_type(text),) for name, text in PRIMITIVE_TYPES.items()}


class Inferencer:
    def __init__(self, declarations: Declarations | None = None) -> None:
        self.typing = Typing()
        self.level = 0
        self.annotation_vars: dict[str, TVar] = {}
        self.decls = declarations or Declarations()
        self.unit_name: str | None = None  # None: the prelude (see `exception_declaration`)
        # the type wanted where the constructor or record about to be inferred stands (`check`)
        self.expected: Type | None = None
        # reading a type inside a sealed module's view: its abstract types are their definitions
        # reading a sealed value's type: the abstract types its signature made, as their definitions
        self.transparent: frozenset[str] = frozenset()
        # each statement (a value dropped: `e1` of `e1; e2`, a loop's body) and its type
        self.statements: list[tuple[ast.Expr, Type]] = []

    # ---------------------------------------------------------------- helpers
    def fresh(self) -> TVar:
        return TVar(self.level)

    def check_statements(self) -> None:
        """OCaml's warnings on a statement whose value is dropped (`e1; e2`, a loop's body) and
        is not unit: 5 when it is a function an application made (arguments are missing), 10
        otherwise; none for a type still unknown once the program is checked (as OCaml's
        delayed check), nor in the library's code or the REPL's."""
        for statement, t in self.statements:
            t = resolve(t)
            final = _final_subexpression(statement)
            if isinstance(t, TVar) or t.name == "unit" or final.span.file.startswith("<"):
                continue
            if is_arrow(t) and isinstance(final, ast.App):
                message = "this function application is partial, maybe some arguments are missing"
            else:
                message = "this expression should have type unit"
            self.typing.warnings.append(CompileError(final.span, message))

    def constant_type(self, kind: str) -> Type:
        """The type of a constant: a base type, or (a pattern `5L`) the library's int32, int64
        or nativeint."""
        if kind in BASE_TYPES:
            return BASE_TYPES[kind]
        source = {"int32": "Int32.t", "int64": "Int64.t", "nativeint": "Nativeint.t"}[kind]
        return TCon(next(name for name, known in self.typing.hashed_apart.items() if known == source))

    def expect(self, actual: Type, expected: Type, span: Span, what: str = "expression") -> None:
        try:
            unify(actual, expected)
        except UnificationError as err:
            names: dict[int, str] = {}
            actual_text, expected_text = show_expanded(actual, names), show_expanded(expected, names)
            if what == "pattern":  # `actual` is the type matched, `expected` the pattern's own
                message = (f"This pattern matches values of type {expected_text} but a pattern was expected "
                           f"which matches values of type {actual_text}")
            else:
                message = f"This {what} has type {actual_text} but an {what} was expected of type {expected_text}"
            if isinstance(err, Occurs):
                message += f"\n       The type variable {show(err.var, names)} occurs inside {show(err.inside, names)}"
            raise CompileError(span, message) from None

    def generalize(self, t: Type) -> Scheme:
        quantified: list[TVar] = []

        def walk(t: Type) -> None:
            t = resolve(t)
            if isinstance(t, TVar):
                if t.level > self.level and t not in quantified:
                    quantified.append(t)
            else:
                for arg in t.args:
                    walk(arg)
                if t.alias is not None:  # `'a ignored` of `type 'a ignored = int` is polymorphic
                    walk(t.alias)

        walk(t)
        return Scheme(tuple(quantified), t)

    def instantiate(self, scheme: Scheme) -> tuple[Type, tuple[Type, ...]]:
        fresh = {v.id: TVar(self.level, v.name) for v in scheme.quantified}

        def copy(t: Type) -> Type:
            t = resolve(t)
            if isinstance(t, TVar):
                return fresh.get(t.id, t)
            if not t.args:
                return t
            return TCon(t.name, tuple(copy(a) for a in t.args), None if t.alias is None else copy(t.alias))  # type: ignore[arg-type]

        return copy(scheme.type), tuple(fresh[v.id] for v in scheme.quantified)

    def written_name(self, name: str) -> str | None:
        """The name a type variable of a program's annotation keeps when printed, as OCaml's do
        (`'elt`); the library's are printed 'a, 'b, ... as OCaml prints its library's."""
        return name.lstrip("'") if self.unit_name is not None and not name.startswith("'_") else None

    def type_of_annotation(self, texpr: ast.TypeExpr, vars: dict[str, TVar] | None = None) -> Type:
        vars = self.annotation_vars if vars is None else vars
        if isinstance(texpr, ast.TyVar):
            if texpr.name not in vars:
                vars[texpr.name] = TVar(self.level, self.written_name(texpr.name))
            return vars[texpr.name]
        if isinstance(texpr, ast.TyArrow):
            return arrow(_parameter_type(texpr.label, self.type_of_annotation(texpr.param, vars)),
                         self.type_of_annotation(texpr.result, vars), texpr.label)
        if isinstance(texpr, ast.TyTuple):
            return tuple_type([self.type_of_annotation(i, vars) for i in texpr.items])
        return self.named_type(texpr, [self.type_of_annotation(a, vars) for a in texpr.args], vars)

    def named_type(self, texpr: ast.TyName, args: list[Type], vars: dict[str, TVar]) -> Type:
        """The type `texpr` names, applied to `args`: a base type, a data type, or an
        abbreviation expanded (one of the group being declared too, not yet checked itself)."""
        # (a program's own module named as a library module declares its own `Stack.t`)
        name = texpr.name if texpr.name in self.decls.type_names else unqualified_type_name(texpr.name)
        if name in BASE_TYPES and not args:
            return BASE_TYPES[name]
        known = self.decls.type_names.get(name)
        if known is None:
            raise CompileError(texpr.span, f"Unbound type constructor {texpr.name}")
        internal, arity = known
        if arity != len(args):
            raise CompileError(texpr.span, f"The type constructor {texpr.name} expects {arity} argument(s),\n"
                               f"       but is here applied to {len(args)} argument(s)")
        if internal in self.transparent and internal in self.typing.abstract:
            return self.typing.reveal(TCon(internal, tuple(args)), self.transparent)
        if internal in self.decls.abbreviations:
            params, body = self.decls.abbreviations[internal]
            return _named_as(self.expand(body, dict(zip(params, args)), vars), TCon(internal, tuple(args)))
        return TCon(internal, tuple(args))

    def expand(self, body: ast.TypeExpr, params: dict[str, Type], vars: dict[str, TVar]) -> Type:
        """An abbreviation's body with its parameters replaced by the arguments it is given."""
        if isinstance(body, ast.TyVar) and body.name in params:
            return params[body.name]
        if isinstance(body, ast.TyArrow):
            return arrow(_parameter_type(body.label, self.expand(body.param, params, vars)),
                         self.expand(body.result, params, vars), body.label)
        if isinstance(body, ast.TyTuple):
            return tuple_type([self.expand(i, params, vars) for i in body.items])
        if isinstance(body, ast.TyName):
            return self.named_type(body, [self.expand(a, params, vars) for a in body.args], vars)
        return self.type_of_annotation(body, vars)

    # ---------------------------------------------------------------- type declarations
    def type_declaration(self, decl: ast.TypeDecl) -> None:
        """Declare the types of `type ... and ...` (mutually recursive): names first, then the
        constructors and fields, whose types may name any of them."""
        internal: dict[str, str] = {}
        for d in decl.definitions:
            name = d.name
            if name in self.decls.type_names or name in internal.values():
                count = 2
                while f"{name}/{count}" in self.decls.datatypes.types or f"{name}/{count}" in self.decls.abbreviations:
                    count += 1
                name = f"{name}/{count}"
            internal[d.name] = name
            self.decls.type_names[d.name] = (name, len(d.params))
        abbreviations = [(d, d.abbreviation) for d in decl.definitions if d.abbreviation is not None]
        for d, body in abbreviations:  # all of them before any is expanded: `type t = A of u and u = int`
            self.decls.abbreviations[internal[d.name]] = (d.params, body)
        for d, body in abbreviations:
            self.acyclic(d, internal)
            self.declared_type(body, {p: TCon(p) for p in d.params})
        for d in decl.definitions:
            name = internal[d.name]
            params = {p: TCon(p) for p in d.params}
            if d.abbreviation is not None:
                continue
            if d.fields:
                fields = [(f.name, f.mutable, self.declared_type(f.type, params)) for f in d.fields]
                self.decls.datatypes.add(record(name, d.params, fields))
                for f in d.fields:
                    self.register_field(f.name, decl.module, f"{name}.{f.name}")
            else:
                constructors = []
                for c in d.constructors:
                    key = c.name if c.name not in self.decls.datatypes.constructors else self.fresh_key(c.name)
                    constructors.append((key, c.name, tuple(self.declared_type(a, params) for a in c.args)))
                    self.register_constructor(c.name, decl.module, key)
                self.decls.datatypes.add(variant(name, d.params, constructors))

    def acyclic(self, definition: ast.TypeDef, internal: dict[str, str]) -> None:
        """Reject an abbreviation that expands to itself (`type t = u list and u = t`), as
        OCaml does, before expanding it forever."""
        seen: set[str] = set()
        stack: list[ast.TypeExpr] = [definition.abbreviation]  # type: ignore[list-item]
        while stack:
            texpr = stack.pop()
            if isinstance(texpr, ast.TyName):
                stack.extend(texpr.args)
                name = internal.get(texpr.name)
                if name == internal[definition.name]:
                    raise CompileError(definition.span, f"The type abbreviation {definition.name} is cyclic")
                if name in self.decls.abbreviations and name not in seen:
                    seen.add(name)
                    stack.append(self.decls.abbreviations[name][1])
            elif isinstance(texpr, ast.TyArrow):
                stack.extend((texpr.param, texpr.result))
            elif isinstance(texpr, ast.TyTuple):
                stack.extend(texpr.items)

    def exception_declaration(self, decl: ast.ExceptionDecl, local: bool = False) -> str:
        """`exception E of ...`: a constructor of `exn`. An uncaught one prints as OCaml's native
        code does: qualified by the compilation unit (`Prog.E`, or `Prog.M.E` in a module),
        except the prelude's: OCaml's predefined exceptions, unqualified, and the others
        qualified as the standard library's (`Stdlib.Exit`, `Stdlib.Stack.Empty`)."""
        name = decl.name
        key = name if name not in self.decls.datatypes.constructors else self.fresh_key(name)
        # a local one's arguments may name the enclosing function's locally abstract types
        args = tuple(self.type_of_annotation(a) if local else self.declared_type(a, {}) for a in decl.args)
        predefined = self.unit_name is None and not decl.module and name in PREDEFINED_EXCEPTIONS
        unit = self.unit_name if self.unit_name is not None else (None if predefined else "Stdlib")
        qualified = name if decl.printed_path is None else \
            ".".join(part for part in (unit, decl.printed_path or decl.module, name) if part)
        self.register_constructor(name, decl.module, key)
        if decl.module is None or name not in self.decls.exceptions:
            self.decls.exceptions[name] = key
        # (a local exception is shown unqualified, as OCaml's native code shows it)
        shown = decl.shown or qualified + key[len(name):]
        self.decls.datatypes.add_exception(key, decl.shown or name, args, shown, listed=not local)
        return key

    def register_constructor(self, name: str, module: str | None, key: str) -> None:
        """`C` names the constructor declared last outside modules, and `M.C` the one module M
        declares (two modules' `Empty` are two constructors, as `Stack.Empty` and `Queue.Empty`
        are). A module's `C` is not the `C` of what follows the module (the module language
        names it `M.C` there, or `C` inside M and where M is opened); it is `C` only while no
        other is, for a `C` chosen by the type expected."""
        if module is None or name not in self.decls.constructors:
            self.decls.constructors[name] = key
        if module is not None:
            self.decls.constructors[f"{module}.{name}"] = key

    def register_field(self, name: str, module: str | None, key: str) -> None:
        """As `register_constructor`: `x` is the field declared last outside modules, `M.x` the
        one module M declares."""
        if module is None or name not in self.decls.fields:
            self.decls.fields[name] = key
        if module is not None:
            self.decls.fields[f"{module}.{name}"] = key

    def fresh_key(self, name: str) -> str:
        count = 2
        while f"{name}/{count}" in self.decls.datatypes.constructors:
            count += 1
        return f"{name}/{count}"

    def declared_type(self, texpr: ast.TypeExpr, params: dict[str, TCon]) -> Type:
        """A constructor argument or field type: its type variables are the declaration's
        parameters, kept as `TCon("'a")` until an instance substitutes them."""
        self.check_declared_type(texpr, params)
        vars: dict[str, TVar] = {}
        t = self.type_of_annotation(texpr, vars)
        placeholders = {v.id: params[name] for name, v in vars.items()}
        return _replace_vars(t, placeholders)

    def check_declared_type(self, texpr: ast.TypeExpr, params: dict[str, TCon]) -> None:
        if isinstance(texpr, ast.TyVar):
            if texpr.name not in params:
                raise CompileError(texpr.span, f"The type variable {texpr.name} is unbound in this type declaration.")
            return
        children = (texpr.param, texpr.result) if isinstance(texpr, ast.TyArrow) else \
            texpr.items if isinstance(texpr, ast.TyTuple) else texpr.args
        for child in children:
            self.check_declared_type(child, params)

    def instance_of(self, type_name: str) -> tuple[TCon, dict[str, Type]]:
        """A fresh instance of a data type, and its parameters' types in it."""
        datatype = self.decls.datatypes.types[type_name]
        mapping: dict[str, Type] = {p: self.fresh() for p in datatype.params}
        return TCon(type_name, tuple(mapping[p] for p in datatype.params)), mapping

    def constructor(self, name: str, span: Span, expected: Type | None = None) -> tuple[str, TCon, tuple[Type, ...]]:
        """A constructor by source name: its key, a fresh instance of its type and the types of
        its arguments in that instance. The last declared one, unless the type `expected` is
        already known to be a data type with a constructor of that name (OCaml's type-directed
        disambiguation: after `type t = A | None`, `None` where a `t option` is expected)."""
        # `Option.Some`: a library module's type re-exports the constructors of the prelude's
        key = self.decls.constructors.get(name, self.decls.constructors.get(name.rpartition(".")[2]))
        if key is None:
            raise CompileError(span, f"Unbound constructor {name}")
        if "." not in name:  # `M.C` says which; `C` may be chosen by the type expected
            key = self.directed(expected, key, lambda d: key if any(c.key == key for c in d.constructors)
                                else next((c.key for c in d.constructors if c.name == name), None))
        known = resolve(expected) if expected is not None else None
        short = name.rpartition(".")[2]  # (in a module, `C` comes elaborated as its flat name `M.C`)
        if isinstance(known, TCon) and known.name == "exn" and short in self.decls.exceptions \
                and self.decls.datatypes.constructors[key].exception is None:
            key = self.decls.exceptions[short]
        info = self.decls.datatypes.constructors[key]
        result, mapping = self.instance_of(info.type_name)
        return key, result, tuple(substitute(a, mapping) for a in info.args)

    def constructor_arguments(self, name: str, given: tuple[object, ...], span: Span, arity: int) -> tuple[object, ...]:
        return constructor_arguments(name, given, span, arity)

    def directed(self, expected: Type | None, default: str, member: Callable[[DataType], str | None]) -> str:
        """`member` of the data type `expected` is known to be, else `default`."""
        if expected is None:
            return default
        known = resolve(expected)
        if isinstance(known, TCon) and known.name in self.decls.datatypes.types:
            return member(self.decls.datatypes.types[known.name]) or default
        return default

    def record_type(self, names: list[str], span: Span,
                    expected: Type | None = None) -> tuple[str, TCon, dict[str, Type]]:
        """The record type that the (last declared) field `names[0]` belongs to, or the type
        `expected` is known to be when it has these fields."""
        key = self.decls.fields.get(names[0], self.decls.fields.get(_unqualified(names[0])))
        if key is None:
            raise CompileError(span, f"Unbound record field {names[0]}")
        written = {_unqualified(name) for name in names}
        key = self.directed(expected, key, lambda d: f"{d.name}.{_unqualified(names[0])}"
                            if written <= {f.name for f in d.fields} else None)
        type_name = self.decls.datatypes.fields[key].type_name
        result, mapping = self.instance_of(type_name)
        return type_name, result, mapping

    def field_of(self, type_name: str, name: str, span: Span) -> str:
        name = _unqualified(name)
        datatype = self.decls.datatypes.types[type_name]
        if not any(f.name == name for f in datatype.fields):
            raise CompileError(span, f"This record expression is expected to have type {display_name(type_name)}\n"
                               f"       There is no field {name} within type {display_name(type_name)}")
        return f"{type_name}.{name}"

    def primitive_scheme(self, name: str) -> Scheme:
        saved = self.level
        self.level = 1
        t = self.type_of_annotation(_primitive_schemes()[name][0], {})
        self.level = saved
        return self.generalize(t)

    # ---------------------------------------------------------------- patterns
    def bind_pattern(self, pattern: ast.Pattern, t: Type, env: Scope[Scheme] | None) -> None:
        """Give `pattern` type `t`, adding its variables (monomorphic) to `env` unless it is None."""
        self._bind_pattern(pattern, t, env, set())

    def _bind_pattern(self, pattern: ast.Pattern, t: Type, env: Scope[Scheme] | None, seen: set[str]) -> None:
        """`bind_pattern`, `seen` the variables bound so far in the whole pattern (a variable
        bound twice is reported where it is bound the second time, as OCaml reports it)."""
        self.typing.types[id(pattern)] = t
        if isinstance(pattern, ast.PVar):
            self._bind_variable(pattern.name, pattern.span, t, env, seen)
        elif isinstance(pattern, ast.PUnit):
            self.expect(t, UNIT, pattern.span, "pattern")
        elif isinstance(pattern, ast.PTuple):
            items: list[Type] = [self.fresh() for _ in pattern.items]
            self.expect(t, tuple_type(items), pattern.span, "pattern")
            for item, item_type in zip(pattern.items, items):
                self._bind_pattern(item, item_type, env, seen)
        elif isinstance(pattern, ast.PAnnot):
            self.expect(t, self.type_of_annotation(pattern.annotation), pattern.span, "pattern")
            self._bind_pattern(pattern.pattern, t, env, seen)
        elif isinstance(pattern, ast.PConst):
            self.expect(t, self.constant_type(pattern.kind), pattern.span, "pattern")
        elif isinstance(pattern, ast.PConstruct):
            key, result, arg_types = self.constructor(pattern.name, pattern.span, t)
            self.typing.constructors[id(pattern)] = key
            self.expect(t, result, pattern.span, "pattern")
            args = self.constructor_arguments(pattern.name, pattern.args, pattern.span, len(arg_types))
            for arg, arg_type in zip(args, arg_types):
                self._bind_pattern(arg, arg_type, env, seen)  # type: ignore[arg-type]
        elif isinstance(pattern, ast.PRecord):
            names = [name for name, _ in pattern.fields]
            type_name, result, mapping = self.record_type(names, pattern.span, t)
            self.expect(t, result, pattern.span, "pattern")
            keys = tuple(self.field_of(type_name, name, pattern.span) for name in names)
            self.typing.fields[id(pattern)] = keys
            for key, (_, item) in zip(keys, pattern.fields):
                self._bind_pattern(item, substitute(self.decls.datatypes.fields[key].type, mapping), env, seen)
        elif isinstance(pattern, ast.PAlias):
            self._bind_pattern(pattern.pattern, t, env, seen)
            self._bind_variable(pattern.name, pattern.span, t, env, seen)
        elif isinstance(pattern, ast.POr):
            self.bind_or_pattern(pattern, t, env, seen)

    @staticmethod
    def _bind_variable(name: str, span: Span, t: Type, env: Scope[Scheme] | None, seen: set[str]) -> None:
        if name in seen:
            raise CompileError(span, f"Variable {name} is bound several times in this matching")
        seen.add(name)
        if env is not None:
            env.bind(name, Scheme((), t))

    def bind_or_pattern(self, pattern: ast.POr, t: Type, env: Scope[Scheme] | None, seen: set[str]) -> None:
        """Both sides bind the same variables at the same types."""
        before = set(seen)
        self._bind_pattern(pattern.left, t, env, seen)
        scratch: Scope[Scheme] = Scope()
        self._bind_pattern(pattern.right, t, scratch, before)
        left_types = self.variable_types(pattern.left)
        right_names = ast.pattern_names(pattern.right)
        if sorted(left_types) != sorted(right_names):
            missing = sorted(set(left_types).symmetric_difference(right_names))[0]
            raise CompileError(pattern.span, f"Variable {missing} must occur on both sides of this | pattern")
        for name in right_names:
            scheme = scratch[name]
            self.expect(scheme.type, left_types[name], pattern.right.span, "pattern")

    def variable_types(self, pattern: ast.Pattern) -> dict[str, Type]:
        """The types inference gave the variables a pattern binds."""
        out: dict[str, Type] = {}
        stack: list[ast.Pattern] = [pattern]
        while stack:
            p = stack.pop()
            if isinstance(p, ast.PVar):
                out[p.name] = self.typing.types[id(p)]
            elif isinstance(p, ast.PAlias):
                out[p.name] = self.typing.types[id(p)]
                stack.append(p.pattern)
            elif isinstance(p, ast.PTuple):
                stack.extend(p.items)
            elif isinstance(p, ast.PConstruct):
                stack.extend(p.args if len(p.args) != 1 or not isinstance(p.args[0], ast.PTuple)
                             else p.args[0].items)
            elif isinstance(p, ast.PRecord):
                stack.extend(item for _, item in p.fields)
            elif isinstance(p, ast.PAnnot):
                stack.append(p.pattern)
            elif isinstance(p, ast.POr):
                stack.append(p.left)
        return out

    # ---------------------------------------------------------------- expressions
    def infer(self, expr: ast.Expr, env: Scope[Scheme]) -> Type:
        t = self._infer(expr, env)
        self.typing.types[id(expr)] = t
        return t

    def check(self, expr: ast.Expr, env: Scope[Scheme], expected: Type, span: Span) -> None:
        """Infer `expr` where a value of type `expected` is wanted: a constructor or a record
        built there is chosen by that type when it is known (`constructor`)."""
        if isinstance(expr, (ast.Construct, ast.Record)):
            self.expected = expected
        if isinstance(expr, ast.Const) and expr.kind == "string" and _is_format(expected):
            # a literal where a format is expected is one, as in OCaml (`cpsc.formats.format_printf`)
            value = format_value(expr)
            self.typing.positional[id(expr)] = value
            self.expected = expected
            self.expect(self.infer(value, env), expected, span)
            return
        if not self.propagated(expr, env, expected):
            self.expect(self.infer(expr, env), expected, span)

    def propagated(self, expr: ast.Expr, env: Scope[Scheme], expected: Type) -> bool:
        """`check` of the forms OCaml types with the expected type known inside them (so that
        an annotation chooses the constructors within: `let f : season -> int = function
        Spring -> ...`); False for the others."""
        wanted = resolve(expected)
        if isinstance(expr, ast.Fun) and isinstance(wanted, TCon) and is_arrow(wanted) \
                and arrow_label(wanted) == expr.label and expr.label[:1] != "?":
            self.check_function(expr, env, wanted)
        elif isinstance(expr, ast.Tuple) and isinstance(wanted, TCon) and wanted.name == "*" \
                and len(wanted.args) == len(expr.items):  # (a list literal's `::` arguments too)
            for item, item_type in zip(expr.items, wanted.args):
                self.check(item, env, item_type, item.span)
        elif isinstance(expr, ast.If):
            self.expect(self.infer(expr.condition, env), BOOL, expr.condition.span)
            self.check(expr.then_branch, env, expected, expr.then_branch.span)
            self.check(expr.else_branch, env, expected, expr.else_branch.span)
        elif isinstance(expr, ast.Match):
            self.infer_match(expr, env, expected)
        elif isinstance(expr, ast.Let):
            self.infer_let_chain(expr, env, expected)
        elif isinstance(expr, ast.Seq):
            self.infer_sequence(expr, env, expected)
        elif isinstance(expr, ast.Try):
            self.check(expr.body, env, expected, expr.body.span)
            with env.scope():
                env.bind(ast.EXCEPTION_VAR, Scheme((), EXN))
                self.check(expr.handler, env, expected, expr.handler.span)
        else:
            return False
        self.typing.types[id(expr)] = expected
        return True

    def check_function(self, expr: ast.Fun, env: Scope[Scheme], expected: TCon) -> None:
        """`fun p -> e` where a function of type `a -> b` is wanted: p is a pattern of type a
        and e is checked against b, as OCaml propagates an annotation into a function (the
        constructors of `function Spring -> ...` are chosen by the annotation's type)."""
        with env.scope():
            self.bind_pattern(expr.param, expected.args[0], env)
            self.check(expr.body, env, expected.args[1], expr.body.span)

    def check_argument(self, expr: ast.Expr, env: Scope[Scheme], expected: Type, span: Span) -> None:
        """`check` for a function's argument, which may leave out a function's optional
        parameters where one without labels is expected (`cpsc.types.labels.eliminate_optional`)."""
        wanted = resolve(expected)
        if not isinstance(expr, (ast.Var, ast.App)) and not (
                is_inferred(expr) and isinstance(wanted, TCon) and wanted.name == "->"):
            self.check(expr, env, expected, span)
            return
        t = self.infer(expr, env)
        if not eliminate_optional(self, expr, t, expected):
            self.expect(t, expected, span)

    def _infer(self, expr: ast.Expr, env: Scope[Scheme]) -> Type:
        if isinstance(expr, ast.Const):
            return {"int": INT, "float": FLOAT, "bool": BOOL, "char": CHAR, "string": STRING,
                    "unit": UNIT}[expr.kind]
        if isinstance(expr, ast.Var):
            scheme = env.get(expr.name)
            if scheme is None:
                function = printer_function(expr.name, expr.span) if expr.name in PRINTERS else None
                if function is not None:  # a printer as a value: a function of a format value
                    self.typing.positional[id(expr)] = function
                    return self.infer(function, env)
                if expr.name in PRINTERS:
                    raise CompileError(expr.span, f"{expr.name} is supported only applied to a literal format")
                raise CompileError(expr.span, f"Unbound value {written_name(expr.name)}")
            t, instance = self.instantiate(scheme)
            if scheme.quantified:
                self.typing.instances[id(expr)] = (scheme, instance)
            module, dot, _ = expr.name.partition(".")
            if dot:
                self.typing.modules_named.add(module)
            return t
        if isinstance(expr, ast.App):
            return self.infer_app(expr, env)
        if isinstance(expr, ast.Fun):
            param = _parameter_type(expr.label, self.fresh())
            with env.scope():
                self.bind_pattern(expr.param, param, env)
                result = self.infer(expr.body, env)
            if expr.label[:1] == "?" and not _erasable(result):
                self.typing.warnings.append(CompileError(expr.param.span, "this optional argument cannot be erased."))
            return arrow(param, result, expr.label)
        if isinstance(expr, ast.Let):
            return self.infer_let_chain(expr, env)
        if isinstance(expr, ast.If):
            self.expect(self.infer(expr.condition, env), BOOL, expr.condition.span)
            t = self.infer(expr.then_branch, env)
            self.check(expr.else_branch, env, t, expr.else_branch.span)
            return t
        if isinstance(expr, ast.Seq):
            return self.infer_sequence(expr, env)
        if isinstance(expr, ast.Tuple):
            return tuple_type([self.infer(item, env) for item in expr.items])
        if isinstance(expr, ast.Annot):
            if expr.sealing:
                return self.sealed(expr, env)
            t = self.type_of_annotation(expr.annotation)
            self.check(expr.expr, env, t, expr.expr.span)
            return t
        return self.infer_data(expr, env)

    def infer_data(self, expr: ast.Expr, env: Scope[Scheme]) -> Type:
        """Constructors, records, arrays, match and loops."""
        if isinstance(expr, ast.Construct):
            expected, self.expected = self.expected, None
            key, result, arg_types = self.constructor(expr.name, expr.span, expected)
            self.typing.constructors[id(expr)] = key
            if expected is not None:  # known before the arguments, as in OCaml (`[Spring; Summer]`)
                self.expect(result, expected, expr.span)
            args = self.constructor_arguments(expr.name, expr.args, expr.span, len(arg_types))
            for arg, arg_type in zip(args, arg_types):
                assert isinstance(arg, ast.Expr.__args__)  # type: ignore[attr-defined]
                self.check(arg, env, arg_type, arg.span)
            return result
        if isinstance(expr, ast.Match):
            return self.infer_match(expr, env)
        if isinstance(expr, ast.Try):
            body = self.infer(expr.body, env)
            with env.scope():
                env.bind(ast.EXCEPTION_VAR, Scheme((), EXN))
                self.expect(self.infer(expr.handler, env), body, expr.handler.span)
            return body
        if isinstance(expr, ast.LetException):
            self.typing.constructors[id(expr)] = self.exception_declaration(expr.declaration, local=True)
            return self.infer(expr.body, env)
        if isinstance(expr, ast.Record):
            return self.infer_record(expr, env)
        if isinstance(expr, (ast.GetField, ast.SetField)):
            return self.infer_field(expr, env)
        if isinstance(expr, ast.ArrayLit):
            item = self.fresh()
            for i in expr.items:
                self.expect(self.infer(i, env), item, i.span)
            return TCon("array", (item,))
        if isinstance(expr, ast.While):
            self.expect(self.infer(expr.condition, env), BOOL, expr.condition.span)
            self.statements.append((expr.body, self.infer(expr.body, env)))
            return UNIT
        if isinstance(expr, ast.For):
            self.expect(self.infer(expr.start, env), INT, expr.start.span)
            self.expect(self.infer(expr.stop, env), INT, expr.stop.span)
            with env.scope():
                env.bind(expr.var, Scheme((), INT))
                self.statements.append((expr.body, self.infer(expr.body, env)))
            return UNIT
        raise AssertionError(expr)

    def infer_match(self, expr: ast.Match, env: Scope[Scheme], result: Type | None = None) -> Type:
        """The type of `match`; with `result`, its cases' bodies are checked against it."""
        scrutinee = self.infer(expr.scrutinee, env)
        result = self.fresh() if result is None else result
        for case in expr.cases:
            with env.scope():
                self.bind_pattern(case.pattern, scrutinee, env)
                if case.guard is not None:
                    self.expect(self.infer(case.guard, env), BOOL, case.guard.span)
                self.check(case.body, env, result, case.body.span)
        return result

    def infer_record(self, expr: ast.Record, env: Scope[Scheme]) -> Type:
        names = [_unqualified(name) for name, _ in expr.fields]
        expected, self.expected = self.expected, None
        type_name, result, mapping = self.record_type([name for name, _ in expr.fields], expr.span, expected)
        keys = tuple(self.field_of(type_name, name, expr.span) for name in names)
        self.typing.fields[id(expr)] = keys
        duplicate = next((n for n in names if names.count(n) > 1), None)
        if duplicate is not None:
            raise CompileError(expr.span, f"The record field {duplicate} is defined several times")
        if expr.base is not None:
            self.expect(self.infer(expr.base, env), result, expr.base.span)
        else:
            missing = [f.name for f in self.decls.datatypes.types[type_name].fields if f.name not in names]
            if missing:
                raise CompileError(expr.span, f"Some record fields are undefined: {' '.join(missing)}")
        for key, (_, value) in zip(keys, expr.fields):
            field_type = substitute(self.decls.datatypes.fields[key].type, mapping)
            self.check(value, env, field_type, value.span)
        return result

    def infer_field(self, expr: ast.GetField | ast.SetField, env: Scope[Scheme]) -> Type:
        record_type = resolve(self.infer(expr.record, env))
        if isinstance(record_type, TCon) and record_type.name in self.decls.datatypes.types \
                and self.decls.datatypes.types[record_type.name].is_record:
            type_name = record_type.name  # the type already known decides (OCaml's type-directed lookup)
            result, mapping = self.instance_of(type_name)
        else:
            type_name, result, mapping = self.record_type([expr.name], expr.span)
        key = self.field_of(type_name, expr.name, expr.span)
        self.typing.fields[id(expr)] = (key,)
        self.expect(record_type, result, expr.record.span)
        info = self.decls.datatypes.fields[key]
        field_type = substitute(info.type, mapping)
        if isinstance(expr, ast.GetField):
            return field_type
        if not info.mutable:
            raise CompileError(expr.span, f"The record field {expr.name} is not mutable")
        self.expect(self.infer(expr.value, env), field_type, expr.value.span)
        return UNIT

    def infer_let_chain(self, expr: ast.Let, env: Scope[Scheme], expected: Type | None = None) -> Type:
        """`let ... in let ... in body` in a loop, so that long chains need no deep recursion;
        the body checked against the type `expected`, when one is."""
        mark = env.mark()
        lets: list[ast.Let] = []
        body: ast.Expr = expr
        while isinstance(body, ast.Let):
            self.infer_bindings(body.is_rec, body.bindings, env)
            lets.append(body)
            body = body.body
        t = self.infer_or_check(body, env, expected)
        for let in lets:
            self.typing.types[id(let)] = t
        env.undo(mark)
        return t

    def infer_sequence(self, expr: ast.Seq, env: Scope[Scheme], expected: Type | None = None) -> Type:
        """`e1; e2; ...; en` in a loop: a long sequence needs no deep recursion; en checked
        against the type `expected`, when one is."""
        links: list[ast.Seq] = []
        last: ast.Expr = expr
        while isinstance(last, ast.Seq):
            self.statements.append((last.first, self.infer(last.first, env)))
            links.append(last)
            last = last.second
        t = self.infer_or_check(last, env, expected)
        for link in links:
            self.typing.types[id(link)] = t
        return t

    def infer_or_check(self, expr: ast.Expr, env: Scope[Scheme], expected: Type | None) -> Type:
        if expected is None:
            return self.infer(expr, env)
        self.check(expr, env, expected, expr.span)
        return expected

    def infer_app(self, expr: ast.App, env: Scope[Scheme]) -> Type:
        """An application spine `f a1 ... an` at once: positional arguments to parameters
        without labels, one after the other; otherwise labels decide (`cpsc.types.labels`)."""
        head, applications = ast.application_spine(expr)
        function = self.infer(head, env)
        if any(a.label for a in applications) or has_labels(function, len(applications)):
            return LabelledApplication(self, env, expr, head, function, applications).infer()
        for application in applications[:-1]:
            function = self.apply_positional(function, application, env)
            self.typing.types[id(application)] = function
        return self.apply_positional(function, applications[-1], env)

    def apply_positional(self, function: Type, application: ast.App, env: Scope[Scheme]) -> Type:
        resolved = resolve(function)
        if isinstance(resolved, TCon) and not is_arrow(resolved):
            head = application.function
            raise CompileError(head.span, f"This expression has type {show(function)}\n"
                               "       This is not a function; it cannot be applied.")
        result = self.fresh()
        param = self.fresh()
        self.expect(function, arrow(param, result), application.function.span)
        self.check_argument(application.argument, env, param, application.argument.span)
        return result

    def infer_bound(self, binding: ast.Binding, env: Scope[Scheme]) -> Type:
        """The type of a `let`'s value; `let (p : t) = e` checks e against t (`check`)."""
        if isinstance(binding.pattern, ast.PAnnot):
            t = self.type_of_annotation(binding.pattern.annotation)
            self.check(binding.value, env, t, binding.value.span)
            return t
        return self.infer(binding.value, env)

    def infer_bindings(self, is_rec: bool, bindings: tuple[ast.Binding, ...], env: Scope[Scheme]) -> None:
        """Infer `let [rec] bindings` and bind their (generalised) names in `env`."""
        self.level += 1
        if is_rec:
            with env.scope():
                for binding in bindings:
                    self.check_recursive_pattern(binding)
                    self.bind_pattern(binding.pattern, self.approximate(binding.value), env)
                names = {name for b in bindings for name in ast.pattern_names(b.pattern)}
                for binding in bindings:
                    t = self.infer(binding.value, env)
                    self.expect(t, self.typing.types[id(binding.pattern)], binding.value.span)
                for binding in bindings:  # (after their types, as OCaml's Rec_check)
                    self.check_recursive_binding(binding, names)
            types = [(b.pattern, self.typing.types[id(b.pattern)],
                      is_syntactic_value(b.value, self.immutable_record)) for b in bindings]
        else:
            types = []
            for binding in bindings:
                t = self.infer_bound(binding, env)
                self.bind_pattern(binding.pattern, t, None)
                types.append((binding.pattern, t, is_syntactic_value(binding.value, self.immutable_record)))
        self.level -= 1
        for pattern, _t, generalizable in types:
            self.bind_generalized(pattern, generalizable, env)

    @staticmethod
    def check_recursive_pattern(binding: ast.Binding) -> None:
        pattern = binding.pattern.pattern if isinstance(binding.pattern, ast.PAnnot) else binding.pattern
        if not isinstance(pattern, ast.PVar):
            raise CompileError(binding.pattern.span, "Only variables are allowed as left-hand side of `let rec'")

    @staticmethod
    def check_recursive_binding(binding: ast.Binding, names: set[str]) -> None:
        """OCaml's restrictions on `let rec` values (`cpsc.syntax.recursive_values`)."""
        if recursive_values.invalid_use(binding, names) is not None:
            raise CompileError(binding.value.span, "This kind of expression is not allowed as right-hand side of `let rec'")

    def approximate(self, value: ast.Expr) -> Type:
        """A recursive function's type before its body is inferred: its parameters' arrows,
        with their labels (OCaml's `type_approx`: a recursive call by label, or leaving out an
        optional argument, needs them), the rest unknown."""
        labels: list[str] = []
        value = ast.unannotated(value)
        while isinstance(value, ast.Fun):
            labels.append(value.label)
            value = value.body
        t: Type = self.fresh()
        for label in reversed(labels):
            t = arrow(_parameter_type(label, self.fresh()), t, label)
        return t

    def bind_generalized(self, pattern: ast.Pattern, generalizable: bool, env: Scope[Scheme]) -> None:
        t = self.typing.types[id(pattern)]
        if isinstance(pattern, ast.PVar):
            scheme = self.generalize(t) if generalizable else Scheme((), t)
            if not generalizable:
                self.lower_to_current_level(t)
            self.typing.schemes[id(pattern)] = scheme
            env.bind(pattern.name, scheme)
        elif isinstance(pattern, ast.PTuple):
            for item in pattern.items:
                self.bind_generalized(item, generalizable, env)
        elif isinstance(pattern, ast.PAnnot):
            self.bind_generalized(pattern.pattern, generalizable, env)

    def declarations(self, declarations: tuple[ast.Declaration, ...], env: Scope[Scheme]) -> None:
        for index, decl in enumerate(declarations):
            self.annotation_vars = {}
            if isinstance(decl, ast.TypeDecl):
                self.type_declaration(decl)
            elif isinstance(decl, ast.ExceptionDecl):
                self.exception_declaration(decl)
            elif isinstance(decl, ast.SignatureCheck):
                self.signature_check(decl, env)
            elif isinstance(decl, ast.AbstractType):
                self.abstract_type(decl)
            elif isinstance(decl, ast.ValueSpec):
                self.level += 1
                t = self.type_of_annotation(decl.type)
                self.level -= 1
                env.bind(decl.name, self.generalize(t))
            elif isinstance(decl, ast.CheckOnly):
                self.declarations(decl.declarations, env)
            else:
                self.let_declaration(decl, declarations, index, env)

    def let_declaration(self, decl: ast.LetDecl, declarations: tuple[ast.Declaration, ...], index: int,
                        env: Scope[Scheme]) -> None:
        """`decl`, the declaration at `index`, whose `'a. t` checks follow it (no copy of what
        follows: one per declaration would cost time quadratic in their number)."""
        annotated = _polymorphic_annotations(decl, declarations, index + 1) if decl.is_rec else {}
        try:
            self.infer_bindings(decl.is_rec, decl.bindings, env)
        except CompileError as error:
            if not annotated:
                raise
            raise self.polymorphic_recursion(decl.bindings, annotated, env) or error from None

    def polymorphic_recursion(self, bindings: tuple[ast.Binding, ...], annotated: dict[str, ast.TypeExpr],
                              env: Scope[Scheme]) -> CompileError | None:
        """After a `let rec` group whose members are annotated `f : 'a. t` failed to type: the
        error to say instead when it types with those members polymorphic in the group (OCaml's
        reading), one of them used at another type than its own (polymorphic recursion, which
        monomorphisation cannot build: one copy per type, infinitely many); None otherwise."""
        self.annotation_vars = {}
        own: dict[str, tuple[Scheme, dict[str, TVar]]] = {}
        try:
            with env.scope():
                for binding in bindings:
                    name = ast.pattern_names(binding.pattern)[0]
                    if name in annotated:
                        variables: dict[str, TVar] = {}
                        self.level += 1
                        t = self.type_of_annotation(annotated[name], variables)
                        self.level -= 1
                        scheme = self.generalize(t)
                        own[name] = (scheme, variables)
                        env.bind(name, scheme)
                    else:
                        self.bind_pattern(binding.pattern, self.approximate(binding.value), env)
                for binding in bindings:
                    self.infer(binding.value, env)
        except CompileError:
            return None
        for use in (v for v in ast.variables([b.value for b in bindings]) if v.name in own and id(v) in self.typing.instances):
            scheme, variables = own[use.name]
            instance = dict(zip((v.id for v in scheme.quantified), self.typing.instances[id(use)][1]))
            if any(resolve(instance[v.id]) is not resolve(self.annotation_vars.get(name, v))
                   for name, v in variables.items() if v.id in instance):
                return CompileError(use.span, f"This use of {use.name} has type {show(self.typing.types[id(use)])}, "
                                    f"not its own: {use.name} is polymorphically recursive, which cpsc does not "
                                    "compile (it makes a copy of a polymorphic function for each type it is "
                                    "used at, and this one would need infinitely many)")
        return None

    def sealed(self, expr: ast.Annot, env: Scope[Scheme]) -> Type:
        """A module's value as its signature shows it: checked against the signature's type with
        the abstract types as their definitions, typed with them abstract (the two share their
        variables, so that monomorphisation can follow one into the other)."""
        self.transparent = expr.sealing
        inside = self.type_of_annotation(expr.annotation)
        self.transparent = frozenset()
        self.check(expr.expr, env, inside, expr.expr.span)
        return self.type_of_annotation(expr.annotation)

    def abstract_type(self, decl: ast.AbstractType) -> None:
        self.decls.type_names[decl.name] = (decl.name, len(decl.params))
        definition = self.declared_type(decl.definition, {p: TCon(p) for p in decl.params})
        assert isinstance(definition, TCon)
        self.typing.abstract[decl.name] = (decl.params, definition)

    def signature_check(self, check: ast.SignatureCheck, env: Scope[Scheme]) -> None:
        """A value ascribed a signature has a type at least as general as the signature's: its
        instance unifies with the signature's type, whose variables are held rigid. (A library
        module's members are known here, not to the module language: one may be missing.)"""
        declared = (f"{check.declared}: Expected declaration",) \
            if check.declared is not None and check.declared.file != PRELUDE_FILE else ()
        if check.value not in env:
            raise CompileError(check.span, f"Signature mismatch:\n       The value `{check.name}' is required "
                               "but not provided", declared)
        actual, _ = self.instantiate(env[check.value])
        variables: dict[str, TVar] = {}
        expected = self.type_of_annotation(check.type, variables)
        shown = show(expected)
        for name, variable in variables.items():
            variable.link = TCon(name)  # rigid: no type but itself is equal to it
        try:
            unify(actual, expected)
        except UnificationError:
            raise CompileError(check.span, f"Signature mismatch:\n       Values do not match:\n"
                               f"         val {check.name} : {show(env[check.value].type)}\n"
                               f"       is not included in\n         val {check.name} : {shown}", declared) from None

    def immutable_record(self, expr: ast.Record) -> bool:
        keys = self.typing.fields.get(id(expr))
        if not keys:
            return False
        return not self.decls.datatypes.types[self.decls.datatypes.fields[keys[0]].type_name].mutable

    def lower_to_current_level(self, t: Type) -> None:
        t = resolve(t)
        if isinstance(t, TVar):
            t.level = min(t.level, self.level)
        else:
            for arg in t.args:
                self.lower_to_current_level(arg)


def is_syntactic_value(expr: ast.Expr, immutable_record: Callable[[ast.Record], bool]) -> bool:
    """The value restriction: only these right-hand sides are generalised (functions,
    constants, variables, and constructors, tuples and immutable records of them)."""
    if isinstance(expr, (ast.Fun, ast.Const, ast.Var)):
        return True
    if isinstance(expr, ast.Tuple):
        return all(is_syntactic_value(i, immutable_record) for i in expr.items)
    if isinstance(expr, ast.Construct):
        return all(is_syntactic_value(i, immutable_record) for i in expr.args)
    if isinstance(expr, ast.Record):
        return expr.base is None and immutable_record(expr) and \
            all(is_syntactic_value(v, immutable_record) for _, v in expr.fields)
    if isinstance(expr, ast.Annot):
        return is_syntactic_value(expr.expr, immutable_record)
    return False


@dataclass
class CheckedPrelude:
    """The prelude, parsed and type-checked once: its declarations, what inference learned about
    them, and the names in scope after them (primitives included)."""

    module: ast.Module
    typing: Typing
    env: dict[str, Scheme]
    declarations: Declarations
    modules: ModuleScope  # its modules, functors and module types, as a program sees them


def check_prelude(module: ast.Module, modules: ModuleScope) -> CheckedPrelude:
    inferencer = Inferencer()
    env = Scope({name: inferencer.primitive_scheme(name) for name in PRIMITIVE_TYPES})
    inferencer.declarations(module.declarations, env)
    # what checked the library's functors is not kept (nor cached): no later stage reads it
    kept = replace(module, declarations=tuple(d for d in module.declarations if not isinstance(d, ast.CheckOnly)))
    return CheckedPrelude(kept, inferencer.typing, env.snapshot(), inferencer.decls, modules)


def infer_module(module: ast.Module, prelude: CheckedPrelude, unit: str | None = None) -> tuple[Typing, DataTypes]:
    """Type-check a program in the scope of the prelude; raises `CompileError` on the first
    error. The result covers the prelude's nodes too (for monomorphisation), and every data
    type declared. `unit` is the compilation unit the program is (by default its file's;
    "" for a program of several, whose units are its modules)."""
    inferencer = Inferencer(prelude.declarations.copy())
    if unit is None:
        unit = unit_name(module.files[-1]) if module.files else "Main"
    inferencer.unit_name = unit
    inferencer.typing = Typing(dict(prelude.typing.types), dict(prelude.typing.instances),
                               dict(prelude.typing.schemes), dict(prelude.typing.constructors),
                               dict(prelude.typing.fields), dict(prelude.typing.abstract),
                               dict(prelude.typing.positional))
    inferencer.typing.hashed_apart = prelude.typing.hashed_apart
    inferencer.declarations(module.declarations, Scope(prelude.env))
    inferencer.check_statements()
    if inferencer.typing.abstract:
        typing = inferencer.typing
        kept = frozenset(typing.hashed_apart)
        inferencer.decls.datatypes.reveal(typing.reveal, lambda t: typing.reveal(t, kept=kept), typing.hashed_apart)
    return inferencer.typing, inferencer.decls.datatypes


def _polymorphic_annotations(decl: ast.LetDecl, declarations: tuple[ast.Declaration, ...],
                             start: int) -> dict[str, ast.TypeExpr]:
    """The members of a `let rec` group annotated `f : 'a. t`: the checks the parser puts right
    after the group (`ast.SignatureCheck`s spanning a binding, declared nowhere else)."""
    spans = {b.span for b in decl.bindings}
    annotated: dict[str, ast.TypeExpr] = {}
    for position in range(start, len(declarations)):
        check = declarations[position]
        if not isinstance(check, ast.SignatureCheck) or check.declared is not None or check.span not in spans:
            break
        annotated[check.value] = check.type
    return annotated


def _final_subexpression(expr: ast.Expr) -> ast.Expr:
    """Where OCaml places a statement's warning: the body of a `let`, the last of a sequence."""
    while isinstance(expr, (ast.Let, ast.Seq, ast.LetException)):
        expr = expr.second if isinstance(expr, ast.Seq) else expr.body
    return expr


def _named_as(expansion: Type, abbreviation: TCon) -> Type:
    """An abbreviation's expansion, printed as the abbreviation (`TCon.alias`)."""
    expansion = resolve(expansion)
    return TCon(expansion.name, expansion.args, abbreviation) if isinstance(expansion, TCon) else expansion


def _is_format(t: Type) -> bool:
    t = resolve(t)
    return isinstance(t, TCon) and t.name == "format6"


def _erasable(result: Type) -> bool:
    """Whether an optional parameter before `result` can be left out: a positional parameter
    follows it, or the result is not known to be no function (OCaml's warning 16 otherwise)."""
    t = resolve(result)
    while isinstance(t, TCon) and is_arrow(t):
        if arrow_label(t) == "":
            return True
        t = resolve(t.args[1])
    return isinstance(t, TVar)



def _unqualified(name: str) -> str:
    """A field's name without the module the program named it by (`M.x`: `x`)."""
    return name.rpartition(".")[2]


def _replace_vars(t: Type, placeholders: dict[int, TCon]) -> Type:
    t = resolve(t)
    if isinstance(t, TVar):
        return placeholders.get(t.id, t)
    if not t.args:
        return t
    return TCon(t.name, tuple(_replace_vars(a, placeholders) for a in t.args))


def constructor_arguments(name: str, given: tuple[object, ...], span: Span, arity: int) -> tuple[object, ...]:
    """The arguments of a constructor of `arity` arguments, from the one the parser saw
    (`C (a, b)` gives two; a constructor of one argument takes a tuple whole)."""
    if arity > 1 and len(given) == 1 and isinstance(given[0], (ast.Tuple, ast.PTuple)) \
            and len(given[0].items) == arity:
        return tuple(given[0].items)
    if arity > 1 and len(given) == 1 and isinstance(given[0], ast.PWild):
        return tuple(ast.PWild(given[0].span) for _ in range(arity))
    if len(given) != arity:
        raise CompileError(span, f"The constructor {display_name(name)} expects {arity} argument(s),\n"
                           f"       but is applied here to {len(given)} argument(s)")
    return given


def _parameter_type(label: str, t: Type) -> Type:
    """What a function receives for a parameter of type t: an optional one, `t option`."""
    return option_type(t) if label[:1] == "?" else t

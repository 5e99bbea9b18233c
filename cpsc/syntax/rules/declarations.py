"""The rules of declarations: types, exceptions, values."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from lark import Token

from cpsc.syntax import ast
from cpsc.syntax.desugar import (
    ConstructorRenamer,
    ExceptionCase,
    bound_forcing,
    forcing_case,
    function_after_prefix,
    recursive_lazy,
)
from cpsc.syntax.diagnostics import CompileError, Span
from cpsc.syntax.externals import primitive_value
from cpsc.syntax.rules.expressions import ExpressionRules
from cpsc.syntax.rules.parts import (
    INDEX_SET,
    Alternatives,
    InlineRecord,
    LocalTypes,
    ReturnAnnot,
    TopLevelItem,
    TypeNamesRenamer,
    TypeParams,
    alternatives_pattern,
    curried_function,
    index_operator,
    plain_exception,
    type_nodes,
)


class DeclarationRules(ExpressionRules):
    """Type, exception and value declarations."""

    # ---------------------------------------------------------------- type declarations
    def type_decl(self, keyword: Token, *definitions: ast.TypeDef | list[ast.TypeDef]) -> ast.TypeDecl:
        flat = tuple(d for item in definitions for d in (item if isinstance(item, list) else [item]))
        return ast.TypeDecl(flat, self._span((keyword, flat[-1])))

    def _typedef_head(self, parts: tuple[Any, ...]) -> tuple[tuple[str, ...], Token, list[Any]]:
        params: tuple[str, ...] = ()
        rest = [p for p in parts if not self._is_private(p)]
        if isinstance(rest[0], TypeParams):
            params = rest.pop(0).names
        return params, rest[0], rest[1:]

    @staticmethod
    def _is_private(part: Any) -> bool:
        return isinstance(part, Token) and part.type == "PRIVATE"

    def _private(self, parts: tuple[Any, ...]) -> bool:
        return any(self._is_private(p) for p in parts)

    def type_abbrev(self, *parts: Any) -> ast.TypeDef:
        params, name, rest = self._typedef_head(parts)
        return ast.TypeDef(str(name), params, self._span((name, rest[-1])), abbreviation=rest[0],
                           private=self._private(parts))

    def type_variant(self, *parts: Any) -> ast.TypeDef | list[ast.TypeDef]:
        """A variant; a constructor with an inline record (`C of { x : int }`) takes a record of
        a type of its own, `t.C`, declared with t (with all t's parameters)."""
        params, name, rest = self._typedef_head(parts)
        span = self._span((name, rest[-1]))
        records = [ast.TypeDef(f"{name}.{c.name}", params, c.span, fields=c.fields)
                   for c in rest if isinstance(c, InlineRecord)]
        constructors = tuple(ast.ConstructorDecl(c.name, (ast.TyName(f"{name}.{c.name}", tuple(
            ast.TyVar(p, c.span) for p in params), c.span),), c.span) if isinstance(c, InlineRecord) else c
            for c in rest)
        variant = ast.TypeDef(str(name), params, span, constructors=constructors, private=self._private(parts))
        return [variant, *records] if records else variant

    def type_record(self, *parts: Any) -> ast.TypeDef:
        params, name, rest = self._typedef_head(parts)
        return ast.TypeDef(str(name), params, self._span((name, rest[-1])), fields=tuple(rest),
                           private=self._private(parts))

    def type_params(self, *names: Token) -> TypeParams:
        return TypeParams(tuple(str(n) if n.type == "TYVAR" else f"'_{i}" for i, n in enumerate(names)))

    def constant_constr(self, name: Token) -> ast.ConstructorDecl:
        return ast.ConstructorDecl(str(name), (), self._tok_span(name))

    def constr_with_args(self, name: Token, *args: Any) -> ast.ConstructorDecl:
        types = tuple(a for a in args if not isinstance(a, Token))
        return ast.ConstructorDecl(str(name), types, self._span((name, types[-1])))

    def exception_decl(self, keyword: Token, name: Token, *args: Any) -> ast.ExceptionDecl:
        types = tuple(a for a in args if not isinstance(a, Token))
        return ast.ExceptionDecl(str(name), types, self._span((keyword, types[-1] if types else name)))

    def exception_record(self, keyword: Token, name: Token, opening: Token, *parts: Any) -> list[ast.Declaration]:
        """`exception E of { fields }`: E takes a record of a type of its own, `exn.E`, declared
        before it (as a variant's constructor with an inline record does)."""
        fields = tuple(p for p in parts if isinstance(p, ast.FieldDecl))
        span = self._span((keyword, parts[-1]))
        record_name = f"exn.{name}"
        record = ast.TypeDecl((ast.TypeDef(record_name, (), span, fields=fields),), span)
        argument = ast.TyName(record_name, (), span)
        return [record, ast.ExceptionDecl(str(name), (argument,), span)]

    def inline_record(self, name: Token, opening: Token, *parts: Any) -> InlineRecord:
        fields = tuple(p for p in parts if isinstance(p, ast.FieldDecl))
        return InlineRecord(str(name), fields, self._span((name, parts[-1] if parts else opening)))

    def exception_alternative(self, *parts: Any) -> Alternatives:
        """`exception p` as a case's pattern or an alternative of it (after values' patterns
        or other alternatives)."""
        *before, keyword, pattern = parts
        earlier = before[0] if before else Alternatives((), (), self._tok_span(keyword))
        if not isinstance(earlier, Alternatives):  # (the values' or-pattern it follows)
            earlier = Alternatives((earlier,), (), earlier.span)
        return Alternatives(earlier.values, earlier.exceptions + (pattern,), self._span((earlier, pattern)))

    def value_alternative(self, earlier: Alternatives, pattern: ast.Pattern) -> Alternatives:
        return Alternatives(earlier.values + (pattern,), earlier.exceptions, self._span((earlier, pattern)))

    def aliased_exception(self, alternatives: Alternatives, name: Token) -> Alternatives:
        """`exception p as x` is `(exception p) as x`, which OCaml refuses."""
        raise CompileError(self._span((alternatives, name)), "Exception patterns are not allowed in this position.")

    def exception_case(self, alternatives: Alternatives, *rest: ast.Expr) -> list[Any]:
        """A case whose pattern has `exception p` alternatives: one case of the values'
        alternatives, if any, and one of the exceptions', with the same guard and body."""
        guard = rest[0] if len(rest) == 2 else None
        span = self._span((alternatives, rest[-1]))
        if guard is not None and alternatives.values:
            raise CompileError(alternatives.span,
                               "Mixing value and exception patterns under when-guards is not supported.")
        cases: list[Any] = []
        if alternatives.values:
            cases.append(forcing_case(ast.Case(alternatives_pattern(alternatives.values), guard, rest[-1], span)))
        cases.append(ExceptionCase(ast.Case(alternatives_pattern(alternatives.exceptions), guard, rest[-1], span)))
        return cases

    def let_exception(self, keyword: Token, decl: ast.ExceptionDecl | list[ast.Declaration], body: ast.Expr) -> ast.Expr:
        """`let exception E in body`, under a name no other exception has, which body's `E`s
        are made. Its arguments may name the locally abstract types of a function it is in
        (`(type t)` becomes `'t` later), but not type variables, as in OCaml."""
        decl = plain_exception(decl, "a `let exception`")
        for arg in decl.args:
            for node in type_nodes(arg):
                if isinstance(node, ast.TyVar):
                    raise CompileError(node.span, f"The type variable {node.name} is unbound in this type declaration.")
        unique = f"{decl.name}'local{decl.span.line}_{decl.span.col}"  # (where it is: one name a declaration)
        renamed = ConstructorRenamer(decl.name, unique).node(body)
        return ast.LetException(replace(decl, name=unique, shown=decl.name), renamed,
                                self._span((keyword, body)))

    def gadt_constr(self, name: Token, type_expr: ast.TypeExpr) -> ast.ConstructorDecl:
        raise CompileError(self._span((name, type_expr)), "GADTs (constructors declared with a type) are not part of FL")

    def field_decl(self, *parts: Any) -> ast.FieldDecl:
        mutable = isinstance(parts[0], Token) and parts[0].type == "MUTABLE"
        name, type_expr = parts[-2], parts[-1]
        return ast.FieldDecl(str(name), mutable, type_expr, self._span(parts))

    def toplevel_expr(self, expr: ast.Expr, *separators: Token) -> TopLevelItem:
        span = expr.span
        declaration = ast.LetDecl(False, (ast.Binding(ast.PWild(span), expr, span),), span)
        return TopLevelItem([declaration], bool(separators), span, expression=True)

    def declaration(self, decl: Any, *separators: Token) -> TopLevelItem:
        declarations = decl if isinstance(decl, list) else [decl]
        return TopLevelItem(declarations, bool(separators), getattr(decl, "span", None))

    def external_decl(self, keyword: Token, name: ast.PVar, type_expr: ast.TypeExpr, *primitives: Token) -> ast.LetDecl:
        """`external f : t = "primitive"`: f is the value of FL's that the primitive is, at t."""
        span = self._span((keyword, primitives[-1]))
        names = tuple(self._literal(p) for p in primitives)
        value = primitive_value(names)
        if value is None:
            raise CompileError(self._span(primitives), f"The primitive \"{names[0]}\" is not one of OCaml's that FL "
                               "has, and FL cannot link C functions of a program's own")
        annotated = ast.Annot(ast.Var(self._qualified(value), span), type_expr, span)
        return ast.LetDecl(False, (ast.Binding(name, annotated, span),), span, primitives=names)

    def let_decl(self, *parts: Any) -> ast.Declaration | list[ast.Declaration]:
        is_rec, bindings = self._rec_bindings(parts)
        prefixed = function_after_prefix(bindings) if is_rec and id(bindings[0]) not in self.polymorphic else None
        if prefixed is not None:  # `let rec f = let ... in fun x -> ...`
            is_rec, bindings = False, (prefixed,)
        span = self._span(parts)
        declarations: list[ast.Declaration] = list(self._let_declarations(is_rec, bindings, span))
        declarations += self._polymorphic_checks(bindings)  # (after: a check reads the value's type)
        return declarations[0] if len(declarations) == 1 else declarations

    def _let_declarations(self, is_rec: bool, bindings: tuple[ast.Binding, ...], span: Span) -> list[ast.LetDecl]:
        lazy = recursive_lazy(is_rec, bindings)
        if lazy is not None:  # `let rec x = lazy e`
            return ([ast.LetDecl(False, lazy.pending, span)]
                    + ([ast.LetDecl(True, lazy.functions, span)] if lazy.functions else [])
                    + [ast.LetDecl(False, (ast.Binding(ast.PWild(span), delay, span),), span) for delay in lazy.delays])
        functions, values = ast.split_recursive_values(bindings) if is_rec else (bindings, ())
        if values:
            return ([ast.LetDecl(True, functions, span)] if functions else []) + [ast.LetDecl(False, values, span)]
        return [ast.LetDecl(is_rec, bindings, span)]

    def _polymorphic_checks(self, bindings: tuple[ast.Binding, ...]) -> list[ast.Declaration]:
        """`let f : 'a. t = e` at top level: f's type checked to be at least as general as t."""
        checks: list[ast.Declaration] = []
        for binding in bindings:
            found = self.polymorphic.pop(id(binding), None)
            pattern = binding.pattern.pattern if isinstance(binding.pattern, ast.PAnnot) else binding.pattern
            if found is not None and isinstance(pattern, ast.PVar):
                checks.append(ast.SignatureCheck(pattern.name, pattern.name, found[1], binding.span))
        return checks

    def fun_binding(self, name: ast.PVar, *rest: Any) -> ast.Binding:
        *params, body = rest
        annot = None
        if params and isinstance(params[-1], ReturnAnnot):
            annot = params.pop()
        span = self._span((name, body))
        if annot is not None:
            body = TypeNamesRenamer(annot.local_types).node(body)
            body = ast.Annot(body, annot.type, annot.span)
        binding = ast.Binding(name, curried_function(params, body, span), span)
        if annot is not None and annot.polymorphic and not params:
            self.polymorphic[id(binding)] = (binding, annot.type)
        return binding

    def pattern_binding(self, pattern: ast.Pattern, *rest: Any) -> ast.Binding:
        span = self._span((pattern, rest[-1]))
        if len(rest) == 2:
            annot, body = rest
            pattern = ast.PAnnot(pattern, annot.type, annot.span)
            body = TypeNamesRenamer(annot.local_types).node(body)
        else:
            (body,) = rest
        binding = bound_forcing(ast.Binding(pattern, body, span))
        if len(rest) == 2 and rest[0].polymorphic and isinstance(binding.pattern, ast.PAnnot) \
                and isinstance(binding.pattern.pattern, ast.PVar):
            self.polymorphic[id(binding)] = (binding, rest[0].type)
        return binding

    def return_annot(self, type_expr: ast.TypeExpr) -> ReturnAnnot:
        return ReturnAnnot(type_expr, type_expr.span)

    def poly_annot(self, *parts: Any) -> ReturnAnnot:
        """`: 'a 'b. t`: the definition is checked to be that polymorphic (at top level: an
        `ast.SignatureCheck` after it); a recursive call at another type (polymorphic
        recursion, which monomorphisation cannot build) stays a type error."""
        return ReturnAnnot(parts[-1], parts[-1].span, polymorphic=True)

    def abstract_annot(self, keyword: Token, *parts: Any) -> ReturnAnnot:
        """`: type a b. t`: t with the locally abstract types a, b as type variables, in the
        definition too (see `plocal_types`)."""
        names = frozenset(str(p) for p in parts[:-1])
        return ReturnAnnot(TypeNamesRenamer(names).node(parts[-1]), parts[-1].span, names)

    def plocal_types(self, opening: Token, keyword: Token, *parts: Any) -> LocalTypes:
        return LocalTypes(frozenset(str(p) for p in parts[:-1]), self._span((opening, parts[-1])))

    def value_name(self, *parts: Any) -> ast.PVar:
        name = parts[0] if len(parts) == 1 else parts[1]
        text = name.name if isinstance(name, ast.PVar) else str(name)
        return ast.PVar(text, self._span(parts))

    def operator_name(self, tok: Token) -> ast.PVar:
        return ast.PVar(str(tok), self._tok_span(tok))

    def index_operator_name(self, dotop: Token, opening: Token, closing: Token, *assign: Token) -> ast.PVar:
        """`( .%() )`, `( .%[]<- )`..."""
        if assign and str(assign[0]) != INDEX_SET:
            raise CompileError(self._tok_span(assign[0]), f"Syntax error: unexpected '{assign[0]}'")
        name = index_operator(str(dotop), str(closing)) + (INDEX_SET if assign else "")
        return ast.PVar(name, self._span((dotop, *assign) if assign else (dotop, closing)))

    def multi_index_operator_name(self, dotop: Token, opening: Token, closing: Token, *assign: Token) -> ast.PVar:
        """`( .%{;..} )`, `( .%(;..)<- )`...: an index operator of several indices."""
        pattern = self.index_operator_name(dotop, opening, closing, *assign)
        return ast.PVar(index_operator(str(dotop), str(closing), multi=True) + (INDEX_SET if assign else ""),
                        pattern.span)

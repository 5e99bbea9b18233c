"""The rules of the module language: structures, signatures, functors."""

from __future__ import annotations

from typing import Any

from lark import Token

from cpsc.syntax import ast
from cpsc.syntax import module_ast as m
from cpsc.syntax.diagnostics import Span
from cpsc.syntax.rules.declarations import DeclarationRules
from cpsc.syntax.rules.parts import AbstractType, ModuleAnnot, Path, curried, without_stdlib


class ModuleRules(DeclarationRules):
    """Structures, signatures, functors, module types."""

    # ---------------------------------------------------------------- the module language
    def module_path(self, name: Token) -> Path:
        self.module_paths.add(str(name))
        return Path(without_stdlib(str(name)), self._tok_span(name))

    def open_decl(self, keyword: Token, path: Path) -> m.OpenDecl:
        return m.OpenDecl(path.name, self._span((keyword, path)))

    def include_decl(self, keyword: Token, module: m.ModuleExpr) -> m.IncludeDecl:
        return m.IncludeDecl(module, self._span((keyword, module)))

    def let_open(self, keyword: Token, opening: Token, path: Path, body: ast.Expr) -> ast.Expr:
        """`let open M in e`: the members of M are in scope in e (unless e binds the name)."""
        self.module_expressions = True
        return ast.LocalOpen(path.name, body, self._span((keyword, body)))

    def let_module(self, keyword: Token, module_keyword: Token, name: Token, *parts: Any) -> ast.Expr:
        """`let module M = e in body`."""
        self.module_expressions = True
        body = parts[-1]
        module = self._module_binding(parts[:-1], self._span((keyword, parts[-2])))
        return ast.LetModule(str(name), module, body, self._span((keyword, body)))

    def module_decl(self, keyword: Token, name: Token, *parts: Any) -> m.ModuleDecl:
        """`module M (X : S) ... : T = e`: `module M = functor (X : S) -> ... (e : T)`."""
        span = self._span((keyword, parts[-1]))
        return m.ModuleDecl(str(name), self._module_binding(parts, span), span)

    def _module_binding(self, parts: tuple[Any, ...], span: Span) -> m.ModuleExpr:
        module: m.ModuleExpr = parts[-1]
        annotation = [p for p in parts if isinstance(p, ModuleAnnot)]
        if annotation:
            module = m.Constrained(module, annotation[0].type, span)
        parameters: list[m.FunctorParameter] = [p for p in parts if isinstance(p, m.FunctorParameter)]
        return curried(parameters, module, m.Functor, span)  # type: ignore[arg-type]

    def module_annot(self, module_type: m.ModuleType) -> ModuleAnnot:
        return ModuleAnnot(module_type)

    def functor_param(self, opening: Token, name: Token, module_type: m.ModuleType, closing: Token) -> m.FunctorParameter:
        return m.FunctorParameter(str(name), module_type, self._span((opening, closing)))

    def generative_param(self, opening: Token, closing: Token) -> m.FunctorParameter:
        """`()`: a generative functor's parameter, of the empty signature. Its applications
        `F ()` are to the empty structure, which no application shares: each makes its own
        types and values, as OCaml's generative functors do."""
        span = self._span((opening, closing))
        return m.FunctorParameter(m.GENERATIVE, m.Signature((), span), span)

    def generative_apply(self, functor: m.ModuleExpr, opening: Token, closing: Token) -> m.Apply:
        return m.Apply(functor, m.Structure((), self._span((opening, closing))), self._span((functor, closing)))

    def module_type_decl(self, keyword: Token, type_keyword: Token, name: Token, module_type: m.ModuleType) -> m.ModuleTypeDecl:
        return m.ModuleTypeDecl(str(name), module_type, self._span((keyword, module_type)))

    def module_item(self, decl: Any, *separators: Token) -> Any:
        return decl

    def module_functor(self, keyword: Token, *parts: Any) -> m.ModuleExpr:
        parameters: list[m.FunctorParameter] = list(parts[:-1])
        return curried(parameters, parts[-1], m.Functor, self._span((keyword, parts[-1])))  # type: ignore[arg-type]

    def module_apply(self, functor: m.ModuleExpr, opening: Token, argument: m.ModuleExpr, closing: Token) -> m.Apply:
        return m.Apply(functor, argument, self._span((functor, closing)))

    def structure(self, keyword: Token, *items: Any) -> m.Structure:
        return m.Structure(_flat_items(items[:-1]), self._span((keyword, items[-1])))

    def module_named(self, path: Path) -> m.ModulePath:
        return m.ModulePath(path.name, path.span)

    def module_paren(self, opening: Token, inner: Any, closing: Token) -> Any:
        return inner

    def module_constrained(self, opening: Token, module: m.ModuleExpr, module_type: m.ModuleType,
                           closing: Token) -> m.Constrained:
        return m.Constrained(module, module_type, self._span((opening, closing)))

    def functor_type(self, keyword: Token, *parts: Any) -> m.ModuleType:
        parameters: list[m.FunctorParameter] = list(parts[:-1])
        return curried(parameters, parts[-1], m.FunctorType, self._span((keyword, parts[-1])))  # type: ignore[arg-type]

    def module_type_with(self, base: m.ModuleType, *constraints: m.Constraint) -> m.ModuleTypeWith:
        return m.ModuleTypeWith(base, constraints, self._span((base, constraints[-1])))

    def with_constraint(self, keyword: Token, *parts: Any) -> m.WithType:
        params, name, rest = self._typedef_head(parts)
        destructive = any(isinstance(part, Token) and part.type == "ASSIGNOP" for part in rest)
        return m.WithType(params, without_stdlib(self._qualified(str(name))), rest[-1], self._span((keyword, rest[-1])),
                          destructive)

    def with_module(self, keyword: Token, path: Path, module: Path) -> m.WithModule:
        return m.WithModule(path.name, module.name, self._span((keyword, module)))

    def signature(self, keyword: Token, *items: Any) -> m.Signature:
        return m.Signature(_flat_items(items[:-1]), self._span((keyword, items[-1])))

    def interface(self, *items: Any) -> m.Signature:
        """An interface file's items (`util.mli`): the signature of its unit."""
        flat = [part for item in items if not isinstance(item, Token)
                for part in (item if isinstance(item, list) else [item])]
        return m.Signature(tuple(flat), Span(self.file, 1, 1, 1, 1))

    def module_type_named(self, path: Path) -> m.ModuleTypePath:
        return m.ModuleTypePath(path.name, path.span)

    def sig_val(self, keyword: Token, name: Any, type_expr: ast.TypeExpr, *separators: Token) -> m.SigVal:
        return m.SigVal(name.name, type_expr, self._span((keyword, type_expr)))

    def sig_type(self, keyword: Token, *parts: Any) -> m.SigType:
        definitions = tuple(p for p in parts if isinstance(p, (ast.TypeDef, AbstractType)))
        abstract = frozenset(d.name for d in definitions if isinstance(d, AbstractType))
        concrete = tuple(d.definition if isinstance(d, AbstractType) else d for d in definitions)
        return m.SigType(ast.TypeDecl(concrete, self._span((keyword, concrete[-1]))), abstract)

    def type_spec(self, definition: ast.TypeDef) -> ast.TypeDef:
        return definition

    def type_abstract(self, *parts: Any) -> AbstractType:
        """`type t` (no definition): in the declaration, a placeholder abbreviation of itself."""
        params, name, _ = self._typedef_head(parts)
        span = self._tok_span(name)
        placeholder = ast.TyName(str(name), tuple(ast.TyVar(p, span) for p in params), span)
        return AbstractType(ast.TypeDef(str(name), params, span, abbreviation=placeholder))

    def sig_exception(self, declaration: ast.ExceptionDecl | list[ast.Declaration],
                      *separators: Token) -> m.SigException | list[m.SigItem]:
        """`exception E of { fields }` specifies the record type of E's argument, `exn.E`, as
        the structure declares it (`exception_record`), then E."""
        if isinstance(declaration, list):
            record, exception = declaration
            assert isinstance(record, ast.TypeDecl) and isinstance(exception, ast.ExceptionDecl)
            return [m.SigType(record, frozenset()), m.SigException(exception)]
        return m.SigException(declaration)

    def sig_module(self, keyword: Token, name: Token, *parts: Any) -> m.SigModule:
        items: list[Any] = [p for p in parts if not isinstance(p, Token)]
        span = self._span((keyword, items[-1]))
        return m.SigModule(str(name), curried(items[:-1], items[-1], m.FunctorType, span), span)  # type: ignore[arg-type]

    def sig_module_type(self, keyword: Token, type_keyword: Token, name: Token, module_type: m.ModuleType,
                        *separators: Token) -> m.SigModuleType:
        return m.SigModuleType(str(name), module_type, self._span((keyword, module_type)))

    def sig_include(self, keyword: Token, module_type: m.ModuleType, *separators: Token) -> m.SigInclude:
        return m.SigInclude(module_type, self._span((keyword, module_type)))

    def sig_open(self, keyword: Token, path: Path, *separators: Token) -> m.SigOpen:
        return m.SigOpen(path.name, self._span((keyword, path)))


def _flat_items(items: tuple[Any, ...]) -> tuple[Any, ...]:
    """The items of a structure or signature: an item may stand for several, and the `;;`
    tokens before the first (`struct ;; let x = 1 end`) are none."""
    return tuple(part for item in items if not isinstance(item, Token)
                 for part in (item if isinstance(item, list) else [item]))

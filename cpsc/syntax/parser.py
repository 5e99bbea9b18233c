"""Parse FL source text into the AST of `cpsc.syntax.ast` with the Lark grammar in `lang/`."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import pickle
import re
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Any

import lark
from lark import Lark, Token

from cpsc import deep_stack
from cpsc.cache import cache_dir, pickle_by_constructor, source_text
from cpsc.lang_files import lang_file
from cpsc.syntax import ast, lalr
from cpsc.syntax import module_ast as m
from cpsc.syntax.diagnostics import CompileError, Span, too_deep
from cpsc.syntax.externals import primitive_value
from cpsc.syntax.format_printf import printing_application
from cpsc.syntax.lalr import LalrDriver, ParseTables
from cpsc.syntax.modules import Env, Scope, elaborate, has_module_items


@functools.cache
def _parser() -> tuple[LalrDriver, _ToAst]:
    """The LALR parser, with the AST built by `_ToAst` as rules are reduced."""
    builder = _ToAst()
    methods = _callbacks(builder)
    return LalrDriver(_parse_tables(methods), methods), builder


def _parse_tables(methods: SimpleNamespace) -> ParseTables:
    """The grammar's parse tables, from the user's cache folder (keyed by the grammar, Lark's
    version and the tables' format), else made by Lark and stored there."""
    grammar = lang_file("grammar.lark")
    format_source = source_text(lalr) + source_text(sys.modules[__name__])
    digest = hashlib.sha256(b"\0".join([grammar.encode(), lark.__version__.encode(), format_source])).hexdigest()[:16]
    path = cache_dir() / f"parse-tables-{digest}.pickle"
    try:
        tables = pickle.loads(path.read_bytes())
        if isinstance(tables, ParseTables):
            return tables
    except Exception:  # noqa: BLE001 - missing or damaged: make them again
        pass
    tables = ParseTables.from_lark(Lark(grammar, parser="lalr", maybe_placeholders=False, transformer=methods), methods)
    try:
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as out:
            pickle.dump(tables, out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(out.name, path)  # atomic: a concurrent build never reads half a file
    except OSError:  # a full disk: the next build makes them again
        pass
    return tables


_parsing = threading.Lock()
pickle_by_constructor([ParseTables])


def _callbacks(builder: _ToAst) -> SimpleNamespace:
    """What Lark calls on each reduction, `rule(children)`: the `_ToAst` method of the rule's
    name with the children as arguments. (Lark's own `v_args(inline=True)` does the same but
    builds a wrapper object per call, which doubled the parse time.)"""
    methods = {name: getattr(builder, name) for name in dir(builder) if not name.startswith("_")}
    return SimpleNamespace(**{name: _spread(method) for name, method in methods.items() if callable(method)})


def _spread(method: Callable[..., Any]) -> Callable[[list[Any]], Any]:
    return lambda children: method(*children)


# What the comment scanner steps over or acts on: string and char literals (a `(*` inside them
# opens no comment) and comment brackets.
_COMMENT_SCAN = re.compile(r"""
    "(?:[^"\\]|\\.)*"                                   # string literal
  | \{(?P<quoted>[a-z_]*)\|.*?\|(?P=quoted)\}           # quoted string literal
  | '(?:[^\\'\n]|\\(?:[\\'"ntbr ]|[0-9]{3}|x[0-9a-fA-F]{2}|o[0-7]{3}))'   # char literal
  | \(\*                                                  # comment opens (`(*)` too, as OCaml's)
  | \*\)                                                  # comment closes
""", re.VERBOSE | re.DOTALL)


def strip_comments(text: str, file: str) -> str:
    """Blank out nested `(* ... *)` comments, keeping every line and column in place."""
    if "(*" not in text:
        return text
    out: list[str] = []
    depth = 0
    copied = 0  # text[:copied] is already in `out`
    opened = 0
    for match in _COMMENT_SCAN.finditer(text):
        token = match.group()
        if token == "(*":
            if depth == 0:
                out.append(text[copied:match.start()])
                copied, opened = match.start(), match.start()
            depth += 1
        elif token == "*)" and depth > 0:
            depth -= 1
            if depth == 0:
                out.append(_blank(text[copied:match.end()]))
                copied = match.end()
    if depth > 0:
        line = text.count("\n", 0, opened) + 1
        col = opened - text.rfind("\n", 0, opened)
        hint = " (`(*)` starts a comment, as in OCaml: the operator is `( * )`)" if text.startswith("(*)", opened) else ""
        raise CompileError(Span(file, line, col, line, col + 2), "this comment is not terminated" + hint)
    out.append(text[copied:])
    return "".join(out)


# The constructs of OCaml that FL leaves out, found by the word or sign that starts them (all
# OCaml keywords or signs FL does not use, so no FL program contains them otherwise).
_OUTSIDE_FL = re.compile(r"""
    "(?:[^"\\]|\\.)*"                                   # string literal: skipped
  | \{(?P<quoted>[a-z_]*)\|(?:.|\n)*?\|(?P=quoted)\}     # quoted string literal: skipped
  | '(?:[^\\'\n]|\\(?:[\\'"ntbr ]|[0-9]{3}|x[0-9a-fA-F]{2}|o[0-7]{3}))'   # char literal: skipped
  | (?P<objects>\b(?:object|class|method|new|inherit|initializer|virtual)\b|\#(?=[a-z_]))
  | (?P<recursive_modules>\bmodule\s+rec\b)
  | (?P<module_type_of>\bmodule\s+type\s+of\b)
  | (?P<first_class_modules>\(\s*(?:module|val)\b)
  | (?P<variants>`[A-Za-z])
  | (?P<other>\bconstraint\b)
""", re.VERBOSE)

# What each construct above contains (the words as words): a text without any holds none of them.
_OUTSIDE_FL_SIGNS = ("object", "class", "method", "new", "inherit", "initializer", "virtual",
                     "module", "val", "`", "#",
                     "constraint", "exception")


def _holds_outside_fl_sign(text: str) -> bool:
    for sign in _OUTSIDE_FL_SIGNS:
        start = text.find(sign)
        while start >= 0:
            end = start + len(sign)
            if not sign.isalpha() or (not _is_word_character(text, start - 1) and not _is_word_character(text, end)):
                return True
            start = text.find(sign, end)
    return False


def _is_word_character(text: str, index: int) -> bool:
    """Whether `text[index]` is one of `re`'s `\\w` (out of the text: no)."""
    return 0 <= index < len(text) and (text[index].isalnum() or text[index] == "_")


_OUTSIDE_FL_MESSAGES = {
    "objects": "objects are not part of FL",
    "recursive_modules": "recursive modules (`module rec`) are not part of FL",
    "module_type_of": "`module type of` is not part of FL",
    "first_class_modules": "first-class modules are not part of FL",
    "variants": "polymorphic variants are not part of FL",
    "other": "this construct ({}) is not part of FL",
}


def reject_outside_fl(text: str, file: str) -> None:
    """A located diagnostic on the first construct of OCaml that FL leaves out (objects,
    polymorphic variants, ...), rather than a parse error further on."""
    if not _holds_outside_fl_sign(text):  # most programs: a few `str.find`s, not the expression
        return  # below, whose every alternative is tried at every position (14 ms at 2,000 lines)
    for match in _OUTSIDE_FL.finditer(text):
        kind = match.lastgroup
        if kind not in _OUTSIDE_FL_MESSAGES:  # a literal stepped over (a quoted string's group is its id)
            continue
        start = match.start(kind)
        line = text.count("\n", 0, start) + 1
        col = start - text.rfind("\n", 0, start)
        word = match.group(kind)
        span = Span(file, line, col, line, col + len(word.strip()))
        raise CompileError(span, _OUTSIDE_FL_MESSAGES[kind].format(word.strip()))


# What the attribute scanner steps over or acts on: literals, attribute openings, brackets.
_ATTRIBUTE_SCAN = re.compile(r"""
    "(?:[^"\\]|\\.)*"
  | \{(?P<quoted>[a-z_]*)\|(?:.|\n)*?\|(?P=quoted)\}
  | '(?:[^\\'\n]|\\(?:[\\'"ntbr ]|[0-9]{3}|x[0-9a-fA-F]{2}|o[0-7]{3}))'
  | \[@{1,3}
  | [\[\]]
""", re.VERBOSE)


def strip_attributes(text: str) -> str:
    """Blank out attributes `[@...]`, `[@@...]` and `[@@@...]` (nested brackets and strings
    included), which FL accepts and ignores, keeping every line and column in place."""
    if "[@" not in text:
        return text
    out: list[str] = []
    copied = 0
    opened = -1  # where the attribute being skipped starts
    depth = 0
    for match in _ATTRIBUTE_SCAN.finditer(text):
        token = match.group()
        if opened < 0:
            if token.startswith("[@"):
                opened, depth = match.start(), 1
            continue
        if token.startswith("["):
            depth += 1
        elif token == "]":
            depth -= 1
            if depth == 0:
                out.append(text[copied:opened])
                out.append(_blank(text[opened:match.end()]))
                copied, opened = match.end(), -1
    out.append(text[copied:])
    return "".join(out)


def _blank(comment: str) -> str:
    return re.sub(r"[^\n]", " ", comment)


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "\\": "\\", "'": "'", '"': '"', " ": " "}
_NUMERIC_ESCAPE = re.compile(r"[0-9]{3}|x[0-9a-fA-F]{2}|o[0-7]{3}|u\{[0-9a-fA-F]{1,6}\}")


class IllegalEscape(Exception):
    """An escape OCaml's lexer rejects: the message, and the escape's offset in the literal."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


def decode_escapes(body: str) -> str:
    """Decode OCaml escape sequences (`\\n`, `\\065`, `\\x41`, `\\o101`, `\\u{e9}` as UTF-8, a
    backslash-newline and the blanks after it); strings are byte strings held as latin-1 text.
    An escape OCaml does not know stays as written (OCaml warns); one out of range raises."""
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\" or i + 1 == len(body):
            out.append(c)
            i += 1
            continue
        nxt = body[i + 1]
        numeric = _NUMERIC_ESCAPE.match(body, i + 1)
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif numeric is not None:
            out.append(_numeric_escape(numeric.group(), i))
            i = numeric.end()
        elif nxt == "\n":
            i += 2
            while i < len(body) and body[i] in " \t":
                i += 1
        else:
            out.append("\\" + nxt)
            i += 2
    return "".join(out)


def _numeric_escape(escape: str, offset: int) -> str:
    if escape[0] == "u":
        code = int(escape[2:-1], 16)
        if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            raise IllegalEscape(f"Illegal backslash escape in string or character (\\{escape}): "
                                f"{escape[2:-1].upper()} is not a Unicode scalar value", offset)
        return chr(code).encode("utf-8").decode("latin-1")
    code = int(escape[1:], 16) if escape[0] == "x" else int(escape[1:], 8) if escape[0] == "o" else int(escape)
    if code > 255:
        raise IllegalEscape(f"Illegal backslash escape in string or character (\\{escape}): "
                            f"{code} is outside the range of legal characters (0-255)", offset)
    return chr(code)


def lexical_error(text: str, position: int) -> str:
    """OCaml's lexer's message for the text at `position`, which no token matches."""
    char = text[position] if position < len(text) else ""
    if char == '"':
        return "String literal not terminated"
    if char == "'" and text.startswith("\\", position + 1):
        return f"Illegal backslash escape in string or character ({text[position + 1:position + 3]})"
    if not char.isprintable() or not char.isascii():
        return f"Illegal character (\\{ord(char):03d})" if char else "Syntax error: unexpected end of file"
    return f"Illegal character ({char})"


def parse_float_literal(text: str) -> float:
    """A float literal: decimal (`1e9`, `2.`) or hexadecimal (`0x1.8p1`), with `_`s anywhere."""
    digits = text.replace("_", "")
    return float.fromhex(digits) if digits[:2].lower() == "0x" else float(digits)


def parse_int_literal(text: str) -> int:
    digits = text.replace("_", "")
    value = int(digits, 0) if digits[:2].lower() in ("0x", "0b", "0o") else int(digits)
    return value


def _node_span(child: Any) -> Span | None:
    if isinstance(child, Token):
        return None
    if isinstance(child, list):
        return _node_span(child[0]) if child else None
    return getattr(child, "span", None)


# the names that stand for where they are written, and (`__LOC_OF__ e`) where an expression is
_LOCATION_NAMES = {"__LOC__": "loc", "__FILE__": "file", "__LINE__": "line", "__POS__": "pos",
                   "__MODULE__": "module"}
_LOCATION_OF = {"__LOC_OF__": "loc", "__LINE_OF__": "line", "__POS_OF__": "pos"}


class _ToAst:
    """Builds AST nodes inside the LALR parser, as each rule is reduced (no parse tree, so no
    recursion however deep the input nests). A node's span runs from its first child to its
    last; the grammar keeps the keywords and brackets that begin or end a node as tokens."""

    def __init__(self) -> None:
        self.file = "<input>"
        # whether the text uses the module language in an expression (`M.(e)`, `let module`)
        self.module_expressions = False
        # the modules that qualified value and type names begin with (`Bytes` of `Bytes.make`)
        self.qualifiers: set[str] = set()
        # the bindings annotated `: 'a. t`, by id: checked after a top-level declaration
        self.polymorphic: dict[int, tuple[ast.Binding, ast.TypeExpr]] = {}

    def _qualified(self, name: str) -> str:
        if "." in name:
            self.qualifiers.add(name.partition(".")[0])
        return name

    def _span(self, children: tuple[Any, ...]) -> Span:
        first = children[0]
        last = children[-1]
        if isinstance(first, Token):
            line, col = first.line or 0, first.column or 0
        else:
            start = _node_span(first)
            line, col = (start.line, start.col) if start is not None else (0, 0)
        if isinstance(last, Token):
            end_line, end_col = last.end_line or 0, last.end_column or 0
        else:
            end = _node_span(last)
            end_line, end_col = (end.end_line, end.end_col) if end is not None else (0, 0)
        return Span(self.file, line, col, end_line, end_col)

    def _tok_span(self, tok: Token) -> Span:
        return Span(self.file, tok.line or 0, tok.column or 0, tok.end_line or 0, tok.end_column or 0)

    # ---------------------------------------------------------------- top level
    def start(self, *items: Any) -> ast.Module:
        decls: list[Any] = []
        separated = True  # by `;;` from what came before (the start of the file is)
        for item in items:
            if isinstance(item, Token):  # the `;;`s before the first item
                continue
            assert isinstance(item, _TopLevelItem)
            if item.expression and not separated and item.span is not None:
                raise CompileError(item.span, "Syntax error: a top-level expression after a declaration "
                                   "needs `;;` before it")
            decls.extend(item.declarations)
            separated = item.separated
        return ast.Module(tuple(decls), (self.file,))  # with module items: `elaborate` takes them out

    # ---------------------------------------------------------------- the module language
    def module_path(self, name: Token) -> _Path:
        return _Path(_without_stdlib(str(name)), self._tok_span(name))

    def open_decl(self, keyword: Token, path: _Path) -> m.OpenDecl:
        return m.OpenDecl(path.name, self._span((keyword, path)))

    def include_decl(self, keyword: Token, module: m.ModuleExpr) -> m.IncludeDecl:
        return m.IncludeDecl(module, self._span((keyword, module)))

    def let_open(self, keyword: Token, opening: Token, path: _Path, body: ast.Expr) -> ast.Expr:
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
        annotation = [p for p in parts if isinstance(p, _ModuleAnnot)]
        if annotation:
            module = m.Constrained(module, annotation[0].type, span)
        parameters: list[m.FunctorParameter] = [p for p in parts if isinstance(p, m.FunctorParameter)]
        return _curried(parameters, module, m.Functor, span)  # type: ignore[arg-type]

    def module_annot(self, module_type: m.ModuleType) -> _ModuleAnnot:
        return _ModuleAnnot(module_type)

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
        return _curried(parameters, parts[-1], m.Functor, self._span((keyword, parts[-1])))  # type: ignore[arg-type]

    def module_apply(self, functor: m.ModuleExpr, opening: Token, argument: m.ModuleExpr, closing: Token) -> m.Apply:
        return m.Apply(functor, argument, self._span((functor, closing)))

    def structure(self, keyword: Token, *items: Any) -> m.Structure:
        declarations = tuple(d for i in items[:-1] for d in (i if isinstance(i, list) else [i]))
        return m.Structure(declarations, self._span((keyword, items[-1])))

    def module_named(self, path: _Path) -> m.ModulePath:
        return m.ModulePath(path.name, path.span)

    def module_paren(self, opening: Token, inner: Any, closing: Token) -> Any:
        return inner

    def module_constrained(self, opening: Token, module: m.ModuleExpr, module_type: m.ModuleType,
                           closing: Token) -> m.Constrained:
        return m.Constrained(module, module_type, self._span((opening, closing)))

    def functor_type(self, keyword: Token, *parts: Any) -> m.ModuleType:
        parameters: list[m.FunctorParameter] = list(parts[:-1])
        return _curried(parameters, parts[-1], m.FunctorType, self._span((keyword, parts[-1])))  # type: ignore[arg-type]

    def module_type_with(self, base: m.ModuleType, *constraints: m.Constraint) -> m.ModuleTypeWith:
        return m.ModuleTypeWith(base, constraints, self._span((base, constraints[-1])))

    def with_constraint(self, keyword: Token, *parts: Any) -> m.WithType:
        params, name, rest = self._typedef_head(parts)
        return m.WithType(params, _without_stdlib(str(name)), rest[-1], self._span((keyword, rest[-1])))

    def with_module(self, keyword: Token, path: _Path, module: _Path) -> m.WithModule:
        return m.WithModule(path.name, module.name, self._span((keyword, module)))

    def signature(self, keyword: Token, *items: Any) -> m.Signature:
        flat = [part for item in items[:-1] for part in (item if isinstance(item, list) else [item])]
        return m.Signature(tuple(flat), self._span((keyword, items[-1])))

    def module_type_named(self, path: _Path) -> m.ModuleTypePath:
        return m.ModuleTypePath(path.name, path.span)

    def sig_val(self, keyword: Token, name: Any, type_expr: ast.TypeExpr, *separators: Token) -> m.SigVal:
        return m.SigVal(name.name, type_expr, self._span((keyword, type_expr)))

    def sig_type(self, keyword: Token, *parts: Any) -> m.SigType:
        definitions = tuple(p for p in parts if isinstance(p, (ast.TypeDef, _AbstractType)))
        abstract = frozenset(d.name for d in definitions if isinstance(d, _AbstractType))
        concrete = tuple(d.definition if isinstance(d, _AbstractType) else d for d in definitions)
        return m.SigType(ast.TypeDecl(concrete, self._span((keyword, concrete[-1]))), abstract)

    def type_spec(self, definition: ast.TypeDef) -> ast.TypeDef:
        return definition

    def type_abstract(self, *parts: Any) -> _AbstractType:
        """`type t` (no definition): in the declaration, a placeholder abbreviation of itself."""
        params, name, _ = self._typedef_head(parts)
        span = self._tok_span(name)
        placeholder = ast.TyName(str(name), tuple(ast.TyVar(p, span) for p in params), span)
        return _AbstractType(ast.TypeDef(str(name), params, span, abbreviation=placeholder))

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
        return m.SigModule(str(name), _curried(items[:-1], items[-1], m.FunctorType, span), span)  # type: ignore[arg-type]

    def sig_module_type(self, keyword: Token, type_keyword: Token, name: Token, module_type: m.ModuleType,
                        *separators: Token) -> m.SigModuleType:
        return m.SigModuleType(str(name), module_type, self._span((keyword, module_type)))

    def sig_include(self, keyword: Token, module_type: m.ModuleType, *separators: Token) -> m.SigInclude:
        return m.SigInclude(module_type, self._span((keyword, module_type)))

    # ---------------------------------------------------------------- type declarations
    def type_decl(self, keyword: Token, *definitions: ast.TypeDef | list[ast.TypeDef]) -> ast.TypeDecl:
        flat = tuple(d for item in definitions for d in (item if isinstance(item, list) else [item]))
        return ast.TypeDecl(flat, self._span((keyword, flat[-1])))

    def _typedef_head(self, parts: tuple[Any, ...]) -> tuple[tuple[str, ...], Token, list[Any]]:
        params: tuple[str, ...] = ()
        rest = [p for p in parts if not self._is_private(p)]
        if isinstance(rest[0], _TypeParams):
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
                   for c in rest if isinstance(c, _InlineRecord)]
        constructors = tuple(ast.ConstructorDecl(c.name, (ast.TyName(f"{name}.{c.name}", tuple(
            ast.TyVar(p, c.span) for p in params), c.span),), c.span) if isinstance(c, _InlineRecord) else c
            for c in rest)
        variant = ast.TypeDef(str(name), params, span, constructors=constructors, private=self._private(parts))
        return [variant, *records] if records else variant

    def type_record(self, *parts: Any) -> ast.TypeDef:
        params, name, rest = self._typedef_head(parts)
        return ast.TypeDef(str(name), params, self._span((name, rest[-1])), fields=tuple(rest),
                           private=self._private(parts))

    def type_params(self, *names: Token) -> _TypeParams:
        return _TypeParams(tuple(str(n) if n.type == "TYVAR" else f"'_{i}" for i, n in enumerate(names)))

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

    def inline_record(self, name: Token, opening: Token, *parts: Any) -> _InlineRecord:
        fields = tuple(p for p in parts if isinstance(p, ast.FieldDecl))
        return _InlineRecord(str(name), fields, self._span((name, parts[-1] if parts else opening)))

    def exception_alternative(self, *parts: Any) -> _Alternatives:
        """`exception p` as a case's pattern or an alternative of it (after values' patterns
        or other alternatives)."""
        *before, keyword, pattern = parts
        earlier = before[0] if before else _Alternatives((), (), self._tok_span(keyword))
        if not isinstance(earlier, _Alternatives):  # (the values' or-pattern it follows)
            earlier = _Alternatives((earlier,), (), earlier.span)
        return _Alternatives(earlier.values, earlier.exceptions + (pattern,), self._span((earlier, pattern)))

    def value_alternative(self, earlier: _Alternatives, pattern: ast.Pattern) -> _Alternatives:
        return _Alternatives(earlier.values + (pattern,), earlier.exceptions, self._span((earlier, pattern)))

    def aliased_exception(self, alternatives: _Alternatives, name: Token) -> _Alternatives:
        """`exception p as x` is `(exception p) as x`, which OCaml refuses."""
        raise CompileError(self._span((alternatives, name)), "Exception patterns are not allowed in this position.")

    def exception_case(self, alternatives: _Alternatives, *rest: ast.Expr) -> list[Any]:
        """A case whose pattern has `exception p` alternatives: one case of the values'
        alternatives, if any, and one of the exceptions', with the same guard and body."""
        guard = rest[0] if len(rest) == 2 else None
        span = self._span((alternatives, rest[-1]))
        if guard is not None and alternatives.values:
            raise CompileError(alternatives.span,
                               "Mixing value and exception patterns under when-guards is not supported.")
        cases: list[Any] = []
        if alternatives.values:
            cases.append(_forcing(ast.Case(_alternatives(alternatives.values), guard, rest[-1], span)))
        cases.append(_ExceptionCase(ast.Case(_alternatives(alternatives.exceptions), guard, rest[-1], span)))
        return cases

    def let_exception(self, keyword: Token, decl: ast.ExceptionDecl | list[ast.Declaration], body: ast.Expr) -> ast.Expr:
        """`let exception E in body`, under a name no other exception has, which body's `E`s
        are made. Its arguments may name the locally abstract types of a function it is in
        (`(type t)` becomes `'t` later), but not type variables, as in OCaml."""
        decl = _plain_exception(decl, "a `let exception`")
        for arg in decl.args:
            for node in _type_nodes(arg):
                if isinstance(node, ast.TyVar):
                    raise CompileError(node.span, f"The type variable {node.name} is unbound in this type declaration.")
        unique = f"{decl.name}'local{decl.span.line}_{decl.span.col}"  # (where it is: one name a declaration)
        renamed = _ConstructorRenamer(decl.name, unique).node(body)
        return ast.LetException(replace(decl, name=unique, shown=decl.name), renamed,
                                self._span((keyword, body)))

    def gadt_constr(self, name: Token, type_expr: ast.TypeExpr) -> ast.ConstructorDecl:
        raise CompileError(self._span((name, type_expr)), "GADTs (constructors declared with a type) are not part of FL")

    def field_decl(self, *parts: Any) -> ast.FieldDecl:
        mutable = isinstance(parts[0], Token) and parts[0].type == "MUTABLE"
        name, type_expr = parts[-2], parts[-1]
        return ast.FieldDecl(str(name), mutable, type_expr, self._span(parts))

    def toplevel_expr(self, expr: ast.Expr, *separators: Token) -> _TopLevelItem:
        span = expr.span
        declaration = ast.LetDecl(False, (ast.Binding(ast.PWild(span), expr, span),), span)
        return _TopLevelItem([declaration], bool(separators), span, expression=True)

    def declaration(self, decl: Any, *separators: Token) -> _TopLevelItem:
        declarations = decl if isinstance(decl, list) else [decl]
        return _TopLevelItem(declarations, bool(separators), getattr(decl, "span", None))

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
        span = self._span(parts)
        declarations: list[ast.Declaration] = list(self._let_declarations(is_rec, bindings, span))
        declarations += self._polymorphic_checks(bindings)  # (after: a check reads the value's type)
        return declarations[0] if len(declarations) == 1 else declarations

    def _let_declarations(self, is_rec: bool, bindings: tuple[ast.Binding, ...], span: Span) -> list[ast.LetDecl]:
        lazy = _recursive_lazy(is_rec, bindings)
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

    def _rec_bindings(self, parts: tuple[Any, ...]) -> tuple[bool, tuple[ast.Binding, ...]]:
        is_rec = any(isinstance(p, Token) and p.type == "REC" for p in parts)
        bindings = tuple(c for p in parts if isinstance(p, ast.Binding) for c in ast.tuple_components(p))
        if is_rec:
            bindings = tuple(_annotation_on_value(b) for b in bindings)
            for b in bindings:
                if not isinstance(b.pattern, ast.PVar):
                    raise CompileError(b.pattern.span, "Only variables are allowed as left-hand side of `let rec'")
        return is_rec, bindings

    def fun_binding(self, name: ast.PVar, *rest: Any) -> ast.Binding:
        *params, body = rest
        annot = None
        if params and isinstance(params[-1], _ReturnAnnot):
            annot = params.pop()
        span = self._span((name, body))
        if annot is not None:
            body = _TypeNamesRenamer(annot.local_types).node(body)
            body = ast.Annot(body, annot.type, annot.span)
        binding = ast.Binding(name, _function(params, body, span), span)
        if annot is not None and annot.polymorphic and not params:
            self.polymorphic[id(binding)] = (binding, annot.type)
        return binding

    def pattern_binding(self, pattern: ast.Pattern, *rest: Any) -> ast.Binding:
        span = self._span((pattern, rest[-1]))
        if len(rest) == 2:
            annot, body = rest
            pattern = ast.PAnnot(pattern, annot.type, annot.span)
            body = _TypeNamesRenamer(annot.local_types).node(body)
        else:
            (body,) = rest
        binding = _bound_forcing(ast.Binding(pattern, body, span))
        if len(rest) == 2 and rest[0].polymorphic and isinstance(binding.pattern, ast.PAnnot) \
                and isinstance(binding.pattern.pattern, ast.PVar):
            self.polymorphic[id(binding)] = (binding, rest[0].type)
        return binding

    def return_annot(self, type_expr: ast.TypeExpr) -> _ReturnAnnot:
        return _ReturnAnnot(type_expr, type_expr.span)

    def poly_annot(self, *parts: Any) -> _ReturnAnnot:
        """`: 'a 'b. t`: the definition is checked to be that polymorphic (at top level: an
        `ast.SignatureCheck` after it); a recursive call at another type (polymorphic
        recursion, which monomorphisation cannot build) stays a type error."""
        return _ReturnAnnot(parts[-1], parts[-1].span, polymorphic=True)

    def abstract_annot(self, keyword: Token, *parts: Any) -> _ReturnAnnot:
        """`: type a b. t`: t with the locally abstract types a, b as type variables, in the
        definition too (see `plocal_types`)."""
        names = frozenset(str(p) for p in parts[:-1])
        return _ReturnAnnot(_TypeNamesRenamer(names).node(parts[-1]), parts[-1].span, names)

    def plocal_types(self, opening: Token, keyword: Token, *parts: Any) -> _LocalTypes:
        return _LocalTypes(frozenset(str(p) for p in parts[:-1]), self._span((opening, parts[-1])))

    def value_name(self, *parts: Any) -> ast.PVar:
        name = parts[0] if len(parts) == 1 else parts[1]
        text = name.name if isinstance(name, ast.PVar) else str(name)
        return ast.PVar(text, self._span(parts))

    def operator_name(self, tok: Token) -> ast.PVar:
        return ast.PVar(str(tok), self._tok_span(tok))

    # ---------------------------------------------------------------- expressions
    def sequence(self, first: ast.Expr, second: ast.Expr) -> ast.Expr:
        return ast.Seq(first, second, self._span((first, second)))

    def trailing_semi(self, expr: ast.Expr) -> ast.Expr:
        return expr

    def let_in(self, *parts: Any) -> ast.Expr:
        is_rec, bindings = self._rec_bindings(parts[:-1])
        span = self._span(parts)
        for binding in bindings:  # (a local `: 'a. t` is read as `: t`)
            self.polymorphic.pop(id(binding), None)
        lazy = _recursive_lazy(is_rec, bindings)
        if lazy is not None:  # `let rec x = lazy e in body`
            body = parts[-1]
            for delay in reversed(lazy.delays):
                body = ast.Seq(delay, body, span)
            if lazy.functions:
                body = ast.Let(True, lazy.functions, body, span)
            return ast.Let(False, lazy.pending, body, span)
        functions, values = ast.split_recursive_values(bindings) if is_rec else (bindings, ())
        if not values:
            return ast.Let(is_rec, bindings, parts[-1], span)
        body = ast.Let(False, values, parts[-1], span)
        return ast.Let(True, functions, body, span) if functions else body

    def letop_in(self, letop: Token, *parts: Any) -> ast.Expr:
        """`let* p1 = e1 and* p2 = e2 in body`: `( let* ) (( and* ) e1 e2) (fun (p1, p2) -> body)`,
        as OCaml's binding operators are."""
        first, *rest, body = parts
        value, pattern = first.value, first.pattern
        for operator, binding in zip(rest[::2], rest[1::2]):
            span = self._span((value, binding))
            value = ast.App(ast.App(ast.Var(str(operator), self._tok_span(operator)), value, span), binding.value, span)
            pattern = ast.PTuple((pattern, binding.pattern), self._span((pattern, binding.pattern)))
        span = self._span((letop, body))
        continuation = _function([pattern], body, self._span((first, body)))
        return ast.App(ast.App(ast.Var(str(letop), self._tok_span(letop)), value, span), continuation, span)

    def lambda_(self, fun: Token, *parts: Any) -> ast.Expr:
        span = self._span((fun, parts[-1]))
        *params, body = parts
        if params and isinstance(params[-1], _ReturnAnnot):
            annot = params.pop()
            body = ast.Annot(body, annot.type, annot.span)
        return _function(params, body, span)

    def match(self, keyword: Token, scrutinee: ast.Expr, cases: tuple[Any, ...]) -> ast.Expr:
        span = self._span((keyword, cases[-1]))
        if not any(isinstance(c, _ExceptionCase) for c in cases):
            return ast.Match(scrutinee, cases, span)
        if all(isinstance(c, _ExceptionCase) for c in cases):
            raise CompileError(span, "None of the patterns in this 'match' expression match values.")
        return _match_with_exceptions(scrutinee, cases, span)

    def function(self, keyword: Token, cases: tuple[Any, ...]) -> ast.Expr:
        """`function cases` is `fun x -> match x with cases` (x a name no program can write)."""
        span = self._span((keyword, cases[-1]))
        _no_exception_cases(cases)
        arg = "%arg"
        return ast.Fun(ast.PVar(arg, span), ast.Match(ast.Var(arg, span), cases, span), span)

    def try_with(self, keyword: Token, body: ast.Expr, cases: tuple[Any, ...]) -> ast.Expr:
        _no_exception_cases(cases)
        span = self._span((keyword, cases[-1]))
        handler = ast.Match(ast.Var(ast.EXCEPTION_VAR, span), cases, span, reraise=True)
        return ast.Try(body, handler, span)

    def lazy_expr(self, keyword: Token, value: ast.Expr) -> ast.Expr:
        """`lazy e`: `Lazy.from_fun (fun () -> e)`; of a constant, a constant constructor or a
        variable, `Lazy.from_val e`, a value already forced, as OCaml compiles it."""
        span = self._span((keyword, value))
        if isinstance(value, (ast.Const, ast.Var)) or isinstance(value, ast.Construct) and not value.args:
            return ast.App(ast.Var("Lazy.from_val", span), value, span)
        return ast.App(ast.Var("Lazy.from_fun", span), ast.Fun(ast.PUnit(span), value, span), span)

    def assert_expr(self, keyword: Token, condition: ast.Expr) -> ast.Expr:
        """`assert e` is `if e then () else raise (Assert_failure (file, line, column))`, and
        `assert false` (of any type) the raise alone, as in OCaml."""
        span = self._span((keyword, condition))
        at = self._tok_span(keyword)
        location = ast.Tuple((ast.Const(self.file, "string", at), ast.Const(at.line, "int", at),
                              ast.Const(at.col - 1, "int", at)), at)
        failure = ast.App(ast.Var("raise", at), ast.Construct("Assert_failure", (location,), at), span)
        if isinstance(condition, ast.Const) and condition.value is False:
            return failure
        return ast.If(condition, ast.Const(None, "unit", span), failure, span)

    def match_cases(self, *cases: Any) -> tuple[Any, ...]:  # (`_ExceptionCase`s too)
        return tuple(c for case in cases for c in (case if isinstance(case, list) else (case,)))

    def match_case(self, pattern: ast.Pattern, *rest: ast.Expr) -> ast.Case:
        guard = rest[0] if len(rest) == 2 else None
        return _forcing(ast.Case(pattern, guard, rest[-1], self._span((pattern, rest[-1]))))

    def cons(self, head: ast.Expr, op: Token, tail: ast.Expr) -> ast.Expr:
        span = self._span((head, tail))
        return ast.Construct("::", (ast.Tuple((head, tail), span),), span)

    def constructor(self, name: Token) -> ast.Expr:
        return ast.Construct(_unqualified_constructor(str(name)), (), self._tok_span(name))

    def qualified_var(self, name: Token) -> ast.Expr:
        return ast.Var(self._qualified(_without_stdlib(str(name))), self._tok_span(name))

    def qualified_operator(self, name: Token, opening: Token, operator: ast.PVar, closing: Token) -> ast.Expr:
        """`M.( + )`: the operator M defines (`Stdlib.( + )`: the prelude's)."""
        qualified = self._qualified(_without_stdlib(f"{name}.{operator.name}"))
        return ast.Var(qualified, self._span((name, closing)))

    def local_open(self, name: Token, opening: Token, body: ast.Expr, closing: Token) -> ast.Expr:
        """`M.(e)`: `let open M in e`."""
        if str(name) == "Stdlib":
            return body
        self.module_expressions = True
        return ast.LocalOpen(str(name), body, self._span((name, closing)))

    def empty_list(self, opening: Token, closing: Token) -> ast.Expr:
        return ast.Construct("[]", (), self._span((opening, closing)))

    def list_literal(self, opening: Token | ast.Expr, items: list[ast.Expr], closing: Token) -> ast.Expr:
        """`[a; b; c]` is `a :: (b :: (c :: []))`, built from the end in a loop."""
        span = self._span((opening, closing))
        result: ast.Expr = ast.Construct("[]", (), Span(span.file, span.end_line, span.end_col - 1,
                                                          span.end_line, span.end_col))
        for index in range(len(items) - 1, -1, -1):
            item = items[index]
            # the whole list is the first cell, as OCaml locates it (a diagnostic's caret is at `[`)
            cell = span if index == 0 else Span(span.file, item.span.line, item.span.col, span.end_line, span.end_col)
            result = ast.Construct("::", (ast.Tuple((item, result), cell),), cell)
        return result

    def list_items(self, *items: ast.Expr) -> list[ast.Expr]:
        return list(items)

    def empty_array(self, opening: Token, closing: Token) -> ast.Expr:
        return ast.ArrayLit((), self._span((opening, closing)))

    def array_literal(self, opening: Token, items: list[ast.Expr], closing: Token) -> ast.Expr:
        return ast.ArrayLit(tuple(items), self._span((opening, closing)))

    def record(self, opening: Token, fields: list[Field], closing: Token) -> ast.Expr:
        return ast.Record(tuple(fields), None, self._span((opening, closing)))

    def record_with(self, opening: Token, base: ast.Expr, fields: list[Field], closing: Token) -> ast.Expr:
        return ast.Record(tuple(fields), base, self._span((opening, closing)))

    def field_binds(self, *fields: Field) -> list[Field]:
        return list(fields)

    def field_bind(self, name: Token, value: ast.Expr) -> Field:
        return str(name), value  # (`{ M.x = e }`: M's x, found by the module language)

    def field_pun(self, name: Token) -> Field:
        """`{ x }`, `{ M.x }`: the field given the variable of its name."""
        return str(name), ast.Var(str(name).rpartition(".")[2], self._tok_span(name))

    def field_get(self, record: ast.Expr, name: Token) -> ast.Expr:
        """`r.f`, `r.M.f` (M's f, found by the module language)."""
        return ast.GetField(record, str(name), self._span((record, name)))

    def array_get(self, target: ast.Expr, index: ast.Expr, closing: Token) -> ast.Expr:
        """`a.(i)` is `Array.get a i`, as in OCaml; `M.(e)` with M a module opens M in e."""
        if isinstance(target, ast.Construct) and not target.args:  # `A.B.(e)`: a constructor has no `.( )`
            self.module_expressions = True
            return ast.LocalOpen(target.name, index, self._span((target, closing)))
        return self._call("Array.get", target, (target, index), closing)

    def string_get(self, target: ast.Expr, index: ast.Expr, closing: Token) -> ast.Expr:
        """`s.[i]`; `M.[a; b]` with M a module: the list, M opened in it."""
        if isinstance(target, ast.Construct) and not target.args:
            items: list[ast.Expr] = []
            while isinstance(index, ast.Seq):  # (the items were read as a sequence)
                items.append(index.first)
                index = index.second
            literal = self.list_literal(target, [*items, index], closing)
            return self._opened(target, literal, closing)
        return self._call("String.get", target, (target, index), closing)

    def _opened(self, target: ast.Expr, literal: ast.Expr, closing: Token) -> ast.Expr:
        """`M.{ ... }`, `M.[ ... ]`, `M.[| ... |]`: the literal, with module M opened in it."""
        if not (isinstance(target, ast.Construct) and not target.args):
            raise CompileError(literal.span, "Syntax error: a module path is expected before `.` here")
        if target.name == "Stdlib":
            return literal
        self.module_expressions = True
        return ast.LocalOpen(target.name, literal, self._span((target, closing)))

    # `M.{ ... }`... with M a single name (`A.B.{ ... }` is the `opened_` rules')
    def module_record(self, name: Token, opening: Token, fields: list[Field], closing: Token) -> ast.Expr:
        return self.opened_record(self.constructor(name), opening, fields, closing)

    def module_record_with(self, name: Token, opening: Token, base: ast.Expr, fields: list[Field],
                           closing: Token) -> ast.Expr:
        return self.opened_record_with(self.constructor(name), opening, base, fields, closing)

    def module_list(self, name: Token, opening: Token, items: list[ast.Expr], closing: Token) -> ast.Expr:
        return self._opened(self.constructor(name), self.list_literal(opening, items, closing), closing)

    def module_empty_list(self, name: Token, opening: Token, closing: Token) -> ast.Expr:
        return self.opened_empty_list(self.constructor(name), opening, closing)

    def module_array(self, name: Token, opening: Token, items: list[ast.Expr], closing: Token) -> ast.Expr:
        return self.opened_array(self.constructor(name), opening, items, closing)

    def module_empty_array(self, name: Token, opening: Token, closing: Token) -> ast.Expr:
        return self.opened_empty_array(self.constructor(name), opening, closing)

    def opened_record(self, target: ast.Expr, opening: Token, fields: list[Field], closing: Token) -> ast.Expr:
        return self._opened(target, self.record(opening, fields, closing), closing)

    def opened_record_with(self, target: ast.Expr, opening: Token, base: ast.Expr, fields: list[Field],
                           closing: Token) -> ast.Expr:
        return self._opened(target, self.record_with(opening, base, fields, closing), closing)

    def opened_empty_list(self, target: ast.Expr, opening: Token, closing: Token) -> ast.Expr:
        return self._opened(target, self.empty_list(opening, closing), closing)

    def opened_array(self, target: ast.Expr, opening: Token, items: list[ast.Expr], closing: Token) -> ast.Expr:
        return self._opened(target, self.array_literal(opening, items, closing), closing)

    def opened_empty_array(self, target: ast.Expr, opening: Token, closing: Token) -> ast.Expr:
        return self._opened(target, self.empty_array(opening, closing), closing)

    def _call(self, name: str, first: Any, args: tuple[ast.Expr, ...], last: Any) -> ast.Expr:
        span = self._span((first, last))
        result: ast.Expr = ast.Var(name, span)
        for arg in args:
            result = ast.App(result, arg, span)
        return result

    def while_loop(self, keyword: Token, condition: ast.Expr, body: ast.Expr, done: Token) -> ast.Expr:
        return ast.While(condition, body, self._span((keyword, done)))

    def for_loop(self, keyword: Token, var: Token, start: ast.Expr, direction: Token, stop: ast.Expr,
                 body: ast.Expr, done: Token) -> ast.Expr:
        return ast.For(str(var), start, stop, str(direction) == "to", body, self._span((keyword, done)))

    def if_else(self, keyword: Token, cond: ast.Expr, then: ast.Expr, other: ast.Expr) -> ast.Expr:
        return ast.If(cond, then, other, self._span((keyword, other)))

    def if_then(self, keyword: Token, cond: ast.Expr, then: ast.Expr) -> ast.Expr:
        span = self._span((keyword, then))
        return ast.If(cond, then, ast.Const(None, "unit", span), span)

    def binop(self, left: ast.Expr, op: Token, right: ast.Expr) -> ast.Expr:
        span = self._span((left, right))
        name = str(op)
        if name in ("&&", "&"):
            return ast.If(left, right, ast.Const(False, "bool", span), span)
        if name in ("||", "or"):
            return ast.If(left, ast.Const(True, "bool", span), right, span)
        if name == "<-":
            return self.assignment(left, right, span)
        operator = ast.Var(name, self._tok_span(op))
        return ast.App(ast.App(operator, left, span), right, span)

    def assignment(self, target: ast.Expr, value: ast.Expr, span: Span) -> ast.Expr:
        """`r.x <- e` and `a.(i) <- e` (which is `Array.set a i e`, as in OCaml)."""
        if isinstance(target, ast.GetField):
            return ast.SetField(target.record, target.name, value, span)
        if (isinstance(target, ast.App) and isinstance(target.function, ast.App)
                and isinstance(target.function.function, ast.Var) and target.function.function.name == "Array.get"):
            return self._call("Array.set", target, (target.function.argument, target.argument, value), value)
        raise CompileError(target.span, "This expression cannot be assigned with <-: only a mutable "
                           "record field r.x or an array element a.(i) can")

    def tuple(self, *items: ast.Expr) -> ast.Expr:
        return ast.Tuple(items, self._span(items))

    def negate(self, op: Token, operand: ast.Expr) -> ast.Expr:
        span = self._span((op, operand))
        if isinstance(operand, ast.Const) and operand.kind in ("int", "float") and str(op) == "-":
            return ast.Const(-operand.value, operand.kind, span)  # type: ignore[operator]
        if isinstance(operand, ast.Const) and operand.kind == "float":
            return ast.Const(-operand.value, "float", span)  # type: ignore[operator]
        if _is_sized_literal(operand) and str(op) == "-":  # `-5L`
            assert isinstance(operand, ast.App) and isinstance(operand.argument, ast.Const)
            return replace(operand, argument=ast.Const(-operand.argument.value, "int", span), span=span)
        name = "~-." if str(op) == "-." else "~-"
        return ast.App(ast.Var(name, self._tok_span(op)), operand, span)

    def positive(self, op: Token, operand: ast.Expr) -> ast.Expr:
        """`+e` and `+.e`, OCaml's prefix plus: a literal's sign (`+3`, `+2.0`, `+5L`), else the
        identity on ints (`~+`) or floats (`~+.`), here `(e : int)` or `(e : float)`."""
        sign = str(op)
        if sign not in ("+", "+."):
            raise CompileError(self._tok_span(op), "Syntax error")
        span = self._span((op, operand))
        if isinstance(operand, ast.Const) and (operand.kind == "float" or (operand.kind == "int" and sign == "+")):
            return replace(operand, span=span)
        if _is_sized_literal(operand) and sign == "+":
            return replace(operand, span=span)
        return ast.Annot(operand, ast.TyName("float" if sign == "+." else "int", (), self._tok_span(op)), span)

    def ppos_literal(self, op: Token, tok: Token) -> ast.Pattern:
        """`+3`, `+2.0` in a pattern (OCaml's signed constants)."""
        if str(op) != "+":
            raise CompileError(self._tok_span(op), "Syntax error")
        literal = self.pfloat(tok) if tok.type == "FLOAT" else self.pint(tok)
        assert isinstance(literal, ast.PConst)
        return replace(literal, span=self._span((op, tok)))

    def apply(self, function: ast.Expr, *arguments: ast.Expr | Labelled) -> ast.Expr:
        """`f a1 ... an`, the whole spine at once so that labelled arguments can be ordered."""
        for argument in arguments:
            if isinstance(argument, Labelled):  # put in positional order by the type checker
                function = ast.App(function, argument.value, self._span((function, argument)), label=argument.label)
            else:
                function = self._apply_one(function, argument)
        return function

    def _apply_one(self, function: ast.Expr, argument: ast.Expr) -> ast.Expr:
        span = self._span((function, argument))
        if isinstance(function, ast.Var) and function.name in _LOCATION_OF:  # `__LOC_OF__ e`: (where, e)
            return ast.Tuple((self._location(_LOCATION_OF[function.name], span), argument), span)
        if isinstance(function, ast.Construct) and not function.args:
            return ast.Construct(function.name, (argument,), span)  # `C e`: a constructor's argument
        expanded = printing_application(function, argument, span)
        return ast.App(function, argument, span) if expanded is None else expanded

    def labelled(self, label: Token, value: ast.Expr) -> Labelled:
        """`~x:e` or `?x:e`."""
        return Labelled(_label_of(label), value, self._span((label, value)))

    def punned_argument(self, label: Token) -> Labelled:
        """`~x` (`~x:x`) or `?x` (`?x:x`)."""
        span = self._tok_span(label)
        return Labelled(_label_of(label), ast.Var(str(label)[1:], span), span)

    # ---------------------------------------------------------------- labelled parameters
    def punned_parameter(self, label: Token) -> _Parameter:
        span = self._tok_span(label)
        return _Parameter(_label_of(label), ast.PVar(str(label)[1:], span), None, span)

    def labelled_parameter(self, label: Token, pattern: ast.Pattern) -> _Parameter:
        return _Parameter(_label_of(label), pattern, None, self._span((label, pattern)))

    def annotated_parameter(self, sign: Token, opening: Token, name: Token, annotation: ast.TypeExpr,
                            closing: Token) -> _Parameter:
        """`~(x : t)`, `?(x : t)`."""
        span = self._span((sign, closing))
        pattern = ast.PAnnot(ast.PVar(str(name), self._tok_span(name)), annotation, span)
        return _Parameter(str(sign) + str(name), pattern, None, span)

    def default_parameter(self, sign: Token, *parts: Any) -> _Parameter:
        """`?(x = e)`, `?(x : t = e)`, `?x:(p = e)`, `?x:(p : t = e)`."""
        closing = parts[-1]
        default = parts[-2]
        if str(sign) == "?":  # `?(x ...)`: parts are `(`, x, [t,] e, `)`
            name = parts[1]
            pattern: ast.Pattern = ast.PVar(str(name), self._tok_span(name))
            label = "?" + str(name)
        else:
            pattern, label = parts[1], _label_of(sign)
        if len(parts) == 5:
            pattern = ast.PAnnot(pattern, parts[2], parts[2].span)
        return _Parameter(label, pattern, default, self._span((sign, closing)))

    def var(self, name: ast.PVar) -> ast.Expr:
        if name.name in _LOCATION_NAMES:  # `__LOC__`, `__LINE__`...: where they are written
            return self._location(_LOCATION_NAMES[name.name], name.span)
        return ast.Var(name.name, name.span)

    def _location(self, what: str, at: Span) -> ast.Expr:
        """A location as OCaml's `__LOC__` (`what` "loc"), `__FILE__`, `__LINE__`, `__POS__` or
        `__MODULE__` give it (as ocamlopt does: the file as given, the module its name)."""
        start, end = at.col - 1, (at.end_col - 1 if at.end_line == at.line else at.col)
        if what == "file":
            return ast.Const(self.file, "string", at)
        if what == "line":
            return ast.Const(at.line, "int", at)
        if what == "module":
            return ast.Const(_unit_name(self.file) or "//toplevel//", "string", at)
        if what == "loc":
            return ast.Const(f'File "{self.file}", line {at.line}, characters {start}-{end}', "string", at)
        return ast.Tuple(tuple(ast.Const(value, kind, at) for value, kind in
                               ((self.file, "string"), (at.line, "int"), (start, "int"), (end, "int"))), at)

    def paren(self, opening: Token, expr: ast.Expr, closing: Token) -> ast.Expr:
        """`(e)` is `e`, located (as OCaml does) with its brackets."""
        return dataclasses.replace(expr, span=self._span((opening, closing)))

    def annot(self, opening: Token, expr: ast.Expr, type_expr: ast.TypeExpr, closing: Token) -> ast.Expr:
        """`(e : t)`, and `(e :> t)`: FL has no subtyping (no objects, no polymorphic variants)
        and keeps no type private, so a coercion that OCaml accepts is to e's own type."""
        return ast.Annot(expr, type_expr, self._span((opening, closing)))

    def coercion(self, opening: Token, expr: ast.Expr, source: ast.TypeExpr, target: ast.TypeExpr,
                 closing: Token) -> ast.Expr:
        """`(e : t1 :> t2)`: e of type t1, seen as t2 (the same type in FL, as for `(e :> t2)`)."""
        span = self._span((opening, closing))
        return ast.Annot(ast.Annot(expr, source, span), target, span)

    def prefix(self, op: Token, operand: ast.Expr) -> ast.Expr:
        return ast.App(ast.Var(str(op), self._tok_span(op)), operand, self._span((op, operand)))

    def int_lit(self, tok: Token) -> ast.Expr:
        value = parse_int_literal(str(tok))
        if value >= 2**64:
            raise CompileError(self._tok_span(tok), "Integer literal exceeds the range of representable integers of type int")
        if value >= 2**63:
            value -= 2**64
        return ast.Const(value, "int", self._tok_span(tok))

    def sized_int_lit(self, tok: Token) -> ast.Expr:
        """`5l`, `5L`, `5n`: `fl_int32_of_int 5`... (`Int32.of_int`: a value of the sealed type,
        folded by the optimiser); out of the type's range, OCaml's error."""
        literal = self.psized_int(tok)
        span = literal.span
        return ast.App(ast.Var(f"fl_{literal.kind}_of_int", span), ast.Const(literal.value, "int", span), span)

    def psized_int(self, tok: Token, minus: Token | None = None) -> ast.PConst:
        """`5L` (or `-5L`) as a pattern: a constant of kind `int64` (of FL's int, as `Int64.of_int
        5` is); the kinds `int32` and `nativeint` likewise."""
        text, suffix = str(tok)[:-1], str(tok)[-1]
        type_name = ast.SIZED_INTEGERS[suffix]
        bits = 32 if type_name == "int32" else 64
        value = parse_int_literal(text)
        decimal = text[:2].lower() not in ("0x", "0b", "0o")
        if value >= 2 ** bits or decimal and value > 2 ** (bits - 1):
            raise CompileError(self._tok_span(tok), "Integer literal exceeds the range of representable integers "
                               f"of type {type_name}")
        value = value if minus is None else -value
        wrapped = (value + 2 ** (bits - 1)) % 2 ** bits - 2 ** (bits - 1)
        return ast.PConst(wrapped, type_name, self._tok_span(tok) if minus is None else self._span((minus, tok)))

    def pneg_sized_int(self, minus: Token, tok: Token) -> ast.Pattern:
        return self.psized_int(tok, minus)

    def float_lit(self, tok: Token) -> ast.Expr:
        return ast.Const(parse_float_literal(str(tok)), "float", self._tok_span(tok))

    def _literal(self, tok: Token) -> str:
        """The value of a string or character literal (a quoted string's is its text)."""
        text = str(tok)
        if text.startswith("{"):
            opening = text.index("|") + 1
            return text[opening:len(text) - opening]
        try:
            return decode_escapes(str(tok)[1:-1])
        except IllegalEscape as illegal:
            line, column = tok.line or 1, (tok.column or 1) + 1 + illegal.offset
            raise CompileError(Span(self.file, line, column, line, column + 1), illegal.message) from None

    def char_lit(self, tok: Token) -> ast.Expr:
        return ast.Const(self._literal(tok), "char", self._tok_span(tok))

    def string_lit(self, tok: Token) -> ast.Expr:
        return ast.Const(self._literal(tok), "string", self._tok_span(tok))

    def true_lit(self, tok: Token) -> ast.Expr:
        return ast.Const(True, "bool", self._tok_span(tok))

    def false_lit(self, tok: Token) -> ast.Expr:
        return ast.Const(False, "bool", self._tok_span(tok))

    def unit_lit(self, *brackets: Token) -> ast.Expr:
        return ast.Const(None, "unit", self._span(brackets))

    # ---------------------------------------------------------------- patterns
    def pvar(self, tok: Token) -> ast.Pattern:
        return ast.PVar(str(tok), self._tok_span(tok))

    def pvar_op(self, opening: Token, name: ast.PVar, closing: Token) -> ast.Pattern:
        return ast.PVar(name.name, self._span((opening, closing)))

    def pwild(self, tok: Token) -> ast.Pattern:
        return ast.PWild(self._tok_span(tok))

    def punit(self, *brackets: Token) -> ast.Pattern:
        return ast.PUnit(self._span(brackets))

    def pparen(self, opening: Token, pattern: ast.Pattern, closing: Token) -> ast.Pattern:
        return dataclasses.replace(pattern, span=self._span((opening, closing)))

    def palias(self, pattern: ast.Pattern, name: Token) -> ast.Pattern:
        return ast.PAlias(pattern, str(name), self._span((pattern, name)))

    def por(self, left: ast.Pattern, right: ast.Pattern) -> ast.Pattern:
        return ast.POr(left, right, self._span((left, right)))

    def pcons(self, head: ast.Pattern, op: Token, tail: ast.Pattern) -> ast.Pattern:
        span = self._span((head, tail))
        return ast.PConstruct("::", (ast.PTuple((head, tail), span),), span)

    def plazy(self, keyword: Token, pattern: ast.Pattern) -> ast.Pattern:
        return ast.PConstruct(_LAZY, (pattern,), self._span((keyword, pattern)))

    def pconstruct_app(self, name: ast.PConstruct, arg: ast.Pattern) -> ast.Pattern:
        return ast.PConstruct(name.name, (arg,), self._span((name, arg)))

    def pconstruct(self, name: ast.PConstruct) -> ast.Pattern:
        return name

    def constr_name(self, name: Token) -> ast.PConstruct:
        return ast.PConstruct(_unqualified_constructor(str(name)), (), self._tok_span(name))

    def pint(self, tok: Token) -> ast.Pattern:
        literal = self.int_lit(tok)
        assert isinstance(literal, ast.Const)
        return ast.PConst(literal.value, "int", literal.span)

    def pfloat(self, tok: Token) -> ast.Pattern:
        return ast.PConst(parse_float_literal(str(tok)), "float", self._tok_span(tok))

    def pneg_float(self, minus: Token, tok: Token) -> ast.Pattern:
        return ast.PConst(-parse_float_literal(str(tok)), "float", self._span((minus, tok)))

    def pneg_int(self, minus: Token, tok: Token) -> ast.Pattern:
        literal = self.int_lit(tok)
        assert isinstance(literal, ast.Const)
        return ast.PConst(-literal.value, "int", self._span((minus, tok)))  # type: ignore[operator]

    def pchar(self, tok: Token) -> ast.Pattern:
        return ast.PConst(self._literal(tok), "char", self._tok_span(tok))

    def pchar_range(self, low: Token, high: Token) -> ast.Pattern:
        """`'a' .. 'z'` is the or-pattern of the characters in the range."""
        span = self._span((low, high))
        first, last = ord(self._literal(low)), ord(self._literal(high))
        result: ast.Pattern | None = None
        for code in range(min(first, last), max(first, last) + 1):
            char = ast.PConst(chr(code), "char", span)
            result = char if result is None else ast.POr(result, char, span)
        assert result is not None
        return result

    def pstring(self, tok: Token) -> ast.Pattern:
        return ast.PConst(self._literal(tok), "string", self._tok_span(tok))

    def ptrue(self, tok: Token) -> ast.Pattern:
        return ast.PConst(True, "bool", self._tok_span(tok))

    def pfalse(self, tok: Token) -> ast.Pattern:
        return ast.PConst(False, "bool", self._tok_span(tok))

    def pnil(self, opening: Token, closing: Token) -> ast.Pattern:
        return ast.PConstruct("[]", (), self._span((opening, closing)))

    def parray(self, opening: Token, *rest: Any) -> ast.Pattern:
        """`[| p1; ...; pn |]`: an array of n elements matching them, tried in a guard as a
        lazy pattern is (`_forcing`)."""
        items: list[ast.Pattern] = rest[0] if len(rest) == 2 else []
        return ast.PConstruct(_ARRAY, tuple(items), self._span((opening, rest[-1])))

    def plist(self, opening: Token, items: list[ast.Pattern], closing: Token) -> ast.Pattern:
        span = self._span((opening, closing))
        result: ast.Pattern = ast.PConstruct("[]", (), span)
        for item in items[::-1]:
            result = ast.PConstruct("::", (ast.PTuple((item, result), span),), span)
        return result

    def pattern_items(self, *items: ast.Pattern) -> list[ast.Pattern]:
        return list(items)

    def precord(self, opening: Token, fields: list[FieldPattern], closing: Token) -> ast.Pattern:
        return ast.PRecord(tuple(fields), self._span((opening, closing)))

    def field_patterns(self, *fields: Any) -> list[FieldPattern]:
        return [f for f in fields if not isinstance(f, Token)]

    def field_pattern(self, name: Token, pattern: ast.Pattern) -> FieldPattern:
        return str(name), pattern

    def field_pattern_pun(self, name: Token) -> FieldPattern:
        return str(name), ast.PVar(str(name).rpartition(".")[2], self._tok_span(name))

    def ptuple(self, *items: ast.Pattern) -> ast.Pattern:
        return ast.PTuple(items, self._span(items))

    def pannot(self, opening: Token, pattern: ast.Pattern, type_expr: ast.TypeExpr, closing: Token) -> ast.Pattern:
        return ast.PAnnot(pattern, type_expr, self._span((opening, closing)))

    # ---------------------------------------------------------------- types
    def tarrow(self, param: ast.TypeExpr, result: ast.TypeExpr) -> ast.TypeExpr:
        return ast.TyArrow(param, result, self._span((param, result)))

    def labelled_arrow(self, label: Token, *parts: Any) -> ast.TypeExpr:
        """`x:t -> u` (x a LIDENT, then ":"), `?x:t -> u` (one OPTLABEL token)."""
        param, result = parts[-2], parts[-1]
        text = "~" + str(label) if label.type == "LIDENT" else _label_of(label)
        return ast.TyArrow(param, result, self._span((label, result)), label=text)

    def ttuple(self, *items: Any) -> ast.TypeExpr:
        return ast.TyTuple(tuple(i for i in items if not isinstance(i, Token)), self._span(items))

    def tapp(self, arg: ast.TypeExpr, name: Token) -> ast.TypeExpr:
        return ast.TyName(self._qualified(str(name)), (arg,), self._span((arg, name)))

    def tapp_many(self, *parts: Any) -> ast.TypeExpr:
        *args, name = parts
        return ast.TyName(self._qualified(str(name)), tuple(args), self._span((args[0], name)))

    def tcon(self, name: Token) -> ast.TypeExpr:
        return ast.TyName(self._qualified(str(name)), (), self._tok_span(name))

    def tvar(self, name: Token) -> ast.TypeExpr:
        return ast.TyVar(str(name), self._tok_span(name))


setattr(_ToAst, "lambda", _ToAst.lambda_)  # a keyword in Python, a rule name in the grammar


def _annotation_on_value(binding: ast.Binding) -> ast.Binding:
    """`let rec f : t = e` is `let rec f = (e : t)`."""
    pattern = binding.pattern
    if isinstance(pattern, ast.PAnnot) and isinstance(pattern.pattern, ast.PVar):
        value = ast.Annot(binding.value, pattern.annotation, pattern.span)
        return ast.Binding(pattern.pattern, value, binding.span)
    return binding


Field = tuple[str, ast.Expr]  # a record field as written: its name and value
FieldPattern = tuple[str, ast.Pattern]


def _without_stdlib(name: str) -> str:
    """`Stdlib.x` is the prelude's `x` (`Stdlib.List.map`: `List.map`), and so is
    `Pervasives.x` (OCaml 4.13's deprecated name for it)."""
    return name.removeprefix("Stdlib.").removeprefix("Pervasives.")


def _unqualified_constructor(name: str) -> str:
    """`M.C` as the type checker knows it: `M.C` for a module's constructor, `C` for the
    prelude's (`Stdlib.None`)."""
    return _without_stdlib(name)


@dataclass(frozen=True)
class _Alternatives:
    """The pattern of a case with `exception p` alternatives: its values' and its exceptions'."""

    values: tuple[ast.Pattern, ...]
    exceptions: tuple[ast.Pattern, ...]
    span: Span


def _alternatives(patterns: tuple[ast.Pattern, ...]) -> ast.Pattern:
    """p1 | ... | pn."""
    result = patterns[0]
    for pattern in patterns[1:]:
        first, last = result.span, pattern.span
        result = ast.POr(result, pattern, Span(first.file, first.line, first.col, last.end_line, last.end_col))
    return result


class _ExceptionCase:
    """`| exception p -> e`, a case of a `match` only."""

    def __init__(self, case: ast.Case) -> None:
        self.case = case
        self.span = case.span


def _is_sized_literal(expr: ast.Expr) -> bool:
    return isinstance(expr, ast.App) and isinstance(expr.function, ast.Var) \
        and expr.function.name in ("fl_int32_of_int", "fl_int64_of_int", "fl_nativeint_of_int") \
        and isinstance(expr.argument, ast.Const) and expr.argument.kind == "int"


def _no_exception_cases(cases: tuple[Any, ...]) -> None:
    for case in cases:
        if isinstance(case, _ExceptionCase):
            raise CompileError(case.span, "Exception patterns are not allowed in this position.")


# What the scrutinee of a `match` with exception cases gave: `'a fl_outcome'` in the prelude
_VALUE, _RAISED = "Fl_value'", "Fl_raised'"


def _match_with_exceptions(scrutinee: ast.Expr, cases: tuple[Any, ...], span: Span) -> ast.Expr:
    """`match e with p -> a | exception q -> b` is `match (try Fl_value' e with x -> Fl_raised'
    x) with Fl_value' p -> a | Fl_raised' q -> b | Fl_raised' x -> raise x`: only e is in the
    try, as OCaml has it, and an exception no case matches goes on up."""
    raised = ast.Var("%raised", span)
    handler = ast.Match(ast.Var(ast.EXCEPTION_VAR, span),
                        (ast.Case(ast.PVar(raised.name, span), None, ast.Construct(_RAISED, (raised,), span), span),),
                        span, reraise=True)
    outcome = ast.Try(ast.Construct(_VALUE, (scrutinee,), scrutinee.span), handler, span)
    wrapped = []
    for case in cases:
        constructor, inner = (_RAISED, case.case) if isinstance(case, _ExceptionCase) else (_VALUE, case)
        wrapped.append(replace(inner, pattern=ast.PConstruct(constructor, (inner.pattern,), inner.pattern.span)))
    handlers = [c.case for c in cases if isinstance(c, _ExceptionCase)]
    if not any(h.guard is None and _catches_all(h.pattern) for h in handlers):
        reraise = ast.App(ast.Var("raise", span), raised, span)
        wrapped.append(ast.Case(ast.PConstruct(_RAISED, (ast.PVar(raised.name, span),), span), None, reraise, span))
    return ast.Match(outcome, tuple(wrapped), span)


def _catches_all(pattern: ast.Pattern) -> bool:
    if isinstance(pattern, (ast.PWild, ast.PVar)):
        return True
    if isinstance(pattern, ast.PAlias):
        return _catches_all(pattern.pattern)
    return isinstance(pattern, ast.PAnnot) and _catches_all(pattern.pattern)


def _rewritten(value: Any, rewrite: Callable[[Any], Any]) -> Any:
    """`value` (an AST) with each node `rewrite` gives a new one for (it gives the node itself
    otherwise) made that one, after its children were."""
    if isinstance(value, tuple):
        items = tuple(_rewritten(v, rewrite) for v in value)
        return value if all(a is b for a, b in zip(items, value)) else items
    if not hasattr(value, "__dataclass_fields__") or isinstance(value, Span):
        return value
    changes = {}
    for name in value.__dataclass_fields__:
        if name in ("span", "ty", "tree"):
            continue
        child = getattr(value, name)
        new = _rewritten(child, rewrite)
        if new is not child:
            changes[name] = new
    return rewrite(replace(value, **changes) if changes else value)


class _ConstructorRenamer:
    """Makes a name's constructors (in expressions and patterns) another's: those of a local
    exception, in its scope. A `let exception` of the same name inside was renamed first."""

    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def node(self, value: Any) -> Any:
        return _rewritten(value, self.rename)

    def rename(self, node: Any) -> Any:
        if isinstance(node, (ast.Construct, ast.PConstruct)) and node.name == self.old:
            return replace(node, name=self.new)
        return node
# `lazy p`, as the parser gives it: a case made of it forces the value (`_forcing`)
_LAZY = "%lazy"
_ARRAY = "%array"  # `[| p1; ...; pn |]`, its items the arguments
_VIEWED = (_LAZY, _ARRAY)  # the patterns `_forcing` turns into guards


@dataclass(frozen=True)
class _RecursiveLazies:
    """`let rec x = lazy e and f y = ... and z = lazy e'` as: each lazy value made pending,
    then the functions (a `let rec` of their own, naming the lazy values), then each lazy
    value's computation set."""

    pending: tuple[ast.Binding, ...]
    functions: tuple[ast.Binding, ...]
    delays: tuple[ast.Expr, ...]


def _recursive_lazy(is_rec: bool, bindings: tuple[ast.Binding, ...]) -> _RecursiveLazies | None:
    """`let rec` of lazy values and functions (which OCaml allows, each naming the others):
    forcing a lazy value inside its own computation raises Lazy.Undefined."""
    if not is_rec:
        return None
    lazies = [(b.pattern, b.value.argument, b.span) for b in bindings
              if isinstance(b.pattern, ast.PVar) and isinstance(b.value, ast.App)
              and isinstance(b.value.function, ast.Var) and b.value.function.name == "Lazy.from_fun"]
    functions = tuple(b for b in bindings if isinstance(ast.unannotated(b.value), ast.Fun))
    if not lazies or len(lazies) + len(functions) != len(bindings):
        return None
    pending = tuple(ast.Binding(pattern, ast.App(ast.Var("fl_lazy_pending", span), ast.Const(None, "unit", span),
                                                 span), span) for pattern, _, span in lazies)
    delays = [ast.App(ast.App(ast.Var("fl_lazy_delay", span), ast.Var(pattern.name, span), span), computation, span)
              for pattern, computation, span in lazies]
    return _RecursiveLazies(pending, functions, tuple(delays))


def _forcing(case: ast.Case) -> ast.Case:
    """A case whose pattern has `lazy p`s in it: each is a variable, whose value is forced and
    matched with p in the guard (and again, memoised, in the body)."""
    if not _has_lazy(case.pattern):  # (the usual case: no recursion over a pattern that may be deep)
        return case
    lazies: list[tuple[str, ast.PConstruct]] = []
    pattern = _without_lazies(case.pattern, lazies)
    span = case.span
    forced_items = [_viewed(name, viewed, span) for name, viewed in lazies]
    forced = forced_items[0] if len(forced_items) == 1 else ast.Tuple(tuple(forced_items), span)
    inner = [_view_pattern(viewed) for _, viewed in lazies]
    inner_pattern = inner[0] if len(inner) == 1 else ast.PTuple(tuple(inner), span)
    if _irrefutable(inner_pattern):
        def bound(e: ast.Expr) -> ast.Expr:  # (a match of one case: `lazy (lazy v)` forces twice)
            return ast.Match(forced, (_forcing(ast.Case(inner_pattern, None, e, span)),), span, quiet=True)
        return ast.Case(pattern, None if case.guard is None else bound(case.guard), bound(case.body), span)
    true, false = ast.Const(True, "bool", span), ast.Const(False, "bool", span)
    guard = ast.Match(forced, (_forcing(ast.Case(inner_pattern, case.guard, true, span)),
                               ast.Case(ast.PWild(span), None, false, span)), span, quiet=True)
    unreachable = ast.App(ast.Var("raise", span), ast.Construct("Assert_failure", (ast.Tuple(
        (ast.Const(span.file, "string", span), ast.Const(span.line, "int", span),
         ast.Const(span.col - 1, "int", span)), span),), span), span)
    body = ast.Match(forced, (_forcing(ast.Case(inner_pattern, None, case.body, span)),
                              ast.Case(ast.PWild(span), None, unreachable, span)), span, quiet=True)
    return ast.Case(pattern, guard, body, span)


def _viewed(name: str, viewed: ast.PConstruct, span: Span) -> ast.Expr:
    """What the value of the variable `name` that stands for a viewed pattern is matched as:
    `lazy p`'s forced, `[| p1; ...; pn |]`'s `Some (v.(0), ..., v.(n-1))` when it has n
    elements, else None."""
    value = ast.Var(name, span)
    if viewed.name == _LAZY:
        return ast.App(ast.Var("Lazy.force", span), value, span)
    count = len(viewed.args)
    items = [ast.App(ast.App(ast.Var("Array.unsafe_get", span), value, span), ast.Const(i, "int", span), span)
             for i in range(count)]
    elements: ast.Expr = ast.Const(None, "unit", span) if not items else items[0] if count == 1 else \
        ast.Tuple(tuple(items), span)
    length = ast.App(ast.Var("Array.length", span), value, span)
    fits = ast.App(ast.App(ast.Var("=", span), length, span), ast.Const(count, "int", span), span)
    return ast.If(fits, ast.Construct("Some", (elements,), span), ast.Construct("None", (), span), span)


def _view_pattern(viewed: ast.PConstruct) -> ast.Pattern:
    """The pattern `_viewed`'s value is matched with."""
    if viewed.name == _LAZY:
        return viewed.args[0]
    span, items = viewed.span, viewed.args
    elements = ast.PUnit(span) if not items else items[0] if len(items) == 1 else ast.PTuple(items, span)
    return ast.PConstruct("Some", (elements,), span)


def _without_lazies(pattern: ast.Pattern, lazies: list[tuple[str, ast.PConstruct]]) -> ast.Pattern:
    """`pattern` with each `lazy p` or `[| ... |]` (outside another) a fresh variable, listed
    with it."""
    if isinstance(pattern, ast.PConstruct) and pattern.name in _VIEWED:
        name = f"%viewed{pattern.span.line}_{pattern.span.col}"  # (where it is: one name a pattern)
        lazies.append((name, pattern))
        return ast.PVar(name, pattern.span)
    if isinstance(pattern, ast.POr):
        if not _has_lazy(pattern):
            return pattern
        factored = _factored_lazy(pattern)
        if factored is None:
            raise CompileError(pattern.span, "lazy and array patterns inside or-patterns are supported only "
                               "as alternatives that are all lazy (lazy p | lazy q), not yet elsewhere")
        return _without_lazies(factored, lazies)
    if isinstance(pattern, ast.PConstruct):
        return replace(pattern, args=tuple(_without_lazies(a, lazies) for a in pattern.args))
    if isinstance(pattern, ast.PTuple):
        return replace(pattern, items=tuple(_without_lazies(i, lazies) for i in pattern.items))
    if isinstance(pattern, (ast.PAlias, ast.PAnnot)):
        return replace(pattern, pattern=_without_lazies(pattern.pattern, lazies))
    if isinstance(pattern, ast.PRecord):
        return replace(pattern, fields=tuple((f, _without_lazies(p, lazies)) for f, p in pattern.fields))
    return pattern


def _has_lazy(pattern: ast.Pattern) -> bool:
    """Whether a `lazy p` is in the pattern (iteratively: a list pattern may be deep)."""
    stack: list[Any] = [pattern]
    while stack:
        p = stack.pop()
        if isinstance(p, ast.PConstruct):
            if p.name in _VIEWED:
                return True
            stack.extend(p.args)
        elif isinstance(p, ast.POr):
            stack.extend((p.left, p.right))
        elif isinstance(p, ast.PTuple):
            stack.extend(p.items)
        elif isinstance(p, (ast.PAlias, ast.PAnnot)):
            stack.append(p.pattern)
        elif isinstance(p, ast.PRecord):
            stack.extend(q for _, q in p.fields)
    return False


def _fun_forcing(param: ast.Pattern, body: ast.Expr, span: Span, label: str = "") -> ast.Fun:
    """`fun p -> body`; when p has `lazy q`s in it, `fun x -> match x with p -> body`, whose
    case forces them (`_forcing`)."""
    if not _has_lazy(param):
        return ast.Fun(param, body, span, label=label)
    name = f"%lazy_param{param.span.line}_{param.span.col}"
    case = _forcing(ast.Case(param, None, body, span))
    matched = ast.Match(ast.Var(name, param.span), (case,), param.span)  # (a Match_failure is the parameter's)
    return ast.Fun(ast.PVar(name, param.span), matched, span, label=label)


def _bound_forcing(binding: ast.Binding) -> ast.Binding:
    """`let p = e` for any pattern (`ast.bound_by_match`), forcing the `lazy q`s in p."""
    bound = ast.bound_by_match(binding)
    if bound is binding or not _has_lazy(binding.pattern):
        return bound
    match = bound.value
    assert isinstance(match, ast.Match)
    return ast.Binding(bound.pattern, replace(match, cases=(_forcing(match.cases[0]),)), bound.span)


def _factored_lazy(pattern: ast.POr) -> ast.Pattern | None:
    """`lazy p | lazy q` as `lazy (p | q)` (alternatives that are all lazy), else None."""
    sides = []
    for side in (pattern.left, pattern.right):
        if isinstance(side, ast.POr):
            side = _factored_lazy(side) or side
        if not (isinstance(side, ast.PConstruct) and side.name == _LAZY):
            return None
        sides.append(side.args[0])
    return ast.PConstruct(_LAZY, (ast.POr(sides[0], sides[1], pattern.span),), pattern.span)


def _irrefutable(pattern: ast.Pattern) -> bool:
    if isinstance(pattern, (ast.PVar, ast.PWild, ast.PUnit)):
        return True
    if isinstance(pattern, ast.PConstruct) and pattern.name == _LAZY:
        return _irrefutable(pattern.args[0])
    if isinstance(pattern, ast.PTuple):
        return all(_irrefutable(i) for i in pattern.items)
    if isinstance(pattern, (ast.PAlias, ast.PAnnot)):
        return _irrefutable(pattern.pattern)
    return False


class _TopLevelItem:
    """A top-level declaration or expression, and whether `;;` follows it."""

    def __init__(self, declarations: list[Any], separated: bool, span: Span | None, expression: bool = False) -> None:
        self.declarations = declarations
        self.separated = separated
        self.span = span
        self.expression = expression


def _curried(parameters: list[m.FunctorParameter], result: Any, make: Callable[[m.FunctorParameter, Any, Span], Any],
             span: Span) -> Any:
    """`functor (X) (Y) -> r` (or its type) as `functor (X) -> functor (Y) -> r`."""
    for parameter in parameters[::-1]:
        result = make(parameter, result, span)
    return result


class _Path:
    """A module path as written (`M`, `A.B`)."""

    def __init__(self, name: str, span: Span) -> None:
        self.name = name
        self.span = span


class _ModuleAnnot:
    def __init__(self, module_type: m.ModuleType) -> None:
        self.type = module_type


class _AbstractType:
    def __init__(self, definition: ast.TypeDef) -> None:
        self.definition = definition
        self.name = definition.name


class _TypeParams:
    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names


class _ReturnAnnot:
    def __init__(self, type_expr: ast.TypeExpr, span: Span, local_types: frozenset[str] = frozenset(),
                 polymorphic: bool = False) -> None:
        self.type = type_expr
        self.span = span
        self.local_types = local_types
        self.polymorphic = polymorphic


def _plain_exception(declaration: ast.ExceptionDecl | list[ast.Declaration], where: str) -> ast.ExceptionDecl:
    """An exception declaration where one with an inline record (its record type declared with
    it: `exception_record`) is not supported."""
    if isinstance(declaration, list):
        raise CompileError(declaration[-1].span, f"an exception with an inline record in {where} is not supported in FL")
    return declaration


class _InlineRecord:
    """`C of { fields }` in a variant (`type_variant` gives its record a type of its own)."""

    def __init__(self, name: str, fields: tuple[ast.FieldDecl, ...], span: Span) -> None:
        self.name, self.fields, self.span = name, fields, span


class _LocalTypes:
    """`(type a b)` among a function's parameters."""

    def __init__(self, names: frozenset[str], span: Span) -> None:
        self.names = names
        self.span = span


def _function(params: list[Any], body: ast.Expr, span: Span) -> ast.Expr:
    """`fun p1 ... pn -> body`; a `(type a)` among the parameters makes `a` a type variable in
    the parameters after it and in the body (FL's locally abstract types: `'a`, inferred like
    any other, so that what OCaml accepts FL accepts)."""
    for index, param in enumerate(params):
        if isinstance(param, _LocalTypes):
            renamer = _TypeNamesRenamer(param.names)
            rest = [renamer.node(p) if not isinstance(p, _LocalTypes) else p for p in params[index + 1:]]
            return _function(params[:index] + rest, renamer.node(body), span)
    for param in params[::-1]:
        if isinstance(param, _Parameter):
            body = param.function(body, span)
        else:
            body = _fun_forcing(param, body, span)
    return body


def _label_of(token: Token) -> str:
    """A label's name as the AST keeps it, from `~x:`, `?x:`, `~x` or `?x`: `~x`, `?x`."""
    return str(token).rstrip(":")


@dataclasses.dataclass(frozen=True)
class Labelled:
    """A `~x:e` or `?x:e` argument (label `~x`, `?x`), until `apply` makes it a labelled `ast.App`."""

    label: str
    value: ast.Expr
    span: Span


@dataclasses.dataclass(frozen=True)
class _Parameter:
    """A labelled (`~x`) or optional (`?x`) parameter: its pattern and an optional one's default."""

    label: str
    pattern: ast.Pattern
    default: ast.Expr | None
    span: Span

    def function(self, body: ast.Expr, span: Span) -> ast.Fun:
        """`fun ~x:p -> body`; `fun ?x:(p = e) -> body` takes an option, bound to p as
        `match x with Some v -> v | None -> e` (e evaluated only when x is left out)."""
        if self.default is None:
            return _fun_forcing(self.pattern, body, span, self.label)
        given = "*opt*" + self.label[1:]
        matched = ast.Match(ast.Var(given, self.span), (
            ast.Case(ast.PConstruct("Some", (ast.PVar(given, self.span),), self.span), None,
                     ast.Var(given, self.span), self.span),
            ast.Case(ast.PConstruct("None", (), self.span), None, self.default, self.span)), self.span)
        binding = _bound_forcing(ast.Binding(self.pattern, matched, self.span))
        # (the option is named where the pattern is: OCaml places a warning of the parameter there)
        return ast.Fun(ast.PVar(given, self.pattern.span), ast.Let(False, (binding,), body, span), span,
                       label=self.label)


def _type_nodes(texpr: ast.TypeExpr) -> Iterator[ast.TypeExpr]:
    stack = [texpr]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.TyArrow):
            stack.extend((node.param, node.result))
        elif isinstance(node, ast.TyTuple):
            stack.extend(node.items)
        elif isinstance(node, ast.TyName):
            stack.extend(node.args)


class _TypeNamesRenamer:
    """Makes the type constructors `names` (locally abstract types) type variables `'a`."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names

    def node(self, value: Any) -> Any:
        return _rewritten(value, self.rename) if self.names else value

    def rename(self, node: Any) -> Any:
        if isinstance(node, ast.TyName) and not node.args and node.name in self.names:
            return ast.TyVar("'" + node.name, node.span)
        return node
def parse_module(text: str, file: str, modules: Scope | None = None) -> ast.Module:
    """Parse a whole FL source file, raising `CompileError` on a syntax error, and elaborate
    its modules (`cpsc.syntax.modules`). `modules` is the scope it is read in (the prelude's
    modules, and a toplevel session's), which is updated with what it declares."""
    module, uses_modules, qualifiers = _parse_items(text, file)
    scope = Scope() if modules is None else modules
    # a text that names no module as a module (most) is elaborated already: `M.x` is M's x,
    # unless a signature sealed M (its values are then seen through bindings of their own) or
    # M's x is another module's (`include List` in ListLabels)
    sealed = any(isinstance(named, Env) and (named.sealed or named.renamed)
                 for named in map(scope.modules.get, qualifiers))
    if uses_modules or sealed or has_module_items(module.declarations) or scope.declared:
        module = ast.Module(tuple(elaborate(module.declarations, scope)), module.files)
    if "__FUNCTION__" in text:
        module = _FunctionNames(_unit_name(file)).module(module)
    return module


def _unit_name(file: str) -> str:
    """The module a file is, as OCaml names it (`prog.ml` is `Prog`); none for the toplevel."""
    if file.startswith("<") or file.startswith("["):
        return ""
    stem = os.path.splitext(os.path.basename(file))[0]
    return stem[:1].upper() + stem[1:]


class _FunctionNames:
    """`__FUNCTION__` as ocamlopt gives it: the names of the definitions it is in, the module
    path first (`Prog.M.f.inner`), `(fun)` for an anonymous function."""

    def __init__(self, unit: str) -> None:
        self.unit = unit

    def module(self, module: ast.Module) -> ast.Module:
        declarations = tuple(self.declaration(d) for d in module.declarations)
        return ast.Module(declarations, module.files)

    def declaration(self, declaration: Any) -> Any:
        if not isinstance(declaration, ast.LetDecl):
            return declaration
        return replace(declaration, bindings=tuple(self.binding(b, self.unit) for b in declaration.bindings))

    def binding(self, binding: ast.Binding, scope: str) -> ast.Binding:
        names = ast.pattern_names(binding.pattern)
        inner = ".".join(part for part in (scope, names[0] if names else "") if part) if names else scope
        return replace(binding, value=self.function_body(binding.value, inner))

    def function_body(self, expr: Any, scope: str) -> Any:
        """A definition's value: its `fun`s are the definition's own."""
        if isinstance(expr, ast.Fun):
            return replace(expr, param=self.node(expr.param, scope), body=self.function_body(expr.body, scope))
        if isinstance(expr, ast.Annot):
            return replace(expr, expr=self.function_body(expr.expr, scope))
        return self.node(expr, scope)

    def node(self, node: Any, scope: str) -> Any:
        if isinstance(node, ast.Var) and node.name == "__FUNCTION__":
            return ast.Const(scope or "<unknown>", "string", node.span)
        if isinstance(node, ast.Let):  # (a local definition is named when it is a function's)
            bindings = tuple(self.binding(b, scope) if isinstance(ast.unannotated(b.value), ast.Fun)
                             else replace(b, value=self.node(b.value, scope)) for b in node.bindings)
            return replace(node, bindings=bindings, body=self.node(node.body, scope))
        if isinstance(node, ast.Fun):
            return self.function_body(node, f"{scope}.(fun)" if scope else "(fun)")
        if isinstance(node, tuple):
            return tuple(self.node(item, scope) for item in node)
        if not hasattr(node, "__dataclass_fields__") or isinstance(node, Span):
            return node
        changes = {name: self.node(getattr(node, name), scope) for name in node.__dataclass_fields__
                   if name not in ("span", "ty")}
        return replace(node, **changes)


def parse_items(text: str, file: str) -> ast.Module:
    """The text's items as written, the module language not yet elaborated (for tests)."""
    return _parse_items(text, file)[0]


def _parse_items(text: str, file: str) -> tuple[ast.Module, bool, set[str]]:
    """The items, whether an expression uses the module language, and the modules that
    qualified names begin with."""
    cleaned = strip_attributes(strip_comments(text, file))
    reject_outside_fl(cleaned, file)
    parser, builder = _parser()
    limit = deep_stack.max_syntax_depth()
    try:
        with _parsing:  # the one builder names the file in every span it makes
            builder.file = file
            builder.module_expressions = False
            builder.qualifiers = set()
            module = parser.parse(cleaned, limit)
            uses_modules, qualifiers = builder.module_expressions, builder.qualifiers
    except lalr.NestedTooDeep as nested:  # not `err`: compiled, a name has one type
        line, col = nested.token.line or 1, nested.token.column or 1
        raise too_deep(Span(file, line, col, line, col + 1), limit) from None
    except lark.exceptions.UnexpectedCharacters as err:
        # lark declares `pos_in_stream = None` on the class: compiled, a typed read of it fails
        position: Any = vars(err).get("pos_in_stream")
        span = Span(file, err.line, err.column, err.line, err.column + 1)
        raise CompileError(span, lexical_error(cleaned, int(position or 0))) from None
    except lark.exceptions.UnexpectedToken as err:
        tok = err.token
        if tok.type == "$END":
            lines = text.rstrip().split("\n")
            span = Span(file, len(lines), len(lines[-1]) + 1, len(lines), len(lines[-1]) + 2)
            raise CompileError(span, "Syntax error: unexpected end of file") from None
        span = Span(file, tok.line or 0, tok.column or 0, tok.end_line or 0, tok.end_column or 0)
        raise CompileError(span, f"Syntax error: unexpected {str(tok)!r}") from None
    except lark.exceptions.UnexpectedEOF:
        lines = text.rstrip().split("\n")
        span = Span(file, len(lines), len(lines[-1]) + 1, len(lines), len(lines[-1]) + 2)
        raise CompileError(span, "Syntax error: unexpected end of file") from None
    assert isinstance(module, ast.Module)
    return module, uses_modules, qualifiers


def parse_type(text: str) -> ast.TypeExpr:
    """Parse a type expression, e.g. the signature of a primitive."""
    module = parse_module(f"let _ = (fun x -> x : {text})", "<builtin>")
    declaration = module.declarations[0]
    assert isinstance(declaration, ast.LetDecl)
    expr = declaration.bindings[0].value
    assert isinstance(expr, ast.Annot)
    return expr.annotation

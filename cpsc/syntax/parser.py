"""Parse FL source text into the AST of `cpsc.syntax.ast` with the Lark grammar beside it (`grammar.lark`)."""

from __future__ import annotations

import functools
import hashlib
import pickle
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import lark
from lark import Lark

from cpsc.support import deep_stack
from cpsc.support.cache import cache_dir, pickle_by_constructor, source_text, store_version
from cpsc.support.files import package_file
from cpsc.syntax import ast, lalr, module_ast
from cpsc.syntax.diagnostics import CompileError, Span, too_deep
from cpsc.syntax.lalr import LalrDriver, ParseTables
from cpsc.syntax.lexical import lexical_error, reject_outside_fl, strip_attributes, strip_comments
from cpsc.syntax.rules import ToAst


@functools.cache
def _parser() -> tuple[LalrDriver, ToAst]:
    """The LALR parser, with the AST built by `ToAst` as rules are reduced."""
    builder = ToAst()
    methods = _callbacks(builder)
    return LalrDriver(_parse_tables(methods), methods), builder


def _parse_tables(methods: SimpleNamespace) -> ParseTables:
    """The grammar's parse tables, from the user's cache folder (keyed by the grammar, Lark's
    version and the tables' format), else made by Lark and stored there."""
    grammar = package_file("syntax/grammar.lark")
    format_source = source_text(lalr) + source_text(sys.modules[__name__])
    digest = hashlib.sha256(b"\0".join([grammar.encode(), lark.__version__.encode(), format_source])).hexdigest()[:16]
    path = cache_dir() / f"parse-tables-{digest}.pickle"
    try:
        tables = pickle.loads(path.read_bytes())
        if isinstance(tables, ParseTables):
            return tables
    except Exception:  # noqa: BLE001 - missing or damaged: make them again
        pass
    tables = ParseTables.from_lark(lark_parser(methods), methods)
    store_version(path, pickle.dumps(tables, protocol=pickle.HIGHEST_PROTOCOL), "parse-tables-*.pickle")
    return tables


def lark_parser(methods: SimpleNamespace) -> Lark:
    """Lark's LALR parser of the grammar, for its tables: a file of implementation (`start`) or
    of interface (`interface`)."""
    return Lark(package_file("syntax/grammar.lark"), parser="lalr", start=["start", "interface"],
                maybe_placeholders=False, transformer=methods)


_parsing = threading.Lock()
pickle_by_constructor([ParseTables])


def _callbacks(builder: ToAst) -> SimpleNamespace:
    """What Lark calls on each reduction, `rule(children)`: the `ToAst` method of the rule's
    name with the children as arguments. (Lark's own `v_args(inline=True)` does the same but
    builds a wrapper object per call, which doubled the parse time.)"""
    methods = {name: getattr(builder, name) for name in dir(builder) if not name.startswith("_")}
    return SimpleNamespace(**{name: _spread(method) for name, method in methods.items() if callable(method)})


def _spread(method: Callable[..., Any]) -> Callable[[list[Any]], Any]:
    return lambda children: method(*children)


@dataclass(frozen=True)
class Parsed:
    """A source file's items as written, the module language not yet elaborated
    (`cpsc.elaborate`), and what elaboration asks of them."""

    module: ast.Module
    file: str
    uses_modules: bool  # whether an expression uses the module language (`M.(e)`, `let module`)
    # the module paths it names: as such (`open M.N`, `F (M)`) and in qualified names (`M.N`
    # of `M.N.x`, `M.C`, `r.M.x`, `M.t`); the units a unit depends on begin some of them
    module_paths: frozenset[str]
    names_function: bool  # whether the text says `__FUNCTION__`
    # its files that name a function a literal format may be given (`printf`): only their
    # declarations are looked at for formats to rewrite (`cpsc.formats`)
    formats: frozenset[str] = frozenset()
    signature: module_ast.Signature | None = None  # an interface file's (`parse_interface`)

    @property
    def qualifiers(self) -> frozenset[str]:
        """The modules it names (`Bytes` of `Bytes.make`, `M` of `M.N.x`)."""
        return frozenset(path.partition(".")[0] for path in self.module_paths)


def parse(text: str, file: str) -> Parsed:
    """Parse a whole FL source file, raising `CompileError` on a syntax error."""
    return _parse(text, file, "start")


def parse_interface(text: str, file: str) -> Parsed:
    """Parse an interface file (`util.mli`): its items are its `signature`."""
    return _parse(text, file, "interface")


def _parse(text: str, file: str, start: str) -> Parsed:
    cleaned = strip_attributes(strip_comments(text, file))
    reject_outside_fl(cleaned, file)
    parser, builder = _parser()
    limit = deep_stack.max_syntax_depth()
    try:
        with _parsing:  # the one builder names the file in every span it makes
            builder.file = file
            builder.module_expressions = False
            builder.module_paths = set()
            builder.names_printer = False
            module = parser.parse(cleaned, limit, start)
            uses_modules, module_paths = builder.module_expressions, builder.module_paths
            formats = frozenset({file}) if builder.names_printer else frozenset()
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
    signature: module_ast.Signature | None = None
    if isinstance(module, module_ast.Signature):  # an interface's
        signature, module = module, ast.Module((), (file,))
    assert isinstance(module, ast.Module)
    return Parsed(module, file, uses_modules, frozenset(module_paths), "__FUNCTION__" in text, formats, signature)


def parse_items(text: str, file: str) -> ast.Module:
    """The text's items as written, the module language not yet elaborated (for tests)."""
    return parse(text, file).module


def parse_type(text: str) -> ast.TypeExpr:
    """Parse a type expression, e.g. the signature of a primitive."""
    module = parse_items(f"let _ = (fun x -> x : {text})", "<builtin>")
    declaration = module.declarations[0]
    assert isinstance(declaration, ast.LetDecl)
    expr = declaration.bindings[0].value
    assert isinstance(expr, ast.Annot)
    return expr.annotation

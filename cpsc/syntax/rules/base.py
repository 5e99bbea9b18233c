"""The AST builder's base: the file being read and the spans of what a rule reduces."""

from __future__ import annotations

from typing import Any

from lark import Token

from cpsc.syntax import ast
from cpsc.syntax.desugar import annotation_on_value
from cpsc.syntax.diagnostics import CompileError, Span


def node_span(child: Any) -> Span | None:
    if isinstance(child, Token):
        return None
    if isinstance(child, list):
        return node_span(child[0]) if child else None
    return getattr(child, "span", None)


# the names that stand for where they are written, and (`__LOC_OF__ e`) where an expression is
LOCATION_NAMES = {"__LOC__": "loc", "__FILE__": "file", "__LINE__": "line", "__POS__": "pos",
                   "__MODULE__": "module"}
LOCATION_OF = {"__LOC_OF__": "loc", "__LINE_OF__": "line", "__POS_OF__": "pos"}


# How the names of the functions that take a literal format end (`Printf.printf`, `Format.asprintf`,
# `Scanf.sscanf`...: every one `cpsc.formats` rewrites): a text that names none has no format to
# rewrite.
PRINTER_ENDINGS = ("printf", "scanf")


class RuleBase:
    """Builds AST nodes inside the LALR parser, as each rule is reduced (no parse tree, so no
    recursion however deep the input nests). A node's span runs from its first child to its
    last; the grammar keeps the keywords and brackets that begin or end a node as tokens."""

    def __init__(self) -> None:
        self.file = "<input>"
        # whether the text uses the module language in an expression (`M.(e)`, `let module`)
        self.module_expressions = False
        # the module paths named: as such (`open M`, `F (M)`), or in a qualified name (`Bytes`
        # of `Bytes.make`, `M.N` of `M.N.C`, `r.M.x`, `M.t`)
        self.module_paths: set[str] = set()
        # whether it names a function that a literal format may be given (`cpsc.formats`)
        self.names_printer = False
        # the bindings annotated `: 'a. t`, by id: checked after a top-level declaration
        self.polymorphic: dict[int, tuple[ast.Binding, ast.TypeExpr]] = {}

    def _qualified(self, name: str) -> str:
        if "." in name:
            self.module_paths.add(name.rpartition(".")[0])
        return name

    def _span(self, children: tuple[Any, ...]) -> Span:
        first = children[0]
        last = children[-1]
        if isinstance(first, Token):
            line, col = first.line or 0, first.column or 0
        else:
            start = node_span(first)
            line, col = (start.line, start.col) if start is not None else (0, 0)
        if isinstance(last, Token):
            end_line, end_col = last.end_line or 0, last.end_column or 0
        else:
            end = node_span(last)
            end_line, end_col = (end.end_line, end.end_col) if end is not None else (0, 0)
        return Span(self.file, line, col, end_line, end_col)

    def _tok_span(self, tok: Token) -> Span:
        return Span(self.file, tok.line or 0, tok.column or 0, tok.end_line or 0, tok.end_column or 0)

    def _rec_bindings(self, parts: tuple[Any, ...]) -> tuple[bool, tuple[ast.Binding, ...]]:
        is_rec = any(isinstance(p, Token) and p.type == "REC" for p in parts)
        bindings = tuple(c for p in parts if isinstance(p, ast.Binding) for c in ast.tuple_components(p))
        if is_rec:
            moved = tuple(annotation_on_value(b) for b in bindings)
            for old, new in zip(bindings, moved):  # (a `f : 'a. t` stays one: `_polymorphic_checks`)
                if id(old) in self.polymorphic:
                    self.polymorphic[id(new)] = (new, self.polymorphic.pop(id(old))[1])
            bindings = moved
            for b in bindings:
                if not isinstance(b.pattern, ast.PVar):
                    raise CompileError(b.pattern.span, "Only variables are allowed as left-hand side of `let rec'")
        return is_rec, bindings

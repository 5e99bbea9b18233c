"""The AST builder the LALR parser runs: one method per grammar rule, called as the rule is
reduced. Each file adds the rules of one part of the grammar, on top of those before it
(`base` < `patterns` < `expressions` < `declarations` < `modules` < `ToAst`)."""

from __future__ import annotations

from typing import Any

from lark import Token

from cpsc.syntax import ast
from cpsc.syntax.diagnostics import CompileError
from cpsc.syntax.rules.modules import ModuleRules
from cpsc.syntax.rules.parts import TopLevelItem


class ToAst(ModuleRules):
    """Builds AST nodes inside the LALR parser, as each rule is reduced (no parse tree, so no
    recursion however deep the input nests). A node's span runs from its first child to its
    last; the grammar keeps the keywords and brackets that begin or end a node as tokens."""

    # ---------------------------------------------------------------- top level
    def start(self, *items: Any) -> ast.Module:
        decls: list[Any] = []
        separated = True  # by `;;` from what came before (the start of the file is)
        for item in items:
            if isinstance(item, Token):  # the `;;`s before the first item
                continue
            assert isinstance(item, TopLevelItem)
            if item.expression and not separated and item.span is not None:
                raise CompileError(item.span, "Syntax error: a top-level expression after a declaration "
                                   "needs `;;` before it")
            decls.extend(item.declarations)
            separated = item.separated
        return ast.Module(tuple(decls), (self.file,))  # with module items: `elaborate` takes them out


setattr(ToAst, "lambda", ToAst.lambda_)  # a keyword in Python, a rule name in the grammar

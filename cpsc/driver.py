"""The compilation pipeline as plain functions; the CLI, the REPL and the tests all call these."""

from __future__ import annotations

import functools

from cpsc.mono.mono import monomorphise
from cpsc.syntax import ast
from cpsc.syntax.diagnostics import SourceFiles
from cpsc.syntax.parser import lang_file, parse_module
from cpsc.types.infer import infer_module

PRELUDE_FILE = "<prelude>"


@functools.cache
def _prelude() -> ast.Module:
    return parse_module(lang_file("prelude.fl"), PRELUDE_FILE)


def parse_program(text: str, file: str, sources: SourceFiles | None = None) -> ast.Module:
    """The user's program with the prelude's declarations in front."""
    if sources is not None:
        sources.add(file, text)
        sources.add(PRELUDE_FILE, lang_file("prelude.fl"))
    user = parse_module(text, file)
    return ast.Module(_prelude().declarations + user.declarations, (PRELUDE_FILE, file))


def front_end(text: str, file: str, sources: SourceFiles | None = None) -> ast.Expr:
    """Parse, type-check and monomorphise: the whole program as one typed expression."""
    module = parse_program(text, file, sources)
    typing = infer_module(module)
    return monomorphise(module, typing)

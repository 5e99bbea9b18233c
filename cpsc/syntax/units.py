"""Compilation units: the module a source file is."""

from __future__ import annotations

import os

# The standard library's text, which is no unit of the program's (`cpsc.types.prelude`)
PRELUDE_FILE = "<prelude>"


def unit_name(file: str) -> str:
    """The module a file is, as ocamlopt names it: its name up to the first dot, capitalised
    (`prog.ml` is `Prog`, `a.b.ml` is `A`); none ("") for text that is no file (`<stdin>`, the
    toplevel's phrases `[1]`)."""
    if file.startswith(("<", "[")):
        return ""
    stem = os.path.basename(file).split(".")[0]
    return stem[:1].upper() + stem[1:]

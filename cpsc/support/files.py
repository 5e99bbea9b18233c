"""The files shipped inside the `cpsc` package that are not Python: the grammars beside their
representations (`syntax/grammar.lark`, `cps/grammar.lark`, `ssa/grammar.lark`) and the standard
library (`stdlib/*.fl`, read in `stdlib/order.txt`'s order)."""

from __future__ import annotations

from importlib import resources


def package_file(path: str) -> str:
    """The text of the file at `path` inside the `cpsc` package (`"cps/grammar.lark"`)."""
    return resources.files("cpsc").joinpath(path).read_text()

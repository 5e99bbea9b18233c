"""The files shipped in the `lang/` folder (the grammars, the prelude), for every stage that
reads one."""

from __future__ import annotations

from importlib import resources


def lang_file(name: str) -> str:
    """The text of a file shipped in the `lang/` folder."""
    return resources.files("lang").joinpath(name).read_text()


def lang_path(name: str) -> str:
    """Where a file shipped in the `lang/` folder is (for a debugger to show it)."""
    return str(resources.files("lang").joinpath(name))

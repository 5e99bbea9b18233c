"""Writing what the compiler makes without ever losing what was there.

No output may replace an input (`cpsc build noext` would otherwise overwrite the program with
its executable, as `-o prog.fl` would), and every output is made under a temporary name in its
own directory and renamed into place only once complete: a failed link, a full disk or Ctrl-C
leaves the file that was there as it was, and no half-written one.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path


class OutputError(Exception):
    """The file an output would go to cannot or must not be written."""


def check_output(output: str, inputs: Iterable[str]) -> None:
    """Say before compiling, not after, that `output` is a directory, lies in a missing one,
    or is one of the `inputs` (the same file under any name)."""
    path = Path(output)
    if path.is_dir():
        raise OutputError(f"cannot write {output}: it is a directory")
    if not path.parent.is_dir():
        raise OutputError(f"cannot write {output}: no directory {path.parent}")
    for name in inputs:
        if name != "-" and _same_file(path, Path(name)):
            raise OutputError(f"the output {output} would overwrite the input {name}; name another with -o")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one does not exist (yet)
        return a.resolve() == b.resolve()


@contextmanager
def replacing(output: str) -> Iterator[str]:
    """A temporary name beside `output`, to make it under; renamed to `output` when the block
    ends normally, removed when it raises (or is interrupted)."""
    path = Path(output)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.cpsc-tmp")
    try:
        yield str(temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_atomically(output: str, data: bytes) -> None:
    """`output`'s contents become `data` at once, with the permissions a new file gets."""
    with replacing(output) as temporary:
        _write_new(temporary, data)


def _write_new(name: str, data: bytes) -> None:
    descriptor = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    with os.fdopen(descriptor, "wb") as file:
        file.write(data)


def made_atomically(output: str, make: Callable[[str], None]) -> None:
    """`make(name)` writes a file at `name` (a linker, say); it becomes `output` once complete."""
    with replacing(output) as temporary:
        make(temporary)

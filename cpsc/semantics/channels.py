"""Channels of files for the interpreters: `open_in`, `open_out` and what reads and writes
through them, by handle (0 is stdin, whose reading the program's `Output` does). The C
runtime does the same with stdio (`fl_open_channel`...). A handle is never reused, so a
closed channel reads as one."""

from __future__ import annotations

import itertools
import os
import stat
import sys
from collections.abc import Callable
from typing import IO, Any


class InputBuffer:
    """What is read of an input, buffered as OCaml's in_channel is (and the C runtime's stdio,
    with OCaml's buffer size): `read` once (one read(2) of at most 64 KiB) when the buffer is
    spent, so that `input` gives at once what OCaml's gives."""

    def __init__(self, read: Callable[[], bytes]) -> None:
        self.read = read
        self.buffer = b""
        self.position = 0  # in the buffer
        self.start = 0  # the input's offset of the buffer's first byte

    def _fill(self) -> bool:
        """Read once into a new buffer (the old one spent); False at the end."""
        chunk = self.read()
        if not chunk:
            return False
        self.start, self.buffer, self.position = self.start + len(self.buffer), chunk, 0
        return True

    def at_eof(self) -> bool:
        return self.position == len(self.buffer) and not self._fill()

    def take(self, most: int) -> bytes:
        data = self.buffer[self.position:self.position + most]
        self.position += len(data)
        return data

    def read_line(self) -> bytes:
        pieces = []
        while not self.at_eof():
            end = self.buffer.find(b"\n", self.position)
            if end >= 0:
                pieces.append(self.take(end - self.position))
                self.position += 1
                break
            pieces.append(self.take(len(self.buffer)))
        return b"".join(pieces)


class _Reader(InputBuffer):
    """A file open for reading; a seek inside the buffer keeps it, as OCaml's does."""

    def __init__(self, fd: int) -> None:
        super().__init__(lambda: os.read(fd, BUFFER_BYTES))
        self.fd = fd

    def tell(self) -> int:
        return self.start + self.position

    def seek(self, offset: int) -> None:
        if self.start <= offset <= self.start + len(self.buffer):
            self.position = offset - self.start
        else:
            os.lseek(self.fd, offset, os.SEEK_SET)
            self.start, self.buffer, self.position = offset, b"", 0

    def fileno(self) -> int:
        return self.fd

    def writable(self) -> bool:
        return False

    def close(self) -> None:
        os.close(self.fd)


_files: dict[int, Any] = {}
_handles = itertools.count(1)
_last_error = [""]
_MODES = {0: "rb", 1: "wb", 2: "ab"}  # read, write (truncated), append
BUFFER_BYTES = 65536  # OCaml's channel buffer: what one read of a file gives at most


_GENERAL, _INPUT = 1 << 20, 1 << 19  # open_in_gen / open_out_gen (cpsc/stdlib/exit_and_channels.fl, `fl_open_gen`)
# open_flag bits, in the order of OCaml's type, as open(2)'s flags
_FLAGS = [os.O_RDONLY, os.O_WRONLY, os.O_APPEND, os.O_CREAT, os.O_TRUNC, os.O_EXCL, 0, 0, os.O_NONBLOCK]


def _open_general(path: bytes, mode: int) -> IO[bytes] | _Reader:
    """open(2) with the flags and permissions of `open_in_gen`/`open_out_gen`."""
    flags = 0
    for bit, flag in enumerate(_FLAGS):
        if mode & (1 << bit):
            flags |= flag
    fd = os.open(path, flags, (mode >> 9) & 0o777)
    if mode & _INPUT:
        return _Reader(fd)
    return os.fdopen(fd, "ab" if flags & os.O_APPEND else "wb")


def open_channel(path: str, mode: int) -> int:
    """A handle of the file, or -1 (its error then `channel_error`)."""
    try:
        name = path.encode("latin-1")
        file: IO[bytes] | _Reader
        if mode & _GENERAL:
            file = _open_general(name, mode)
        elif mode == 0:
            file = _Reader(os.open(name, os.O_RDONLY))
        else:
            file = open(name, _MODES[mode])  # noqa: SIM115
    except OSError as error:
        _last_error[0] = os.strerror(error.errno or 0)
        return -1
    handle = next(_handles)
    _files[handle] = file
    return handle


def channel_error(_: Any) -> str:
    return _last_error[0]


def close_channel(handle: int) -> None:
    file = _files.pop(handle, None)
    if file is not None:
        file.close()


def write(handle: int, text: str) -> None:
    file = _files.get(handle)
    if file is not None:
        file.write(text.encode("latin-1"))


def flush(handle: int) -> None:
    file = _files.get(handle)
    if file is not None:
        file.flush()


def _reader(handle: int) -> _Reader | None:
    file = _files.get(handle)
    return file if isinstance(file, _Reader) else None


def read_char(handle: int) -> int:
    """The next byte, or -1 at the end (or of a closed channel)."""
    file = _reader(handle)
    return -1 if file is None or file.at_eof() else file.take(1)[0]


def read_available(handle: int, most: int) -> str:
    """OCaml's `input`: what the buffer holds (read once when it holds none), at most `most`."""
    file = _reader(handle)
    if file is None or most <= 0 or file.at_eof():
        return ""
    return file.take(most).decode("latin-1")


def at_eof(handle: int) -> bool:
    file = _reader(handle)
    return file is None or file.at_eof()


def read_line(handle: int) -> str:
    """The next line without its newline (`at_eof` said there is one)."""
    file = _reader(handle)
    return file.read_line().decode("latin-1") if file is not None else ""


def length(handle: int) -> int:
    """The size of a file's channel (as written so far: not what is still buffered), else -1."""
    file = _files.get(handle)
    if file is None:
        return -1
    return os.fstat(file.fileno()).st_size


def position(handle: int) -> int:
    file = _files.get(handle)
    return file.tell() if file is not None else -1


def seek(handle: int, offset: int) -> bool:
    file = _files.get(handle)
    if file is None or offset < 0:
        return False
    file.seek(offset)
    return True


def remove_file(path: str) -> bool:
    """Whether the file was removed (else its error is `channel_error`'s)."""
    try:
        os.remove(path.encode("latin-1"))
    except OSError as error:
        _last_error[0] = os.strerror(error.errno or 0)
        return False
    return True


def _failed(error: OSError) -> None:
    _last_error[0] = os.strerror(error.errno or 0)


def is_directory(path: str) -> int:
    """1 for a directory, 0 for another file, -1 when there is none (its error is
    `channel_error`'s)."""
    try:
        return 1 if stat.S_ISDIR(os.stat(path.encode("latin-1")).st_mode) else 0
    except OSError as error:
        _failed(error)
        return -1


def rename(source: str, target: str) -> bool:
    try:
        os.rename(source.encode("latin-1"), target.encode("latin-1"))
    except OSError as error:
        _failed(error)
        return False
    return True


def executable_name(_: Any) -> str:
    """The program running: in the interpreters, Python (as OCaml's toplevel names itself)."""
    return os.path.realpath(sys.executable).encode().decode("latin-1")


def getcwd(_: Any) -> str:
    return os.getcwd().encode().decode("latin-1")


def _succeeds(action: Callable[[], object]) -> bool:
    """Whether the system call succeeded (else its error is `channel_error`'s)."""
    try:
        action()
    except OSError as error:
        _failed(error)
        return False
    return True


def mkdir(path: str, permissions: int) -> bool:
    return _succeeds(lambda: os.mkdir(path.encode("latin-1"), permissions))


def rmdir(path: str) -> bool:
    return _succeeds(lambda: os.rmdir(path.encode("latin-1")))


def chdir(path: str) -> bool:
    return _succeeds(lambda: os.chdir(path.encode("latin-1")))


def readdir(path: str) -> list[str]:
    """The entries but `.` and `..`, in the directory's order; when it cannot be read, one name
    no entry can have: NUL and the error."""
    try:
        return [name.decode("latin-1") for name in os.listdir(path.encode("latin-1"))]
    except OSError as error:
        return ["\0" + os.strerror(error.errno or 0)]


def command(text: str) -> int:
    """The shell's exit status, or 255 when a signal ended it, as OCaml's Sys.command."""
    status = os.system(text.encode("latin-1"))
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 255


def file_exists(path: str) -> bool:
    return os.path.exists(path.encode("latin-1"))


def flush_all() -> None:
    """At the program's end, as OCaml's at_exit flushes every channel."""
    for file in _files.values():
        if file.writable():
            file.flush()

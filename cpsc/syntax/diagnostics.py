"""Source locations and compiler diagnostics in the common `file:line:col: error: ...` form."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True, unsafe_hash=True)  # not frozen, its own __init__: see cpsc.cps.ir
class Span:
    """A region of a source file; lines and columns count from 1, `end_col` is exclusive."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __init__(self, file: str, line: int, col: int, end_line: int, end_col: int) -> None:
        self.file = file
        self.line = line
        self.col = col
        self.end_line = end_line
        self.end_col = end_col

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NO_SPAN = Span("<builtin>", 0, 0, 0, 0)


class CompileError(Exception):
    """A diagnostic about the user's program; the CLI prints it and exits with status 1."""

    def __init__(self, span: Span, message: str, notes: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.span = span
        self.message = message
        self.notes = notes

    def __str__(self) -> str:
        """`file:line:col: error: message`, as the command line says it (without the source line)."""
        return f"{self.span.file}:{self.span.line}:{self.span.col}: error: {self.message}"


class SourceFiles:
    """The texts of the files a compilation read, to quote lines in diagnostics."""

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}

    def add(self, name: str, text: str) -> None:
        self._texts[name] = text

    def text(self, name: str) -> str:
        return self._texts.get(name, "")

    def line(self, name: str, number: int) -> str | None:
        text = self._texts.get(name)
        if text is None:
            return None
        lines = text.split("\n")
        return lines[number - 1] if 0 < number <= len(lines) else None


def render(error: CompileError, sources: SourceFiles, severity: str = "error") -> str:
    """Format a diagnostic with the offending source line and a caret underline."""
    span = error.span
    out = [f"{span}: {severity}: {error.message}"]
    source_line = sources.line(span.file, span.line)
    if source_line is not None:
        width = span.end_col - span.col if span.end_line == span.line else len(source_line) - span.col + 1
        out.append(f"  {span.line:>4} | {terminal_text(source_line)}")
        out.append("       | " + " " * len(terminal_text(source_line[:span.col - 1])) + "^" + "~" * max(0, width - 1))
    out.extend(f"note: {note}" for note in error.notes)
    return "\n".join(out)



def terminal_text(line: str) -> str:
    """Text that is bytes held as latin-1 (a source line, whose columns count bytes; what a
    program printed) as a terminal shows it: UTF-8 read as UTF-8, so that a caret stays under
    the character it points at."""
    try:
        return line.encode("latin-1").decode("utf-8", "replace")
    except UnicodeEncodeError:  # text that was never bytes (a REPL phrase)
        return line


def too_deep(span: Span, limit: int) -> CompileError:
    """The diagnostic for a program nested beyond what the compiler's stack holds
    (`cpsc.support.deep_stack.max_syntax_depth`), where it passes the limit."""
    return CompileError(span, f"this expression is nested too deeply for cpsc to compile (more than {limit:,} levels)")

"""OCaml's toplevel directives (`#use "file";;`, `#quit;;`, `#show_val x;;`...), answered as
OCaml 4.13's toplevel answers them."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from cpsc.project import UnitFiles
from cpsc.project.units import Unit, interface_of
from cpsc.repl.commands import Quit
from cpsc.repl.session import Session, SessionError, unit_phrase
from cpsc.repl.show import type_declaration
from cpsc.syntax import ast
from cpsc.syntax.units import unit_name

_DIRECTIVE = re.compile(r"\s*#([a-z_]+)\b\s*(.*?)\s*(?:;;)?\s*$", re.S)


def is_directive(text: str) -> bool:
    return _DIRECTIVE.fullmatch(text) is not None and text.lstrip().startswith("#")


def execute(session: Session, text: str) -> str:
    """Run one directive phrase; `Quit` for `#quit`."""
    match = _DIRECTIVE.fullmatch(text)
    assert match is not None
    name, argument = match.group(1), match.group(2)
    run = DIRECTIVES.get(name)
    if run is None:
        return f"Unknown directive `{name}'.\n"
    return run(session, argument)


def _file_argument(argument: str) -> str:
    match = re.fullmatch(r'"((?:[^"\\]|\\.)*)"', argument)
    if match is None:
        raise SessionError("Wrong type of argument for directive: a file name in quotes, as \"prog.ml\".")
    return match.group(1)


def _read(session: Session, argument: str) -> tuple[str, str] | str:
    """(the file's name, its text), or OCaml's answer when it cannot be read."""
    name = _file_argument(argument)
    found = session.find(name)
    try:
        if found is None:
            raise OSError
        return found, Path(found).read_bytes().decode("latin-1")
    except OSError:
        return f"Cannot find file {name}.\n"


def _use(session: Session, argument: str) -> str:
    read = _read(session, argument)
    return read if isinstance(read, str) else session.phrase(read[1])


def _mod_use(session: Session, argument: str) -> str:
    """The file as a module named after it (`m.ml`: `module M : sig ... end`)."""
    read = _read(session, argument)
    if isinstance(read, str):
        return read
    file = read[0]
    unit = Unit(unit_name(file), file, interface_of(file))
    return session.phrase(unit_phrase(unit, UnitFiles(lambda f: read[1] if f == file else _text(f))))


def _text(file: str) -> str:
    return Path(file).read_bytes().decode("latin-1")


def _directory(session: Session, argument: str) -> str:
    """`#directory "lib"`: look for units and files there too."""
    session.load_path.append(_file_argument(argument))
    return ""


def _show_val(session: Session, argument: str) -> str:
    if not re.fullmatch(r"(?:[A-Z]\w*\.)*[a-z_]\w*'*", argument):
        return "Wrong type of argument for directive `show_val'.\n"
    try:
        shown = session.type_of(argument)
    except SessionError:
        return "Unknown element.\n"
    return f"val {argument.rsplit('.', 1)[-1]}{shown.removeprefix('-')}"


def _type_declarations(session: Session, name: str) -> str | None:
    """The last declaration of type `name` in the session, as OCaml prints it."""
    for declaration in reversed(session.toplevel.declarations):
        if isinstance(declaration, ast.TypeDecl) and any(d.name == name for d in declaration.definitions):
            return type_declaration(declaration)
    return None


def _show_type(session: Session, argument: str) -> str:
    shown = _type_declarations(session, argument) or _PREDEFINED.get(argument)
    return (shown + "\n") if shown is not None else "Unknown element.\n"


def _show_module(session: Session, argument: str) -> str:
    shown = session.toplevel.modules_shown.get(argument)
    return shown if shown is not None else "Unknown element.\n"


def _show(session: Session, argument: str) -> str:
    """Whatever the name names: a value, a type, a module."""
    if argument[:1].isupper():
        return _show_module(session, argument)
    answers = [a for a in (_show_val(session, argument), _show_type(session, argument)) if a != "Unknown element.\n"]
    return "".join(answers) or "Unknown element.\n"


def _number(directive: str, setting: Callable[[Session, int], None]) -> Callable[[Session, str], str]:
    def run(session: Session, argument: str) -> str:
        if not argument.isdigit():
            return f"Wrong type of argument for directive `{directive}'.\n"
        setting(session, int(argument))
        return ""
    return run


def _print_length(session: Session, length: int) -> None:
    session.toplevel.print_length = length


def _print_depth(session: Session, depth: int) -> None:
    session.toplevel.print_depth = depth


def _quit(session: Session, argument: str) -> str:
    raise Quit


def _help(session: Session, argument: str) -> str:
    return "".join(f"#{name}{' ' + usage if usage else ''}\n  {text}\n" for name, (usage, text) in sorted(_HELP.items()))


_PREDEFINED = {"int": "type int", "char": "type char", "string": "type string", "float": "type float",
               "bool": "type bool = false | true", "unit": "type unit = ()", "exn": "type exn = ..",
               "list": "type 'a list = [] | (::) of 'a * 'a list", "option": "type 'a option = None | Some of 'a",
               "array": "type 'a array", "bytes": "type bytes", "int32": "type int32", "int64": "type int64",
               "nativeint": "type nativeint", "lazy_t": "type 'a lazy_t", "format6":
               "type ('a, 'b, 'c, 'd, 'e, 'f) format6"}
_HELP = {"quit": ("", "Exit the toplevel."),
         "use": ("<str>", "Read, compile and execute source phrases from the given file."),
         "mod_use": ("<str>", "Usage is identical to #use but #mod_use wraps the contents in a module."),
         "directory": ("<str>", "Add the given directory to search path for source and compiled files."),
         "show": ("<ident>", "Print the signatures of components from any of the categories below."),
         "show_val": ("<ident>", "Print the signature of the corresponding value."),
         "show_type": ("<ident>", "Print the signature of the corresponding type constructor."),
         "show_module": ("<ident>", "Print the signature of the corresponding module."),
         "print_length": ("<int>", "Limit the number of value nodes printed."),
         "print_depth": ("<int>", "Limit the printing of values to a given depth."),
         "help": ("", "Prints a list of all available directives, with corresponding argument type if appropriate.")}

DIRECTIVES: dict[str, Callable[[Session, str], str]] = {
    "quit": _quit, "use": _use, "mod_use": _mod_use, "directory": _directory, "show": _show, "show_val": _show_val,
    "show_type": _show_type, "show_module": _show_module, "help": _help,
    "print_length": _number("print_length", _print_length), "print_depth": _number("print_depth", _print_depth),
}

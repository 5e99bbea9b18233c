"""`cpsc check | build | run | interp`: the command line.

The interpreters, printers and the JIT are imported where they are used: a plain build does
not pay for loading them (start-up time is most of the compile time of a small program).
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from cpsc import driver
from cpsc.cli.output import OutputError, check_output, made_atomically, write_atomically
from cpsc.cps.sites import DebugSites
from cpsc.elaborate import parse_module
from cpsc.llvm.backend import emit_assembly, emit_object, optimize
from cpsc.opt.pipeline import LEVELS, PASSES
from cpsc.project import UnitFiles
from cpsc.project.units import Aliases, Unit, UnitFinder
from cpsc.support.deep_stack import call_with_deep_stack, max_syntax_depth
from cpsc.support.stages import Stages
from cpsc.syntax import ast
from cpsc.syntax.ast import deepest_span
from cpsc.syntax.diagnostics import CompileError, SourceFiles, Span, render, too_deep

if TYPE_CHECKING:
    from cpsc.semantics.values import Outcome

EMITS = ("cps", "dot", "ssa", "llvm", "asm", "obj", "exe")


def _arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cpsc", description="Compile FL programs to native code.")
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="parse and type-check")
    check.add_argument("files", nargs="+", metavar="file", help=_FILES_HELP)
    for name, text in (("build", "compile to an executable (or --emit an IR)"),
                       ("run", "compile with LLVM's JIT and run in-process"),
                       ("interp", "run with an interpreter (--level ast|cps|ssa)")):
        p = sub.add_parser(name, help=text)
        if name == "build":
            p.add_argument("files", nargs="+", metavar="file", help=_FILES_HELP)
        else:  # what follows the main file is the program's arguments
            p.add_argument("file", help="the program's main file (- for standard input)")
        p.add_argument("-O", dest="opt", type=int, choices=range(4), default=2, metavar="LEVEL")
        p.add_argument("--passes", help="comma-separated CPS passes instead of the -O level's list")
        p.add_argument("--verify", action="store_true", help="run the IR verifiers after every pass")
        p.add_argument("--dump-after", metavar="PASS|all", help="print the CPS IR after a pass")
        p.add_argument("--time-passes", action="store_true", help="time and count each pass")
        p.add_argument("--remarks", choices=("inline", "specialise", "contify", "all"),
                       help="print the optimiser's decisions at each call site of the program")
        p.add_argument("--fuel", type=_count, metavar="N", help="stop optimising after N rewrites in all")
        if name in ("build", "run"):
            p.add_argument("-g", dest="debug", action="store_true",
                           help="debugging information (DWARF, for gdb and perf) and exception backtraces "
                                "(OCAMLRUNPARAM=b or Printexc.record_backtrace true)")
        if name == "build":
            p.add_argument("-o", dest="output")
            p.add_argument("--emit", choices=EMITS, default="exe")
            p.add_argument("--static", action="store_true",
                           help="an executable that needs no shared library (libgc is always linked in)")
            p.add_argument("--parts", type=_positive, metavar="N",
                           help="compile in N parts, in parallel (1: one module, in this process; "
                                "default: one for a small program, one per processor for a large one)")
        if name == "interp":
            p.add_argument("--level", choices=("ast", "cps", "ssa"), default="cps")
            p.add_argument("--count", action="store_true",
                           help="print the dynamic counts of the CPS interpreter on stderr")
        if name in ("run", "interp"):  # as for `ocaml prog.ml ...`: what follows the file is the program's
            p.add_argument("arguments", nargs=argparse.REMAINDER, help="the program's arguments (Sys.argv after the file)")
    bisect = sub.add_parser("bisect", help="find the first rewrite of the optimiser that changes the output")
    bisect.add_argument("files", nargs="+", metavar="file", help=_FILES_HELP)
    bisect.add_argument("-O", dest="opt", type=int, choices=range(4), default=2, metavar="LEVEL")
    bisect.add_argument("--passes", help="comma-separated CPS passes instead of the -O level's list")
    sub.add_parser("repl", help="an interactive toplevel with IR versions, inlining by hand, undo and diff")
    for p in sub.choices.values():
        p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR",
                       help="look for the units the program uses in DIR too (after the main file's folder)")
        p.add_argument("--plugin", action="append", default=[], metavar="MODULE",
                       help="import a Python file or module (beside the program, or in the working "
                            "directory) that registers passes (cpsc.register_pass); also from "
                            "$CPSC_PLUGINS, comma-separated")
    return parser


_FILES_HELP = ("the program: its main file, whose units are found beside it and in the -I folders; "
               "every file in link order, as for ocamlopt; or a dune project's folder (- for standard input)")


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive number")
    return int(text)


def _count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of rewrites (0 or more)")
    return int(text)


def _check_pass_names(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse, as a usage error, a pass that does not exist once the plugins have registered theirs."""
    known = ", ".join(sorted(PASSES))
    for name in [n for n in (getattr(args, "passes", None) or "").split(",") if n]:
        if name not in PASSES:
            parser.error(f"unknown pass {name} (known: {known})")
    dump = getattr(args, "dump_after", None)
    if dump is not None and dump != "all" and dump not in PASSES:
        parser.error(f"--dump-after: no pass '{dump}' (known: all, {known})")


def _version() -> str:
    """cpsc's version, with those of the LLVM and libgc it builds with."""
    from importlib.metadata import PackageNotFoundError, version

    import llvmlite
    import llvmlite.binding as llvm

    try:
        own = version("cpsc")
    except PackageNotFoundError:
        own = "(not installed)"
    major, minor, patch = llvm.llvm_version_info
    return f"cpsc {own} (LLVM {major}.{minor}.{patch} through llvmlite {llvmlite.__version__}, libgc {_libgc_version()})"


def _libgc_version() -> str:
    """The version of libgc's headers, which the runtime is compiled against."""
    import re

    for header in (Path("/usr/include/gc/gc_version.h"), Path("/usr/include/gc_version.h")):
        if header.exists():
            parts = re.findall(r"#define GC_TMP_VERSION_(?:MAJOR|MINOR|MICRO) (\d+)", header.read_text())
            if len(parts) == 3:
                return ".".join(parts)
    return "unknown"


class InputError(Exception):
    """The program's file cannot be read (status 2, as a missing file is for ocaml)."""


def _file_names(args: argparse.Namespace) -> list[str]:
    """The files named on the command line: the main file, or every file in link order."""
    return list(args.files) if hasattr(args, "files") else [args.file]


def _main_file(args: argparse.Namespace) -> str:
    return _file_names(args)[-1]


def _read(file: str) -> str:
    try:
        data = sys.stdin.buffer.read() if file == "-" else Path(file).read_bytes()
    except OSError as error:
        raise InputError(f"cannot read {file}: {error.strerror or error}") from None
    return data.decode("latin-1")


def _units(args: argparse.Namespace, sources: SourceFiles,
           stages: Stages) -> tuple[list[Unit | Aliases], UnitFiles, UnitFinder | None]:
    """The program's units in link order and its files, found once (standard input can be
    read only once); a program of one file without an interface is compiled as that file."""
    found = getattr(args, "found_units", None)
    if found is None:

        def read(file: str) -> str:
            text = _read(file)
            sources.add(file, text)  # (what finding the units says quotes them)
            return text

        files = UnitFiles(read)
        names = _file_names(args)
        units: list[Unit | Aliases] = [Unit("", "-")]
        finder = None
        if names != ["-"]:
            with stages.stage("parse"):
                units, finder = driver.find_program(names, getattr(args, "include", []), files)
        found = units, files, finder
        args.found_units = found
    return found


def _front_end(args: argparse.Namespace, sources: SourceFiles, stages: Stages) -> ast.Program:
    units, files, finder = _units(args, sources, stages)
    return driver.front_end_units(units, files, sources, stages, finder)


def _load_plugins(args: argparse.Namespace) -> None:
    """Import each plugin: a Python file (`passes/strength.py`), or a module found on the path,
    beside the program or in the working directory (`strength`)."""
    names = args.plugin + [n for n in os.environ.get("CPSC_PLUGINS", "").split(",") if n]
    program = _main_file(args) if hasattr(args, "file") or hasattr(args, "files") else None
    places = [str(Path(program).resolve().parent)] if program else []
    for name in names:
        try:
            _import_plugin(name, places + [os.getcwd()])
        except Exception as error:  # noqa: BLE001 - a plugin's own error, said as such
            raise SystemExit(f"cpsc: error: cannot load plugin {name}: {type(error).__name__}: {error}") from None


def _import_plugin(name: str, places: list[str]) -> None:
    import importlib
    import importlib.util

    if name.endswith(".py") or os.sep in name:
        path = Path(name)
        if not path.is_file():
            raise FileNotFoundError(f"no file {name}")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module  # as an imported module is: its classes can be pickled
        spec.loader.exec_module(module)
        return
    sys.path[:0] = [p for p in places if p not in sys.path]
    importlib.import_module(name)


def _passes(args: argparse.Namespace) -> list[str]:
    if args.passes is not None:
        return [n for n in args.passes.split(",") if n]
    return LEVELS[args.opt].passes


def _compile_cps(args: argparse.Namespace, sources: SourceFiles, stages: Stages):  # type: ignore[no-untyped-def]
    program = _front_end(args, sources, stages)
    _warn(program, sources)

    def dump(name: str, p: object) -> None:
        from cpsc.cps.printer import print_program

        if args.dump_after in (name, "all"):
            print(f";; after {name}", file=sys.stderr)
            print(print_program(p), file=sys.stderr)  # type: ignore[arg-type]

    context = LEVELS[args.opt].context(args.fuel)
    units = _units(args, sources, stages)[0]
    args.sites = DebugSites(sources.text, units=len(units) > 1) if getattr(args, "debug", False) else None
    converted = driver.to_cps(program, stages, args.sites)
    context.frames = frozenset(args.sites.toplevel) if args.sites is not None else None
    cps, reports = driver.optimise(converted, _passes(args), args.verify, dump, stages, context)
    if args.remarks:
        own = tuple(f"{file}:" for unit in units for file in unit.files)
        for remark in context.remarks:
            if remark.loc is not None and remark.loc.startswith(own) and args.remarks in ("all", remark.pass_name):
                print(remark, file=sys.stderr)
    if args.time_passes:
        for r in reports:
            counts = ", ".join(f"{k}: {v}" for k, v in sorted(r.counts.items())) or "no change"
            print(f"pass {r.name:<10} {r.seconds * 1000:8.2f} ms  {counts}", file=sys.stderr)
    return program, cps


def _finish(outcome: Outcome) -> int:
    sys.stdout.buffer.write(outcome.stdout.encode("latin-1"))
    sys.stdout.flush()
    sys.stderr.write(outcome.stderr)
    return outcome.status


def _run(args: argparse.Namespace, sources: SourceFiles, stages: Stages) -> int:
    if args.command == "check":
        _warn(_front_end(args, sources, stages), sources)
        return 0
    if args.command == "bisect":
        from cpsc.opt.bisect import bisect

        typed = _front_end(args, sources, stages)
        return bisect(driver.to_cps(typed, stages), _passes(args), LEVELS[args.opt].inline_budget, sys.stdout)
    units = _units(args, sources, stages)[0]  # an unreadable program is said before anything else
    output = _output(args)
    if output is not None:
        check_output(output, _file_names(args) + [file for unit in units for file in unit.files])
    program, cps = _compile_cps(args, sources, stages)
    if args.command == "interp":
        return _interpret(args, program, cps, stages)
    del program  # the typed AST is not needed any more: a smaller heap makes the later stages faster
    emit = getattr(args, "emit", "exe")
    if emit == "cps":
        from cpsc.cps.printer import print_program

        return _write(args, print_program(cps))
    if emit == "dot":
        from cpsc.cps.dot import program_dot

        return _write(args, program_dot(cps))
    module = driver.to_ssa_module(cps, args.verify, stages)
    if emit == "ssa":
        from cpsc.ssa.printer import print_module

        return _write(args, print_module(module))
    if emit in ("llvm", "asm", "obj"):
        optimized = optimize(driver.to_llvm(module, stages, args.sites), args.opt)
        if emit == "llvm":
            return _write(args, str(optimized))
        if emit == "asm":
            return _write(args, emit_assembly(optimized, args.opt))
        assert output is not None
        write_atomically(output, emit_object(optimized, args.opt))
        return 0
    if args.command == "build":
        assert output is not None
        made_atomically(output, lambda name: driver.native_executable(module, args.opt, name, stages, args.parts,
                                                                      args.static, args.sites))
        return 0
    from cpsc.llvm.jit import run_jit

    sys.stdout.flush()
    llvm_ir = driver.to_llvm(module, stages, args.sites)
    gc.enable()
    return run_jit(llvm_ir, args.opt, [args.file, *args.arguments])


def _output(args: argparse.Namespace) -> str | None:
    """The file a build writes (None: standard output, or no file at all)."""
    if args.command != "build":
        return None
    if args.output not in (None, "-"):
        return str(args.output)
    main = _main_file(args)
    if os.path.isdir(main):  # a dune project: its executable's name
        main = args.found_units[0][-1].files[-1]
    stem = "stdin" if main == "-" else Path(main).stem
    if args.emit == "exe" and args.output is None:
        return stem
    if args.emit == "obj" and args.output is None:
        return stem + ".o"
    return None


def _warn(program: ast.Program, sources: SourceFiles) -> None:
    """Warnings go to stderr and compilation goes on, as with OCaml."""
    for warning in program.warnings:
        print(render(warning, sources, "warning"), file=sys.stderr)


def _too_deep(file: str) -> CompileError:
    """Locate a RecursionError at the program's deepest point (parsing is not recursive, so the
    file parses again)."""
    text = Path(file).read_text(encoding="latin-1") if file != "-" else ""
    span = deepest_span(parse_module(text, file)) or Span(file, 1, 1, 1, 2)
    return too_deep(span, max_syntax_depth())


def _interpret(args: argparse.Namespace, program: object, cps: object, stages: Stages) -> int:
    from cpsc.cps.interp import COUNTED, run_cps
    from cpsc.mono.interp import run_ast
    from cpsc.semantics import builtins
    from cpsc.ssa.interp import run_ssa

    builtins.PROGRAM_ARGUMENTS[:] = [args.file, *args.arguments]  # Sys.argv, as `ocaml prog.fl ...` gives it

    runs: dict[str, Callable[[], Outcome]] = {
        "ast": lambda: run_ast(program),  # type: ignore[arg-type]
        "cps": lambda: run_cps(cps, counts=counts),  # type: ignore[arg-type]
        "ssa": lambda: run_ssa(driver.to_ssa_module(cps, args.verify, stages)),  # type: ignore[arg-type]
    }
    counts: Counter[str] | None = Counter() if args.count else None
    gc.enable()  # interpreted programs make cyclic garbage (recursive closures)
    status = _finish(runs[args.level]())
    if counts is not None:
        print("counts: " + ", ".join(f"{name} {counts[name]}" for name in COUNTED), file=sys.stderr)
    return status


def _write(args: argparse.Namespace, text: str) -> int:
    output = _output(args)
    if output is not None:
        write_atomically(output, text.encode("utf-8"))
    else:  # `-o -` is stdout, as for cc
        sys.stdout.write(text)
    return 0


def entry() -> NoReturn:
    """The `cpsc` command: `main`, then exit. The objects still alive (the prelude, the
    program's IR) are frozen first, so that the collector's last pass at exit does not walk
    them all: 25 ms of a 240 ms build of `hello.fl`, more for larger programs."""
    try:
        status = main()
    except KeyboardInterrupt:  # Ctrl-C: stop quietly, with the shell's status for SIGINT
        sys.exit(130)
    gc.freeze()
    sys.exit(status)


def main(argv: list[str] | None = None) -> int:
    collecting = gc.isenabled()
    # The compiler builds millions of objects and frees them by reference counting; the cyclic
    # collector's passes over them made compile time superlinear (a 4,000-line file parsed 2.5x
    # slower with it). The interpreters and the JIT turn it back on.
    gc.disable()
    try:
        return _main(argv)
    finally:
        if collecting:
            gc.enable()


def _main(argv: list[str] | None) -> int:
    parser = _arguments()
    args = parser.parse_args(argv)
    _load_plugins(args)
    _check_pass_names(parser, args)
    if args.command == "repl":  # on this thread: each phrase goes to a deep stack, interruptibly
        from cpsc.repl.ui import main as repl

        gc.enable()  # the toplevel interprets programs, which make cyclic garbage
        return repl(args.include)
    sources = SourceFiles()
    stages = Stages()
    try:
        return call_with_deep_stack(lambda: _run(args, sources, stages))
    except CompileError as error:
        if not sources.text(error.span.file) and os.path.isfile(error.span.file):  # a dune file
            sources.add(error.span.file, Path(error.span.file).read_text(encoding="latin-1"))
        print(render(error, sources), file=sys.stderr)
        return 1
    except OutputError as error:
        print(f"cpsc: error: {error}", file=sys.stderr)
        return 1
    except InputError as error:
        print(f"cpsc: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # writing an output, or running the C compiler
        print(f"cpsc: error: {error.filename}: {error.strerror or error}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as error:  # the C compiler said why on stderr
        print(f"cpsc: error: {Path(error.cmd[0]).name} failed (status {error.returncode})", file=sys.stderr)
        return 1
    except RecursionError:
        if not hasattr(args, "file") and not hasattr(args, "files"):
            raise
        print(render(_too_deep(_main_file(args)), sources), file=sys.stderr)
        return 1
    finally:
        if getattr(args, "time_passes", False):
            print(stages.report(), file=sys.stderr)
            if getattr(args, "found_units", None) is not None:
                print(args.found_units[1].counts, file=sys.stderr)

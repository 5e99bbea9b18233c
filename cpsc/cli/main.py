"""`cpsc check | build | run | interp`: the command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cpsc import driver
from cpsc.cps.interp import run_cps
from cpsc.cps.printer import print_program
from cpsc.llvm.backend import emit_assembly, emit_object, optimize
from cpsc.llvm.jit import run_jit
from cpsc.opt.pipeline import LEVELS, PASSES
from cpsc.ssa.interp import run_ssa
from cpsc.ssa.printer import print_module
from cpsc.syntax.diagnostics import CompileError, SourceFiles, render
from cpsc.syntax.interp import run_ast
from cpsc.syntax.values import Outcome

EMITS = ("cps", "ssa", "llvm", "asm", "obj", "exe")


def _arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cpsc", description="Compile FL programs to native code.")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="parse and type-check")
    check.add_argument("file")
    for name, text in (("build", "compile to an executable (or --emit an IR)"),
                       ("run", "compile with LLVM's JIT and run in-process"),
                       ("interp", "run with an interpreter (--level ast|cps|ssa)")):
        p = sub.add_parser(name, help=text)
        p.add_argument("file")
        p.add_argument("-O", dest="opt", type=int, choices=range(4), default=2, metavar="LEVEL")
        p.add_argument("--passes", help="comma-separated CPS passes instead of the -O level's list")
        p.add_argument("--verify", action="store_true", help="run the IR verifiers after every pass")
        p.add_argument("--dump-after", metavar="PASS|all", help="print the CPS IR after a pass")
        p.add_argument("--time-passes", action="store_true", help="time and count each pass")
        if name == "build":
            p.add_argument("-o", dest="output")
            p.add_argument("--emit", choices=EMITS, default="exe")
        if name == "interp":
            p.add_argument("--level", choices=("ast", "cps", "ssa"), default="cps")
    return parser


def _passes(args: argparse.Namespace) -> list[str]:
    if args.passes is not None:
        names = [n for n in args.passes.split(",") if n]
        unknown = [n for n in names if n not in PASSES]
        if unknown:
            raise SystemExit(f"cpsc: error: unknown pass {unknown[0]} (known: {', '.join(sorted(PASSES))})")
        return names
    return LEVELS[args.opt]


def _compile_cps(args: argparse.Namespace, sources: SourceFiles):  # type: ignore[no-untyped-def]
    text = Path(args.file).read_text(encoding="latin-1")
    program = driver.front_end(text, args.file, sources)

    def dump(name: str, p: object) -> None:
        if args.dump_after in (name, "all"):
            print(f";; after {name}", file=sys.stderr)
            print(print_program(p), file=sys.stderr)  # type: ignore[arg-type]

    cps, reports = driver.optimise(driver.to_cps(program), _passes(args), args.verify, dump)
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


def _run(args: argparse.Namespace, sources: SourceFiles) -> int:
    if args.command == "check":
        driver.front_end(Path(args.file).read_text(encoding="latin-1"), args.file, sources)
        return 0
    program, cps = _compile_cps(args, sources)
    if args.command == "interp":
        if args.level == "ast":
            return _finish(run_ast(program))
        if args.level == "cps":
            return _finish(run_cps(cps))
        return _finish(run_ssa(driver.to_ssa_module(cps, args.verify)))
    emit = getattr(args, "emit", "exe")
    if emit == "cps":
        return _write(args, print_program(cps))
    module = driver.to_ssa_module(cps, args.verify)
    if emit == "ssa":
        return _write(args, print_module(module))
    if emit == "llvm":
        return _write(args, str(optimize(driver.to_llvm(module), args.opt)))
    if emit == "asm":
        return _write(args, emit_assembly(optimize(driver.to_llvm(module), args.opt), args.opt))
    if emit == "obj":
        data = emit_object(optimize(driver.to_llvm(module), args.opt), args.opt)
        Path(args.output or Path(args.file).with_suffix(".o").name).write_bytes(data)
        return 0
    if args.command == "build":
        driver.native_executable(module, args.opt, args.output or Path(args.file).stem)
        return 0
    sys.stdout.flush()
    return run_jit(driver.to_llvm(module), args.opt)


def _write(args: argparse.Namespace, text: str) -> int:
    if getattr(args, "output", None):
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def main(argv: list[str] | None = None) -> int:
    sys.setrecursionlimit(100_000)
    args = _arguments().parse_args(argv)
    sources = SourceFiles()
    try:
        return _run(args, sources)
    except CompileError as error:
        print(render(error, sources), file=sys.stderr)
        return 1
    except FileNotFoundError as error:
        print(f"cpsc: error: cannot read {error.filename}", file=sys.stderr)
        return 1

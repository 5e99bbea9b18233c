"""Run a program in-process with llvmlite's MCJIT (`cpsc run`, and later the REPL).

The runtime is loaded as a shared library; `fl_run` gives the JIT-compiled `fl_program` the
same large stack, Stack_overflow handling and output buffering as a linked executable. A
program that calls `exit` or dies of an uncaught exception ends this process with its status,
exactly as the executable would.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import llvmlite.binding as llvm

from cpsc.llvm.backend import optimize, runtime_library, target_machine
from cpsc.semantics.values import Outcome


def run_jit_in_child(llvm_ir: str, opt: int, stdin: str = "", argv: Sequence[str] = ()) -> Outcome:
    """Run `llvm_ir` with the JIT in a child Python process reading `stdin`, capturing what it
    prints: an `exit` or a crash ends the child, not the caller (the REPL's `:run`, the API's `run`)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "program.ll"
        path.write_text(llvm_ir)
        root = str(Path(__file__).resolve().parents[2])  # cpsc importable even if not installed
        paths = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
        done = subprocess.run([sys.executable, "-m", "cpsc.llvm.jit", str(path), str(opt), *argv], capture_output=True,
                              input=stdin.encode("latin-1"), env={**os.environ, "PYTHONPATH": paths})
    return Outcome(done.stdout.decode("latin-1"), done.stderr.decode("latin-1"), done.returncode)


def run_jit(llvm_ir: str, opt: int, argv: Sequence[str] = ()) -> int:
    """Compile `llvm_ir` (from `cpsc.llvm.lower`) at `-O<opt>` and run it with `argv` as its
    Sys.argv (none: just "prog"); returns its status."""
    library = str(runtime_library())
    llvm.load_library_permanently(library)
    module = optimize(llvm_ir, opt)
    engine = llvm.create_mcjit_compiler(module, target_machine(opt, jit=True))
    engine.finalize_object()
    entry = engine.get_function_address("fl_program")
    runtime = ctypes.CDLL(library)
    if argv:
        strings = (ctypes.c_char_p * len(argv))(*(a.encode() for a in argv))
        runtime.fl_set_argv(ctypes.c_int(len(argv)), strings)
    runtime.fl_run.argtypes = [ctypes.c_void_p]
    runtime.fl_run.restype = ctypes.c_int
    return int(runtime.fl_run(ctypes.c_void_p(entry)))


if __name__ == "__main__":  # `python -m cpsc.llvm.jit FILE.ll OPT [ARGV...]`: see `run_jit_in_child`
    raise SystemExit(run_jit(Path(sys.argv[1]).read_text(), int(sys.argv[2]), sys.argv[3:]))

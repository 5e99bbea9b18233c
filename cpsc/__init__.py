"""cpsc: an optimising compiler for FL through a functional CPS IR, basic-block SSA and LLVM.

The Python API, for scripts and notebooks:

    import cpsc
    p = cpsc.compile(text, filename="prog.ml")    # a Program: the CPS IR, no pass run yet
    q = p.inline("f", 0).run_pass("simplify")      # new Programs (p is unchanged)
    q.run(level="cps" | "ast" | "ssa" | "jit" | "native", stdin="", args=["a"])
    print(p.diff(q)); q.call_sites("f"); q.cfg("f")

- `compile(text, filename)`: a `Program`; a `CompileError` (str: `file:line:col: error: ...`)
  if the text is not a valid program;
- `compile_files(files, include)`: the same for a program of several files, named as on the
  command line (the main file, every file in link order, or a dune project's folder);
- `parse`, `infer_types`: the declarations, the top-level names' types;
- `Program`, `CallSite`, `Outcome`, `WorkbenchError`: the workbench (`cpsc.workbench`);
- `register_pass(name, function)`: a pass of your own, usable by name everywhere;
- `Session`, `SessionError`: the toplevel's session (`cpsc.repl.session`).

They are imported on first use, so that the command line does not pay for them."""

from __future__ import annotations

from typing import Any

from cpsc.support import dataclass_cache, native

native.select()  # compiled or source modules: before any of them is imported

dataclass_cache.install()  # before any module of cpsc defines a dataclass

__version__ = "0.1.0"

_API = {"compile": "cpsc.api", "compile_files": "cpsc.api", "parse": "cpsc.api", "infer_types": "cpsc.api", "Program": "cpsc.api",
        "CallSite": "cpsc.api", "Outcome": "cpsc.api", "WorkbenchError": "cpsc.api", "register_pass": "cpsc.opt.pipeline",
        "Session": "cpsc.repl.session", "SessionError": "cpsc.repl.session",
        "CompileError": "cpsc.syntax.diagnostics"}
__all__ = sorted(_API)


def __dir__() -> list[str]:
    return sorted(__all__ + ["__version__"])


def __getattr__(name: str) -> Any:
    if name in _API:
        import importlib

        return getattr(importlib.import_module(_API[name]), name)
    raise AttributeError(f"module 'cpsc' has no attribute {name!r}")

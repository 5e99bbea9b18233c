"""cpsc: an optimising compiler for FL through a functional CPS IR, basic-block SSA and LLVM.

The Python API (`cpsc.compile`, `cpsc.Program`, `cpsc.register_pass`, `cpsc.Session`...) is in
`cpsc.api` and `cpsc.repl.session`; it is imported on first use, so that the command line does
not pay for it."""

from __future__ import annotations

from typing import Any

from cpsc import dataclass_cache, native

native.select()  # compiled or source modules: before any of them is imported

dataclass_cache.install()  # before any module of cpsc defines a dataclass

__version__ = "0.1.0"

_API = {"compile": "cpsc.api", "parse": "cpsc.api", "infer_types": "cpsc.api", "Program": "cpsc.api",
        "CallSite": "cpsc.api", "Outcome": "cpsc.api", "WorkbenchError": "cpsc.api", "register_pass": "cpsc.opt.pipeline",
        "Session": "cpsc.repl.session", "SessionError": "cpsc.repl.session"}


def __getattr__(name: str) -> Any:
    if name in _API:
        import importlib

        return getattr(importlib.import_module(_API[name]), name)
    raise AttributeError(f"module 'cpsc' has no attribute {name!r}")

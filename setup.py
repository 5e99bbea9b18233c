"""Builds cpsc with its stages compiled to C by mypyc (see `cpsc/support/native.py`); `CPSC_PURE=1`
builds it without (pure Python, as every module also runs).

`scripts/bootstrap` compiles a checkout in place: `python setup.py build_ext --inplace`."""

from __future__ import annotations

import importlib.util
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

# Not compiled: the command line, the REPL and the test helpers (start-up and interaction, not
# compile time); the modules that must stay plain Python (`native` chooses between compiled and
# source, `__init__` runs it, `dataclass_cache` patches the standard library before any class is
# made); those that subclass builtins (`list`, `str`), which mypyc cannot compile; the JIT's
# glue, whose ctypes call into code the execution engine owns crashed when compiled; and the
# three interpreters, whose FL `Stack_overflow` is Python's RecursionError, which compiled
# code never raises (it recurses on the C stack unchecked), and which the REPL subclasses.
INTERPRETED = {"cpsc/__init__.py", "cpsc/__main__.py", "cpsc/support/__init__.py", "cpsc/support/native.py", "cpsc/support/dataclass_cache.py",
               "cpsc/support/cache.py", "cpsc/support/deep_stack.py", "cpsc/api.py", "cpsc/cps/parser.py",
               "cpsc/semantics/builtins.py", "cpsc/semantics/values.py", "cpsc/llvm/jit.py",
               "cpsc/mono/interp.py", "cpsc/cps/interp.py", "cpsc/ssa/interp.py"}
INTERPRETED_PACKAGES = ("cpsc/cli/", "cpsc/repl/", "cpsc/testing/")


def compiled_sources() -> list[str]:
    sources = sorted(path.as_posix() for path in Path("cpsc").rglob("*.py"))
    return [s for s in sources if s not in INTERPRETED and not s.startswith(INTERPRETED_PACKAGES)]


def _compile_in_parallel(self: Any, sources: list[str], output_dir: str | None = None, macros: Any = None,
                         include_dirs: Any = None, debug: int = 0, extra_preargs: Any = None,
                         extra_postargs: Any = None, depends: Any = None) -> list[str]:
    """`CCompiler.compile` with one C file per core at a time: mypyc writes one per module."""
    macros, objects, extra_postargs, pp_opts, build = self._setup_compile(
        output_dir, macros, include_dirs, sources, depends, extra_postargs)
    cc_args = self._get_cc_args(pp_opts, debug, extra_preargs)

    def compile_one(obj: str) -> None:
        source, ext = build[obj]
        self._compile(obj, source, ext, cc_args, extra_postargs, pp_opts)

    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        list(pool.map(compile_one, objects))
    return objects


class BuildCompiled(build_ext):
    """Compiles the C files in parallel, then records the sources compiled (`cpsc/support/native.py`)."""

    def build_extensions(self) -> None:
        self.compiler.compile = _compile_in_parallel.__get__(self.compiler)
        super().build_extensions()

    def run(self) -> None:
        if self.inplace:
            _remove_stale_extensions()
        super().run()
        if not self.extensions:
            return
        native = _native_module()
        folder = Path("cpsc") if self.inplace else Path(self.build_lib) / "cpsc"
        folder.mkdir(parents=True, exist_ok=True)
        native.write_manifest(folder / native.MANIFEST, compiled_sources())


def _remove_stale_extensions() -> None:
    """Extensions left in the checkout by a build of a module no longer compiled: they would
    be imported before its source."""
    compiled = {source.removesuffix(".py") for source in compiled_sources()}
    for extension in Path("cpsc").rglob("*.so"):
        if extension.as_posix().split(".")[0] not in compiled:
            extension.unlink()


def _native_module() -> Any:
    """`cpsc/support/native.py` alone: importing the package would run it."""
    spec = importlib.util.spec_from_file_location("cpsc_native", "cpsc/support/native.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def extensions() -> list[Any]:
    if os.environ.get("CPSC_PURE"):
        return []
    from mypyc.build import mypycify

    return mypycify(compiled_sources(), opt_level="3", multi_file=True, group_name="cpsc")


setup(ext_modules=extensions(), cmdclass={"build_ext": BuildCompiled})

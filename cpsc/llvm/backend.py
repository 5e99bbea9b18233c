"""LLVM optimisation (new pass manager), object and assembly emission, linking."""

from __future__ import annotations

import functools
import hashlib
import os
import subprocess
import tempfile
import time
import warnings
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import llvmlite.binding as llvm

from cpsc.support.cache import cache_dir, trim_folder


@functools.cache
def target_machine(opt: int, jit: bool = False) -> llvm.TargetMachine:
    """The host's target machine; `jit` selects the large code model.

    MCJIT maps a module's code and data sections separately, possibly more than 2 GB apart,
    so the small code model's 32-bit PC-relative references can overflow when it links them.
    """
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_default_triple()
    if jit:
        return target.create_target_machine(opt=opt, codemodel="large", jit=True)
    return target.create_target_machine(opt=opt, reloc="pic", codemodel="default")


# LLVM's pipeline for each of cpsc's levels. At -O2 the CPS optimiser has inlined, contified,
# and done CSE and LICM already, and LLVM's -O1 pipeline makes code as fast as its -O2 in the
# benchmarks (geomean over ocamlopt 0.74 against 0.76, the same within noise) in 60% of its
# time (a 2,000-line program: 120 ms against 205). -O3 asks for everything.
LLVM_LEVELS = {0: 0, 1: 1, 2: 1, 3: 3}


def optimize(llvm_ir: str, opt: int) -> llvm.ModuleRef:
    """Parse, verify and run LLVM's default pipeline for cpsc's `-O<opt>` (`LLVM_LEVELS`)."""
    module = llvm.parse_assembly(llvm_ir)
    module.verify()
    tm = target_machine(opt)
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    if LLVM_LEVELS[opt] > 0:
        pto = llvm.create_pipeline_tuning_options(speed_level=LLVM_LEVELS[opt])
        builder = llvm.create_pass_builder(tm, pto)
        builder.getModulePassManager().run(module, builder)
    return module


def emit_object(module: llvm.ModuleRef, opt: int) -> bytes:
    return bytes(target_machine(opt).emit_object(module))


def compile_timed(make_ir: Callable[[], str], opt: int) -> tuple[bytes, float, float]:
    """The object code of the LLVM IR `make_ir()` gives (from the cache if it holds it), and
    the seconds lowering (making the IR) and LLVM's optimisation took."""
    start = time.perf_counter()
    llvm_ir = make_ir()
    lowered = time.perf_counter()
    cached = cached_object(llvm_ir, opt)
    if cached is not None:
        return cached, lowered - start, 0.0
    optimized = optimize(llvm_ir, opt)
    optimizing = time.perf_counter() - lowered
    return store_object(llvm_ir, opt, emit_object(optimized, opt)), lowered - start, optimizing


# Objects kept in the user's cache folder, by the LLVM IR they were made from: a rebuild after
# an edit in one place compiles again only the parts whose IR changed (the IR of the others is
# the same text). Each entry starts with the SHA-256 of the object, so a damaged one is made
# again, never linked; the oldest go when there are more than `KEPT_OBJECTS`.
KEPT_OBJECTS = 400
_CHECK = 32


def _object_path(llvm_ir: str, opt: int) -> Path:
    made_by = repr((LLVM_LEVELS[opt], opt, llvm.llvm_version_info, llvm.get_default_triple())).encode()
    key = hashlib.sha256(made_by + b"\0" + llvm_ir.encode()).hexdigest()
    return cache_dir() / "objects" / f"{key[:40]}.o"


def cached_object(llvm_ir: str, opt: int) -> bytes | None:
    try:
        data = _object_path(llvm_ir, opt).read_bytes()
    except OSError:
        return None
    return data[_CHECK:] if hashlib.sha256(data[_CHECK:]).digest() == data[:_CHECK] else None


def store_object(llvm_ir: str, opt: int, object_code: bytes) -> bytes:
    """Keep `object_code` as what `llvm_ir` compiles to; gives it back."""
    path = _object_path(llvm_ir, opt)
    try:
        path.parent.mkdir(exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as out:
            out.write(hashlib.sha256(object_code).digest() + object_code)
        os.replace(out.name, path)
        trim_folder(path.parent, KEPT_OBJECTS)
    except OSError:  # a full disk: the next build compiles it again
        pass
    return object_code


class ForkedCompile:
    """`compile_timed(make_ir, opt)` in a forked child process, so that several modules are
    lowered and compiled at once (llvmlite serialises all LLVM calls of a process under one
    lock, so threads would take turns). The child inherits the program and the initialised
    LLVM, and writes the object to a file, its timings beside it; `result` waits for both."""

    def __init__(self, make_ir: Callable[[], str], opt: int, folder: str) -> None:
        target_machine(opt)  # initialised before the fork, once for all children
        descriptor, self.path = tempfile.mkstemp(suffix=".o", dir=folder)
        os.close(descriptor)
        with warnings.catch_warnings():
            # Python 3.12 warns of forking a threaded process: the CLI's other thread only
            # waits for this one (`cpsc.support.deep_stack`), and the child runs no Python threads.
            warnings.simplefilter("ignore", DeprecationWarning)
            self.pid = os.fork()
        if self.pid == 0:  # the child: never returns into the parent's code
            status = 1
            try:
                object_code, lowering, optimizing = compile_timed(make_ir, opt)
                Path(self.path + ".seconds").write_text(f"{lowering} {optimizing}")
                Path(self.path).write_bytes(object_code)
                status = 0
            finally:
                os._exit(status)

    def result(self) -> tuple[bytes, float, float]:
        """As `compile_timed`'s."""
        _, status = os.waitpid(self.pid, 0)
        if status != 0:
            raise RuntimeError(f"LLVM failed on a part of the program (status {status})")
        lowering, optimizing = map(float, Path(self.path + ".seconds").read_text().split())
        return Path(self.path).read_bytes(), lowering, optimizing


def emit_assembly(module: llvm.ModuleRef, opt: int) -> str:
    return str(target_machine(opt).emit_assembly(module))


LIBRARIES = ("-lgc", "-lm", "-lpthread")
# An executable carries the collector in it, as ocamlopt's carry their runtime: it runs where
# libgc is not installed (readelf -d lists only libc, libm and the loader).
STATIC_COLLECTOR = ("-Wl,-Bstatic", "-lgc", "-Wl,-Bdynamic", "-lm", "-lpthread")


def compiler() -> str:
    return os.environ.get("CC", "cc")


# Runtimes kept: one per version of runtime.c and set of flags (plain, -g, static...)
KEPT_RUNTIMES = 12


def _cached_runtime(suffix: str, flags: list[str], libraries: tuple[str, ...] = ()) -> Path:
    """The C runtime built with `flags`, once per source version, in the user's cache."""
    source = resources.files("cpsc.runtime").joinpath("runtime.c").read_bytes()
    digest = hashlib.sha256(source + repr((flags, libraries)).encode()).hexdigest()[:16]
    built = cache_dir() / f"runtime-{digest}{suffix}"
    if not built.exists():
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "runtime.c"
            src.write_bytes(source)
            partial = Path(tmp) / ("runtime" + suffix)
            subprocess.run([compiler(), "-O2", "-fPIC", *flags, str(src), "-o", str(partial), *libraries],
                           check=True)
            os.replace(partial, built)  # atomic: concurrent builds cannot see a half-written file
        trim_folder(built.parent, KEPT_RUNTIMES, "runtime-*")
    return built


def runtime_object() -> Path:
    """The runtime as an object file with `main`, for linking executables."""
    return _cached_runtime(".o", ["-c"])


def runtime_library() -> Path:
    """The runtime as a shared library without `main`, for the JIT."""
    return _cached_runtime(".so", ["-shared", "-DFL_NO_MAIN"], LIBRARIES)


FULLY_STATIC = ("-static", "-lgc", "-lm", "-lpthread")


def link(objects: list[bytes], output: str, static: bool = False) -> None:
    """Link the program's objects (one per part) with the runtime into an executable (with
    `static`, one that needs no shared library at all)."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = [Path(tmp) / f"program{i}.o" for i in range(len(objects))]
        for path, object_code in zip(paths, objects):
            path.write_bytes(object_code)
        subprocess.run([compiler(), *map(str, paths), str(runtime_object()), "-o", output,
                        *(FULLY_STATIC if static else STATIC_COLLECTOR)], check=True)

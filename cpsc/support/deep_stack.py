"""Run a computation on a thread with a very large stack.

The compiler's stages and the interpreters recurse over the program's structure, and
machine-made programs nest 100,000 levels deep. Python's default thread stack (8 MiB) and
recursion limit would crash (segfault) or raise `RecursionError` long before that, so deep work
runs here. The recursion limit is chosen so that `RecursionError` comes before the C stack runs
out: every Python frame has `STACK_BYTES / RECURSION_LIMIT` = 4 KiB of C stack to itself.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

STACK_BYTES = 4 * 1024 * 1024 * 1024  # address space only: pages are committed as touched
RECURSION_LIMIT = 1_000_000
# The stages recurse over the syntax tree, a few frames per level of it; compiled by mypyc
# (`cpsc.support.native`), they use the C stack and never raise RecursionError, so the parser refuses
# a tree deeper than this, with a located diagnostic, before any stage recurses.
FRAMES_PER_SYNTAX_LEVEL = 4
RESEND_SECONDS = 0.2  # how often an interrupt not yet taken is raised again
# The interpreters (pure Python: their calls between Python functions use no C stack) recurse
# a few frames per FL call; this many let them go as deep as native code goes on ordinary data
# (`List.map` over a million elements: native code has 8 MiB of stack per 100,000 frames of
# it), so that the four levels agree. Reaching it takes about 4 GB.
INTERPRETER_RECURSION_LIMIT = 6_000_000


def with_recursion_limit(limit: int, function: Callable[[], T]) -> T:
    """`function()` with the recursion limit raised to `limit` (on a deep stack already)."""
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(max(saved, limit))
    try:
        return function()
    finally:
        sys.setrecursionlimit(saved)


def max_syntax_depth() -> int:
    """How deep a program's syntax tree may be (`RECURSION_LIMIT` is read when called: the
    tests lower it)."""
    return RECURSION_LIMIT // FRAMES_PER_SYNTAX_LEVEL

_lock = threading.Lock()
_running = 0
_saved_limit = 0
_local = threading.local()


def _enter() -> None:
    global _running, _saved_limit
    with _lock:
        if _running == 0:
            _saved_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(RECURSION_LIMIT)
        _running += 1


def _leave() -> None:
    global _running
    with _lock:
        _running -= 1
        if _running == 0:  # the limit is process-wide: restore it for shallow stacks
            sys.setrecursionlimit(_saved_limit)


def call_with_deep_stack(function: Callable[[], T], interruptible: bool = False) -> T:
    """`function()` computed on a thread with a 4 GiB stack; its exception is re-raised here.
    Ctrl-C (`KeyboardInterrupt`, which Python raises in the main thread) ends the process,
    unless `interruptible`: then it is raised in the computation instead, as soon as it runs
    Python code (the interpreters do; a compiled stage runs to its end first), so the toplevel
    can interrupt a phrase and go on."""
    if getattr(_local, "deep", False):
        return function()
    result: list[T] = []
    failure: list[BaseException] = []
    finished = threading.Event()

    def body() -> None:
        _local.deep = True
        try:
            try:
                result.append(function())
            except BaseException as error:  # noqa: BLE001 - handed on to the calling thread
                failure.append(error)
            finally:
                finished.set()
        except KeyboardInterrupt:  # an interrupt sent again as the computation ended
            pass

    _enter()
    try:
        with _lock:  # the thread stack size is process-wide too
            threading.stack_size(STACK_BYTES)
            try:
                # A daemon, so that Ctrl-C (raised in the waiting thread) ends the process.
                thread = threading.Thread(target=body, name="cpsc-deep", daemon=True)
                thread.start()
            finally:
                threading.stack_size(0)
        _wait(thread, finished, interruptible)
    finally:
        _leave()
    if failure:
        raise failure[0]
    return result[0]


def _wait(thread: threading.Thread, finished: threading.Event, interruptible: bool) -> None:
    """Until `thread` has finished. An Event, not `thread.join()`: a join that Ctrl-C
    interrupted may return at once when called again, with the thread still running. An
    interrupt is sent again until the computation ends: one raised where Python cannot raise
    it (a weakref callback of the collector) is lost."""
    interrupted = False
    while True:
        try:
            if finished.wait(RESEND_SECONDS if interrupted else None):
                thread.join()
                return
        except KeyboardInterrupt:
            if not interruptible:
                raise
            interrupted = True
        if interrupted and not finished.is_set() and thread.ident is not None:
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(KeyboardInterrupt))

"""Time and memory of each compiler stage, for `--time-passes` and the compile-scale script."""

from __future__ import annotations

import resource
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass(frozen=True)
class StageTime:
    """One stage's wall-clock time and the process's peak resident memory when it ended."""

    name: str
    seconds: float
    peak_mb: float


def peak_memory_mb() -> float:
    """The high-water mark of the process's resident memory (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def stage_starts(name: str) -> None:
    """Nothing: a place for a profiler to stop at. `benchmarks/scale.py --instructions` has
    valgrind dump its counts before each call and after each `stage_ended` (compiled, they are
    the C functions `CPyDef_stages___stage_starts` and `CPyDef_stages___stage_ended`)."""


def stage_ended(name: str) -> None:
    """Nothing: see `stage_starts`."""


@dataclass
class Stages:
    """A recorder of stage timings; the driver's functions take one and fill it in."""

    times: list[StageTime] = field(default_factory=list)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        stage_starts(name)
        start = time.perf_counter()
        yield
        self.times.append(StageTime(name, time.perf_counter() - start, peak_memory_mb()))
        stage_ended(name)

    def record(self, name: str, seconds: float) -> None:
        """A stage timed elsewhere (in parallel parts, say)."""
        self.times.append(StageTime(name, seconds, peak_memory_mb()))

    def report(self) -> str:
        """One line per stage: `stage parse  12.34 ms  peak 80.1 MB`."""
        return "\n".join(f"stage {t.name:<12} {t.seconds * 1000:9.2f} ms  peak {t.peak_mb:7.1f} MB"
                         for t in self.times)

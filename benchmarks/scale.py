"""Compile-time scaling: build generated programs of doubling size and print, per stage, the
time, lines per second, the growth factor per doubling and the peak memory.

    .venv/bin/python benchmarks/scale.py                        # 1k..16k lines, -O0 and -O2
    .venv/bin/python benchmarks/scale.py --sizes 2000,4000,8000 --repeat 2 --check 2.5 --no-ocaml   # CI

Each build runs `cpsc build --time-passes` in a fresh process (so peak memory is the build's
own); the executable is run and must exit 0, and when `ocamlopt` is installed the same file is
built by it too, its time printed beside cpsc's and its output compared. `--check F` exits 1 if
a stage grows more than F times on every doubling of the sizes (stages under `--floor` ms at
the smallest size are noise and skipped). Repeats run round robin over the sizes.

`--instructions` counts instead the instructions each stage executes, under valgrind's
callgrind (about 50 times slower; the compiled compiler, in one process: `--parts 1`). The
counts do not vary from run to run, and they measure the work a stage does: time also pays
for the cache misses of a working set that outgrows the processor's caches, which no
algorithm of the stage decides.

    .venv/bin/python benchmarks/scale.py --sizes 2000,4000,8000,16000 --levels 2 --instructions --no-ocaml

`--confirm` (CI) counts the instructions of a shape whose time fails the check, and lets it
pass when the stage's instructions grow within the limit on some doubling: its time then grew
with the working set, not with the work (list_pattern's `opt` takes x2.5-2.8 the time per
doubling on this machine, x2.00 the instructions).
"""

from __future__ import annotations

import argparse
import math
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from shapes import SHAPES  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
STAGE_LINE = re.compile(r"^stage (\S+)\s+([\d.]+) ms\s+peak\s+([\d.]+) MB$", re.MULTILINE)


@dataclass
class Build:
    """One build's figures: seconds and peak MB per stage, the whole process, and the run."""

    stages: dict[str, float] = field(default_factory=dict)
    peaks: dict[str, float] = field(default_factory=dict)
    total: float = 0.0
    peak_mb: float = 0.0
    output: str = ""
    ok: bool = True
    error: str = ""


def run_timed(command: list[str], cwd: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    outcome = subprocess.run(command, cwd=cwd, capture_output=True, text=True, encoding="latin-1")
    return time.perf_counter() - start, outcome


def build_cpsc(source: Path, level: int, workdir: str) -> Build:
    exe = source.with_suffix(f".O{level}")
    # `python -m cpsc` is the `cpsc` command (`cpsc.cli.main.entry`), exit included: the total
    # is what a user waits for
    command = [sys.executable, "-m", "cpsc", "build", f"-O{level}", str(source), "-o", str(exe), "--time-passes"]
    seconds, outcome = run_timed(command, workdir)
    build = Build(total=seconds)
    for name, ms, peak in STAGE_LINE.findall(outcome.stderr):
        build.stages[name] = float(ms) / 1000
        build.peaks[name] = float(peak)
    build.peak_mb = max(build.peaks.values(), default=0.0)
    if outcome.returncode != 0:
        build.ok, build.error = False, f"status {outcome.returncode}: {outcome.stderr.strip()[-400:]}"
        return build
    return run_executable(build, exe)


def run_executable(build: Build, exe: Path) -> Build:
    """`build` with the output of the executable it made, which must exit 0."""
    run = subprocess.run([str(exe)], capture_output=True, text=True, encoding="latin-1")
    build.output = run.stdout
    if run.returncode != 0:
        build.ok, build.error = False, f"the executable exited {run.returncode}: {run.stderr[-300:]}"
    return build


def count_cpsc_instructions(source: Path, level: int, workdir: str) -> Build:
    """The instructions each stage of `cpsc build` executes (in place of seconds), counted by
    callgrind, which dumps its counts before every stage starts and after it ends (at the
    hooks `cpsc.support.stages.stage_starts` and `stage_ended`)."""
    exe = source.with_suffix(f".O{level}")
    counts = Path(workdir) / f"{source.stem}.O{level}.callgrind"
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={counts}",
               "--dump-before=CPyDef_stages___stage_starts", "--dump-after=CPyDef_stages___stage_ended",
               sys.executable, "-m", "cpsc", "build", f"-O{level}", str(source), "-o", str(exe),
               "--time-passes", "--parts", "1"]
    _, outcome = run_timed(command, workdir)
    names = [name for name, _, _ in STAGE_LINE.findall(outcome.stderr)]
    dumps = sorted(Path(workdir).glob(counts.name + ".*"), key=lambda path: int(path.suffix[1:]))
    stage_counts = [float(text.split("\ntotals:")[1].split()[0]) for text in (dump.read_text() for dump in dumps)
                    if "Trigger: --dump-after" in text]
    for dump in [*dumps, counts]:
        dump.unlink(missing_ok=True)
    build = Build(stages=dict(zip(names, stage_counts)), total=sum(stage_counts))
    if outcome.returncode != 0:
        build.ok, build.error = False, f"status {outcome.returncode}: {outcome.stderr.strip()[-400:]}"
        return build
    if len(stage_counts) != len(names):
        build.ok, build.error = False, f"{len(stage_counts)} counts for {len(names)} stages (is cpsc compiled?)"
        return build
    return run_executable(build, exe)


def fastest(builds: list[Build]) -> Build:
    """The repeats of one build merged: each stage's shortest time, the shortest total."""
    best = Build(total=min(b.total for b in builds), peak_mb=min(b.peak_mb for b in builds),
                 output=builds[0].output, ok=all(b.ok for b in builds),
                 error=next((b.error for b in builds if not b.ok), ""))
    for b in builds:
        for name, seconds in b.stages.items():
            best.stages[name] = min(best.stages.get(name, seconds), seconds)
    return best


def build_ocamlopt(source: Path, workdir: str) -> tuple[float, str] | None:
    """ocamlopt's wall time on the same file and the program's output (None: not installed)."""
    if shutil.which("ocamlopt") is None:
        return None
    copy = source.with_suffix(".ml")
    shutil.copy(source, copy)
    exe = source.with_suffix(".ocaml")
    seconds, outcome = run_timed(["ocamlopt", copy.name, "-o", exe.name], workdir)
    if outcome.returncode != 0:
        return None
    run = subprocess.run([str(exe)], capture_output=True, text=True, encoding="latin-1")
    return seconds, run.stdout


def growth(times: list[float]) -> list[float | None]:
    return [None] + [b / a if a > 0 else None for a, b in zip(times, times[1:])]


def report(shape: str, level: int, sizes: list[int], builds: list[Build],
           ocaml: list[tuple[float, str] | None], floor: float, instructions: bool = False) -> list[tuple[str, float]]:
    """Print the table for one shape and level; return (stage, smallest growth of one doubling)
    for every stage that took at least `floor` ms at the smallest size, for the check.

    A stage fails the check when it grows too fast on every doubling of the range: a single
    step can show 2.5-3.5x where the working set outgrows a cache (seen on this machine with a
    plain, linear `Counter.update`) or the machine has a slow spell, but a quadratic stage
    shows 4x on each step. The mean growth over the range is printed too."""
    doublings = math.log2(sizes[-1] / sizes[0]) if len(sizes) > 1 else 0
    unit, scale = ("million instructions", 1e-6) if instructions else ("ms", 1000)
    print(f"\n== {shape} -O{level}" + "".join(f"{n:>16,}" for n in sizes) + f"      mean   ({unit}, growth per doubling)")
    stages = list(dict.fromkeys(name for b in builds for name in b.stages))
    checked = []
    for name in stages + ["total"]:
        times = [b.total if name == "total" else b.stages.get(name, 0.0) for b in builds]
        cells = [f"{t * scale:9.1f}" + (f" x{g:4.2f}" if g is not None else "      ")
                 for t, g in zip(times, growth(times))]
        mean = (times[-1] / times[0]) ** (1 / doublings) if doublings and times[0] > 0 else None
        print(f"   {name:<12}" + "".join(f"{c:>16}" for c in cells) + (f"   x{mean:4.2f}" if mean else ""))
        steps = [g for g in growth(times)[1:] if g is not None]
        if name != "total" and steps and (instructions or times[0] * 1000 >= floor):
            checked.append((name, min(steps)))
    if not instructions:
        print(f"   {'lines/s':<12}" + "".join(f"{n / b.total:>16,.0f}" for n, b in zip(sizes, builds)))
        print(f"   {'peak MB':<12}" + "".join(f"{b.peak_mb:>16.1f}" for b in builds))
    if any(o is not None for o in ocaml):
        print(f"   {'ocamlopt ms':<12}" + "".join(f"{o[0] * 1000:>16.1f}" if o else f"{'-':>16}" for o in ocaml))
        agree = ["yes" if o is None or o[1] == b.output else "NO" for o, b in zip(ocaml, builds)]
        print(f"   {'same output':<12}" + "".join(f"{a:>16}" for a in agree))
    for b, n in zip(builds, sizes):
        if not b.ok:
            print(f"   FAILED at {n} lines: {b.error}")
    return checked


def confirmed(failing: list[tuple[str, float]], shape: str, level: int, sizes: list[int], sources: list[Path],
              workdir: str, limit: float) -> list[tuple[str, float]]:
    """The stages of `failing` (too slow in time) whose instructions also grow beyond `limit`
    on every doubling; each one's instructions are printed."""
    counted = [count_cpsc_instructions(s, level, workdir) for s in sources]
    steps = dict(report(shape, level, sizes, counted, [None] * len(sources), 0.0, instructions=True))
    still = [(stage, slowest) for stage, slowest in failing if steps.get(stage, slowest) > limit]
    for stage, slowest in failing:
        if (stage, slowest) not in still:
            print(f"   {stage}: time grew x{slowest:.2f} but instructions at most x{steps[stage]:.2f} per "
                  f"doubling at some step: the working set, not the work")
    return still


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,2000,4000,8000,16000")
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--levels", default="0,2")
    parser.add_argument("--repeat", type=int, default=1, help="builds per point; each stage's fastest counts")
    parser.add_argument("--check", type=float,
                        help="fail if a stage grows more than this on every doubling of the sizes")
    parser.add_argument("--floor", type=float, default=50.0,
                        help="a stage under this many ms at the smallest size is not checked (noise)")
    parser.add_argument("--no-ocaml", action="store_true")
    parser.add_argument("--confirm", action="store_true",
                        help="a stage whose time fails the check passes if its instructions do not (valgrind)")
    parser.add_argument("--instructions", action="store_true",
                        help="count each stage's instructions under valgrind instead of timing it")
    args = parser.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        parser.error("--instructions needs valgrind")
    sizes = [int(s) for s in args.sizes.split(",")]
    mode = subprocess.run([sys.executable, "-c", "import cpsc.support.native as n; print(n.mode())"], capture_output=True,
                          text=True).stdout.strip()
    print(f"cpsc: {mode} (cpsc/support/native.py)")
    too_fast: list[str] = []
    broken = False
    with tempfile.TemporaryDirectory() as workdir:
        for shape in args.shapes.split(","):
            sources = []
            for n in sizes:
                source = Path(workdir) / f"{shape}_{n}.fl"
                source.write_text(SHAPES[shape](n))
                sources.append(source)
            ocaml = [None if args.no_ocaml else build_ocamlopt(s, workdir) for s in sources]
            for level in [int(x) for x in args.levels.split(",")]:
                # Round robin, so that a slow spell of the machine hits every size alike.
                measure = count_cpsc_instructions if args.instructions else build_cpsc
                rounds = [[measure(s, level, workdir) for s in sources] for _ in range(args.repeat)]
                builds = [fastest([r[i] for r in rounds]) for i in range(len(sources))]
                broken |= not all(b.ok for b in builds)
                broken |= any(o is not None and o[1] != b.output for o, b in zip(ocaml, builds))
                failing = [(stage, slowest) for stage, slowest
                           in report(shape, level, sizes, builds, ocaml, args.floor, args.instructions)
                           if args.check is not None and slowest > args.check]
                if failing and args.confirm and not args.instructions and shutil.which("valgrind"):
                    failing = confirmed(failing, shape, level, sizes, sources, workdir, args.check)
                too_fast.extend(f"{shape} -O{level}: stage {stage} grew at least x{slowest:.2f} on every "
                                f"doubling from {sizes[0]} to {sizes[-1]} lines" for stage, slowest in failing)
    for line in too_fast:
        print(f"scale: {line} (limit x{args.check})")
    if too_fast:
        return 1
    if broken:
        print("scale: some builds failed or disagreed with ocamlopt")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

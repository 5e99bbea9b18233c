"""Benchmarks: each program in benchmarks/ built by cpsc at -O0 and -O2, by ocamlopt and (its C
twin in benchmarks/c) by gcc -O2 when installed; all outputs checked against ocamlopt's (or
-O0's); the variants run interleaved, `--runs` times each; medians and ratios printed, ending
with the geometric means. `--counts` adds the CPS interpreter's dynamic counts at -O0 and -O2
on a small run of each program (its size argument from COUNT_SIZES). The last line is the
geomean of cpsc -O2 over ocamlopt on the programs, without the micro benchmarks.

    .venv/bin/python benchmarks/run.py [--runs 5] [--counts] [benchmarks/fib35.fl ...]
"""

from __future__ import annotations

import argparse
import math
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CPSC = [sys.executable, "-m", "cpsc"]

# Micro benchmarks of one feature each (exceptions, a tail loop): reported, but left out of the
# suite's closing geomean, which they would sway far more than one program should.
MICRO = {"exn_handler", "exn_raise", "tail_loop"}

# Sizes small enough for the CPS interpreter (a few seconds each).
COUNT_SIZES = {"ackermann": 1, "binary_trees": 6, "buffer_builder": 3, "map_graph": 2000, "exn_handler": 2000, "exn_loop": 200, "exn_raise": 2000,
               "fannkuch": 6, "fib35": 15, "mandelbrot": 20, "nbody": 200, "nqueens": 6, "pipeline": 5,
               "sieve": 5000, "simplifier": 30, "spectral_norm": 30, "tail_loop": 10000, "tak": 2,
               "spectral_norm_fun": 30, "fold_partial": 3, "sort_cmp": 1}


def build(source: Path, workdir: Path) -> dict[str, list[str]]:
    """The executables of each variant that builds, as commands."""
    name = source.stem
    variants: dict[str, list[str]] = {}
    for level in (0, 2):
        exe = workdir / f"{name}.O{level}"
        subprocess.run(CPSC + ["build", f"-O{level}", str(source), "-o", str(exe)], check=True, cwd=ROOT)
        variants[f"cpsc-O{level}"] = [str(exe)]
    if shutil.which("ocamlopt"):
        ml = workdir / f"{name}.ml"
        shutil.copy(source, ml)
        exe = workdir / f"{name}.ocaml"
        flambda = subprocess.run(["ocamlfind", "ocamlopt", "-O3", ml.name, "-o", exe.name], cwd=workdir,
                                 capture_output=True) if shutil.which("ocamlfind") else None
        if flambda is None or flambda.returncode != 0:
            subprocess.run(["ocamlopt", ml.name, "-o", exe.name], cwd=workdir, check=True, capture_output=True)
        variants["ocamlopt"] = [str(exe)]
    twin = source.parent / "c" / f"{name}.c"
    if twin.exists() and shutil.which("gcc"):
        exe = workdir / f"{name}.c.exe"
        subprocess.run(["gcc", "-O2", str(twin), "-o", str(exe), "-lm"], check=True)
        variants["gcc"] = [str(exe)]
    return variants


def timed(command: list[str]) -> tuple[float, bytes]:
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True)
    return time.perf_counter() - start, result.stdout


def measure(name: str, variants: dict[str, list[str]], runs: int) -> dict[str, float]:
    """Median seconds per variant, the variants interleaved in every run; outputs compared."""
    times: dict[str, list[float]] = {v: [] for v in variants}
    outputs: dict[str, bytes] = {}
    for _ in range(runs):
        for variant, command in variants.items():
            seconds, out = timed(command)
            times[variant].append(seconds)
            outputs.setdefault(variant, out)
    reference = outputs.get("ocamlopt", outputs["cpsc-O0"])
    for variant in ("cpsc-O0", "cpsc-O2"):
        if outputs[variant] != reference:
            raise SystemExit(f"{name}: {variant} printed {outputs[variant][:200]!r}, expected {reference[:200]!r}")
    return {v: statistics.median(ts) for v, ts in times.items()}


def counts(source: Path, level: int) -> Counter[str]:
    """The CPS interpreter's dynamic counts of a small run at -O`level`."""
    size = str(COUNT_SIZES.get(source.stem, 1))
    result = subprocess.run(CPSC + ["interp", "--count", f"-O{level}", str(source), size], capture_output=True,
                            text=True, cwd=ROOT, timeout=600)
    found: Counter[str] = Counter()
    for line in result.stderr.splitlines():
        if line.startswith("counts: "):
            for item in line.removeprefix("counts: ").split(", "):
                label, _, number = item.rpartition(" ")
                found[label] = int(number)
    return found


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sources", nargs="*", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--counts", action="store_true")
    args = parser.parse_args()
    sources = args.sources or sorted((ROOT / "benchmarks").glob("*.fl"))
    ratios: dict[str, list[float]] = {"cpsc-O2/ocamlopt": [], "cpsc-O0/cpsc-O2": [], "cpsc-O2/gcc": []}
    suite: list[float] = []  # cpsc-O2/ocamlopt of the programs that are not micro benchmarks
    print(f"{'benchmark':16}{'-O0':>9}{'-O2':>9}{'ocamlopt':>10}{'gcc':>9}{'O2/ocaml':>10}{'O0/O2':>8}{'O2/gcc':>8}"
          "   (median seconds of interleaved runs)")
    with tempfile.TemporaryDirectory() as tmp:
        for source in sources:
            medians = measure(source.stem, build(source, Path(tmp)), args.runs)
            o0, o2 = medians["cpsc-O0"], medians["cpsc-O2"]
            ocaml, gcc = medians.get("ocamlopt"), medians.get("gcc")
            row = [o2 / ocaml if ocaml else None, o0 / o2, o2 / gcc if gcc else None]
            for key, value in zip(ratios, row):
                if value is not None:
                    ratios[key].append(value)
            if ocaml and source.stem not in MICRO:
                suite.append(o2 / ocaml)
            cells = "".join(f"{v:>9.3f}" if v is not None else f"{'-':>9}" for v in (o0, o2, ocaml, gcc))
            print(f"{source.stem:16}{cells}" + "".join(f"{v:>8.2f}" if v is not None else f"{'-':>8}" for v in row),
                  flush=True)
            if args.counts:
                for level in (0, 2):
                    found = counts(source, level)
                    print(f"{'':16}counts -O{level} (size {COUNT_SIZES.get(source.stem, 1)}): "
                          + ", ".join(f"{k} {v}" for k, v in found.items()), flush=True)
    for key, values in ratios.items():
        if values:
            print(f"geomean {key} = {geomean(values):.2f}  ({len(values)} benchmarks)")
    if suite:
        print(f"geomean cpsc-O2/ocamlopt = {geomean(suite):.2f}  ({len(suite)} programs, without the micro "
              f"benchmarks {', '.join(sorted(MICRO))})")


if __name__ == "__main__":
    main()

"""Rebuilding a project of many units: a cold build, then a rebuild after one function body
changes in one unit, and the time of each stage in both (`--time-passes`).

    .venv/bin/python benchmarks/project.py                       # 50 units, ~10k lines, -O2
    .venv/bin/python benchmarks/project.py --units 25,50,100 -O 0 # the cold build's growth

The project is generated: unit `u<i>` (with an interface) defines a record type, a variant,
exceptions and about 200 lines of functions, and uses the two units before it; `main.ml`
uses the last. Each build runs `cpsc build main.ml` in a fresh process, with a cache folder of
its own (XDG_CACHE_HOME) that holds the prelude and the runtime but nothing of the program for
the cold build, and what the cold build kept (parsed files, objects) for the rebuild.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def unit_text(index: int, functions: int) -> tuple[str, str]:
    """A unit's implementation and interface."""
    uses = [f"U{index - k}" for k in (1, 2) if index - k >= 0]
    lines = ["type point = { x : int; y : int; tag : string }",
             "type shape = Dot of point | Line of point * point | Group of shape list",
             "exception Too_far of int",
             "let origin = { x = 0; y = 0; tag = \"o\" }"]
    interface = ["type point = { x : int; y : int; tag : string }",
                 "type shape = Dot of point | Line of point * point | Group of shape list",
                 "exception Too_far of int", "val origin : point"]
    for k in range(functions):
        called = f"{uses[k % len(uses)]}.f{k}" if uses else "(fun n -> n + 1)"
        lines += [f"let rec size{k} = function",
                  "  | Dot _ -> 1",
                  f"  | Line (a, b) -> abs (a.x - b.x) + abs (a.y - b.y) + {k}",
                  f"  | Group shapes -> List.fold_left (fun acc s -> acc + size{k} s) 0 shapes",
                  f"let f{k} n =",
                  f"  let p = {{ x = n; y = n * {k + 1}; tag = \"p{k}\" }} in",
                  "  let s = Group [Dot p; Line (origin, p); Dot origin] in",
                  f"  let v = size{k} s + {called} (n land 1023) in",
                  "  if v > 1_000_000_000 then raise (Too_far v) else v mod 10007"]
        interface.append(f"val f{k} : int -> int")
    return "\n".join(lines) + "\n", "\n".join(interface) + "\n"


def generate(folder: Path, units: int, functions: int) -> int:
    """The project's files; how many lines they hold."""
    total = 0
    for index in range(units):
        implementation, interface = unit_text(index, functions)
        (folder / f"u{index}.ml").write_text(implementation)
        (folder / f"u{index}.mli").write_text(interface)
        total += implementation.count("\n") + interface.count("\n")
    main = f"let () = Printf.printf \"%d\\n\" (U{units - 1}.f0 3 + U{units - 1}.f1 4)\n"
    (folder / "main.ml").write_text(main)
    return total + 1


def edit_one_body(folder: Path, units: int) -> None:
    """Change one function's body in the middle unit (not its interface)."""
    path = folder / f"u{units // 2}.ml"
    text = path.read_text()
    path.write_text(text.replace("v mod 10007", "v mod 10009", 1))


def build(folder: Path, level: int, cache: Path) -> tuple[float, dict[str, float], str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "cpsc", "build", "main.ml", "-O", str(level), "--time-passes",
                           "-o", "prog"], cwd=folder, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(done.stderr)
    stages: dict[str, float] = {}
    for found in re.finditer(r"^stage (\S+)\s+([\d.]+) ms", done.stderr, re.M):
        stages[found.group(1)] = stages.get(found.group(1), 0.0) + float(found.group(2)) / 1000
    hits = re.search(r"^cache parse: .*$", done.stderr, re.M)
    return seconds, stages, hits.group(0) if hits else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--units", default="50", help="comma-separated numbers of units")
    parser.add_argument("--functions", type=int, default=22, help="functions per unit (about 9 lines each)")
    parser.add_argument("-O", dest="level", type=int, default=2)
    args = parser.parse_args()
    for units in (int(n) for n in args.units.split(",")):
        with tempfile.TemporaryDirectory() as work:
            folder, cache = Path(work) / "project", Path(work) / "cache"
            folder.mkdir()
            lines = generate(folder, units, args.functions)
            build(folder, args.level, cache)  # the prelude and the runtime, cached once for both
            for unit in folder.glob("*.ml"):
                unit.touch()
            # cold: nothing of the program's in the cache (the prelude and the runtime stay)
            subprocess.run(["rm", "-rf", str(cache / "cpsc" / "units"), str(cache / "cpsc" / "objects")], check=True)
            cold, cold_stages, _ = build(folder, args.level, cache)
            edit_one_body(folder, units)
            warm, warm_stages, hits = build(folder, args.level, cache)
            print(f"{units} units, {lines} lines, -O{args.level}: cold {cold:.2f} s, rebuild {warm:.2f} s "
                  f"({warm / cold:.0%} of cold)  {hits}")
            for stage in cold_stages:
                print(f"  {stage:<10} {cold_stages[stage]:7.3f} s  {warm_stages.get(stage, 0.0):7.3f} s")


if __name__ == "__main__":
    main()

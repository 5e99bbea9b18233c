"""Deep and long machine-made programs build and run natively (no segfault, no RecursionError);
a program too deep for the compiler gets a located diagnostic. (Compile-time growth is measured
by benchmarks/scale.py, which CI runs in a small form.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cpsc.cli.main import main
from cpsc.support import deep_stack

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from shapes import let_chain, toplevel_lets  # noqa: E402


def build_and_run(tmp_path: Path, source: str, *flags: str) -> str:
    path = tmp_path / "prog.fl"
    path.write_text(source)
    exe = tmp_path / "prog"
    built = subprocess.run([sys.executable, "-m", "cpsc", "build", str(path), "-o", str(exe), *flags],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-2000:]
    ran = subprocess.run([str(exe)], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    return ran.stdout


def test_100k_deep_parentheses(tmp_path):
    depth = 100_000
    assert build_and_run(tmp_path, "let () = print_int " + "(" * depth + "42" + ")" * depth + "\n") == "42"


def test_20k_deep_let_chain(tmp_path):
    # Segfaulted before the compiler ran on a large stack with loops over `let` chains.
    expected = 7
    for i in range(1, 20_000 - 3):
        expected = (expected * 3 + i) & 1023
    assert build_and_run(tmp_path, let_chain(20_000), "-O1") == str(expected)


def test_20k_toplevel_lets(tmp_path):
    n = 20_000
    assert build_and_run(tmp_path, toplevel_lets(n)) == str(0 + (n // 2) + (n - 2))


def test_10k_sequence_and_if_chain(tmp_path):
    body = "".join(f"  print_int {i};\n" for i in range(10_000))
    chain = "let f x =\n" + "".join(f"  if x = {i} then {i * 2} else\n" for i in range(5_000)) + "  -1\n"
    out = build_and_run(tmp_path, chain + "let () =\n" + body + "  print_int (f 4999)\n")
    assert out == "".join(str(i) for i in range(10_000)) + "9998"


def test_too_deep_for_the_compiler_is_a_located_diagnostic(tmp_path, monkeypatch, capsys):
    # The real limit (250,000 levels) takes long to reach; a lowered one shows the same path quickly.
    monkeypatch.setattr(deep_stack, "RECURSION_LIMIT", 2_000)
    path = tmp_path / "deep.fl"
    path.write_text("let () =\n  print_int\n" + "    (1 +\n" * 3_000 + "    0" + ")" * 3_000 + "\n")
    assert main(["build", str(path), "-o", str(tmp_path / "deep")]) == 1
    err = capsys.readouterr().err
    location, message = err.split(": error: ", 1)
    line = int(location.split(":")[-2])
    assert location.startswith(f"{path}:") and line >= 3_000, err[:300]  # at the innermost parentheses
    assert message.startswith("this expression is nested too deeply"), err[:300]
    assert "^" in err and "Traceback" not in err


def test_time_passes_reports_every_stage(tmp_path):
    path = tmp_path / "hello.fl"
    path.write_text('let () = print_endline "hi"\n')
    done = subprocess.run([sys.executable, "-m", "cpsc", "build", str(path), "-o", str(tmp_path / "hello"),
                           "--time-passes"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    stages = [line.split()[1] for line in done.stderr.splitlines() if line.startswith("stage ")]
    assert stages == ["parse", "elaborate", "infer", "mono", "cps", "opt", "closure", "ssa", "lower", "llvm-opt",
                      "codegen", "link"]
    assert all(" ms  peak " in line for line in done.stderr.splitlines() if line.startswith("stage "))


def test_toplevel_statements_stay_functions_of_their_own(tmp_path):
    # main only calls them: LLVM must not inline every statement of a program into one
    # function whose optimisation would cost more than linear time.
    path = tmp_path / "prog.fl"
    path.write_text("let () = print_int 1\nlet x = print_int 2; 3\nlet () = print_int x\n")
    done = subprocess.run([sys.executable, "-m", "cpsc", "build", str(path), "--emit=llvm", "-O2"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    defined = [line for line in done.stdout.splitlines() if line.startswith("define")]
    assert sum("@fl.toplevel_" in line for line in defined) == 3, defined


def test_30k_element_constant_tuple(tmp_path):
    # Static data: before, 30,000 stores in one block took LLVM's scheduler 14 s.
    n = 30_000
    items = ", ".join(str(i) for i in range(n))
    source = f"let t = ({items})\nlet () = let (a, b, {', '.join('_' for _ in range(n - 3))}, z) = t in print_int (a + b + z)\n"
    assert build_and_run(tmp_path, source) == str(0 + 1 + (n - 1))


def test_2000_top_level_values_used_by_a_chain_of_functions(tmp_path):
    # Each value became a parameter of every function after it (3 minutes to build at -O0);
    # as globals the build is linear.
    n = 2_000
    lines = ["let c0 = int_of_float 1.5", "let f0 x = x + c0"]
    for i in range(1, n):
        lines += [f"let c{i} = c{i - 1} + 1", f"let f{i} x = f{i - 1} x + c{i}"]
    lines.append(f"let () = print_int (f{n - 1} 0)")
    assert build_and_run(tmp_path, "\n".join(lines) + "\n", "-O0") == str(sum(range(1, n + 1)))


def test_parts_sets_how_many_modules_a_build_compiles(tmp_path):
    source = toplevel_lets(3000)
    expected = str(0 + 1500 + 2998)
    assert build_and_run(tmp_path, source, "--parts", "1") == build_and_run(tmp_path, source, "--parts", "3") == expected
    refused = subprocess.run([sys.executable, "-m", "cpsc", "build", str(tmp_path / "prog.fl"), "--parts", "0"],
                             capture_output=True, text=True)
    assert refused.returncode != 0 and "--parts: '0' is not a positive number" in refused.stderr

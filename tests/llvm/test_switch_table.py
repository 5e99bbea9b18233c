"""Matches whose arms only choose constants reach LLVM as table lookups, in both forms the
optimiser leaves them (arms that return, arms that pass constants to a join), and only when
the table would be dense. What the programs print is checked at every level, against OCaml,
by `tests/programs/switch_tables.fl`."""

from __future__ import annotations

from pathlib import Path

from cpsc import driver
from cpsc.llvm.switch_table import switch_tables
from cpsc.opt.pipeline import LEVELS
from tests.programs.harness import Program, native

PROGRAMS = Path(__file__).resolve().parents[1] / "programs"


def _tables(source: str, opt: int = 2) -> dict[str, dict]:  # type: ignore[type-arg]
    cps, _ = driver.optimise(driver.to_cps(driver.front_end(source, "prog.fl")), LEVELS[opt])
    return {f.name: switch_tables(f) for f in driver.to_ssa_module(cps).functions}


def _big_match(constructors: int) -> str:
    cases = " | ".join(f"C{i} -> {3 * i - 7}" for i in range(constructors))
    return (f"type t = {' | '.join(f'C{i}' for i in range(constructors))}\n"
            f"let f = function {cases}\n"
            f"let () = print_int (f C0); print_int (f C{constructors - 1}); print_int (f C{constructors // 2})\n")


def test_a_function_returning_a_constant_per_constructor_is_one_table():
    tables = _tables(_big_match(300))["f"]
    [table] = tables.values()
    assert table.join is None and table.low == 0
    # the last constructor is the switch's default, the others its cases
    assert [c.value for c in table.columns[0] + table.defaults] == [3 * i - 7 for i in range(300)]
    assert len(table.arms) == 300


def test_inlined_matches_pass_their_constants_to_the_join():
    source = (PROGRAMS / "switch_tables.fl").read_text()
    tables = [t for per_function in _tables(source).values() for t in per_function.values()]
    joins = [t for t in tables if t.join is not None]
    # code, warm and initial over 10 constructors, and score over -3..7 with holes
    assert len(joins) == 4
    score = next(t for t in joins if t.low == -3)
    assert [c.value for c in score.columns[0]] == [100, 101, 102, 103, 104, -1, 106, 107, -1, 109, 110]
    assert score.defaults[0].value == -1


def test_sparse_and_small_switches_stay_switches():
    sparse = "let f n = match n with " + " | ".join(f"{10 ** i} -> {i}" for i in range(9)) + " | _ -> 0\n"
    small = "let g n = match n with 0 -> 5 | 1 -> 6 | 2 -> 7 | _ -> 8\n"
    calls = "let () = print_int (f (Array.length Sys.argv)); print_int (g (Array.length Sys.argv))\n"
    assert all(not tables for tables in _tables(sparse + small + calls).values())


def test_a_table_is_emitted_as_constant_data_not_a_switch():
    llvm_ir = driver.to_llvm(driver.to_ssa_module(driver.optimise(
        driver.to_cps(driver.front_end(_big_match(300), "prog.fl")), LEVELS[2])[0]))
    assert "switch i64" not in llvm_ir
    assert "private unnamed_addr constant [299 x i64]" in llvm_ir


def test_a_big_table_built_natively_selects_every_constant(tmp_path: Path):
    count = 1000
    source = _big_match(count).replace(
        "let () =", f"let all = [{'; '.join(f'C{i}' for i in range(count))}]\n"
                    "let () = print_int (List.fold_left (fun s c -> s + f c) 0 all);")
    path = tmp_path / "big.fl"
    path.write_text(source)
    expected = f"{sum(3 * i - 7 for i in range(count))}{-7}{3 * (count - 1) - 7}{3 * (count // 2) - 7}"
    outcome = native(Program(path), opt=2)
    assert (outcome.status, outcome.stdout) == (0, expected)

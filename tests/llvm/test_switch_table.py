"""Matches whose arms differ only in constants reach LLVM as one arm after table lookups, in
both forms the optimiser leaves them (arms that return, arms that go to a join), and only
when the arms are alike, the constants that differ fit a table and the table would be dense. What the programs print is checked at every level, against OCaml,
by `tests/programs/switch_tables.fl`."""

from __future__ import annotations

from pathlib import Path

from cpsc import driver
from cpsc.llvm.switch_table import switch_tables
from cpsc.opt.pipeline import LEVELS
from cpsc.ssa import ir
from tests.programs.harness import Program, native

PROGRAMS = Path(__file__).resolve().parents[1] / "programs"


def _tables(source: str, opt: int = 2) -> dict[str, dict]:  # type: ignore[type-arg]
    cps, _ = driver.optimise(driver.to_cps(driver.front_end(source, "prog.fl")), LEVELS[opt].passes, context=LEVELS[opt].context())
    return {f.name: switch_tables(f) for f in driver.to_ssa_module(cps).functions}


def _big_match(constructors: int) -> str:
    cases = " | ".join(f"C{i} -> {3 * i - 7}" for i in range(constructors))
    return (f"type t = {' | '.join(f'C{i}' for i in range(constructors))}\n"
            f"let f = function {cases}\n"
            f"let () = print_int (f C0); print_int (f C{constructors - 1}); print_int (f C{constructors // 2})\n")


def _big_match_with_arguments(constructors: int) -> str:
    cases = " | ".join(f"C{i} x -> x * 2 + {i + 1}" for i in range(constructors))  # + 0 would fold
    every = "; ".join(f"C{i} {i % 7}" for i in range(constructors))
    return (f"type t = {' | '.join(f'C{i} of int' for i in range(constructors))}\n"
            f"let f = function {cases}\n"
            f"let () = print_int (List.fold_left (fun s c -> (s * 3 + f c) mod 1000003) 0 [{every}])\n")


def test_a_function_returning_a_constant_per_constructor_is_one_table():
    tables = _tables(_big_match(300))["f"]
    [table] = tables.values()
    assert isinstance(table.terminator, ir.Return) and table.body == () and table.low == 0
    # the last constructor is the switch's default, the others its cases
    assert [c.value for c in table.columns[0] + table.defaults] == [3 * i - 7 for i in range(300)]
    assert len(table.arms) == 300


def test_arms_computing_alike_from_different_constants_share_one_arm():
    # f, called once, is inlined into the folded function: its arms go to a join
    [table] = [t for tables in _tables(_big_match_with_arguments(300)).values() for t in tables.values()]
    assert isinstance(table.terminator, ir.Goto) and len(table.arms) == 300
    assert [b.value.op for b in table.body if hasattr(b.value, "op")] == ["mul_int", "add_int"]
    assert [c.value for c in table.columns[0] + table.defaults] == list(range(1, 301))
    assert table.selected[0] in table.body[-1].value.args  # type: ignore[attr-defined]


def test_inlined_matches_pass_their_constants_to_the_join():
    source = (PROGRAMS / "switch_tables.fl").read_text()
    tables = [t for per_function in _tables(source).values() for t in per_function.values()]
    joins = [t for t in tables if isinstance(t.terminator, ir.Goto)]
    # code and initial over 10 constructors, score over -3..7 with holes, and weigh, whose arms
    # compute alike from different constants; warm's arms pass the boolean an `if` tests, so
    # `simplify` sends them straight to its branches (no table)
    assert len(joins) == 4
    assert sum(1 for t in joins if t.body) == 1
    score = next(t for t in joins if t.low == -3)
    assert [c.value for c in score.columns[0]] == [100, 101, 102, 103, 104, -1, 106, 107, -1, 109, 110]
    assert score.defaults[0].value == -1


def test_sparse_small_and_unalike_switches_stay_switches():
    sparse = "let f n = match n with " + " | ".join(f"{10 ** i} -> {i}" for i in range(9)) + " | _ -> 0\n"
    small = "let g n = match n with 0 -> 5 | 1 -> 6 | 2 -> 7 | _ -> 8\n"
    strings = "let h n = match n with " + " | ".join(f'{i} -> "s{i}"' for i in range(9)) + ' | _ -> ""\n'
    unalike = "let u n = match n with " + " | ".join(f"{i} -> n * {i}" for i in range(8)) + " | _ -> n + 1\n"
    calls = "let k = Array.length Sys.argv\n" + "".join(
        f"let () = print_int ({call})\n" for call in ["f k", "g k", "String.length (h k)", "u k"])
    assert all(not tables for tables in _tables(sparse + small + strings + unalike + calls).values())


def test_a_table_is_emitted_as_constant_data_not_a_switch():
    llvm_ir = driver.to_llvm(driver.to_ssa_module(driver.optimise(
        driver.to_cps(driver.front_end(_big_match(300), "prog.fl")), LEVELS[2].passes)[0]))
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


def test_one_arm_built_natively_computes_what_each_arm_would(tmp_path: Path):
    count = 1000
    path = tmp_path / "big.fl"
    path.write_text(_big_match_with_arguments(count))
    expected = 0
    for i in range(count):
        expected = (expected * 3 + (i % 7) * 2 + i + 1) % 1000003
    outcome = native(Program(path), opt=2)
    assert (outcome.status, outcome.stdout) == (0, str(expected))

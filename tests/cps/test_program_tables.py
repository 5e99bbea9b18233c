"""What the sweeps of every pass rely on: a program's label table (`Program.cont_table`) is
always its continuations, however versions are made and whoever holds a table, and a
function's reverse postorder is always that of its current continuations."""

from __future__ import annotations

from cpsc.cps import ir
from cpsc.cps.parser import parse_program
from cpsc.cps.program import function_conts

TEXT = """main main

fun main() -> unit = callc main.entry() ret (ret main)
  cont main.entry() =
    let c: bool = lt_int(1, 2)
    br c, small, big
  cont small() =
    jump done(1)
  cont big() =
    jump done(0)
  cont done(v: int) =
    let u: unit = print_int(v)
    jump (ret main)(u)
"""


def _jump(label: str, target: str, args: tuple[ir.Operand, ...] = ()) -> ir.Cont:
    return ir.Cont(label, "main", (), (), ir.Jump(target, args))


def test_a_new_version_takes_over_the_table_and_both_versions_see_their_own():
    first = parse_program(TEXT)
    assert first.cont_table == dict(first.conts.items())
    second = first.with_conts({"small": _jump("small", "done", (ir.Const(2, ir.TCon("int")),))}, {"big"})
    assert second.cont_table == dict(second.conts.items())
    assert "big" not in second.cont_table and "big" in first.cont_table  # the first made its own again
    assert first.cont_table == dict(first.conts.items())


def test_a_table_no_one_else_holds_changes_hands_without_a_copy():
    # compiled (mypyc) and interpreted code count references differently: both must see this
    first = parse_program(TEXT)
    table_id = id(first.cont_table)
    second = first.with_conts({}, {"big"})
    assert id(second.cont_table) == table_id and "big" not in second.cont_table


def test_the_function_table_follows_added_and_removed_functions():
    first = parse_program(TEXT)
    assert first.function_table == dict(first.functions.items())
    helper = ir.Function("helper", (), ir.TCon("unit"), "main.entry", "main")
    second = first.with_conts({}, functions={"helper": helper})
    assert second.function_table == dict(second.functions.items()) and "helper" in second.function_table
    third = second.with_conts({}, removed_functions=["helper"])
    assert third.function_table == dict(third.functions.items()) == dict(first.functions.items())
    assert "helper" not in first.function_table and "helper" in second.function_table  # each its own


def test_a_chain_of_versions_makes_each_one_s_maps():
    first = parse_program(TEXT)
    versions = [first]
    for step in range(5):  # a label removed, then made again; a continuation replaced each time
        changed = {"small": _jump("small", "done", (ir.Const(step, ir.TCon("int")),))}
        removed = ["big"] if step % 2 == 0 else []
        if step % 2:
            changed["big"] = _jump("big", "done", (ir.Const(0, ir.TCon("int")),))
        versions.append(versions[-1].with_conts(changed, removed))
    for version in reversed(versions):  # the last version's maps first: the others wait for theirs
        assert dict(version.conts.items()) == version.cont_table
    assert versions[5].conts["small"].terminator == versions[5].cont_table["small"].terminator
    assert "big" not in versions[5].conts and "big" in versions[4].conts and versions[0] == first
    program = first
    for step in range(600):  # a long chain of versions without maps
        program = program.with_conts({"small": _jump("small", "done", (ir.Const(step, ir.TCon("int")),))})
    assert dict(program.conts.items()) == program.cont_table
    assert program.conts["small"] == _jump("small", "done", (ir.Const(599, ir.TCon("int")),))


def test_a_table_someone_holds_stays_as_it_was():
    first = parse_program(TEXT)
    held = first.cont_table
    second = first.with_conts({}, {"big"})
    assert "big" in held and held is first.cont_table
    assert second.cont_table == dict(second.conts.items())


def test_a_function_s_order_follows_its_changed_continuations():
    first = parse_program(TEXT)
    order = function_conts(first, "main")
    assert order[0] == "main.entry" and order[-1] == "done" and set(order) == {"main.entry", "small", "big", "done"}
    entry = first.conts["main.entry"]
    second = first.with_conts({"main.entry": ir.Cont("main.entry", "main", (), entry.bindings, ir.Jump("big", ()))})
    assert function_conts(second, "main") == ["main.entry", "big", "done"]
    assert function_conts(first, "main") == order  # the old version's order is still its own
    # the same label, a new continuation with another successor
    third = second.with_conts({"big": _jump("big", "small"), "small": _jump("small", "done", (ir.Const(2, ir.TCon("int")),))})
    assert function_conts(third, "main") == ["main.entry", "big", "small", "done"]


def test_a_memo_is_the_continuation_s_own():
    program = parse_program(TEXT)
    cont = program.conts["done"]
    calls = []
    assert cont.memo("test.size", lambda c: calls.append(c) or len(c.bindings)) == 1
    assert cont.memo("test.size", lambda c: calls.append(c) or 99) == 1 and len(calls) == 1
    rebuilt = ir.Cont(cont.label, cont.function, cont.params, (), cont.terminator)
    assert rebuilt.memo("test.size", lambda c: len(c.bindings)) == 0
    assert rebuilt == ir.Cont(cont.label, cont.function, cont.params, (), cont.terminator)  # memos take no part

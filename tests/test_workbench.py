"""The workbench (`cpsc.workbench`), as the Python API hands it out: versions made by steps,
looked at and run at every level, and a clear error for every request it cannot answer."""

from __future__ import annotations

import pytest

import cpsc
from cpsc.workbench import WorkbenchError

SOURCE = """let square x = x * x
let rec map f = function [] -> [] | x :: r -> f x :: map f r
let sum l = List.fold_left (+) 0 (map square l)
let () = print_int (sum [1; 2; 3] * 8)
"""

ECHO = "let () = print_string (String.uppercase_ascii (read_line ()))"


def test_every_level_reads_the_input_it_is_given():
    p = cpsc.compile(ECHO)
    for level in ("ast", "cps", "ssa", "native"):
        assert p.run(level, stdin="shout\n").stdout == "SHOUT", level


def test_the_ast_level_runs_the_source_and_an_unknown_level_is_refused():
    p = cpsc.compile(SOURCE)
    assert p.run("ast").stdout == p.pipeline(2).run("ast").stdout == "112"
    with pytest.raises(WorkbenchError, match=r"no level 'bogus' to run at \(the levels: ast, cps, ssa, jit, native\)"):
        p.run("bogus")


def test_a_level_is_named_as_the_command_line_and_the_repl_name_it():
    p = cpsc.compile(SOURCE)
    assert p.pipeline("-O2").text == p.pipeline(2).text == p.pipeline("2").text
    assert p.pipeline("-O3").steps[-1].args == (3,)
    with pytest.raises(WorkbenchError, match="no level '-O7'"):
        p.pipeline("-O7")


def test_call_sites_are_numbered_as_inline_takes_them():
    p = cpsc.compile(SOURCE)
    sites = p.call_sites("sum")
    assert [s.callee for s in sites] == ["map_int_int", "List.fold_left_int_int"]
    second = p.inline("sum", 1)
    assert second.text == p.inline("sum", sites[1]).text
    folds = [s.loc for s in second.call_sites("sum") if s.callee == "List.fold_left_int_int"]
    assert folds and all(loc.startswith("<prelude>") for loc in folds)  # the copy's own recursive call
    assert "call map_int_int(" in second.function("sum")


def test_bad_names_and_numbers_say_what_there_is():
    p = cpsc.compile(SOURCE)
    with pytest.raises(WorkbenchError, match=r"no function nothing \(the functions: .*square"):
        p.function("nothing")
    with pytest.raises(WorkbenchError, match=r"sum has 2 call sites \(0 to 1\), not 5"):
        p.inline("sum", 5)
    with pytest.raises(WorkbenchError, match="unknown pass 'fold' .*simplify"):
        p.run_pass("fold")
    with pytest.raises(WorkbenchError, match="no function nothing"):
        p.call_sites("nothing")


def test_a_program_shows_briefly_and_remembers_its_steps():
    q = cpsc.compile(SOURCE).inline("sum", 0).run_pass("simplify")
    assert repr(q).startswith("<cpsc.Program: ") and len(repr(q)) < 200
    assert "after :inline sum 0 :pass simplify" in repr(q)
    assert [str(s) for s in q.steps] == [":inline sum 0", ":pass simplify"]


def test_steps_replayed_on_more_code_give_the_same_transformation():
    p = cpsc.compile(SOURCE)
    q = p.inline("sum", 0).run_pass("simplify")
    again = q.replayed_on(p.cps)
    assert again.text == q.text


def test_sizes_remarks_and_the_later_stages():
    p = cpsc.compile(SOURCE)
    blocks, values, calls = p.sizes()["sum"]
    assert blocks >= 1 and calls == 2
    assert any("map_int_int" in str(r) for r in p.remarks())
    assert "fl.square" in p.asm("square") and "define" in p.llvm("square") and "square" in p.ssa("square")

"""The pass context's supply of fresh names: one for a whole pipeline, built once and passed
from pass to pass, and never handed to a program whose names it may not know."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cpsc import driver
from cpsc.cps import ir
from cpsc.cps.program import Program
from cpsc.cps.verify import verify
from cpsc.opt.context import PassContext
from cpsc.opt.pipeline import LEVELS, PASSES, register_pass, run_pipeline
from cpsc.types.types import INT

SOURCE = """
let compose f g x = f (g x)
let twice f = compose f f
let rec sum_to n acc = if n = 0 then acc else sum_to (n - 1) (acc + n)
let () =
  let r = ref 0 in
  for i = 1 to 10 do r := !r + twice (fun x -> x * 2) i done;
  print_int (!r + sum_to 100 0)
"""

USER_VARIABLE = "made_by_the_users_pass"


def _program() -> Program:
    return driver.to_cps(driver.front_end(SOURCE, "prog.fl"))


def _names(program: Program) -> set[str]:
    names = set(program.function_table) | set(program.cont_table)
    for function in program.function_table.values():
        names.update(p.name for p in function.params)
    for cont in program.cont_table.values():
        names.update(cont.introduced_names)
    return names


def _with_a_new_variable(program: Program) -> Program:
    """A user's pass that names a variable its own way (no supply): a dead `add_int(1, 2)`
    at the top of main's entry."""
    entry = program.cont_table[program.function_table[program.main].entry]
    binding = ir.Binding(ir.Var(USER_VARIABLE, INT), ir.Prim("add_int", (ir.Const(1, INT), ir.Const(2, INT))))
    cont = ir.Cont(entry.label, entry.function, entry.params, (binding, *entry.bindings), entry.terminator)
    return program.with_conts({cont.label: cont})


@pytest.fixture
def users_pass() -> Iterator[str]:
    register_pass("add_a_variable", _with_a_new_variable, "a dead binding, named without a supply")
    yield "add_a_variable"
    del PASSES["add_a_variable"]


def test_a_pipeline_builds_one_supply_that_covers_every_program_it_makes():
    context = PassContext()
    seen: list[tuple[str, Program]] = []
    result, _ = run_pipeline(_program(), LEVELS[2].passes, lambda name, p: seen.append((name, p)), context)
    supply = context.names
    assert supply is not None and context.names_cover is result
    for name, program in seen:  # each pass's output: every name in it is one the supply knows
        verify(program)
        assert _names(program) <= supply.taken, name
    assert context.name_supply(result) is supply


def test_the_supply_is_only_for_the_program_it_covers():
    context = PassContext()
    program = _program()
    supply = context.name_supply(program)
    assert context.name_supply(program) is supply
    after, _ = PASSES["contify"].run(program, context)
    context.passed_on(program, after)
    assert context.name_supply(after) is supply
    context.passed_on(program, _program())  # `program` is covered no longer: nothing changes
    assert context.name_supply(after) is supply
    assert context.name_supply(_program()) is not supply  # equal to `program`, but not it


def test_after_a_users_pass_the_next_pass_builds_a_supply_afresh(users_pass):
    context = PassContext()
    result, _ = run_pipeline(_program(), ["simplify", "contify", users_pass, "inline"], context=context)
    verify(result)
    assert USER_VARIABLE in _names(result)
    assert context.names is not None and _names(result) <= context.names.taken

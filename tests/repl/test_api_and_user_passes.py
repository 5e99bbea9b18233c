"""The Python API (`import cpsc`) and a user's own pass: registered by name without editing
cpsc, usable from --passes and :pass, and property-tested with cpsc.testing, which catches a
planted bug in it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings

import cpsc
from cpsc.cps import ir
from cpsc.cps.program import Program
from cpsc.repl.commands import execute
from cpsc.testing import PassBroke, check_pass, programs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples", "passes"))
import strength  # noqa: E402  (registers the pass "strength")

SOURCE = """let square x = x * x
let rec map f = function [] -> [] | x :: r -> f x :: map f r
let sum l = List.fold_left (+) 0 (map square l)
let () = print_int (sum [1; 2; 3] * 8)
"""


def test_api_inline_pass_diff_run_and_draw():
    p = cpsc.compile(SOURCE)
    sites = p.call_sites("sum")
    assert [s.callee for s in sites] == ["map_int_int", "List.fold_left_int_int"]
    q = p.inline("sum", 0).run_pass("simplify")
    q.verify()
    assert "call map_int_int(square_closure, l)" in p.function("sum")
    assert "+    let r.8: int = call square(field.4)" in p.diff(q) or "call square(" in q.function("sum")
    assert p.run().stdout == q.run().stdout == q.run("ssa").stdout == q.run("native").stdout == "112"
    assert q.count()["closure calls"] < p.count()["closure calls"]
    assert q.cfg("sum").dot.startswith('digraph "sum"')
    assert "<pre>" in q._repr_html_()
    assert cpsc.infer_types(SOURCE)["map"] == "('a -> 'b) -> 'a list -> 'b list"


def test_a_registered_pass_is_known_to_the_command_line_and_the_repl(tmp_path):
    program = tmp_path / "p.fl"
    program.write_text(SOURCE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, os.path.join(ROOT, "examples", "passes")])}
    done = subprocess.run([sys.executable, "-m", "cpsc", "build", str(program), "--passes", "strength",
                           "--plugin", "strength", "--emit", "cps", "-o", "-"], capture_output=True, text=True,
                          env=env, check=True)
    assert re.search(r"lsl_int\(r\.\d+, 3\)", done.stdout) and not re.search(r"mul_int\(r\.\d+, 8\)", done.stdout)
    session = cpsc.Session()
    session.phrase(SOURCE + ";;")
    assert "version 1: :pass strength" in execute(session, ":pass strength")


@settings(max_examples=30, suppress_health_check=list(HealthCheck), deadline=None)
@given(programs())
def test_the_strength_reduction_keeps_every_program_meaning(source):
    check_pass(strength.strength_reduce, source)


def _off_by_one(binding: ir.Binding) -> ir.Binding:
    """A planted bug: x * 2^k becomes x lsl (k + 1)."""
    reduced = strength.reduce_binding(binding)
    if reduced is binding:
        return binding
    x, shift = reduced.value.args  # type: ignore[union-attr]
    return replace(reduced, value=ir.Prim("lsl_int", (x, ir.Const(shift.value + 1, shift.type))))


def test_the_check_catches_a_planted_bug_in_a_users_pass():
    def buggy(program: Program) -> Program:
        return program.with_conts({label: replace(c, bindings=tuple(map(_off_by_one, c.bindings)))
                                   for label, c in program.conts.items()})

    check_pass(strength.strength_reduce, SOURCE)  # the right pass: 6 * 8 = 6 lsl 3
    with pytest.raises(PassBroke, match="the cps interpreter gives .*'224'.* the program should give .*'112'"):
        check_pass(buggy, SOURCE)

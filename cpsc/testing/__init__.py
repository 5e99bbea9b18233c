"""Property tests over optimisations, for cpsc's own passes and its users': the random-program
generator as a hypothesis strategy, and a check that a pass keeps the program's meaning.

    from hypothesis import given
    from cpsc.testing import programs, check_pass

    @given(programs())
    def test_my_pass(source):
        check_pass(my_pass, source)   # my_pass: any cpsc Program -> Program function

`check_pass` runs the program with the reference (AST) interpreter, then the pass's result
with the CPS and SSA interpreters, after the IR verifier; hypothesis shrinks a failure to a
small program. Needs hypothesis (a dependency of cpsc).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cpsc import driver
from cpsc.cps.program import Program
from cpsc.cps.verify import VerifyError, verify
from cpsc.testing.generate import programs

__all__ = ["programs", "check_pass", "PassBroke"]


class PassBroke(AssertionError):
    """The pass changed what a program does, or broke an invariant of the IR."""


def check_pass(transform: Callable[[Program], Program], source: str,
               before: Sequence[str] = (), file: str = "random.fl") -> Program:
    """Check `transform` on one FL program (after the registered passes named in `before`):
    the verifier accepts its result, and the CPS and SSA interpreters print what the AST
    interpreter does, with the same status. Returns the transformed program."""
    from cpsc.cps.interp import run_cps
    from cpsc.mono.interp import run_ast
    from cpsc.ssa.interp import run_ssa

    typed = driver.front_end(source, file)
    reference = run_ast(typed, stdin="")
    program, _ = driver.optimise(driver.to_cps(typed), list(before))
    result = transform(program)
    try:
        verify(result)
    except VerifyError as error:
        raise PassBroke(f"the verifier rejects the pass's result: {error}") from None
    for level, run in (("cps", lambda: run_cps(result, stdin="")),
                       ("ssa", lambda: run_ssa(driver.to_ssa_module(result, verify_each=True), stdin=""))):
        outcome = run()
        if outcome != reference:
            raise PassBroke(f"after the pass, the {level} interpreter gives {outcome!r};"
                            f" the program should give {reference!r}")
    return result

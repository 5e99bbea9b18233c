"""What a pass is given besides the program: the inliner's budget (an `-O` level's), the
optimisation fuel, and where to put remarks.

Fuel (`--fuel=N`) bounds the rewrites of a whole pipeline: every pass asks before each rewrite
and stops rewriting once N have been done, so `cpsc bisect` can find by binary search on N the
first rewrite after which a program's output changes. Each rewrite is described (pass, what,
where) so that the bisector can name the one it finds.

The context also carries the pipeline's supply of fresh names. Building one costs a sweep of
every name in the program, and at 16,000 lines each such sweep runs mostly on cache misses.
A built-in pass takes every new name from the supply, so the supply still covers the program
the pass returns, and `run_pipeline` passes it on to the next pass.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from cpsc.cps import ir
from cpsc.cps.analysis import name_supply, replace_values
from cpsc.cps.names import NameSupply
from cpsc.cps.program import Program


@dataclass(frozen=True)
class Remark:
    """`file:line:col: remark: message`, as `--remarks=inline` prints it."""

    pass_name: str
    loc: str | None
    message: str

    def __str__(self) -> str:
        return f"{self.loc or '<unknown>'}: remark: {self.message}"


@dataclass(frozen=True)
class InlineBudget:
    """How far the inliner may grow code (an `-O` level's, `cpsc.opt.pipeline.LEVELS`); sizes
    count a function's bindings and terminators. The defaults are -O2's."""

    small: int = 12  # a callee this size or smaller is always inlined
    known_argument: int = 40  # ... this size, when an argument is a known closure, block or constant
    caller: int = 3000  # no caller grows beyond this by inlining
    rounds: int = 3  # sweeps of the whole program, each inlining into what the last one made


@dataclass
class PassContext:
    inline_budget: InlineBudget = InlineBudget()
    fuel: int | None = None  # rewrites left; None: unlimited
    spent: int = 0
    last_rewrite: str | None = None
    remarks: list[Remark] = field(default_factory=list)
    # -g: inlining keeps each call's frame for backtraces (`cpsc.opt.substitute.framed`), even a
    # tail call's in these functions (the top-level statements'); None without -g
    frames: frozenset[str] | None = None
    # The supply of fresh names, and the program it covers: a name it has not given out is
    # not in that program. Only that very program (by identity) may take names from it.
    names: NameSupply | None = field(default=None, repr=False, compare=False)
    names_cover: Program | None = field(default=None, repr=False, compare=False)

    def name_supply(self, program: Program) -> NameSupply:
        """Fresh names for `program`: the context's supply if it covers `program`, else a new
        one, which then covers it."""
        if self.names is None or self.names_cover is not program:
            self.names, self.names_cover = name_supply(program), program
        return self.names

    def passed_on(self, before: Program, after: Program) -> None:
        """A pass that made names only with the supply turned `before` into `after`."""
        if self.names_cover is before:
            self.names_cover = after

    def allow(self, pass_name: str, description: str) -> bool:
        """Whether one more rewrite may be done; if so it is counted and recorded."""
        if self.fuel is not None and self.spent >= self.fuel:
            return False
        self.spent += 1
        self.last_rewrite = f"{pass_name}: {description}"
        return True

    def remark(self, pass_name: str, loc: str | None, message: str) -> None:
        self.remarks.append(Remark(pass_name, loc, message))


# What a pass found in one function: the function's continuations, each redundant variable's
# replacement, the continuations whose terminators it replaces (a branch decided), and the
# counts of what was found.
Found = tuple[list[str], dict[str, ir.Operand], dict[str, ir.Terminator], Counter[str]]


def replace_found(program: Program, context: PassContext | None, pass_name: str, step: str,
                  find: Callable[[str], Found], stats: Counter[str]) -> Program:
    """`program` with what `find` finds in each function replaced (values program-wide),
    function by function while the fuel lasts: one function's replacements are one rewrite,
    described by `step` (`"{count} values in {function}"`), and their counts go to `stats`."""
    renaming: dict[str, ir.Operand] = {}
    terminators: dict[str, ir.Terminator] = {}
    holding: list[str] = []
    for function in program.function_table:
        labels, found, decided, counts = find(function)
        count = len(found) + len(decided)
        if count and context is not None and not context.allow(pass_name, step.format(count=count, function=function)):
            break
        stats.update(counts)
        if count:
            renaming.update(found)
            terminators.update(decided)
            holding.extend(labels)
    return replace_values(program, holding, renaming, terminators) if holding else program

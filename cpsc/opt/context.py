"""What a pass is given besides the program: the `-O` level, the optimisation fuel, and where
to put remarks.

Fuel (`--fuel=N`) bounds the rewrites of a whole pipeline: every pass asks before each rewrite
and stops rewriting once N have been done, so `cpsc bisect` can find by binary search on N the
first rewrite after which a program's output changes. Each rewrite is described (pass, what,
where) so that the bisector can name the one it finds.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Remark:
    """`file:line:col: remark: message`, as `--remarks=inline` prints it."""

    pass_name: str
    loc: str | None
    message: str

    def __str__(self) -> str:
        return f"{self.loc or '<unknown>'}: remark: {self.message}"


@dataclass
class PassContext:
    level: int = 2
    fuel: int | None = None  # rewrites left; None: unlimited
    spent: int = 0
    last_rewrite: str | None = None
    remarks: list[Remark] = field(default_factory=list)

    def allow(self, pass_name: str, description: str) -> bool:
        """Whether one more rewrite may be done; if so it is counted and recorded."""
        if self.fuel is not None and self.spent >= self.fuel:
            return False
        self.spent += 1
        self.last_rewrite = f"{pass_name}: {description}"
        return True

    def remark(self, pass_name: str, loc: str | None, message: str) -> None:
        self.remarks.append(Remark(pass_name, loc, message))

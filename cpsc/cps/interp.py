"""An interpreter for the CPS IR (before or after closure conversion).

Each function activation has a frame; a nested function's frame chains to the frame of the
activation of its parent that created it (or, for a direct call, that encloses the caller), so
free variables resolve by name. Tail calls replace the activation instead of recursing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from cpsc.cps import ir
from cpsc.cps.primops import evaluate
from cpsc.cps.program import Program
from cpsc.semantics.builtins import FlRaise, FunctionValue
from cpsc.semantics.values import Machine, Outcome, machine, run_deep


class Frame:
    __slots__ = ("function", "values", "parent")

    def __init__(self, function: str, parent: Frame | None) -> None:
        self.function = function
        self.values: dict[str, Any] = {}
        self.parent = parent

    def lookup(self, name: str) -> Any:
        frame: Frame | None = self
        while frame is not None:
            if name in frame.values:
                return frame.values[name]
            frame = frame.parent
        raise KeyError(name)


@dataclass
class ClosureValue(FunctionValue):
    function: str
    frame: Frame | None
    captured: tuple[Any, ...] = ()
    full: str | None = None  # `MakeClosure.full` (before closure conversion)


class _Returned(Exception):
    """Control left a `callc` region through the function's own return or a tail call."""

    def __init__(self, terminator: ir.Terminator, frame: Frame) -> None:
        self.terminator = terminator
        self.frame = frame


class _Escaped(Exception):
    """Control left a `callc` region by a jump to the return point of an enclosing one (after
    a handler outside the region took an exception raised in it)."""

    def __init__(self, terminator: ir.Jump, frame: Frame) -> None:
        self.terminator = terminator
        self.frame = frame


COUNTED = ("values", "calls", "closure calls", "allocations", "jumps")


class CpsInterpreter:
    def __init__(self, program: Program, counts: Counter[str] | None = None) -> None:
        self.program = program
        self.machine = Machine()
        self.globals: dict[str, Any] = {}
        # `cpsc interp --count`: dynamic work, to measure what a pass saves without timing
        self.counts = counts

    def operand(self, o: ir.Operand, frame: Frame) -> Any:
        return o.value if isinstance(o, ir.Const) else frame.lookup(o.name)

    def operands(self, os: tuple[ir.Operand, ...], frame: Frame) -> list[Any]:
        return [self.operand(o, frame) for o in os]

    def enclosing(self, function: str, frame: Frame | None) -> Frame | None:
        """The frame of `function`'s parent, found on the lexical chain of `frame`."""
        parent = self.program.functions[function].parent
        while frame is not None and frame.function != parent:
            frame = frame.parent
        return frame

    @staticmethod
    def snapshot(frame: Frame | None) -> Frame | None:
        """A closure sees the values its free variables have when it is made: a loop that
        rebinds a continuation parameter afterwards must not change them, in the frame the
        closure is made in or in any enclosing one (a function called directly from a loop
        runs in the loop's live frame, and a closure it makes captures from there)."""
        frames = []
        while frame is not None:
            frames.append(frame)
            frame = frame.parent
        copy = None
        for original in reversed(frames):
            copy = Frame(original.function, copy)
            copy.values = dict(original.values)
        return copy

    def call(self, function: str, args: list[Any], frame: Frame | None) -> Any:
        """Run a function to completion, looping through its tail calls."""
        while True:
            f = self.program.functions[function]
            new = Frame(function, frame)
            new.values.update(zip((p.name for p in f.params), args))
            try:
                terminator, at = self.region(f.entry, [], new, None)
            except _Returned as out:
                terminator, at = out.terminator, out.frame
            if isinstance(terminator, ir.Jump):
                return self.operand(terminator.args[0], at)
            assert isinstance(terminator, (ir.TailCall, ir.TailApply))
            args = self.operands(terminator.args, at)
            if isinstance(terminator, ir.TailCall):
                function, frame = terminator.function, self.enclosing(terminator.function, at)
            else:
                closure = self.operand(terminator.closure, at)  # type: ignore[union-attr]
                function, frame, args = self.saturate(closure, args)

    def saturate(self, closure: ClosureValue, args: list[Any]) -> tuple[str, Frame | None, list[Any]]:
        """The call an apply of `closure` to `args` comes to: its full function when it takes
        them all, else its function with the last argument, after applying it to the others
        one by one (a curried application)."""
        while True:
            full = self.program.functions[closure.function].full if self.program.closed else closure.full
            record = [closure] if self.program.closed else []
            frame = None if self.program.closed else closure.frame
            if full is not None and len(self.program.functions[full].params) == len(record) + len(args):
                return full, frame, record + args
            if len(args) == 1:
                return closure.function, frame, record + args
            closure = self.call(closure.function, record + args[:1], frame)
            args = args[1:]

    def region(self, label: str, args: list[Any], frame: Frame,
               ret: str | None) -> tuple[ir.Terminator, Frame]:
        """Run from continuation `label` until control reaches the return point `ret` (a callc)
        or, when `ret` is None, leaves the function (a return or a tail call)."""
        while True:
            cont = self.program.conts[label]
            frame.values.update(zip((p.name for p in cont.params), args))
            if self.counts is not None:
                self._count(cont)
            caught = self.bindings(cont, frame)
            if caught is not None:
                label, args = caught
                continue
            term = cont.terminator
            if isinstance(term, ir.Branch):
                label = term.if_true if self.operand(term.condition, frame) else term.if_false
                args = []
            elif isinstance(term, ir.Switch):
                label, args = term.target(self.operand(term.value, frame)), []
            elif isinstance(term, ir.Jump) and isinstance(term.target, str):
                if term.target == ret:
                    return term, frame
                if term.target not in self.program.conts:
                    raise _Escaped(term, frame)
                label, args = term.target, self.operands(term.args, frame)
            elif isinstance(term, ir.Jump) and isinstance(term.target, ir.Exn):
                raise FlRaise(self.operand(term.args[0], frame))
            elif ret is None:
                return term, frame
            else:
                raise _Returned(term, frame)

    def _count(self, cont: ir.Cont) -> None:
        """Count a continuation's work as it is entered (a raise cuts it short: the few values
        after a raising call are counted all the same)."""
        assert self.counts is not None
        counts = self.counts
        counts["jumps"] += 1
        counts["values"] += len(cont.bindings)
        for b in cont.bindings:
            v = b.value
            if isinstance(v, ir.Call):
                counts["calls"] += 1
            elif isinstance(v, ir.Apply):
                counts["closure calls"] += 1
            elif isinstance(v, (ir.MakeTuple, ir.MakeBlock, ir.MakeClosure)):
                counts["allocations"] += 1
        term = cont.terminator
        if isinstance(term, ir.TailCall):
            counts["calls"] += 1
        elif isinstance(term, ir.TailApply):
            counts["closure calls"] += 1

    def bindings(self, cont: ir.Cont, frame: Frame) -> tuple[str, list[Any]] | None:
        """Evaluate a continuation's bindings; if a call raises to a handler of this function,
        where control goes instead (the handler and its argument)."""
        for binding in cont.bindings:
            try:
                frame.values[binding.var.name] = self.value(binding.value, frame)
            except FlRaise as raised:
                handler = ir.handler_of(binding.value)
                if handler is None:
                    raise
                return handler, [raised.value]
        return None

    def value(self, v: ir.Value, frame: Frame) -> Any:
        if isinstance(v, ir.Prim):
            return evaluate(v.op, self.operands(v.args, frame), self.machine.out)
        if isinstance(v, ir.Call):
            return self.call(v.function, self.operands(v.args, frame), self.enclosing(v.function, frame))
        if isinstance(v, ir.Apply):
            closure = self.operand(v.closure, frame)
            function, parent, args = self.saturate(closure, self.operands(v.args, frame))
            return self.call(function, args, parent)
        if isinstance(v, ir.MakeClosure):
            return ClosureValue(v.function, self.snapshot(self.enclosing(v.function, frame)),
                                tuple(self.operands(v.captured, frame)), v.full)
        if isinstance(v, ir.MakeTuple):
            return tuple(self.operands(v.items, frame))
        if isinstance(v, ir.Field):
            record = self.operand(v.record, frame)
            return record.captured[v.index] if isinstance(record, ClosureValue) else record[v.index]
        if isinstance(v, ir.MakeBlock):
            items = self.operands(v.items, frame)
            return items if v.mutable else tuple(items)
        if isinstance(v, ir.SetField):
            self.operand(v.record, frame)[v.index] = self.operand(v.value, frame)
            return None
        if isinstance(v, ir.GlobalLoad):
            return self.globals[v.name]
        if isinstance(v, ir.GlobalStore):
            self.globals[v.name] = self.operand(v.value, frame)
            return None
        try:
            term, at = self.region(v.target, self.operands(v.args, frame), frame, v.ret)
        except _Escaped as out:
            if out.terminator.target != v.ret:
                raise
            term, at = out.terminator, out.frame
        assert isinstance(term, ir.Jump)
        return self.operand(term.args[0], at)


def run_cps(program: Program, stdin: str | None = None, counts: Counter[str] | None = None) -> Outcome:
    """Run `program`; with `counts`, add its dynamic work to them (`COUNTED`)."""
    interpreter = CpsInterpreter(program, counts)
    interpreter.machine = machine(stdin)
    return run_deep(lambda: interpreter.machine.finish(lambda: interpreter.call(program.main, [], None)))

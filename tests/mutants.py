"""Mutants of the optimiser: plausible wrong versions of its passes, each made by replacing one
named helper of a pass from outside it, so that the property tests can be shown to catch what a
real mistake in a pass would do (and the passes read as what they do).

`scripts/planted-bugs` runs the tests once per mutant, with `CPSC_MUTANT=<name>`; `conftest.py`
applies it before any test runs. A mutant replaces a module's attribute, which the pass looks up
when it calls it: in the pure build only (compiled by mypyc, a call inside a module is bound when
compiled), so the mutation run sets `CPSC_PURE=1`, and `apply` refuses a compiled build.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cpsc.cps import ir
from cpsc.cps.primops import never_returns
from cpsc.llvm import lower
from cpsc.opt import contify, cse, facts, inline, licm, loads, local_refs, simplify, specialise
from cpsc.support import native

ENVIRONMENT = "CPSC_MUTANT"


@dataclass(frozen=True)
class Mutant:
    name: str
    description: str
    replacements: Callable[[], list[tuple[Any, str, Any]]]  # (module or class, attribute, new value)

    def apply(self) -> None:
        if native.mode() == "compiled":
            raise RuntimeError("mutants patch the pure build: run with CPSC_PURE=1")
        for owner, attribute, value in self.replacements():
            if not hasattr(owner, attribute):  # a helper renamed: the mutant would test nothing
                raise RuntimeError(f"mutant {self.name}: {owner.__name__} has no {attribute}")
            setattr(owner, attribute, value)


def _tail_call_past_handler() -> list[tuple[Any, str, Any]]:
    return [(simplify, "returns_to_caller", lambda call: True)]


def _tail_call_of_another_value() -> list[tuple[Any, str, Any]]:
    return [(simplify, "returns_its_value", lambda returned, result: isinstance(returned, (ir.Var, ir.Const)))]


def _handler_ignored(module: Any) -> list[tuple[Any, str, Any]]:
    original = module.return_point

    def return_point(*args: Any, **kwargs: Any) -> Any:
        return dataclasses.replace(original(*args, **kwargs), handler=None)
    return [(module, "return_point", return_point)]


def _raise_past_handler() -> list[tuple[Any, str, Any]]:
    original = contify.return_point

    def return_point(program: Any, site: Any, *args: Any) -> Any:
        return dataclasses.replace(original(program, site, *args), raises=ir.Exn(site.function))
    return [(contify, "return_point", return_point)]


def _swap_arguments() -> list[tuple[Any, str, Any]]:
    original = inline.parameter_values
    return [(inline, "parameter_values", lambda callee, args: original(callee, tuple(reversed(args))))]


def _tail_call_kept() -> list[tuple[Any, str, Any]]:
    class TailCallsKept(inline.Relocation):  # type: ignore[misc]
        def returned_call(self, term: Any, bindings: Any) -> Any:
            return term
    return [(inline, "Relocation", TailCallsKept)]


def _effects_merged() -> list[tuple[Any, str, Any]]:
    original = cse.numberable

    def numberable(value: Any, record_type: Any, immutable: Any) -> bool:
        if isinstance(value, ir.Prim) and value.op in ("array_unsafe_get", "read_line"):
            return True
        return isinstance(value, ir.Field) and record_type is not None or original(value, record_type, immutable)
    return [(cse, "numberable", numberable)]


def _phi_input_dropped() -> list[tuple[Any, str, Any]]:
    original = cse._Numbering._phi

    def _phi(self: Any, label: str, *args: Any) -> Any:
        arguments = self.incoming.get(label)
        if not arguments or len(arguments) < 2:
            return original(self, label, *args)
        self.incoming[label] = arguments[1:]
        try:
            return original(self, label, *args)
        finally:
            self.incoming[label] = arguments
    return [(cse._Numbering, "_phi", _phi)]


def _offset_sign() -> list[tuple[Any, str, Any]]:
    original = cse._Numbering._offset

    def _offset(self: Any, v: ir.Prim, operands: list[Any]) -> Any:
        if v.op == "sub_int" and len(operands) == 2 and operands[1] in self.constants:
            v = ir.Prim("add_int", v.args)
        return original(self, v, operands)
    return [(cse._Numbering, "_offset", _offset)]


def _effects_hoisted() -> list[tuple[Any, str, Any]]:
    original = licm.hoistable
    return [(licm, "hoistable", lambda value, blocks: isinstance(value, ir.Prim) and value.op == "array_unsafe_get"
             or original(value, blocks))]


def _speculative_load() -> list[tuple[Any, str, Any]]:
    original = licm.hoistable

    def hoistable(value: Any, blocks: Any) -> bool:
        return (isinstance(value, ir.Field) and value.record.type.name not in ("ref", "array")
                or original(value, blocks))
    return [(licm, "hoistable", hoistable)]


def _phis_ignored() -> list[tuple[Any, str, Any]]:
    return [(licm, "defined_in", lambda conts, body: {b.var.name for label in body for b in conts[label].bindings})]


def _captured_promoted() -> list[tuple[Any, str, Any]]:
    original = local_refs._promote

    def _promote(graph: Any, names: Any, local: Any) -> Any:  # the nested function's uses unseen
        own = frozenset(label for label in local.used_in if label in graph.preds)
        return original(graph, names, dataclasses.replace(local, used_in=own))
    return [(local_refs, "captured", lambda program, definition, use: False), (local_refs, "_promote", _promote)]


def _loop_phi_missing() -> list[tuple[Any, str, Any]]:
    original = local_refs.join_predecessors

    def join_predecessors(graph: Any, label: str) -> list[str]:
        return [p for p in original(graph, label) if not graph.dominators.dominates(label, p)]
    return [(local_refs, "join_predecessors", join_predecessors)]


def _handler_sees_last_store() -> list[tuple[Any, str, Any]]:
    return [(local_refs._Promotion, "note_exit", lambda self, at_exit, edge, current: None)]


def _impure_dead() -> list[tuple[Any, str, Any]]:
    original = simplify.removable
    return [(simplify, "removable", lambda value: isinstance(value, ir.Prim) and not never_returns(value.op)
             or original(value))]


def _branch_inverted() -> list[tuple[Any, str, Any]]:
    def branch_taken(branch: ir.Branch) -> str:
        return branch.if_false if branch.condition.value else branch.if_true  # type: ignore[union-attr]
    return [(simplify, "branch_taken", branch_taken)]


def _wrong_field() -> list[tuple[Any, str, Any]]:
    original = simplify.known_field

    def known_field(items: Any, index: int, type_: Any) -> Any:
        if index + 1 < len(items) and items[index + 1].type == type_:
            index += 1
        return original(items, index, type_)
    return [(simplify, "known_field", known_field)]


def _copy_shared_by_position() -> list[tuple[Any, str, Any]]:
    def copy_key(callee: str, known: Any) -> Any:  # which closures they are is forgotten
        return callee, tuple(known)
    return [(specialise, "copy_key", copy_key)]


def _captured_reversed() -> list[tuple[Any, str, Any]]:
    original = specialise.captured_arguments
    return [(specialise, "captured_arguments", lambda known: tuple(reversed(original(known))))]


def _else_knows_then() -> list[tuple[Any, str, Any]]:
    original = facts.assume_comparison

    def assume_comparison(known: Any, op: str, x: Any, y: Any, value: bool) -> None:
        original(known, op, x, y, True)
    return [(facts, "assume_comparison", assume_comparison)]


def _strict_as_loose() -> list[tuple[Any, str, Any]]:
    original = facts._as_le

    def as_le(op: str, x: Any, y: Any) -> Any:
        a, b, k = original(op, x, y)
        return a, b, k - 1 if op in ("le_int", "ge_int") else k
    return [(facts, "_as_le", as_le)]


def _other_blocks_kept() -> list[tuple[Any, str, Any]]:
    def forget_aliases(known: Any, place: Any) -> None:  # as if no two variables named one block
        for p in [p for p in known if p[:3] == place[:3]]:
            del known[p]
    return [(loads, "forget_aliases", forget_aliases)]


MUTANTS: dict[str, Mutant] = {m.name: m for m in [
    Mutant("inline.swap_arguments", "the callee's parameters receive the call's arguments in reverse order",
           _swap_arguments),
    Mutant("inline.handler_ignored", "calls in the inlined code raise out of the caller, past the call's handler",
           lambda: _handler_ignored(inline)),
    Mutant("inline.tail_call_kept", "a tail call in the inlined code stays a tail call although the call was not one",
           _tail_call_kept),
    Mutant("contify.handler_ignored", "calls in the contified code raise out of the caller, past the call's handler",
           lambda: _handler_ignored(contify)),
    Mutant("contify.raise_past_handler",
           "a raise in the contified code leaves the caller instead of going to the handler", _raise_past_handler),
    Mutant("contify.parent_kept", "functions nested in the contified function keep it as their parent",
           lambda: [(contify, "reparented", lambda program, children, parent: {})]),
    Mutant("cse.effects_merged", "array loads, reads and loads of mutable fields are numbered as pure: "
           "merged across stores", _effects_merged),
    Mutant("cse.phi_input_dropped", "a VN-phi ignores the value of its first incoming jump", _phi_input_dropped),
    Mutant("cse.offset_sign", "`x - c` is numbered as `x + c`", _offset_sign),
    Mutant("licm.effects_hoisted", "an array load leaves the loop although the loop stores into the array",
           _effects_hoisted),
    Mutant("licm.phis_ignored", "a loop's continuation parameters count as defined outside it", _phis_ignored),
    Mutant("licm.speculative_load", "a load from a variant leaves the loop, ahead of the test of its constructor",
           _speculative_load),
    Mutant("local_refs.captured_promoted", "a ref a nested function uses is promoted as if only its own function did",
           _captured_promoted),
    Mutant("local_refs.loop_phi_missing", "no parameter where a loop's back edge brings a stored value",
           _loop_phi_missing),
    Mutant("local_refs.handler_sees_last_store",
           "a handler sees the value stored last in the block, not the one current at the call",
           _handler_sees_last_store),
    Mutant("simplify.impure_dead", "an unused primitive with an effect (a print, an array store) is removed as dead",
           _impure_dead),
    Mutant("simplify.branch_inverted", "a branch on a constant condition is folded to the wrong target",
           _branch_inverted),
    Mutant("specialise.copy_shared_by_position",
           "calls with different closures in the same position share one specialised copy", _copy_shared_by_position),
    Mutant("specialise.captured_reversed", "a specialised copy is given what its closures capture in reverse order",
           _captured_reversed),
    Mutant("specialise.original_closure", "a specialised copy makes its closure of the original function, "
           "not of its own copy", lambda: [(specialise, "closure_in_copy", lambda inner, original: ir.MakeClosure(original))]),
    Mutant("simplify.full_for_fewer_arguments", "an apply of a closure with a full function calls it also with "
           "fewer arguments than it takes", lambda: [(simplify, "full_applies", lambda f, args: True)]),
    Mutant("specialise.full_not_copied", "a closure copied into a specialised copy keeps the original full function, "
           "not its copy beside it", lambda: [(specialise, "full_in_copy", lambda full, renamed: full)]),
    Mutant("lower.arity_not_checked", "an apply of several arguments calls the closure's full entry whatever "
           "its arity", lambda: [(lower, "arity_matches", lambda b, arity, count: lower.I1(1))]),
    Mutant("facts.else_knows_then", "the arm a failed comparison leads to knows what the other arm knows",
           _else_knows_then),
    Mutant("facts.strict_as_loose", "`x <= y` is taken to mean `x < y`", _strict_as_loose),
    Mutant("facts.overflow_ignored", "`x + c` is taken as exact even where it may wrap",
           lambda: [(facts, "offset_fits", lambda known, base, amount: True)]),
    Mutant("facts.guesses_unchecked", "a guessed fact about a loop parameter is kept whatever the jumps pass",
           lambda: [(facts, "satisfies", lambda known, argument, candidate: True)]),
    Mutant("loads.other_blocks_kept", "a store to a field or an element forgets only that variable's",
           _other_blocks_kept),
    Mutant("loads.calls_kept", "what is known of the heap survives calls and stores into arrays",
           lambda: [(loads, "keeps_the_heap", lambda value: True)]),
    Mutant("loads.joins_inherit", "a join or a loop header knows what its dominator knew at its end",
           lambda: [(loads, "inherits", lambda graph, cont, child, targets: True)]),
    Mutant("simplify.tail_call_past_handler", "a call a handler of the function's own catches becomes a tail call",
           _tail_call_past_handler),
    Mutant("simplify.tail_call_of_another_value", "a call followed by returning any value becomes a tail call",
           _tail_call_of_another_value),
    Mutant("simplify.wrong_field", "a field of a block built in sight folds to the next field of the same type",
           _wrong_field),
]}


def apply_from_environment() -> str | None:
    """Apply the mutant `CPSC_MUTANT` names, if any; its name."""
    name = os.environ.get(ENVIRONMENT, "")
    if not name:
        return None
    if name not in MUTANTS:
        raise SystemExit(f"unknown mutant {name} (known: {', '.join(MUTANTS)})")
    MUTANTS[name].apply()
    return name

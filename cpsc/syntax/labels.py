"""Labelled arguments, for the prelude functions that OCaml declares with labels.

FL has no labelled parameters of its own, but an FL program must be an OCaml program, and in
OCaml `String.starts_with` can only be called without warnings as `String.starts_with ~prefix:p s`.
So the parser accepts `~label:e` arguments to the functions of `LABELLED_PARAMETERS` and puts
them back in positional order, as OCaml's type checker does when it matches labels: a labelled
argument goes to its parameter, the unlabelled ones fill the other parameters from the left.
An application that leaves parameters out becomes a function of the missing ones, with the given
arguments evaluated once, before it, as in OCaml's partial application.
"""

from __future__ import annotations

from dataclasses import dataclass

from cpsc.syntax import ast
from cpsc.syntax.diagnostics import CompileError, Span

# A function's parameters in order: the label of each, or None for an unlabelled one.
LABELLED_PARAMETERS: dict[str, tuple[str | None, ...]] = {
    "String.starts_with": ("prefix", None),
    "String.ends_with": ("suffix", None),
    "Bytes.starts_with": ("prefix", None),
    "Bytes.ends_with": ("suffix", None),
    "Option.value": (None, "default"),
    "Option.fold": ("none", "some", None),
    "Option.to_result": ("none", None),
    "Result.value": (None, "default"),
    "Result.fold": ("ok", "error", None),
    "Result.equal": ("ok", "error", None, None),
    "Result.compare": ("ok", "error", None, None),
    "Fun.protect": ("finally", None),
}


@dataclass(frozen=True)
class Labelled:
    """A `~label:e` argument, as the parser sees it before it knows the function."""

    label: str
    value: ast.Expr
    span: Span


def parameters_of(function: ast.Expr) -> tuple[str | None, ...] | None:
    """The labelled parameters of `function` when it names one of `LABELLED_PARAMETERS`,
    qualified or (after `open String`) by its last component."""
    if not isinstance(function, ast.Var):
        return None
    if function.name in LABELLED_PARAMETERS:
        return LABELLED_PARAMETERS[function.name]
    if "." not in function.name:
        for name, parameters in LABELLED_PARAMETERS.items():
            if name.rsplit(".", 1)[1] == function.name:
                return parameters
    return None


def positional_arguments(function: ast.Expr, arguments: list[ast.Expr | Labelled]
                         ) -> tuple[list[tuple[str, ast.Expr]], list[ast.Expr], list[str]]:
    """Match `arguments` against `function`'s labelled parameters.

    Returns the arguments to bind first (name, value) in source order, the argument
    expressions in parameter order followed by any extra ones, and the names of the missing
    parameters that the application must abstract over (in parameter order)."""
    parameters = parameters_of(function)
    first = next(a for a in arguments if isinstance(a, Labelled))
    if parameters is None:
        raise CompileError(first.span, "labelled arguments are only supported for "
                           + ", ".join(sorted(LABELLED_PARAMETERS)))
    slots: list[ast.Expr | None] = [None] * len(parameters)
    bound: list[tuple[str, ast.Expr]] = []
    extra: list[ast.Expr] = []
    for argument in arguments:
        if isinstance(argument, Labelled):
            if argument.label not in parameters:
                raise CompileError(argument.span, f"the function applied to this argument has no parameter ~{argument.label}")
            index = parameters.index(argument.label)
            if slots[index] is not None:
                raise CompileError(argument.span, f"the argument ~{argument.label} is given twice")
            value: ast.Expr = argument.value
        else:
            free = [i for i, slot in enumerate(slots) if slot is None and parameters[i] is None]
            if not free:
                extra.append(argument)
                continue
            index, value = free[0], argument
        name = f"%arg{len(bound)}"
        bound.append((name, value))
        slots[index] = ast.Var(name, value.span)
    missing = [f"%missing{i}" for i, slot in enumerate(slots) if slot is None]
    if missing and extra:
        raise CompileError(extra[0].span, "this argument follows a missing labelled argument")
    names = iter(missing)
    ordered = [slot if slot is not None else ast.Var(next(names), function.span) for slot in slots]
    return bound, ordered + extra, missing


def apply_labelled(function: ast.Expr, arguments: list[ast.Expr | Labelled], span: Span) -> ast.Expr:
    """`f a1 ... an` where some `ai` are labelled: the same application in positional form."""
    bound, ordered, missing = positional_arguments(function, arguments)
    body: ast.Expr = function
    for argument in ordered:
        body = ast.App(body, argument, span)
    for name in reversed(missing):
        body = ast.Fun(ast.PVar(name, span), body, span)
    for name, value in reversed(bound):
        body = ast.Let(False, (ast.Binding(ast.PVar(name, value.span), value, value.span),), body, span)
    return body

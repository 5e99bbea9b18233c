"""Labelled and optional arguments: applications put in positional order by the type checker.

A function type's arrows carry their parameters' labels (`cpsc.types.types.arrow`: `~x` for
`x:t -> u`, `?x` for `?x:t -> u`, whose parameter has the type `t option`). An application
whose arguments have labels, or whose function has labelled parameters, is matched as OCaml 4.13
matches it (typecore's `type_application`), parameter by parameter along the function's type:

- a parameter without a label takes the first argument without one;
- a labelled parameter takes the first argument with its label; an optional one given `~x:e`
  receives `Some e`, given `?x:e` receives e (itself an option);
- an optional parameter no argument names receives `None` when an argument without a label is
  still to be placed after it (it is then erased), else it stays a parameter of the result;
- any other parameter no argument names stays a parameter of the result: the application
  becomes `fun x -> f ... x ...` over such parameters, its arguments evaluated once, before it.

When every argument is unlabelled, the function's type is known and it has as many parameters
without `?` as there are arguments, labels are ignored (a total application, which OCaml
accepts with warning 6). When the function's type is not known (a parameter `f` applied as
`f ~x:1`), the arguments give it its arrows, with their labels, in the order written.

The positional application replaces the original one for every later stage
(`Typing.positional`), so labels cost nothing at run time and no pass sees them.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

from cpsc.syntax import ast
from cpsc.syntax.diagnostics import CompileError, Span
from cpsc.types.types import TCon, TVar, Type, arrow, arrow_label, is_arrow, resolve, show


def has_labels(function: Type, count: int) -> bool:
    """Whether one of the first `count` parameters of a function of type `function` (as far as
    it is known) has a label."""
    for _ in range(count):
        t = resolve(function)
        if not isinstance(t, TCon) or not is_arrow(t):
            return False
        if t.name != "->":
            return True
        function = t.args[1]
    return False


def option_type(t: Type) -> TCon:
    return TCon("option", (t,))


class LabelledApplication:
    """One application spine `head a1 ... an` (`applications` its `ast.App`s, innermost
    first) whose arguments are matched by label; `infer` gives its type and records its
    positional form."""

    # `inferencer` is `cpsc.types.infer.Inferencer`, which imports this module; env its scope.
    def __init__(self, inferencer: Any, env: Any, expr: ast.App, head: ast.Expr, function: Type,
                 applications: list[ast.App]) -> None:
        self.inferencer = inferencer
        self.typing = inferencer.typing
        self.env = env
        self.expr = expr
        self.head = head
        self.function = function
        self.arguments = [(a.label, a.argument) for a in applications]
        self.parameters: list[tuple[str, Type, Type]] = []  # (label, parameter type, result type)
        t = resolve(function)
        while isinstance(t, TCon) and is_arrow(t):
            self.parameters.append((arrow_label(t), t.args[0], t.args[1]))
            t = resolve(t.args[1])
        self.known = not isinstance(t, TVar)

    def infer(self) -> Type:
        """The application's type; its positional form is recorded. Evaluated as ocamlopt
        evaluates it (translcore's `transl_apply`): when every parameter up to the last given
        is given, the arguments right to left in the order of the parameters, the function
        last (as any application); when one is left out, the function applied to the arguments
        before the first one left out is computed first, then the arguments given after it,
        left to right in the order of the parameters, each once (the result is a function of
        those left out)."""
        plan, leftover = self.match()
        kinds = [kind for kind, _ in plan]
        bound: dict[int, str] = {}
        lets: list[tuple[str, ast.Expr]] = []  # (typed once the application is)
        prefix = kinds.index("missing") if "missing" in kinds else len(plan)
        body, t = self.applied(self.head, self.function, plan[:prefix], bound)
        if prefix < len(plan):
            if not isinstance(body, (ast.Var, ast.Const)):
                lets.append(("*function*", body))
                body = self.typed(ast.Var("*function*", self.head.span), t)
            for kind, index in plan[prefix:]:
                argument = self.arguments[index][1] if kind in ("arg", "some") else None
                if argument is not None and not isinstance(argument, (ast.Var, ast.Const)):
                    bound[index] = f"*argument{index}*"
                    lets.append((bound[index], argument))
        body, t = self.positional(body, t, plan[prefix:], self.parameters[prefix:], leftover, bound)
        for name, value in reversed(lets):
            pattern = ast.PVar(name, value.span)
            self.typing.types[id(pattern)] = self.typing.types[id(value)]
            body = self.typed(ast.Let(False, (ast.Binding(pattern, value, value.span),), body, self.expr.span), t)
        self.typing.positional[id(self.expr)] = body
        return t

    # ------------------------------------------------------------------ matching
    def match(self) -> tuple[list[tuple[str, int]], list[int]]:
        """For each parameter up to the last one given: ("arg", i) the i-th argument as it is,
        ("some", i) wrapped in `Some`, ("none", -1) or ("missing", -1); and the arguments left
        over (applied to the result, whose type is not known)."""
        remaining = list(range(len(self.arguments)))
        if self.ignores_labels():
            omitted = [label[1:] for label, _, _ in self.parameters if label[:1] == "~"]
            text = f"labels {', '.join(omitted)} were" if len(omitted) > 1 else f"label {omitted[0]} was"
            self.typing.warnings.append(CompileError(
                self.head.span, f"{text} omitted in the application of this function."))
            positional = iter(remaining)
            return [("none", -1) if label[:1] == "?" else ("arg", next(positional))
                    for label, _, _ in self.parameters], []
        plan: list[tuple[str, int]] = []
        for label, _, _ in self.parameters:
            if not remaining:
                break
            plan.append(self.take(label, remaining))
        if remaining and self.known:
            self.reject(remaining[0], plan)
        while not remaining and plan and plan[-1][0] == "missing":
            plan.pop()
        return plan, remaining

    def ignores_labels(self) -> bool:
        """A total application without labels (OCaml's `ignore_labels`, warning 6)."""
        mandatory = [label for label, _, _ in self.parameters if label[:1] != "?"]
        return (self.known and all(label == "" for label, _ in self.arguments)
                and len(mandatory) == len(self.arguments) and any(mandatory))

    def take(self, label: str, remaining: list[int]) -> tuple[str, int]:
        """The argument for a parameter labelled `label` ("" for none), taken out of `remaining`."""
        name = label[1:]
        found = next((i for i in remaining if (self.arguments[i][0][1:] == name if label else
                                              not self.arguments[i][0])), None)
        if found is not None:
            remaining.remove(found)
            given = self.arguments[found][0]
            if label[:1] == "~" and given[:1] == "?":
                self.reject(found, [])
            return ("some", found) if label[:1] == "?" and given[:1] == "~" else ("arg", found)
        if label[:1] == "?" and any(not self.arguments[i][0] for i in remaining):
            return "none", -1
        return "missing", -1

    def reject(self, index: int, plan: list[tuple[str, int]]) -> None:
        """An argument no parameter takes; the function's type is shown without the
        parameters the others were given to, as OCaml shows it."""
        label, argument = self.arguments[index]
        if not label:
            raise CompileError(self.head.span, f"This expression has type {show(self.function)}\n"
                               "       It is applied to too many arguments; maybe you forgot a `;'.")
        rest: Type = self.parameters[-1][2] if self.parameters else self.function
        for position in range(len(self.parameters) - 1, -1, -1):
            if position >= len(plan) or plan[position][0] == "missing":
                parameter_label, parameter, _ = self.parameters[position]
                rest = arrow(parameter, rest, parameter_label)
        raise CompileError(argument.span, f"The function applied to this argument has type {show(rest)}\n"
                           f"This argument cannot be applied with label {label}")

    # ------------------------------------------------------------------ building
    def applied(self, body: ast.Expr, t: Type, plan: list[tuple[str, int]],
                bound: dict[int, str]) -> tuple[ast.Expr, Type]:
        """`body` (of type t) applied to the arguments `plan` gives the first parameters."""
        for (kind, index), (_, parameter, result) in zip(plan, self.parameters):
            body, t = self.applied_one(body, kind, index, parameter, result, bound)
        return body, t

    def applied_one(self, body: ast.Expr, kind: str, index: int, parameter: Type, result: Type,
                    bound: dict[int, str]) -> tuple[ast.Expr, Type]:
        """`body` applied to the argument ("arg", "some" or "none") given to one parameter."""
        if kind == "none":
            argument = self.option(None, parameter, self.expr.span)
        else:
            self.check(index, parameter if kind == "arg" else self.element(parameter, index))
            argument = self.reference(index, bound)
            if kind == "some":
                argument = self.option(argument, parameter, self.expr.span)
        return self.typed(ast.App(body, argument, self.expr.span), result), result

    def positional(self, body: ast.Expr, t: Type, plan: list[tuple[str, int]],
                   parameters: list[tuple[str, Type, Type]], leftover: list[int],
                   bound: dict[int, str]) -> tuple[ast.Expr, Type]:
        """`body` (of type t) applied to the arguments `plan` gives `parameters`, then to those
        left over, under `fun`s for the parameters left out; and its type."""
        span = self.expr.span
        missing: list[tuple[str, str, Type]] = []
        for (kind, index), (label, parameter, result) in zip(plan, parameters):
            if kind == "missing":
                name = f"*missing{len(missing)}*"
                missing.append((name, label, parameter))
                body, t = self.typed(ast.App(body, self.typed(ast.Var(name, span), parameter), span), result), result
            else:
                body, t = self.applied_one(body, kind, index, parameter, result, bound)
        for index in leftover:
            body, t = self.apply_unknown(body, t, index, bound)
        for name, label, parameter in reversed(missing):
            pattern = ast.PVar(name, span)
            self.typing.types[id(pattern)] = parameter
            t = arrow(parameter, t, label)
            body = self.typed(ast.Fun(pattern, body, span, label=label), t)
        return body, t

    def apply_unknown(self, body: ast.Expr, function: Type, index: int, bound: dict[int, str]) -> tuple[ast.Expr, Type]:
        """`body` applied to a left-over argument: its type gets the arrow, with the label."""
        label, argument = self.arguments[index]
        argument_type = self.inferencer.infer(argument, self.env)
        if label[:1] == "?":
            self.inferencer.expect(argument_type, option_type(self.inferencer.fresh()), argument.span)
        result = self.inferencer.fresh()
        self.inferencer.expect(function, arrow(argument_type, result, label), self.head.span)
        return self.typed(ast.App(body, self.reference(index, bound), self.expr.span), result), result

    def check(self, index: int, expected: Type) -> None:
        argument = self.arguments[index][1]
        self.inferencer.check_argument(argument, self.env, expected, argument.span)

    def element(self, parameter: Type, index: int) -> Type:
        """The type of `e` in `~x:e` given to the optional parameter `?x` of type `parameter`."""
        element = self.inferencer.fresh()
        self.inferencer.expect(option_type(element), parameter, self.arguments[index][1].span)
        return element

    def reference(self, index: int, bound: dict[int, str]) -> ast.Expr:
        argument = self.arguments[index][1]
        if index not in bound:
            return argument
        return self.typed(ast.Var(bound[index], argument.span), self.typing.types[id(argument)])

    def option(self, value: ast.Expr | None, t: Type, span: Span) -> ast.Expr:
        """`Some value` (`None` when value is None) of the option type t."""
        name = "None" if value is None else "Some"
        key, result, _ = self.inferencer.constructor(name, span, t)
        self.inferencer.expect(result, t, span)
        construct = ast.Construct(name, () if value is None else (value,), span)
        self.typing.constructors[id(construct)] = key
        return self.typed(construct, t)

    def typed(self, node: ast.Expr, t: Type) -> ast.Expr:
        self.typing.types[id(node)] = t
        return node


def eliminate_optional(inferencer: Any, expr: ast.Expr, t: Type, expected: Type) -> bool:
    """A function with optional parameters first, given where a function without labels is
    expected (`List.map (f ~x:1) l` with `f ~x:1 : ?y:int -> int -> int`): as OCaml does
    (typecore's `type_argument`), it becomes `let g = e in fun v -> g None ... v`, its optional
    parameters left out. Whether it did; then `expr`'s positional form is that function."""
    wanted = resolve(expected)
    if not (is_inferred(expr) and isinstance(wanted, TCon) and wanted.name == "->"):
        return False
    optional: list[Type] = []
    rest = resolve(t)
    while isinstance(rest, TCon) and rest.name[:1] == "?":
        optional.append(rest.args[0])
        rest = resolve(rest.args[1])
    if not optional or not isinstance(rest, TCon) or rest.name != "->" or has_labels(rest.args[1], sys.maxsize):
        return False
    typing = inferencer.typing
    span = expr.span
    function = ast.PVar("*eliminated*", span)
    parameter = ast.PVar("*eta*", span)
    typing.types[id(function)] = t
    typing.types[id(parameter)] = rest.args[0]
    body: ast.Expr = _typed(typing, ast.Var("*eliminated*", span), t)
    for option, remaining in zip(optional, _results(t, len(optional))):
        none = _typed(typing, ast.Construct("None", (), span), option)
        key, result, _ = inferencer.constructor("None", span, option)
        inferencer.expect(result, option, span)
        typing.constructors[id(none)] = key
        body = _typed(typing, ast.App(body, none, span), remaining)
    body = _typed(typing, ast.App(body, _typed(typing, ast.Var("*eta*", span), rest.args[0]), span), rest.args[1])
    eliminated = _typed(typing, ast.Fun(parameter, body, span), rest)
    inferencer.expect(rest, expected, span)
    typing.positional[id(expr)] = _typed(typing, ast.Let(False, (ast.Binding(function, _copy(typing, expr), span),),
                                                         eliminated, span), rest)
    return True


def is_inferred(expr: ast.Expr) -> bool:
    """An argument whose type OCaml infers before it meets the parameter's (typecore's
    `is_inferred`), so that its optional parameters can be left out: a name, an application, a
    field, an annotated expression, and a sequence, local open or `if` ending in them."""
    while True:
        if isinstance(expr, (ast.Var, ast.App, ast.GetField, ast.Annot)):
            return True
        if isinstance(expr, ast.Seq):
            expr = expr.second
        elif isinstance(expr, ast.LocalOpen):
            expr = expr.body
        elif isinstance(expr, ast.If):
            return is_inferred(expr.then_branch) and is_inferred(expr.else_branch)
        else:
            return False


def _results(t: Type, count: int) -> list[Type]:
    """The types of a function of type t applied to 1, ..., count arguments."""
    out: list[Type] = []
    for _ in range(count):
        t = resolve(t).args[1]  # type: ignore[union-attr]
        out.append(t)
    return out


def _copy(typing: Any, expr: ast.Expr) -> ast.Expr:
    """`expr` as another node with what inference recorded of it (its own node now stands for
    the function that leaves out its optional arguments)."""
    copy: ast.Expr = replace(expr)
    for table in (typing.types, typing.instances, typing.schemes, typing.constructors, typing.fields,
                  typing.positional):
        if id(expr) in table:
            table[id(copy)] = table[id(expr)]
    return copy


def _typed(typing: Any, node: Any, t: Type) -> Any:
    typing.types[id(node)] = t
    return node

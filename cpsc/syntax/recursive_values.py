"""`let rec` of values that are not functions: `let rec ones = 1 :: ones`, `let rec a = (1, b) and
b = (2, a)`. OCaml 4.13 builds them as its `Translcore.transl_letrec` does, and so does every
level of cpsc:

1. the values that use no name of the group, in order (`plain`);
2. for each value whose expression ends in a block it builds (a constructor with arguments, a
   tuple, a record, an array), a *dummy* block of its size, bound to its name (`blocks`);
3. the functions of the group, which may name all of these;
4. each block's expression, in order, copied into its dummy (which keeps its identity: `ones`
   is the block whose tail is `ones`).

OCaml's check (`Rec_check`) accepts such a group only when no value inspects a name of the
group before it is built: a name may be a part of data the value builds (*guarded*), or sit in
a function or `lazy` body (*delayed*); a value that is not a block may not name the group at
all. `invalid_use` implements that check, without recursion (nesting may be deep), a little more
strictly than OCaml where a name is bound again inside a value.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from cpsc.syntax import ast
from cpsc.syntax.diagnostics import Span

_GUARDED, _DELAYED, _INSPECTED = 0, 1, 2


@dataclass(frozen=True)
class RecursiveGroup:
    plain: tuple[ast.Binding, ...]
    blocks: tuple[ast.Binding, ...]
    functions: tuple[ast.Binding, ...]


def final_expression(expr: ast.Expr) -> ast.Expr:
    """What `expr` evaluates to last: through `let ... in`, `let exception`, `e1; e2` and
    annotations."""
    while True:
        if isinstance(expr, (ast.Let, ast.LetException)):
            expr = expr.body
        elif isinstance(expr, ast.Seq):
            expr = expr.second
        elif isinstance(expr, ast.Annot):
            expr = expr.expr
        else:
            return expr


def builds_block(expr: ast.Expr) -> bool:
    """Whether `expr` ends in a block of a size known before it is evaluated."""
    final = final_expression(expr)
    if isinstance(final, (ast.Tuple, ast.ArrayLit)):
        return bool(final.items)
    if isinstance(final, ast.Record):
        return final.base is None
    return isinstance(final, ast.Construct) and bool(final.args)


def group_of(bindings: tuple[ast.Binding, ...]) -> RecursiveGroup:
    names = {name for b in bindings for name in ast.pattern_names(b.pattern)}
    plain: list[ast.Binding] = []
    blocks: list[ast.Binding] = []
    functions: list[ast.Binding] = []
    for b in bindings:
        if isinstance(ast.unannotated(b.value), ast.Fun):
            functions.append(b)
        else:
            (blocks if names & ast.mentioned_names([b.value]) else plain).append(b)
    return RecursiveGroup(tuple(plain), tuple(blocks), tuple(functions))


def invalid_use(binding: ast.Binding, names: set[str]) -> Span | None:
    """Where `binding`'s value (in a `let rec` binding `names`) uses one of them in a way OCaml
    rejects, or None when the value can be built."""
    if isinstance(ast.unannotated(binding.value), ast.Fun) or not names & ast.mentioned_names([binding.value]):
        return None
    if not builds_block(binding.value):
        return binding.value.span
    # each node with its mode and the names it may not inspect: the group's, and the names a
    # `let` binds to a value naming them (`let y = x in 1 :: y`), where the `let` is guarded
    stack: list[tuple[Any, int, frozenset[str]]] = [(binding.value, _GUARDED, frozenset(names))]
    while stack:
        node, mode, watched = stack.pop()
        if isinstance(node, ast.Var):
            if node.name in watched and mode == _INSPECTED:
                return node.span
        elif isinstance(node, ast.Fun):
            stack.append((node.body, _DELAYED, watched))
        elif mode == _DELAYED:
            stack.extend((child, mode, watched) for child in _children(node))
        elif isinstance(node, (ast.Tuple, ast.ArrayLit)):
            stack.extend((item, mode, watched) for item in node.items)
        elif isinstance(node, ast.Construct):
            stack.extend((arg, mode, watched) for arg in node.args)
        elif isinstance(node, ast.Record) and node.base is None:
            stack.extend((value, mode, watched) for _, value in node.fields)
        elif isinstance(node, ast.Let) and not node.is_rec and mode == _GUARDED:
            stack.extend(_guarded_let(node, watched))
        elif isinstance(node, (ast.Let, ast.LetException, ast.Seq, ast.Annot)):
            tail = node.body if isinstance(node, (ast.Let, ast.LetException)) else \
                node.second if isinstance(node, ast.Seq) else node.expr
            stack.append((tail, mode, watched))
            stack.extend((child, _INSPECTED, watched) for child in _children(node) if child is not tail)
        else:
            stack.extend((child, _INSPECTED, watched) for child in _children(node))
    return None


def _guarded_let(node: ast.Let, watched: frozenset[str]) -> list[tuple[Any, int, frozenset[str]]]:
    """A `let` in a guarded place: a variable bound to a value that names a watched name is
    watched in the body, and its value is guarded in turn (OCaml's Rec_check composes the
    value's mode with the variable's); any other binding's value is inspected."""
    work: list[tuple[Any, int, frozenset[str]]] = []
    aliases: set[str] = set()
    for b in node.bindings:
        variable = b.pattern.pattern if isinstance(b.pattern, ast.PAnnot) else b.pattern
        if isinstance(variable, ast.PVar) and watched & ast.mentioned_names([b.value]):
            aliases.add(variable.name)
            work.append((b.value, _GUARDED, watched))
        else:
            work.append((b.value, _INSPECTED, watched))
    work.append((node.body, _GUARDED, watched | aliases))
    return work


def _children(node: Any) -> list[Any]:
    """The expressions (and bindings, cases) directly inside `node`."""
    if isinstance(node, tuple):
        return list(node)
    if not is_dataclass(node) or isinstance(node, Span):
        return []
    out: list[Any] = []
    for f in fields(node):
        if f.name in ("span", "ty", "tree", "pattern", "param", "annotation"):
            continue
        child = getattr(node, f.name)
        if isinstance(child, tuple):
            out.extend(child)
        elif is_dataclass(child):
            out.append(child)
    return out

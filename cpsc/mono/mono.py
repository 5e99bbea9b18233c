"""Monomorphisation of the typed AST.

The program's top-level declarations become one nested `let` expression. Every polymorphic
`let`-bound name is copied once per ground instance it is used at (instances are named
`name<int>`); unused polymorphic bindings disappear. Every node of the result carries its ground
type in `ty`; a type variable that nothing constrains (e.g. in `ignore []`) becomes `unit`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from cpsc.syntax import ast
from cpsc.syntax.builtins import COMPARISONS
from cpsc.syntax.diagnostics import CompileError
from cpsc.syntax.scope import Scope
from cpsc.types.infer import Scheme, Typing
from cpsc.types.types import UNIT, TCon, TVar, Type, resolve, show


@dataclass
class _PolyGroup:
    """A polymorphic `let` (or `let rec` group) whose instances are being collected."""

    quantified: tuple[TVar, ...]
    members: tuple[str, ...]
    instances: dict[tuple[Type, ...], dict[str, str]] = field(default_factory=dict)

    def instance(self, key: tuple[Type, ...]) -> dict[str, str]:
        if key not in self.instances:
            suffix = "<" + ", ".join(show(t) for t in key) + ">"
            self.instances[key] = {name: name + suffix for name in self.members}
        return self.instances[key]


@dataclass
class _Monomorphic:
    """A monomorphic `let`-bound name; `used` records whether the code in its scope named it,
    so that a function nothing uses (most of the prelude, in most programs) is dropped here and
    costs nothing in the later stages."""

    name: str
    used: bool = False


_Entry = _PolyGroup | _Monomorphic | str  # a polymorphic group, a let-bound name, or a parameter
_LetLike = ast.Let | ast.LetDecl  # what `let_chain` needs: is_rec and bindings


class Monomorphiser:
    def __init__(self, typing: Typing) -> None:
        self.typing = typing

    # ---------------------------------------------------------------- types
    def ground(self, t: Type, subst: dict[int, Type]) -> Type:
        t = resolve(t)
        if isinstance(t, TVar):
            return subst.get(t.id, UNIT)
        if not t.args:
            return t
        return TCon(t.name, tuple(self.ground(a, subst) for a in t.args))

    def type_of(self, node: object, subst: dict[int, Type]) -> Type:
        """The ground type inference gave `node`, under the instance's substitution."""
        return self.ground(self.typing.types[id(node)], subst)

    # Nodes are built with their constructors, not `dataclasses.replace` (which is several
    # times slower and ran once or twice per node).

    # ---------------------------------------------------------------- patterns
    def pattern(self, p: ast.Pattern, subst: dict[int, Type], rename: dict[str, str]) -> ast.Pattern:
        if isinstance(p, ast.PVar):
            return ast.PVar(rename.get(p.name, p.name), p.span, self.type_of(p, subst))
        if isinstance(p, ast.PTuple):
            items = tuple(self.pattern(i, subst, rename) for i in p.items)
            return ast.PTuple(items, p.span, self.type_of(p, subst))
        if isinstance(p, ast.PAnnot):
            return self.pattern(p.pattern, subst, rename)
        if isinstance(p, ast.PWild):
            return ast.PWild(p.span, self.type_of(p, subst))
        return ast.PUnit(p.span, self.type_of(p, subst))

    # ---------------------------------------------------------------- expressions
    def expr(self, e: ast.Expr, env: Scope[_Entry], subst: dict[int, Type]) -> ast.Expr:
        if isinstance(e, ast.Const):
            return ast.Const(e.value, e.kind, e.span, self.type_of(e, subst))
        if isinstance(e, ast.Var):
            return self.var(e, env, subst)
        if isinstance(e, ast.App):
            return ast.App(self.expr(e.function, env, subst), self.expr(e.argument, env, subst), e.span,
                           self.type_of(e, subst))
        if isinstance(e, ast.Fun):
            with env.scope():
                for name in ast.pattern_names(e.param):
                    env.bind(name, name)
                return ast.Fun(self.pattern(e.param, subst, {}), self.expr(e.body, env, subst), e.span,
                               self.type_of(e, subst))
        if isinstance(e, ast.Let):
            lets: list[_LetLike] = []
            body: ast.Expr = e
            while isinstance(body, ast.Let):
                lets.append(body)
                body = body.body
            final = body
            return self.let_chain(lets, lambda: self.expr(final, env, subst), env, subst)
        if isinstance(e, ast.If):
            return ast.If(self.expr(e.condition, env, subst), self.expr(e.then_branch, env, subst),
                          self.expr(e.else_branch, env, subst), e.span, self.type_of(e, subst))
        if isinstance(e, ast.Seq):
            return self.sequence(e, env, subst)
        if isinstance(e, ast.Tuple):
            return ast.Tuple(tuple(self.expr(i, env, subst) for i in e.items), e.span, self.type_of(e, subst))
        if isinstance(e, ast.Annot):
            return self.expr(e.expr, env, subst)
        raise AssertionError(e)

    def sequence(self, e: ast.Seq, env: Scope[_Entry], subst: dict[int, Type]) -> ast.Expr:
        """`e1; e2; ...; en` in a loop, rebuilt from the end: no recursion as deep as the sequence."""
        links: list[tuple[ast.Seq, ast.Expr]] = []
        last: ast.Expr = e
        while isinstance(last, ast.Seq):
            links.append((last, self.expr(last.first, env, subst)))
            last = last.second
        result = self.expr(last, env, subst)
        for link, first in reversed(links):
            result = ast.Seq(first, result, link.span, ty=result.ty)
        return result

    def var(self, e: ast.Var, env: Scope[_Entry], subst: dict[int, Type]) -> ast.Expr:
        entry = env.get(e.name, e.name)
        name = entry if isinstance(entry, str) else e.name
        if isinstance(entry, _Monomorphic):
            entry.used = True
        elif isinstance(entry, _PolyGroup):
            scheme, instance = self.typing.instances[id(e)]
            by_var = {v.id: self.ground(t, subst) for v, t in zip(scheme.quantified, instance)}
            key = tuple(by_var.get(v.id, UNIT) for v in entry.quantified)
            name = entry.instance(key)[e.name]
        result = ast.Var(name, e.span, self.type_of(e, subst))
        if e.name in COMPARISONS and isinstance(entry, str) and entry == e.name and _has_arrow(result.ty):
            raise CompileError(e.span, f"Comparing functional values with ({e.name}): functions have "
                               "no equality or order in FL")
        return result

    def let_chain(self, lets: list[_LetLike], final_body: Callable[[], ast.Expr], env: Scope[_Entry],
                  subst: dict[int, Type]) -> ast.Expr:
        """Monomorphise `let b1 in let b2 in ... final_body` (or a module's declarations).

        A let's body is done before its bindings, to learn which instances of its polymorphic
        names the body uses; so the scopes are opened going down the chain and the bindings are
        done coming back up, in a loop rather than a recursion as deep as the chain."""
        opened: list[_OpenLet] = []
        for let in lets:
            groups = self.poly_groups(let.is_rec, let.bindings)
            mark = env.mark()
            entries: dict[str, _Monomorphic] = {}
            for binding in let.bindings:
                for name in ast.pattern_names(binding.pattern):
                    entries[name] = _Monomorphic(name)
                    env.bind(name, entries[name])
            for group in groups:
                for name in group.members:
                    env.bind(name, group)
            opened.append(_OpenLet(mark, env.mark(), groups, entries))
        result = final_body()
        for let, scope in zip(reversed(lets), reversed(opened)):
            env.undo(scope.bound if let.is_rec else scope.mark)  # only recursive values see their own names
            new_bindings = self.bindings(let, scope, env, subst)
            env.undo(scope.mark)
            if new_bindings:
                result = ast.Let(let.is_rec, tuple(new_bindings), result, let.bindings[0].span, ty=result.ty)
        return result

    def bindings(self, let: _LetLike, scope: _OpenLet, env: Scope[_Entry],
                 subst: dict[int, Type]) -> list[ast.Binding]:
        """The monomorphic bindings of `let` that are used or may have effects, then one copy of
        each polymorphic one per instance used. In a `let rec`, a function used only by another
        member is kept once that member is (the loop runs until nothing more is kept)."""
        poly_members = {name for g in scope.groups for name in g.members}
        pending = [b for b in let.bindings if poly_members.isdisjoint(ast.pattern_names(b.pattern))]
        done: dict[int, ast.Binding] = {}
        progress = True
        while progress:
            progress = False
            for binding in pending:
                if id(binding) in done or _droppable(binding, scope.entries):
                    continue
                value = self.expr(binding.value, env, subst)
                done[id(binding)] = ast.Binding(self.pattern(binding.pattern, subst, {}), value, binding.span)
                progress = let.is_rec
        out = [done[id(b)] for b in pending if id(b) in done]
        for group in scope.groups:
            out.extend(self.instances(group, let.bindings, env, subst, let.is_rec))
        return out

    def poly_groups(self, is_rec: bool, bindings: tuple[ast.Binding, ...]) -> list[_PolyGroup]:
        schemes: list[tuple[str, Scheme]] = []
        for binding in bindings:
            pattern = binding.pattern
            while isinstance(pattern, ast.PAnnot):
                pattern = pattern.pattern
            scheme = self.typing.schemes.get(id(pattern))
            if scheme is None or not scheme.quantified:
                continue
            if not isinstance(pattern, ast.PVar):
                raise CompileError(pattern.span, "A polymorphic value bound by a tuple pattern is not "
                                   "supported; bind it with its own let")
            schemes.append((pattern.name, scheme))
        if is_rec and schemes:
            quantified: list[TVar] = []
            for _, scheme in schemes:
                quantified.extend(v for v in scheme.quantified if v not in quantified)
            members = tuple(ast.pattern_names(b.pattern)[0] for b in bindings)
            return [_PolyGroup(tuple(quantified), members)]
        return [_PolyGroup(scheme.quantified, (name,)) for name, scheme in schemes]

    def instances(self, group: _PolyGroup, bindings: tuple[ast.Binding, ...], env: Scope[_Entry],
                  subst: dict[int, Type], is_rec: bool) -> list[ast.Binding]:
        out: list[ast.Binding] = []
        done: set[tuple[Type, ...]] = set()
        while len(done) < len(group.instances):
            key = next(k for k in group.instances if k not in done)
            done.add(key)
            names = group.instances[key]
            inner_subst = dict(subst)
            inner_subst.update({v.id: t for v, t in zip(group.quantified, key)})
            with env.scope():
                if is_rec:
                    for name, instance_name in names.items():
                        env.bind(name, instance_name)
                for binding in bindings:
                    pattern = binding.pattern
                    while isinstance(pattern, ast.PAnnot):
                        pattern = pattern.pattern
                    if not isinstance(pattern, ast.PVar) or pattern.name not in names:
                        continue
                    value = self.expr(binding.value, env, inner_subst)
                    out.append(ast.Binding(self.pattern(pattern, inner_subst, names), value, binding.span))
        return out

    def module(self, module: ast.Module) -> ast.Expr:
        declarations = module.declarations
        span = declarations[-1].span
        return self.let_chain(list(declarations), lambda: ast.Const(None, "unit", span, ty=UNIT), Scope(), {})


@dataclass
class _OpenLet:
    """A let of a chain whose names are in scope: undo marks before and after its names, its
    polymorphic groups, and the entries of its monomorphic names."""

    mark: int
    bound: int
    groups: list[_PolyGroup]
    entries: dict[str, _Monomorphic]


def _droppable(binding: ast.Binding, entries: dict[str, _Monomorphic]) -> bool:
    """A function (so no effect to keep) bound to a name nothing has used (yet)."""
    pattern = binding.pattern
    while isinstance(pattern, ast.PAnnot):
        pattern = pattern.pattern
    return isinstance(pattern, ast.PVar) and isinstance(binding.value, ast.Fun) and not entries[pattern.name].used


def _contains_arrow(t: object) -> bool:
    return isinstance(t, TCon) and (t.name == "->" or any(_contains_arrow(a) for a in t.args))


def _has_arrow(comparison_type: object) -> bool:
    """Whether a comparison primitive's type `t -> t -> r` compares functions."""
    return isinstance(comparison_type, TCon) and _contains_arrow(comparison_type.args[0])


def monomorphise(module: ast.Module, typing: Typing) -> ast.Expr:
    """The whole program as one monomorphic, fully typed expression of type unit."""
    return Monomorphiser(typing).module(module)

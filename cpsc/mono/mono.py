"""Monomorphisation of the typed AST.

The program's top-level declarations become one nested `let` expression. Every polymorphic
`let`-bound name is copied once per ground instance it is used at (instances are named
`name<int>`); unused polymorphic bindings disappear. Every node of the result carries its ground
type in `ty`; a type variable that nothing constrains (e.g. in `ignore []`) becomes `unit`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from cpsc.mono import order
from cpsc.mono.decision import compile_match
from cpsc.semantics.builtins import COMPARISONS
from cpsc.semantics.hashing import LIMIT, MEANINGFUL
from cpsc.support.scope import Scope
from cpsc.syntax import ast
from cpsc.syntax.diagnostics import CompileError, Span
from cpsc.types.datatypes import DataTypes
from cpsc.types.infer import constructor_arguments
from cpsc.types.inferred import Scheme, Typing
from cpsc.types.prelude import PRELUDE_FILE
from cpsc.types.types import INT, STRING, UNIT, TCon, TVar, Type, arrow, is_arrow, resolve, show


@dataclass
class _PolyGroup:
    """A polymorphic `let` (or `let rec` group) whose instances are being collected."""

    quantified: tuple[TVar, ...]
    members: tuple[str, ...]
    instances: dict[tuple[Type, ...], dict[str, str]] = field(default_factory=dict)
    # where the program's own code first asked for each instance (for errors made inside one)
    sites: dict[tuple[Type, ...], Span | None] = field(default_factory=dict)
    library: bool = False  # bound by the prelude

    def instance(self, key: tuple[Type, ...], site: Span | None = None) -> dict[str, str]:
        if key not in self.instances:
            suffix = "<" + ", ".join(show(t) for t in key) + ">"
            self.instances[key] = {name: name + suffix for name in self.members}
            self.sites[key] = site
        return self.instances[key]


@dataclass
class _Monomorphic:
    """A monomorphic `let`-bound name; `used` records whether the code in its scope named it,
    so that a function nothing uses (most of the prelude, in most programs) is dropped here and
    costs nothing in the later stages."""

    name: str
    used: bool = False
    library: bool = False  # bound by the prelude


_Entry = _PolyGroup | _Monomorphic | str  # a polymorphic group, a let-bound name, or a parameter
_LetLike = ast.Let | ast.LetDecl  # what `let_chain` needs: is_rec and bindings


class Monomorphiser:
    def __init__(self, typing: Typing, datatypes: DataTypes, keep: Callable[[ast.Binding], bool] | None = None) -> None:
        self.typing = typing
        self.keep = keep  # bindings never dropped though unused (the REPL keeps the user's functions)
        self.datatypes = datatypes
        self.warnings: dict[tuple[object, str], CompileError] = {}
        self.instantiating: Span | None = None  # the program's site of the instance being made
        self.fresh_names = 0
        # Int32.t, Int64.t, Nativeint.t and Bytes.t, which `ground` keeps, and their definitions
        self.definitions = {name: typing.reveal(TCon(name)) for name in typing.hashed_apart}
        self.kept = frozenset(typing.hashed_apart)
        self.any_kept = False  # whether `ground` has kept one of them
        # While only looking for warnings in code the program does not use (see `check_unused`):
        # nothing is marked used and no instance is made.
        self.checking = False
        # a local exception's key -> the key of its instance at the ground types being made
        self.exception_instances: dict[str, str] = {}
        # ocamlopt's evaluation order (`cpsc.mono.order`): the heads applied otherwise than as
        # others, by the id of the `ast.Var` made (kept, so that its id is not another's)
        self.sequencer = order.Sequencer()
        self.applied_as: dict[int, tuple[tuple[str, int], ast.Var]] = {}

    # ---------------------------------------------------------------- types
    def ground(self, t: Type, subst: dict[int, Type]) -> Type:
        """t made ground under an instance's substitution, as monomorphisation tells instances
        apart: Int32.t, Int64.t, Nativeint.t and Bytes.t are kept (OCaml hashes them apart from
        their definitions, `cpsc.types.datatypes.HASHED_APART`)."""
        t = resolve(t)
        if isinstance(t, TVar):
            return subst.get(t.id, UNIT)
        if t.name in self.typing.abstract:  # a signature's abstract type: its definition
            if t.name in self.typing.hashed_apart:
                self.any_kept = True
                return t
            return self.ground(self.typing.reveal(t, kept=self.kept), subst)
        if not t.args:
            return t
        # labels are the type checker's: a labelled arrow is a function like any other
        name = "->" if is_arrow(t) else t.name
        return TCon(name, tuple(self.ground(a, subst) for a in t.args))

    def type_of(self, node: object, subst: dict[int, Type]) -> Type:
        """The ground type inference gave `node`, under the instance's substitution, as later
        stages see it (Int32.t... as the int it is)."""
        return self.later(self.ground(self.typing.types[id(node)], subst))

    def later(self, t: Type) -> Type:
        """A ground type as the stages after monomorphisation see it."""
        return _revealed(t, self.definitions) if self.any_kept else t

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
        if isinstance(p, ast.PUnit):
            return ast.PUnit(p.span, self.type_of(p, subst))
        return self.data_pattern(p, subst, rename)

    def data_pattern(self, p: ast.Pattern, subst: dict[int, Type], rename: dict[str, str]) -> ast.Pattern:
        t = self.type_of(p, subst)
        if isinstance(p, ast.PConst):
            return ast.PConst(p.value, p.kind, p.span, t)
        if isinstance(p, ast.PConstruct):
            key = self.constructor_key(p)
            arity = len(self.datatypes.constructors[key].args)
            if arity > 1 and len(p.args) == 1 and isinstance(p.args[0], ast.PWild):  # `C _`
                types = self.datatypes.constructor_args(key, t)  # type: ignore[arg-type]
                return ast.PConstruct(key, tuple(ast.PWild(p.args[0].span, a) for a in types), p.span, t)
            args = constructor_arguments(key, p.args, p.span, arity)
            items = tuple(self.pattern(a, subst, rename) for a in args)  # type: ignore[arg-type]
            return ast.PConstruct(key, items, p.span, t)
        if isinstance(p, ast.PRecord):
            keys = self.typing.fields[id(p)]
            fields = tuple((key, self.pattern(item, subst, rename)) for key, (_, item) in zip(keys, p.fields))
            return ast.PRecord(fields, p.span, t)
        if isinstance(p, ast.POr):
            return ast.POr(self.pattern(p.left, subst, rename), self.pattern(p.right, subst, rename), p.span, t)
        assert isinstance(p, ast.PAlias)
        return ast.PAlias(self.pattern(p.pattern, subst, rename), rename.get(p.name, p.name), p.span, t)

    # ---------------------------------------------------------------- expressions
    def expr(self, e: ast.Expr, env: Scope[_Entry], subst: dict[int, Type]) -> ast.Expr:
        if id(e) in self.typing.positional:
            # an application with labels in positional order, or a function whose optional
            # parameters were left out (`cpsc.types.labels`), or a literal that is a format
            return self.expr(self.typing.positional[id(e)], env, subst)
        if isinstance(e, ast.Const):
            return ast.Const(e.value, e.kind, e.span, self.type_of(e, subst))
        if isinstance(e, ast.Var):
            return self.var(e, env, subst)
        if isinstance(e, ast.App):
            app = ast.App(self.expr(e.function, env, subst), self.expr(e.argument, env, subst), e.span,
                          self.type_of(e, subst))
            head = ast.application_spine(app)[0]
            how, var = self.applied_as.get(id(head), (None, None))
            return app if how is None or var is not head else self.sequencer.application(app, how)
        if isinstance(e, ast.Fun):
            if not _binds_directly(e.param):
                return self.refutable_fun(e, env, subst)
            with env.scope():
                for name in ast.pattern_names(e.param):
                    env.bind(name, name)
                return ast.Fun(self.pattern(e.param, subst, {}), self.expr(e.body, env, subst), e.span,
                               self.type_of(e, subst))
        if isinstance(e, ast.Let) and not e.is_rec and len(e.bindings) == 1 \
                and not _binds_directly(e.bindings[0].pattern):
            binding = e.bindings[0]  # `let p = e in body` is `match e with p -> body`
            case = ast.Case(binding.pattern, None, e.body, e.span)
            self.typing.types[id(case)] = self.typing.types[id(e)]
            return self.expr(self.typed_match(binding.value, case, e, binding.pattern.span, of_let=True), env, subst)
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
        return self.data_expr(e, env, subst)

    def data_expr(self, e: ast.Expr, env: Scope[_Entry], subst: dict[int, Type]) -> ast.Expr:
        t = self.type_of(e, subst)
        if isinstance(e, ast.Construct):
            key = self.constructor_key(e)
            arity = len(self.datatypes.constructors[key].args)
            args = constructor_arguments(key, e.args, e.span, arity)
            return ast.Construct(key, tuple(self.expr(a, env, subst) for a in args), e.span, t)  # type: ignore[arg-type]
        if isinstance(e, ast.Match):
            return self.match(e, env, subst)
        if isinstance(e, ast.LetException):
            return self.let_exception(e, env, subst)
        if isinstance(e, ast.Try):
            body = self.expr(e.body, env, subst)
            with env.scope():
                env.bind(ast.EXCEPTION_VAR, ast.EXCEPTION_VAR)
                handler = self.match(e.handler, env, subst)
            assert isinstance(handler, ast.Match)
            return ast.Try(body, handler, e.span, t)
        if isinstance(e, ast.Record):
            keys = self.typing.fields[id(e)]
            fields = tuple((key, self.expr(value, env, subst)) for key, (_, value) in zip(keys, e.fields))
            base = None if e.base is None else self.expr(e.base, env, subst)
            return ast.Record(fields, base, e.span, t)
        if isinstance(e, ast.GetField):
            (key,) = self.typing.fields[id(e)]
            return ast.GetField(self.expr(e.record, env, subst), key, e.span, t)
        if isinstance(e, ast.SetField):
            (key,) = self.typing.fields[id(e)]
            return ast.SetField(self.expr(e.record, env, subst), key, self.expr(e.value, env, subst), e.span, t)
        if isinstance(e, ast.ArrayLit):
            return ast.ArrayLit(tuple(self.expr(i, env, subst) for i in e.items), e.span, t)
        if isinstance(e, ast.While):
            return ast.While(self.expr(e.condition, env, subst), self.expr(e.body, env, subst), e.span, t)
        if isinstance(e, ast.For):
            start, stop = self.expr(e.start, env, subst), self.expr(e.stop, env, subst)
            with env.scope():
                env.bind(e.var, e.var)
                return ast.For(e.var, start, stop, e.up, self.expr(e.body, env, subst), e.span, t)
        raise AssertionError(e)

    def constructor_key(self, node: ast.Construct | ast.PConstruct) -> str:
        key = self.typing.constructors[id(node)]
        return self.exception_instances.get(key, key)

    def let_exception(self, e: ast.LetException, env: Scope[_Entry], subst: dict[int, Type]) -> ast.Expr:
        """A local exception is declared at each ground instance of the function it is in:
        its arguments may name the function's locally abstract types (its identity is made at
        run time anyway: one key per instance changes nothing that a program sees)."""
        key = self.typing.constructors[id(e)]
        info = self.datatypes.constructors[key]
        assert info.exception is not None
        args = tuple(self.later(self.ground(a, subst)) for a in info.args)
        instance = f"{key}<{', '.join(show(a) for a in args)}>"
        if instance not in self.datatypes.constructors:
            # (a key of its own, printed as the name before the `/`: two local exceptions of
            # one name are two identities, and `compare` tells their declarations apart)
            self.datatypes.add_exception(instance, info.name, args, f"{info.exception.key}/{instance}")
        outer = self.exception_instances.get(key)
        self.exception_instances[key] = instance
        try:
            body = self.expr(e.body, env, subst)
        finally:
            if outer is None:
                del self.exception_instances[key]
            else:
                self.exception_instances[key] = outer
        return ast.LetException(replace(e.declaration, name=instance), body, e.span, body.ty)

    def match(self, e: ast.Match, env: Scope[_Entry], subst: dict[int, Type]) -> ast.Expr:
        scrutinee = self.expr(e.scrutinee, env, subst)
        cases = []
        for case in e.cases:
            with env.scope():
                for name in ast.pattern_names(case.pattern):
                    env.bind(name, name)
                pattern = self.pattern(case.pattern, subst, {})
                guard = None if case.guard is None else self.expr(case.guard, env, subst)
                body = self.expr(case.body, env, subst)
            cases.append(ast.Case(pattern, guard, body, case.span, body.ty))
        node = ast.Match(scrutinee, tuple(cases), e.span, self.type_of(e, subst), reraise=e.reraise, quiet=e.quiet,
                         of_let=e.of_let)
        compiled = compile_match(node, self.datatypes)
        for warning in compiled.warnings:
            self.warnings.setdefault((warning.span, warning.message), warning)
        result = ast.Match(scrutinee, tuple(cases), e.span, node.ty, compiled, e.reraise, e.quiet, e.of_let)
        return result if e.of_let else self.sequencer.scrutinee(result)

    def refutable_fun(self, e: ast.Fun, env: Scope[_Entry], subst: dict[int, Type]) -> ast.Expr:
        """`fun p -> body` with a pattern that tests: `fun x -> match x with p -> body`."""
        self.fresh_names += 1
        name = f"%param{self.fresh_names}"
        param = ast.PVar(name, e.param.span)
        self.typing.types[id(param)] = self.typing.types[id(e.param)]
        case = ast.Case(e.param, None, e.body, e.span)
        self.typing.types[id(case)] = self.typing.types[id(e.body)]
        var = ast.Var(name, e.param.span)
        self.typing.types[id(var)] = self.typing.types[id(e.param)]
        fun = ast.Fun(param, self.typed_match(var, case, e.body, e.param.span), e.span)
        self.typing.types[id(fun)] = self.typing.types[id(e)]
        return self.expr(fun, env, subst)

    def typed_match(self, scrutinee: ast.Expr, case: ast.Case, typed_like: ast.Expr, span: Span,
                    of_let: bool = False) -> ast.Match:
        """A match made by the compiler, located at the pattern (as OCaml locates its failure)."""
        match = ast.Match(scrutinee, (case,), span, of_let=of_let)
        self.typing.types[id(match)] = self.typing.types[id(typed_like)]
        return match

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
            entry.used = entry.used or not self.checking
        elif isinstance(entry, _PolyGroup) and not self.checking:
            scheme, instance = self.typing.instances[id(e)]
            by_var = {v.id: self.ground(t, subst) for v, t in zip(scheme.quantified, instance)}
            key = tuple(by_var.get(v.id, UNIT) for v in entry.quantified)
            name = entry.instance(key, self.user_site(e.span))[e.name]
        ground = self.ground(self.typing.types[id(e)], subst)
        result = ast.Var(name, e.span, self.later(ground))
        # the primitive, not a parameter named as it (`fun compare -> ...`): an instance of its scheme
        primitive = entry == e.name and id(e) in self.typing.instances
        self.note_order(e.name, entry, primitive or entry == e.name and "." in e.name, result, self.typing.types[id(e)])
        if primitive and (e.name in COMPARISONS or e.name in ("fl_hash", "fl_hash_param")):
            self.refuse_irregular(e, _ground(ground))
        if e.name in ("fl_hash", "fl_hash_param") and primitive:  # hashed as its type says
            return self.hash_with(e.name, _ground(ground), e.span)
        if e.name in COMPARISONS and primitive:
            if e.name in ("==", "!=") and is_arrow(_ground(_ground(ground).args[0])):
                raise CompileError(e.span, f"Physical equality of functions ({e.name}): cpsc keeps no function's "
                                   "identity (a function named twice may be two closures), so it could answer "
                                   "otherwise than OCaml")
            compared = _ground(_ground(ground).args[0])
            if self.datatypes.kept_apart().holds_bytes(compared):
                result.compared = compared
        return result

    def note_order(self, name: str, entry: _Entry | None, primitive: bool, result: ast.Var, seen: Type) -> None:
        """Whether `result`, as the head of an application, is applied otherwise than as others
        (`cpsc.mono.order`): the library's `|>`, or a primitive of ocamlopt's evaluated left to
        right. A comparison's order depends on its type as the type checker sees it where it is
        used (a type variable, an abstract type), as ocamlopt's does."""
        if isinstance(entry, (_PolyGroup, _Monomorphic)):
            how = order.library_function(name.partition("/")[0]) if entry.library else None
        elif primitive:
            seen = resolve(seen)
            compared = resolve(seen.args[0]) if isinstance(seen, TCon) and is_arrow(seen) else None
            how = order.primitive(name, compared if isinstance(compared, TCon) else None, self.datatypes)
        else:
            how = None
        if how is not None:
            self.applied_as[id(result)] = how, result

    def refuse_irregular(self, e: ast.Var, ty: TCon) -> None:
        """Comparing or hashing values of a non-regular data type (`DataTypes.irregular`) is
        refused where it is asked for: each is made of functions specialised per type."""
        found = self.datatypes.irregular(ty)
        if found is None:
            return
        name, nested = found
        what, does = ("hash", "hashes") if e.name.startswith("fl_hash") else ("compare", "compares")
        generic = TCon(name, tuple(TCon(p) for p in self.datatypes.types[name].params))
        raise CompileError(self.user_site(e.span) or e.span,
                           f"cpsc cannot {what} values of the non-regular type {show(generic)}: it holds a "
                           f"{show(nested)}, which holds a larger instance still, and cpsc {does} with code "
                           "made for each type, of which there would be infinitely many")

    def hash_with(self, name: str, ty: TCon, span: Span) -> ast.Expr:
        """`fl_hash` at type t -> int (as `ground` makes it) as `fl_hash_with "descriptor of t" 10 100 0` (Hashtbl.hash),
        `fl_hash_param` at int -> int -> int -> t -> int as `fl_hash_with "descriptor of t"`."""
        given = 3 if name == "fl_hash_param" else 0  # the parameters given at run time
        hashed = ty
        for _ in range(given):
            hashed = _ground(hashed.args[1])
        descriptor = ast.Const(self.datatypes.hash_descriptor(_ground(hashed.args[0])), "string", span, STRING)
        with_parameters = _ground(self.later(ty))
        for _ in range(3 - given):
            with_parameters = arrow(INT, with_parameters)
        expr: ast.Expr = ast.App(ast.Var("fl_hash_with", span, arrow(STRING, with_parameters)), descriptor, span,
                                 with_parameters)
        for parameter in (MEANINGFUL, LIMIT, 0)[given:]:
            expr = ast.App(expr, ast.Const(parameter, "int", span, INT), span, _ground(expr.ty).args[1])
        return expr

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
                    entries[name] = _Monomorphic(name, library=binding.span.file == PRELUDE_FILE)
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
                if id(binding) in done or (_droppable(binding, scope.entries, env)
                                           and not (self.keep is not None and self.keep(binding))):
                    continue
                value = self.expr(binding.value, env, subst)
                done[id(binding)] = ast.Binding(self.pattern(binding.pattern, subst, {}), value, binding.span)
                progress = let.is_rec
        out = [done[id(b)] for b in pending if id(b) in done]
        self.check_unused([b for b in pending if id(b) not in done], env, subst)
        for group in scope.groups:
            if not group.instances:
                self.check_unused([b for b in let.bindings if group.members[0] in ast.pattern_names(b.pattern)],
                                  env, subst)
            out.extend(self.instances(group, let.bindings, env, subst, let.is_rec))
        return out

    def check_unused(self, bindings: list[ast.Binding], env: Scope[_Entry], subst: dict[int, Type]) -> None:
        """Warnings (a non-exhaustive match...) in functions of the user's program that nothing
        uses, so dropped: OCaml gives them whether or not a function is used. Its type
        variables are taken as unit, as for code that is used."""
        saved = self.checking
        self.checking = True
        try:
            for binding in bindings:
                if binding.span.file != PRELUDE_FILE:
                    self.expr(binding.value, env, subst)
        finally:
            self.checking = saved

    def poly_groups(self, is_rec: bool, bindings: tuple[ast.Binding, ...]) -> list[_PolyGroup]:
        library = bool(bindings) and bindings[0].span.file == PRELUDE_FILE
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
            return [_PolyGroup(tuple(quantified), members, library=library)]
        return [_PolyGroup(scheme.quantified, (name,), library=library) for name, scheme in schemes]

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
            saved, self.instantiating = self.instantiating, group.sites.get(key)
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
            self.instantiating = saved
        return out

    def user_site(self, span: Span) -> Span | None:
        """`span` in the program's own code; inside an instance of a prelude function, where the
        program asked for that instance."""
        return span if span.file != PRELUDE_FILE else self.instantiating

    def module(self, module: ast.Module) -> ast.Expr:
        declarations = [d for d in module.declarations if isinstance(d, ast.LetDecl)]
        span = declarations[-1].span
        for decl in declarations:
            for binding in decl.bindings:
                if not _binds_directly(binding.pattern):
                    raise CompileError(binding.pattern.span, "A top-level let with a pattern that can fail "
                                       "to match is not supported; use a match")
        return self.let_chain(list(declarations), lambda: ast.Const(None, "unit", span, ty=UNIT), Scope(), {})


@dataclass
class _OpenLet:
    """A let of a chain whose names are in scope: undo marks before and after its names, its
    polymorphic groups, and the entries of its monomorphic names."""

    mark: int
    bound: int
    groups: list[_PolyGroup]
    entries: dict[str, _Monomorphic]


def _droppable(binding: ast.Binding, entries: dict[str, _Monomorphic], env: Scope[_Entry]) -> bool:
    """A value without effects (a function, a constant, arithmetic on constants) bound to a
    name nothing has used (yet)."""
    pattern = binding.pattern
    while isinstance(pattern, ast.PAnnot):
        pattern = pattern.pattern
    return isinstance(pattern, ast.PVar) and not entries[pattern.name].used and _pure(binding.value, env)


_PURE_PRIMITIVES = frozenset({"+", "-", "*", "land", "lor", "lxor", "lsl", "lsr", "asr", "~-", "+.", "-.", "*.",
                              "/.", "**", "~-.", "float_of_int", "int_of_float", "Char.code",
                              "fl_argv", "fl_int64_float_of_bits", "fl_has_env", "fl_getenv", "fl_executable_name"})


def _pure(e: ast.Expr, env: Scope[_Entry]) -> bool:
    """Whether evaluating `e` can have no effect (and cannot fail)."""
    if isinstance(e, (ast.Fun, ast.Const, ast.Var)):
        return True
    if isinstance(e, (ast.Tuple, ast.Construct)):
        return all(_pure(i, env) for i in (e.items if isinstance(e, ast.Tuple) else e.args))
    if isinstance(e, ast.Record):  # a new block, mutable or not: only its allocation
        return (e.base is None or _pure(e.base, env)) and all(_pure(value, env) for _, value in e.fields)
    if isinstance(e, ast.Let):  # (one that names no primitive: those are known by name)
        return not e.is_rec and all(_PURE_PRIMITIVES.isdisjoint(ast.pattern_names(b.pattern)) and _pure(b.value, env)
                                    for b in e.bindings) and _pure(e.body, env)
    if isinstance(e, ast.ArrayLit):  # likewise
        return all(_pure(item, env) for item in e.items)
    if isinstance(e, ast.Annot):
        return _pure(e.expr, env)
    if isinstance(e, ast.If):
        return _pure(e.condition, env) and _pure(e.then_branch, env) and _pure(e.else_branch, env)
    if isinstance(e, ast.App):
        head, args = ast.applied(e)
        return (isinstance(head, ast.Var) and head.name in _PURE_PRIMITIVES and head.name not in env
                and all(_pure(a, env) for a in args))
    return False


def _binds_directly(pattern: ast.Pattern) -> bool:
    """Patterns that `let` and `fun` bind without a match: variables, `_`, `()`, tuples."""
    if isinstance(pattern, (ast.PVar, ast.PWild, ast.PUnit)):
        return True
    if isinstance(pattern, ast.PTuple):
        return all(_binds_directly(i) for i in pattern.items)
    if isinstance(pattern, ast.PAnnot):
        return _binds_directly(pattern.pattern)
    return False


def monomorphise(module: ast.Module, typing: Typing, datatypes: DataTypes | None = None,
                 keep: Callable[[ast.Binding], bool] | None = None, at_exit: bool = True) -> ast.Program:
    """The whole program as one monomorphic, fully typed expression of type unit, with its data
    types and the warnings found on the way (non-exhaustive matches, unused cases). Monomorphic
    bindings that `keep` accepts stay even when nothing uses them; with `at_exit`, the end of
    the program runs the functions `at_exit` registered (`with_exit_hook`)."""
    datatypes = datatypes or DataTypes()
    mono = Monomorphiser(typing, datatypes, keep)
    body = mono.module(module)
    if at_exit:
        body = with_exit_hook(body, datatypes)
    for warning in typing.warnings:
        mono.warnings.setdefault((warning.span, warning.message), warning)
    warnings = sorted(mono.warnings.values(), key=lambda w: (w.span.file, w.span.line, w.span.col))
    return ast.Program(body, datatypes, tuple(warnings))


# The prelude's `at_exit` hook (cpsc/stdlib/exit_and_channels.fl): bound only in a program that registers a
# function or calls `exit` (monomorphisation drops it otherwise)
EXIT_HOOK = "fl_exit_hook"
_EXIT_HOOK_TYPE = TCon(EXIT_HOOK, ())
_EXN = TCon("exn", ())


def with_exit_hook(body: ast.Expr, datatypes: DataTypes) -> ast.Expr:
    """The program, its part in the scope of the `at_exit` hook run at its end: after the
    last declaration, or before an exception escapes it (which is then raised again), as
    OCaml runs `at_exit`'s functions. A program without the hook is returned as it is."""
    path: list[ast.Let] = []
    expr = body
    while isinstance(expr, ast.Let):
        path.append(expr)
        if any(isinstance(b.pattern, ast.PVar) and b.pattern.name == EXIT_HOOK for b in expr.bindings):
            break
        expr = expr.body
    else:
        return body
    result: ast.Expr = ast.Let(path[-1].is_rec, path[-1].bindings, _run_at_exit(path[-1].body, datatypes),
                               path[-1].span, ty=path[-1].ty)
    for let in reversed(path[:-1]):
        result = ast.Let(let.is_rec, let.bindings, result, let.span, ty=let.ty)
    return result


def _run_at_exit(body: ast.Expr, datatypes: DataTypes) -> ast.Expr:
    """`try body; hook.run () with e -> hook.run (); hook.uncaught e` (which raises e again
    unless `Printexc.set_uncaught_exception_handler` gave a handler)"""
    span = body.span

    def field(name: str, t: TCon) -> ast.Expr:
        return ast.GetField(ast.Var(EXIT_HOOK, span, _EXIT_HOOK_TYPE), f"{EXIT_HOOK}.{name}", span, t)

    def run() -> ast.Expr:
        return ast.App(field("fl_exit_run", arrow(UNIT, UNIT)), ast.Const(None, "unit", span, ty=UNIT), span, UNIT)

    raised = ast.App(field("fl_exit_uncaught", arrow(_EXN, UNIT)), ast.Var("%exit_exn", span, _EXN), span, UNIT)
    case = ast.Case(ast.PVar("%exit_exn", span, _EXN), None, ast.Seq(run(), raised, span, UNIT), span, UNIT)
    handler = ast.Match(ast.Var(ast.EXCEPTION_VAR, span, _EXN), (case,), span, UNIT, reraise=True)
    handler = ast.Match(handler.scrutinee, handler.cases, span, UNIT, compile_match(handler, datatypes), reraise=True)
    return ast.Try(ast.Seq(body, run(), span, UNIT), handler, span, UNIT)



def _revealed(t: Type, definitions: dict[str, Type]) -> Type:
    if isinstance(t, TVar):
        return t
    if not t.args:
        return definitions.get(t.name, t)
    args = tuple(_revealed(a, definitions) for a in t.args)
    return t if all(a is b for a, b in zip(args, t.args)) else TCon(t.name, args)


def _ground(t: Type) -> TCon:
    """A type monomorphisation made ground."""
    t = resolve(t)
    assert isinstance(t, TCon)
    return t

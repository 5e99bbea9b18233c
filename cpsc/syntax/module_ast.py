"""The module language as parsed: structures, functors, signatures and the declarations and
expressions that name them.

None of these nodes outlives parsing: `cpsc.elaborate.modules` elaborates them into the core
declarations of `cpsc.syntax.ast` (flat, with dotted names), so later stages never see a module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Union

from cpsc.syntax import ast
from cpsc.syntax.diagnostics import Span

# ------------------------------------------------------------------ module types


@dataclass(frozen=True, slots=True)
class SigVal:
    """`val x : t` in a signature."""

    name: str
    type: ast.TypeExpr
    span: Span


@dataclass(frozen=True, slots=True)
class SigType:
    """`type t`, `type 'a t = ...` in a signature: `abstract` names the definitions with no
    right-hand side (their `TypeDef` is a placeholder)."""

    declaration: ast.TypeDecl
    abstract: frozenset[str]


@dataclass(frozen=True, slots=True)
class SigException:
    declaration: ast.ExceptionDecl


@dataclass(frozen=True, slots=True)
class SigModule:
    """`module M : S` in a signature."""

    name: str
    type: ModuleType
    span: Span


@dataclass(frozen=True, slots=True)
class SigModuleType:
    """`module type S = ...` in a signature."""

    name: str
    type: ModuleType
    span: Span


@dataclass(frozen=True, slots=True)
class SigInclude:
    type: ModuleType
    span: Span


@dataclass(frozen=True, slots=True)
class SigOpen:
    """`open M` in a signature: M's types, modules and module types are named without `M.` in
    the items after it (`cpsc.elaborate.modules` qualifies them)."""

    path: str
    span: Span


SigItem = Union[SigVal, SigType, SigException, SigModule, SigModuleType, SigInclude, SigOpen]


@dataclass(frozen=True, slots=True)
class Signature:
    """`sig ... end`."""

    items: tuple[SigItem, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class ModuleTypePath:
    """`S`, `M.S`: a module type by name."""

    path: str
    span: Span


@dataclass(frozen=True, slots=True)
class WithType:
    """`with type ('a, ...) t = e` (the path may be qualified: `with type M.t = e`)."""

    params: tuple[str, ...]
    path: str
    type: ast.TypeExpr
    span: Span
    destructive: bool = False  # `with type t := e`: t leaves the signature, e stands for it


@dataclass(frozen=True, slots=True)
class WithModule:
    """`with module M = P` (M may be qualified: `with module M.N = P`): the types of S's M
    are P's."""

    path: str
    module: str
    span: Span


Constraint = Union[WithType, WithModule]


@dataclass(frozen=True, slots=True)
class ModuleTypeWith:
    """`S with type t = ... and module M = P`."""

    base: ModuleType
    constraints: tuple[Constraint, ...]
    span: Span


# the name of a generative functor's parameter, `module F () = ...` (no program's module has it)
GENERATIVE = "()"


@dataclass(frozen=True, slots=True)
class FunctorParameter:
    name: str
    type: ModuleType
    span: Span


@dataclass(frozen=True, slots=True)
class FunctorType:
    """`functor (X : S) -> T`."""

    parameter: FunctorParameter
    result: ModuleType
    span: Span


ModuleType = Union[Signature, ModuleTypePath, ModuleTypeWith, FunctorType]

# ------------------------------------------------------------------ module expressions


@dataclass(frozen=True, slots=True)
class Structure:
    """`struct ... end`."""

    items: tuple[Any, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class ModulePath:
    """`M`, `A.B`."""

    path: str
    span: Span


@dataclass(frozen=True, slots=True)
class Apply:
    """`F (M)`."""

    functor: ModuleExpr
    argument: ModuleExpr
    span: Span


@dataclass(frozen=True, slots=True)
class Functor:
    """`functor (X : S) -> M` (also `module F (X : S) = M`)."""

    parameter: FunctorParameter
    body: ModuleExpr
    span: Span


@dataclass(frozen=True, slots=True)
class Constrained:
    """`(M : S)`."""

    module: ModuleExpr
    type: ModuleType
    span: Span


ModuleExpr = Union[Structure, ModulePath, Apply, Functor, Constrained]

# ------------------------------------------------------------------ declarations

# (`let open M in e`, `M.(e)` and `let module M = ... in e` are expressions: `ast.LocalOpen`,
# `ast.LetModule`)


@dataclass(frozen=True, slots=True)
class ModuleDecl:
    """`module M = e` (`module M : S = e` is `module M = (e : S)`). `printed`: the path its
    exceptions are printed under, when not its name (a dune library's unit `Mylib__Util`
    prints as `Mylib.Util`, as OCaml rewrites `__` paths that an alias names)."""

    name: str
    module: ModuleExpr
    span: Span
    printed: str | None = None


@dataclass(frozen=True, slots=True)
class ModuleTypeDecl:
    """`module type S = T`."""

    name: str
    type: ModuleType
    span: Span


@dataclass(frozen=True, slots=True)
class OpenDecl:
    """`open M`."""

    path: str
    span: Span


@dataclass(frozen=True, slots=True)
class IncludeDecl:
    """`include M`."""

    module: ModuleExpr
    span: Span


MODULE_ITEMS = (ModuleDecl, ModuleTypeDecl, OpenDecl, IncludeDecl)


def renamed_paths(node: Any, rename: Callable[[str, str], str | None]) -> Any:
    """`node` (a signature, its items, type expressions) with each path that names a type
    (`t`, `M.t`), a module (`M`) or a module type (`S`) replaced by `rename(path, kind)` when
    that is not None; kind is "type", "module" or "module type"."""
    if isinstance(node, tuple):
        return tuple(renamed_paths(item, rename) for item in node)
    if not hasattr(node, "__dataclass_fields__") or isinstance(node, Span):
        return node
    changes = {name: renamed_paths(getattr(node, name), rename)
               for name in node.__dataclass_fields__ if name != "span"}
    kind = _PATH_KINDS.get(type(node))
    if kind is not None:
        field_name, what = kind
        renamed = rename(getattr(node, field_name), what)
        if renamed is not None:
            changes[field_name] = renamed
    return replace(node, **changes)


_PATH_KINDS: dict[type, tuple[str, str]] = {ast.TyName: ("name", "type"), ModulePath: ("path", "module"),
                                            ModuleTypePath: ("path", "module type"),
                                            WithModule: ("module", "module")}

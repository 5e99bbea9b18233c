"""The module language elaborated away, the stage after parsing: structures, signatures,
functors, `open` and `include` become flat declarations whose names carry their module path
(`modules.py`; docs/design.md, "The module language"). The Printf, Format and Scanf calls given
a literal format are rewritten here, once their names are resolved (`cpsc.formats`), and
`__FUNCTION__` is the name of the definition it is in."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from cpsc.elaborate.modules import Env, Scope, declared_once, elaborate, has_module_items
from cpsc.formats.format_printf import with_formats_rewritten
from cpsc.syntax import ast
from cpsc.syntax.diagnostics import Span
from cpsc.syntax.parser import Parsed, parse
from cpsc.syntax.units import unit_name


def elaborate_unit(parsed: Parsed, scope: Scope, generated: bool = False) -> ast.Module:
    """The declarations of `parsed`, in `scope` (the prelude's modules, and a toplevel
    session's), which is updated with what it declares. `generated`: the compiler's own text
    (the toplevel's printers), whose qualified names are the flat names of what they denote."""
    module = parsed.module
    # a text that names no module as a module (most) is elaborated already: `M.x` is M's x,
    # unless a signature sealed M (its values are then seen through bindings of their own) or
    # M's x is another module's (`include List` in ListLabels)
    sealed = any(isinstance(named, Env) and (named.sealed or named.renamed)
                 for named in map(scope.modules.get, parsed.qualifiers))
    unbound = not generated and any(name not in scope.modules for name in parsed.qualifiers)  # said so by `elaborate`
    if parsed.uses_modules or sealed or unbound or has_module_items(module.declarations) or scope.declared:
        module = ast.Module(tuple(elaborate(module.declarations, scope)), module.files)
    else:
        declared_once(module.declarations)
    if parsed.formats:  # on the names as resolved: `printf` after `open Printf`
        module = with_formats_rewritten(module, parsed.formats)
    if parsed.names_function:
        module = FunctionNames(unit_name(parsed.file)).module(module)
    return module


def parse_module(text: str, file: str, modules: Scope | None = None, generated: bool = False) -> ast.Module:
    """`text` parsed and elaborated (in `modules`, a new scope if none; `generated`: see
    `elaborate_unit`)."""
    return elaborate_unit(parse(text, file), Scope() if modules is None else modules, generated)


class FunctionNames:
    """`__FUNCTION__` as ocamlopt gives it: the names of the definitions it is in, the module
    path first (`Prog.M.f.inner`), `(fun)` for an anonymous function."""

    def __init__(self, unit: str) -> None:
        self.unit = unit

    def module(self, module: ast.Module) -> ast.Module:
        declarations = tuple(self.declaration(d) for d in module.declarations)
        return ast.Module(declarations, module.files)

    def declaration(self, declaration: Any) -> Any:
        if not isinstance(declaration, ast.LetDecl):
            return declaration
        return replace(declaration, bindings=tuple(self.binding(b, self.unit) for b in declaration.bindings))

    def binding(self, binding: ast.Binding, scope: str) -> ast.Binding:
        names = ast.pattern_names(binding.pattern)
        inner = ".".join(part for part in (scope, names[0] if names else "") if part) if names else scope
        return replace(binding, value=self.function_body(binding.value, inner))

    def function_body(self, expr: Any, scope: str) -> Any:
        """A definition's value: its `fun`s are the definition's own."""
        if isinstance(expr, ast.Fun):
            return replace(expr, param=self.node(expr.param, scope), body=self.function_body(expr.body, scope))
        if isinstance(expr, ast.Annot):
            return replace(expr, expr=self.function_body(expr.expr, scope))
        return self.node(expr, scope)

    def node(self, node: Any, scope: str) -> Any:
        if isinstance(node, ast.Var) and node.name == "__FUNCTION__":
            return ast.Const(scope or "<unknown>", "string", node.span)
        if isinstance(node, ast.Let):  # (a local definition is named when it is a function's)
            bindings = tuple(self.binding(b, scope) if isinstance(ast.unannotated(b.value), ast.Fun)
                             else replace(b, value=self.node(b.value, scope)) for b in node.bindings)
            return replace(node, bindings=bindings, body=self.node(node.body, scope))
        if isinstance(node, ast.Fun):
            return self.function_body(node, f"{scope}.(fun)" if scope else "(fun)")
        if isinstance(node, tuple):
            return tuple(self.node(item, scope) for item in node)
        if not hasattr(node, "__dataclass_fields__") or isinstance(node, Span):
            return node
        changes = {name: self.node(getattr(node, name), scope) for name in node.__dataclass_fields__
                   if name not in ("span", "ty")}
        return replace(node, **changes)

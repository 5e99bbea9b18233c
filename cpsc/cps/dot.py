"""Control-flow graphs of CPS functions as Graphviz `dot` text (`cpsc build --emit=dot`, the
REPL's `:dot`).

A continuation is a node, headed by its label and its parameters (the block's phis), with its
bindings below. Edges: jumps (solid), branches (labelled `true`/`false`), switch cases
(labelled with their values), `callc` targets (dashed) and the handlers of calls (dotted, red).
Returns and tail calls leave the function: they are written in the node, not drawn.
"""

from __future__ import annotations

from cpsc.cps import ir
from cpsc.cps.printer import function_order, functions_in_order, show_terminator, show_type, show_value
from cpsc.cps.program import Program


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _record(text: str) -> str:
    """A left-justified line of an HTML-free node label."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("{", "\\{").replace("}", "\\}") \
        .replace("<", "\\<").replace(">", "\\>").replace("|", "\\|") + "\\l"


def _node(cont: ir.Cont) -> str:
    params = ", ".join(f"{p.name}: {show_type(p.type)}" for p in cont.params)
    head = _record(f"{cont.label}({params})")
    body = "".join(_record(f"{b.var.name} = {show_value(b.value)}") for b in cont.bindings)
    tail = _record(show_terminator(cont.terminator))
    return f"  {_quote(cont.label)} [label=\"{{{head}|{body}{tail}}}\"];"


def _edges(cont: ir.Cont) -> list[str]:
    source = _quote(cont.label)
    edges = []
    for b in cont.bindings:
        if isinstance(b.value, ir.CallC):
            edges.append(f"  {source} -> {_quote(b.value.target)} [style=dashed, label=\"callc\"];")
        elif isinstance(b.value, (ir.Call, ir.Apply)) and b.value.handler is not None:
            edges.append(f"  {source} -> {_quote(b.value.handler)} [style=dotted, color=red, label=\"raise\"];")
    term = cont.terminator
    if isinstance(term, ir.Jump) and isinstance(term.target, str):
        edges.append(f"  {source} -> {_quote(term.target)};")
    elif isinstance(term, ir.Branch):
        edges.append(f"  {source} -> {_quote(term.if_true)} [label=\"true\"];")
        edges.append(f"  {source} -> {_quote(term.if_false)} [label=\"false\"];")
    elif isinstance(term, ir.Switch):
        for value, label in term.cases:
            edges.append(f"  {source} -> {_quote(label)} [label={_quote(str(value))}];")
        edges.append(f"  {source} -> {_quote(term.default)} [label=\"default\"];")
    return edges


def _body(program: Program, name: str) -> list[str]:
    lines = []
    for label in function_order(program, name):
        lines.append(_node(program.conts[label]))
    for label in function_order(program, name):
        lines.extend(_edges(program.conts[label]))
    return lines


def function_dot(program: Program, name: str) -> str:
    """One function's CFG as a `digraph`."""
    f = program.functions[name]
    params = ", ".join(f"{p.name}: {show_type(p.type)}" for p in f.params)
    return "\n".join([f"digraph {_quote(name)} {{",
                      f"  label={_quote(f'fun {name}({params}) -> {show_type(f.result)}')};",
                      "  labelloc=t;", "  node [shape=record, fontname=monospace, fontsize=10];",
                      *_body(program, name), "}"]) + "\n"


def program_dot(program: Program) -> str:
    """Every function's CFG, one cluster per function, in one `digraph`."""
    lines = ["digraph program {", "  node [shape=record, fontname=monospace, fontsize=10];"]
    for index, name in enumerate(functions_in_order(program)):
        lines += [f"  subgraph cluster_{index} {{", f"  label={_quote('fun ' + name)};",
                  *_body(program, name), "  }"]
    return "\n".join(lines + ["}"]) + "\n"

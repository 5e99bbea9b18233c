"""The call graph the interprocedural passes (inline, contify, specialise) ask of a program: each function's
continuations, the nesting tree, the call graph and its recursive parts, sizes, free variables
and whether they are in scope at a call site."""

from __future__ import annotations

from collections import defaultdict

from cpsc.cps import ir
from cpsc.cps.analysis import free_variables
from cpsc.cps.dominance import Dominators
from cpsc.cps.graphs import strongly_connected_components
from cpsc.cps.program import Program, function_conts
from cpsc.cps.rewrite import cont_definitions


class CallGraph:
    """Facts about one version of a program, computed on demand and cached (a pass that
    changes the program makes new facts)."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self._conts: dict[str, list[str]] | None = None
        # Each function's nested functions, as an ordered set: a move removes one from a
        # parent (the main function) that may have thousands.
        self._children: dict[str, dict[str, None]] | None = None
        self._recursive: set[str] | None = None
        self._dominators: dict[str, Dominators] = {}
        self._defs: dict[str, tuple[str, str | None]] | None = None
        self._owned: dict[str, set[str]] | None = None
        self._sizes: dict[str, int] = {}
        self._named: dict[str, frozenset[str]] = {}

    def changed(self, program: Program, function: str, conts: list[ir.Cont],
                functions: list[ir.Function]) -> None:
        """Follow a rewrite that changed `function`'s continuations (replacing or adding
        `conts`) and added the nested `functions`, without recomputing everything."""
        self.program = program
        if self._conts is not None:
            self._conts.pop(function, None)
        self._named.pop(function, None)
        self._dominators.pop(function, None)
        self._forget_sizes(function)
        if self._children is not None:
            for f in functions:
                if f.parent is not None:
                    self._children[f.parent][f.name] = None
        if self._owned is not None:
            for cont in conts:
                self._owned[cont.function].add(cont.label)
        if self._defs is not None:
            for f in functions:
                self._defs.update({p.name: (f.name, None) for p in f.params})
            for cont in conts:
                self._defs.update({v.name: (cont.function, cont.label) for v in cont_definitions(cont)})

    def moved(self, function: str, parent: str | None, into: str) -> None:
        """Follow a rewrite that moved `function`'s code into `into` and removed `function`
        (which was nested in `parent`): its nested functions are now nested in `into`."""
        if self._conts is not None:
            self._conts.pop(function, None)
        self._named.pop(function, None)
        self._named.pop(into, None)
        self._sizes.pop(function, None)
        self._forget_sizes(into)
        self._forget_sizes(parent)
        if self._owned is not None:
            self._owned[into] |= self._owned.pop(function, set())
        if self._children is not None:
            self._children[into].update(self._children.pop(function, {}))
            if parent is not None:
                del self._children[parent][function]

    def binding_of(self, name: str) -> ir.Binding | None:
        """The binding that defines variable `name` (None: a parameter)."""
        label = self._definitions().get(name, (None, None))[1]
        if label is None:
            return None
        return next((b for b in self.program.cont_table[label].bindings if b.var.name == name), None)

    # ------------------------------------------------------------ structure
    def conts_of(self, function: str) -> list[str]:
        """`function`'s continuations reachable from its entry, in reverse postorder."""
        if self._conts is None:
            self._conts = {}
        if function not in self._conts:
            self._conts[function] = function_conts(self.program, function)
        return self._conts[function]

    def owned(self, function: str) -> list[str]:
        """Every continuation of `function`, reachable or not (in no particular order)."""
        if self._owned is None:
            self._owned = defaultdict(set)
            for cont in self.program.cont_table.values():
                self._owned[cont.function].add(cont.label)
        return sorted(self._owned.get(function, ()))

    def children(self, function: str) -> list[str]:
        if self._children is None:
            self._children = defaultdict(dict)
            for f in sorted(self.program.function_table.values(), key=lambda f: f.name):
                if f.parent is not None:
                    self._children[f.parent][f.name] = None
        return list(self._children.get(function, ()))

    def subtree(self, function: str) -> list[str]:
        """`function` and every function nested in it, parents before children."""
        out, work = [], [function]
        while work:
            f = work.pop()
            out.append(f)
            work.extend(reversed(self.children(f)))
        return out

    def is_ancestor(self, ancestor: str, function: str) -> bool:
        current = self.program.function_table[function].parent
        while current is not None:
            if current == ancestor:
                return True
            current = self.program.function_table[current].parent
        return False

    def size(self, function: str) -> int:
        """Bindings and terminators of `function` and the functions nested in it."""
        if function not in self._sizes:
            self._sizes[function] = sum(len(self.program.cont_table[label].bindings) + 1
                                        for f in self.subtree(function) for label in self.conts_of(f))
        return self._sizes[function]

    def _forget_sizes(self, function: str | None) -> None:
        """A change to `function` changes its size and those of the functions it is nested in."""
        while function is not None and function in self.program.function_table:
            self._sizes.pop(function, None)
            function = self.program.function_table[function].parent

    # ------------------------------------------------------------ calls
    def named_in(self, function: str) -> frozenset[str]:
        """The functions `function`'s own reachable continuations call, tail call or make a
        closure of: its edges in the call graph (the recursive parts and the inliner's bottom-up
        order both ask, from one sweep)."""
        named = self._named.get(function)
        if named is None:
            conts = self.program.cont_table
            named = self._named[function] = frozenset(
                g for label in self.conts_of(function) for g in ir.functions_named(conts[label]))
        return named

    def recursive(self) -> set[str]:
        """Functions on a cycle of the graph whose edges are calls, tail calls and closures
        (from a function or anything nested in it: inlining copies the nested ones too)."""
        if self._recursive is None:
            graph = {f: sorted(names) for f, names in self._named_in_subtrees().items()}
            self._recursive = set()
            for component in strongly_connected_components(sorted(graph), graph):
                if len(component) > 1 or component[0] in graph[component[0]]:
                    self._recursive.update(component)
        return self._recursive

    def _named_in_subtrees(self) -> dict[str, set[str]]:
        """For each function, the functions named in it or in a function nested in it: each
        function's own names, then its children's sets added to their parent's, innermost
        first (a walk of each subtree per function would be quadratic in the nesting depth)."""
        named = {f: set(self.named_in(f)) for f in self.program.function_table}
        roots = [f for f, function in self.program.function_table.items() if function.parent is None]
        for f in reversed([f for root in roots for f in self.subtree(root)]):
            parent = self.program.function_table[f].parent
            if parent is not None:
                named[parent] |= named[f]
        return named

    # ------------------------------------------------------------ scope
    def free_variables(self, function: str) -> dict[str, str]:
        """Variables `function` (with its nested functions) uses but does not define, with the
        function that defines each."""
        free = free_variables(self.program, self.subtree(function), self.conts_of)
        return {name: owner for name in free if (owner := self.defining_function(name))}

    def defining_function(self, name: str) -> str | None:
        return self._definitions().get(name, (None, None))[0]

    def _definitions(self) -> dict[str, tuple[str, str | None]]:
        """Each variable's function and continuation (None for a function parameter)."""
        if self._defs is None:
            defs: dict[str, tuple[str, str | None]] = {}
            for f in self.program.function_table.values():
                for p in f.params:
                    defs[p.name] = (f.name, None)
            for cont in self.program.cont_table.values():
                for v in cont_definitions(cont):
                    defs[v.name] = (cont.function, cont.label)
            self._defs = defs
        return self._defs

    def dominators(self, function: str) -> Dominators:
        if function not in self._dominators:
            labels = self.conts_of(function)
            preds: dict[str, list[str]] = {label: [] for label in labels}
            for label in labels:
                for s in ir.successors(self.program.cont_table[label]):
                    if s in preds:
                        preds[s].append(label)
            self._dominators[function] = Dominators(labels, preds)
        return self._dominators[function]

    def out_of_scope(self, callee: str, caller: str, site_label: str, site_index: int) -> str | None:
        """A free variable of `callee` that code at the call site could not name (None: all
        are in scope): defined in a function that does not enclose the caller, or in the
        caller itself but not before the call."""
        for name, owner in sorted(self.free_variables(callee).items()):
            if owner != caller:
                if not self.is_ancestor(owner, caller):
                    return name
                continue
            def_label = self._definitions()[name][1]
            if def_label is None:
                continue
            if def_label == site_label:
                cont = self.program.cont_table[site_label]
                position = next((i for i, b in enumerate(cont.bindings) if b.var.name == name), -1)
                if position >= site_index:
                    return name
            elif not self.dominators(caller).dominates(def_label, site_label):
                return name
        return None



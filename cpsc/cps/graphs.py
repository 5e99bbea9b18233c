"""Graph algorithms the passes share (call graphs, nesting)."""

from __future__ import annotations


def strongly_connected_components(nodes: list[str], edges: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's algorithm without recursion; components come out callees first (reverse
    topological order of the condensed graph)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    for root in nodes:
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, next_edge = work.pop()
            if next_edge == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            successors = edges.get(node, [])
            if next_edge < len(successors):
                work.append((node, next_edge + 1))
                succ = successors[next_edge]
                if succ not in index:
                    work.append((succ, 0))
                elif succ in on_stack:
                    low[node] = min(low[node], index[succ])
                continue
            for succ in successors:  # fold in the low links of the children just finished
                if succ in on_stack:
                    low[node] = min(low[node], low[succ])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
    return components


class Groups:
    """Names joined into groups (union-find with path halving): `join` merges two names'
    groups, `leader` names the group of a name."""

    def __init__(self, names: list[str]) -> None:
        self.parent = {name: name for name in names}

    def leader(self, name: str) -> str:
        parent = self.parent
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    def join(self, a: str, b: str) -> None:
        self.parent[self.leader(b)] = self.leader(a)


def nodes_on_cycles(edges: dict[str, list[str]]) -> set[str]:
    """The nodes of `edges` that lie on a cycle (a loop to themselves included); edges to nodes
    outside `edges` are left out."""
    inside = {node: [s for s in targets if s in edges] for node, targets in edges.items()}
    return {node for component in strongly_connected_components(sorted(inside), inside)
            for node in component if len(component) > 1 or node in inside[node]}

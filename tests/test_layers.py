"""The house's layout (docs/design.md): each stage imports only from the stages before it, the
IR (`cpsc/cps`) knows nothing of the front end, no pass imports another pass, and there is no
import cycle, counting imports inside functions and under `TYPE_CHECKING` too."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "cpsc"

# What each stage may import, besides itself and the infrastructure (`cpsc/support`).
ALLOWED: dict[str, set[str]] = {
    "support": set(),
    "semantics": set(),
    "syntax": {"semantics"},
    "project": {"syntax", "semantics"},
    "formats": {"syntax", "semantics"},
    "elaborate": {"formats", "syntax", "semantics"},
    "types": {"elaborate", "formats", "syntax", "semantics"},
    "mono": {"types", "syntax", "semantics"},
    "cps": {"semantics", "types.types"},
    "to_cps": {"cps", "mono", "types", "syntax", "semantics"},
    "opt": {"cps", "semantics", "types.types"},
    "closure": {"cps", "types.types"},
    "ssa": {"cps", "semantics", "types.types"},
    "llvm": {"ssa", "cps", "semantics", "types.types"},
}
UTILITIES = {"cpsc"}  # and every module of cpsc/support, which every stage may use
PASSES = {"contify", "cse", "facts", "inline", "licm", "loads", "local_refs", "simplify", "specialise"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every cpsc module `path` imports, wherever the import statement is."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if _exists(candidate) else base)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m == "cpsc" or m.startswith("cpsc.")}


def _exists(module: str) -> bool:
    path = ROOT.joinpath(*module.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _graph() -> dict[str, set[str]]:
    return {_module_name(path): _imports(path) - {_module_name(path)} for path in PACKAGE.rglob("*.py")}


def _stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and (PACKAGE / parts[1]).is_dir()) else module


def test_each_stage_imports_only_the_stages_before_it():
    wrong = []
    for module, imported in sorted(_graph().items()):
        stage = _stage(module)
        if stage not in ALLOWED:
            continue
        for target in sorted(imported):
            allowed = ALLOWED[stage] | {stage}
            if target in UTILITIES or target.startswith("cpsc.support.") or _stage(target) in allowed or any(
                    target == f"cpsc.{a}" or target.startswith(f"cpsc.{a}.") for a in allowed):
                continue
            wrong.append(f"{module} imports {target}")
    assert not wrong, "\n".join(wrong)


def test_no_pass_imports_another_pass():
    wrong = [f"{module} imports {target}" for module, imported in _graph().items()
             if module.startswith("cpsc.opt.") and module.rpartition(".")[2] in PASSES
             for target in imported if target.rpartition(".")[2] in PASSES and target != module]
    assert not wrong, "\n".join(wrong)


def test_there_is_no_import_cycle():
    graph = _graph()
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def cycle_from(root: str) -> list[str] | None:
        path = [root]
        stack = [iter(sorted(graph.get(root, ())))]
        state[root] = 1
        while stack:
            successor = next(stack[-1], None)
            if successor is None:
                state[path.pop()] = 2
                stack.pop()
                continue
            if state.get(successor) == 1:
                return path[path.index(successor):] + [successor]
            if successor not in state and successor in graph:
                state[successor] = 1
                path.append(successor)
                stack.append(iter(sorted(graph[successor])))
        return None

    for module in sorted(graph):
        if module not in state:
            found = cycle_from(module)
            assert found is None, " -> ".join(found)


def test_the_ir_file_holds_the_nodes_only():
    # (the nodes and their equality: Const's compares floats by their bits)
    assert len((PACKAGE / "cps" / "ir.py").read_text().splitlines()) < 435
    assert "planted" not in "".join(p.read_text() for p in (PACKAGE / "opt").glob("*.py"))

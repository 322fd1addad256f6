"""No import cycle among the project's modules, counting the imports made inside functions.

An import inside a function hides a cycle from Python (the module is complete by the time the
function runs) but not from the design: two modules that need each other are one module, or
one of them holds code that belongs elsewhere.  So the source of every module of ``engine``,
``server``, ``tui`` and ``voltage`` is read with :mod:`ast`, every import is collected (at
module level and in functions alike; those under ``if TYPE_CHECKING:`` aside, as they never
run), and the graph must have no cycle.  A failure names each cycle, module by module.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "server", "tui", "voltage")


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    return {module_name(path, root): path
            for package in PACKAGES for path in sorted((root / package).rglob("*.py"))}


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_in(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement in ``tree``, at any depth, skipping ``if TYPE_CHECKING:`` bodies
    (their ``else:`` runs, so it counts)."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        if isinstance(node, ast.If) and is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def imported_modules(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules ``name`` imports: ``from a.b import c`` is ``a.b.c`` when that is a
    module, else ``a.b``; a relative import is resolved against ``name``'s package."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in imports_in(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
            continue
        base = package
        for _ in range(node.level - 1):
            base = base.rpartition(".")[0]
        target = node.module or ""
        if node.level:
            target = f"{base}.{target}" if target else base
        for alias in node.names:
            sub = f"{target}.{alias.name}"
            found.add(sub if sub in known else target)
    return {module for module in found if module in known and module != name}


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    modules = project_modules(root)
    known = set(modules)
    return {name: imported_modules(name, path, known) for name, path in modules.items()}


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module (iteratively: no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def a_cycle(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """The shortest cycle through the component's first module, as a path that returns to it."""
    members = set(component)
    start = component[0]
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for child in sorted(graph[node] & members):
            if child == start:
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if child not in came_from:
                came_from[child] = node
                queue.append(child)
    raise AssertionError(f"{component} is not a cycle")


def describe(graph: dict[str, set[str]]) -> list[str]:
    return [f"{len(component)} modules ({', '.join(component)}), e.g. " + " -> ".join(a_cycle(graph, component))
            for component in strongly_connected(graph)]


def test_no_import_cycle_among_the_project_modules() -> None:
    graph = import_graph()
    assert {"engine.game", "server.lobby.core", "tui.app", "voltage.cli"} <= set(graph)
    cycles = describe(graph)
    assert cycles == [], "import cycles:\n" + "\n".join(cycles)


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_check_sees_a_cycle_hidden_in_a_function(tmp_path: Path) -> None:
    write(tmp_path, {
        "tui/__init__.py": "",
        "tui/a.py": "from tui import b\n",
        "tui/b.py": "def late():\n    from . import a\n",
        "tui/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tui.a import x\n",
        "engine/__init__.py": "", "server/__init__.py": "", "voltage/__init__.py": "",
    })
    graph = import_graph(tmp_path)
    assert graph["tui.c"] == set()
    assert describe(graph) == ["2 modules (tui.a, tui.b), e.g. tui.a -> tui.b -> tui.a"]


def test_the_check_ignores_imports_only_for_the_type_checker(tmp_path: Path) -> None:
    write(tmp_path, {
        "tui/__init__.py": "",
        "tui/a.py": "import tui.b\n",
        "tui/b.py": "import typing\nif typing.TYPE_CHECKING:\n    import tui.a\nelse:\n    pass\n",
        "engine/__init__.py": "", "server/__init__.py": "", "voltage/__init__.py": "",
    })
    assert describe(import_graph(tmp_path)) == []

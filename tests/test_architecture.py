"""The packages import one way, down the pipeline, and no modules import each other.

indexer (the package's own top-level modules) <- indexer.documents (reading documents into
records) <- indexer.search (analysis, engine, build) <- indexer.knowledge (the service over
one build) <- webapp (pages, JSON) <- mtgrules (the command line). A newcomer can follow a
query by reading folder names only if no package reaches back up; imports inside functions
count too. A `__main__` module is a program, not part of its package's library: nothing may
import it, and it may start any layer's program (`python -m indexer` runs the command line).
The server harness the tests, benchmarks and replicas share (`harness`) reaches no further up
than the library, and neither the tests' support modules nor deploy/ import the benchmarks.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("indexer", "indexer.documents", "indexer.search", "indexer.knowledge", "webapp", "mtgrules")
PACKAGES = ("indexer", "webapp", "mtgrules")
ENTRY_POINT = "__main__"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(name: str, is_package: bool, source: str, packages: tuple[str, ...] = PACKAGES) -> set[str]:
    """Modules of `packages` (the first-party ones unless told) the module `name` imports, at
    the top or inside a function."""
    package = name if is_package else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            found.add(module)
            # `from package import module` imports that module.
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return {m for m in found if m.split(".")[0] in packages}


def layer_of(module: str) -> str:
    """The most specific layer holding the module (`indexer.search.build` is in
    `indexer.search`; `indexer.__init__` in `indexer`); a `__main__` is above them all."""
    if module.rpartition(".")[2] == ENTRY_POINT:
        return LAYERS[-1]
    return max((layer for layer in LAYERS if module == layer or module.startswith(layer + ".")), key=len)


def _graph() -> dict[str, set[str]]:
    files = [p for package in PACKAGES for p in (ROOT / package).rglob("*.py")]
    modules = {_module_name(p): p for p in files}
    graph = {}
    for name, path in modules.items():
        # Only edges to real modules: `from indexer.documents.records import Record` names a class.
        imported = _imports(name, path.name == "__init__.py", path.read_text(encoding="utf-8"))
        graph[name] = {m for m in imported if m in modules and m != name}
    return graph


GRAPH = _graph()


def test_every_layer_has_modules():
    assert {layer_of(name) for name in GRAPH} == set(LAYERS)


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_point_down_the_pipeline(module):
    layer = LAYERS.index(layer_of(module))
    upward = sorted(m for m in GRAPH[module] if LAYERS.index(layer_of(m)) > layer)
    assert upward == [], f"{module} imports from a later stage: {upward}"


def test_nothing_imports_a_program():
    importers = sorted(f"{module} -> {m}" for module, imported in GRAPH.items() for m in imported
                       if m.rpartition(".")[2] == ENTRY_POINT)
    assert importers == []


@pytest.mark.parametrize("folder", ["harness", "deploy", "tests"])
def test_the_benchmarks_are_imported_only_by_their_own_tests(folder):
    """The server harness, deploy/ and the tests' fixtures and support modules never import
    the benchmarks (a test module of a benchmark, test_cold_bench.py say, does)."""
    offenders = []
    for path in sorted((ROOT / folder).glob("*.py")):
        if folder == "tests" and path.name.startswith("test_"):
            continue
        found = _imports(path.stem, False, path.read_text(encoding="utf-8"), ("benchmarks",))
        offenders += [f"{path.relative_to(ROOT)} imports {m}" for m in sorted(found)]
    assert offenders == []


def test_the_harness_imports_no_layer_above_the_library():
    found = set()
    for path in (ROOT / "harness").glob("*.py"):
        found |= _imports(f"harness.{path.stem}", path.name == "__init__.py", path.read_text(encoding="utf-8"))
    assert {layer_of(m) for m in found} <= {"indexer", "indexer.documents", "indexer.search", "indexer.knowledge"}


def test_no_import_cycles():
    """No module reaches itself through imports (a package's __init__ excepted when its
    submodules import names it defines, as the parsers do)."""
    def reaches(start: str) -> list[str] | None:
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in GRAPH.get(node, ()):
                if nxt == start:
                    return [*path, nxt]
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*path, nxt]))
        return None

    cycles = [cycle for module in sorted(GRAPH) if (cycle := reaches(module))]
    assert cycles == []


def test_the_checker_sees_relative_and_function_level_imports():
    source = "from ..records import Record\n\ndef f():\n    from webapp import present\n"
    assert _imports("indexer.documents.parsers.article", False, source) >= {
        "indexer.documents.records", "webapp.present"}

"""Every module, class and function of the project is small enough to read at once.

A module (Python or JavaScript) is at most MODULE_LINES lines, a Python class at most
CLASS_LINES and a function or method in either language at most FUNCTION_LINES: a part that
outgrows them is split by what it does (`Catalogue` into its look-ups, its placement of records
among results and its concepts; the offline search into its parts). Libraries kept as
published (Workbox, axe) are not the project's and are not measured.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULE_LINES = 700
CLASS_LINES = 300
FUNCTION_LINES = 80
PYTHON_FOLDERS = ("indexer", "webapp", "mtgrules", "harness", "benchmarks", "scripts", "deploy", "tests")
JAVASCRIPT_FOLDERS = ("webapp/static", "webapp/templates")
# Folders of libraries kept as published.
VENDORED = re.compile(r"(^|/)(workbox-[\d.]+|vendor)(/|$)")
# A JavaScript function's first line (`function name (`, `name = function (`, `name: function (`) and
# its indent; the code is indented two spaces a level, so a function ends at the first line
# that closes a block at its own indent. A file's wrapper (`(function (root) {` at the margin)
# is the module's scope, not a function.
JS_FUNCTION = re.compile(r"^(?P<indent> +)(?:.*[=:(,] *)?function\b[^{]*\{\s*$|^(?P<top>)function\b[^{]*\{\s*$")


def _files(folders: tuple[str, ...], suffix: str) -> list[Path]:
    found = []
    for folder in folders:
        for path in sorted((ROOT / folder).rglob(f"*{suffix}")):
            relative = path.relative_to(ROOT).as_posix()
            if not VENDORED.search(relative) and "__pycache__" not in relative:
                found.append(path)
    return found


PYTHON = _files(PYTHON_FOLDERS, ".py")
JAVASCRIPT = _files(JAVASCRIPT_FOLDERS, ".js")


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def python_oversized(source: str) -> list[str]:
    """The classes and functions of a Python module over their bounds, as `kind name lines`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            size = (node.end_lineno or node.lineno) - node.lineno + 1
            limit = CLASS_LINES if isinstance(node, ast.ClassDef) else FUNCTION_LINES
            if size > limit:
                found.append(f"{type(node).__name__} {node.name} {size}")
    return found


def javascript_oversized(source: str) -> list[str]:
    """The functions of a JavaScript file over FUNCTION_LINES, as `line: lines`."""
    lines = source.split("\n")
    found = []
    for at, line in enumerate(lines):
        m = JS_FUNCTION.match(line)
        if not m:
            continue
        close = re.compile(rf"^{m.group('indent') or ''}\}}")
        end = next((n for n in range(at + 1, len(lines)) if close.match(lines[n])), len(lines) - 1)
        if end - at + 1 > FUNCTION_LINES:
            found.append(f"line {at + 1}: {end - at + 1}")
    return found


def test_the_sources_are_found():
    names = {_name(p) for p in PYTHON + JAVASCRIPT}
    assert {"indexer/knowledge/catalogue.py", "webapp/static/offline-search/index.js",
            "webapp/templates/sw.js"} <= names
    assert not any(VENDORED.search(n) for n in names)


@pytest.mark.parametrize("path", PYTHON + JAVASCRIPT, ids=_name)
def test_a_module_is_at_most_700_lines(path):
    assert path.read_text(encoding="utf-8").count("\n") <= MODULE_LINES


@pytest.mark.parametrize("path", PYTHON, ids=_name)
def test_python_classes_and_functions_are_small(path):
    assert python_oversized(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("path", JAVASCRIPT, ids=_name)
def test_javascript_functions_are_small(path):
    assert javascript_oversized(path.read_text(encoding="utf-8")) == []


def test_the_measures_see_what_is_too_long():
    body = "".join(f"    x{n} = {n}\n" for n in range(FUNCTION_LINES))
    assert python_oversized(f"class A:\n  def f(self):\n{body}") == [f"FunctionDef f {FUNCTION_LINES + 1}"]
    assert python_oversized(f"def f():\n{body[:-12]}") == []
    script = "  X.prototype.f = function (a) {\n" + "    a++;\n" * FUNCTION_LINES + "  };\n"
    assert javascript_oversized(script) == [f"line 1: {FUNCTION_LINES + 2}"]
    assert javascript_oversized("  function g() {\n    return 1;\n  }\n") == []

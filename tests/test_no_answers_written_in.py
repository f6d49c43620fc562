"""No answer is written into the ranking: the code that analyses, expands and ranks a query
(indexer/knowledge/*.py, indexer/search/*.py) holds no judged query and no rule number a
judged query targets, in any of its strings or numbers outside docstrings and comments
(examples there explain, they decide nothing). What the ranking knows of the game is data with
a source (the glossary, the rules' glossary, indexer/knowledge/data/), used the same way for
every query. A structural number (a section such as 702, Keyword Abilities) may be written only
as a module-level named constant listed in STRUCTURAL, with a comment saying what it is."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CODE = sorted([*ROOT.glob("indexer/knowledge/*.py"), *ROOT.glob("indexer/search/*.py")])
JUDGED = [*sorted(ROOT.glob("tests/judged_*.tsv")), ROOT / "tests" / "questions.tsv",
          ROOT / "tests" / "questions_terse.tsv", ROOT / "tests" / "questions_held_out.tsv",
          ROOT / "tests" / "questions_terse_held_out.tsv", ROOT / "tests" / "questions_held_out_2.tsv",
          ROOT / "tests" / "questions_held_out_3.tsv", ROOT / "tests" / "questions_held_out_4.tsv",
          ROOT / "tests" / "questions_held_out_5.tsv",
          ROOT.parent / "shared" / "eval" / "queries.tsv"]
# (file relative to the repository, constant name): structural rule numbers the code may name.
STRUCTURAL: set[tuple[str, str]] = set()
_TARGET_RULE = re.compile(r"rule[:=]([0-9]{3}(?:\.[0-9]+[a-z]?)?)")
_RULE_IN_TEXT = re.compile(r"(?<![\d.])([0-9]{3}(?:\.[0-9]+[a-z]?)?)(?![\d])")


def judged_rows() -> list[tuple[str, str]]:
    """(query, targets) of every judged file there is (the shared scorer's set may be absent)."""
    rows = []
    for path in JUDGED:
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            fields = line.split("\t")
            if len(fields) == 3 and not line.startswith("#"):
                rows.append((fields[1], fields[2]))
    return rows


def targeted_rules() -> set[str]:
    return {n for _, targets in judged_rows() for n in _TARGET_RULE.findall(targets)}


def constants(path: Path) -> list[tuple[int, object, str | None]]:
    """(line, value, module-level name it is assigned to or None) of every str, int and float
    constant of a module that is not a docstring."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    named = {}
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for inner in ast.walk(node):
                for target in targets:
                    if isinstance(target, ast.Name):
                        named[id(inner)] = target.id
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and id(node) not in docstrings and not isinstance(node.value, bool)
                and isinstance(node.value, (str, int, float))):
            found.append((node.lineno, node.value, named.get(id(node))))
    return found


def written_rule_numbers(value: object) -> set[str]:
    if isinstance(value, str):
        return set(_RULE_IN_TEXT.findall(value))
    if isinstance(value, int):
        return {str(value)}
    return set()


def test_the_judged_files_are_read():
    rows = judged_rows()
    assert len(rows) >= 500
    assert {"903.8", "702.19b", "702.79"} <= targeted_rules()


@pytest.mark.parametrize("path", CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_rule_number_a_judged_query_targets_is_written_in_the_code(path):
    wanted = targeted_rules()
    relative = str(path.relative_to(ROOT))
    written = [(line, value) for line, value, name in constants(path)
               if written_rule_numbers(value) & wanted and (relative, name) not in STRUCTURAL]
    assert written == []


@pytest.mark.parametrize("path", CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_judged_query_is_written_in_the_code(path):
    queries = {query.casefold().strip() for query, _ in judged_rows() if len(query.strip()) >= 2}
    strings = [(line, value) for line, value, _ in constants(path) if isinstance(value, str)]
    written = [(line, value) for line, value in strings
               if value.casefold().strip() in queries
               or any(len(q) >= 8 and q in value.casefold() for q in queries)]
    assert written == []


def test_structural_constants_are_commented():
    for relative, name in STRUCTURAL:
        lines = (ROOT / relative).read_text(encoding="utf-8").splitlines()
        at = next(i for i, line in enumerate(lines) if re.match(rf"{name}\s*[:=]", line))
        assert lines[at - 1].lstrip().startswith("#") or "#" in lines[at], f"{relative}: {name} has no comment"


def test_the_check_finds_a_written_answer(tmp_path):
    """The checks themselves: a module that writes a judged target or query is caught."""
    module = tmp_path / "ranking.py"
    module.write_text('"""Docstring 903.8 is an example."""\nBOOST = {"903.8": 2.0}\nQ = "minimum deck size"\n',
                      encoding="utf-8")
    found = constants(module)
    assert any(written_rule_numbers(value) & {"903.8"} for _, value, _ in found)
    assert sorted(v for _, v, _ in found if isinstance(v, str)) == ["903.8", "minimum deck size"]

"""The package as pip installs it: pyproject.toml declares what the code imports, the lock files
pin the same versions, the service's lock holds no test or benchmark package, and the installed
commands run."""
from __future__ import annotations

import ast
import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
SERVICE_LOCK = ROOT / "requirements.txt"
DEV_LOCK = ROOT / "requirements-dev.txt"
# The modules only gunicorn loads (its worker class): they may import the `web` group.
SERVING_MODULES = {"webapp/serving.py"}
# The command that makes the word meaning table: it may import the `vectors` group (the
# encoder), which neither the service nor the tests install.
TABLE_MODULES = {"indexer/knowledge/word_table.py"}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(requirements: list[str]) -> dict[str, str]:
    """{canonical name: version} of `name==version` lines (an environment marker may follow);
    anything else is an error."""
    found = {}
    for line in requirements:
        match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)\s*(;[^#]*)?", line.strip())
        assert match, f"not pinned with ==: {line!r}"
        found[canonical(match.group(1))] = match.group(2)
    return found


def locked(path: Path) -> dict[str, str]:
    lines = [line for line in path.read_text(encoding="utf-8").splitlines()
             if line and not line.lstrip().startswith("#")]
    return pins(lines)


DECLARED = pins(PROJECT["dependencies"])
GROUPS = {group: pins(listed) for group, listed in PROJECT["optional-dependencies"].items()}


def test_the_groups_are_the_service_the_tests_the_benchmarks_the_static_checks_and_the_table_maker():
    assert set(GROUPS) == {"web", "test", "bench", "lint", "vectors"}


@pytest.mark.parametrize("lock, groups", [(SERVICE_LOCK, ("web",)), (DEV_LOCK, ("web", "test", "bench", "lint"))])
def test_the_lock_files_pin_what_pyproject_declares(lock, groups):
    held = locked(lock)
    wanted = DECLARED | {name: version for group in groups for name, version in GROUPS[group].items()}
    assert {name: held.get(name) for name in wanted} == wanted


def test_the_service_lock_holds_no_test_benchmark_or_lint_package():
    held = locked(SERVICE_LOCK)
    assert not {name for group in ("test", "bench", "lint") for name in GROUPS[group]} & set(held)
    assert "pytest" not in held


def test_the_development_lock_has_the_services_versions():
    dev = locked(DEV_LOCK)
    assert {name: dev.get(name) for name in locked(SERVICE_LOCK)} == locked(SERVICE_LOCK)


def test_setup_asks_for_the_python_pyproject_requires():
    setup = (ROOT / "scripts" / "setup").read_text(encoding="utf-8")
    assert f'MIN_PYTHON="{PROJECT["requires-python"].removeprefix(">=")}"' in setup


# Modules of a newer standard library than the oldest Python supported, imported only on that
# Python (`if sys.version_info >= (3, 14)`: webapp.compression's zstd).
NEWER_STDLIB = {"compression"}


def _third_party_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names.add(node.module.split(".")[0])
    return {name for name in names
            if name not in sys.stdlib_module_names | NEWER_STDLIB and name not in {"indexer", "webapp", "mtgrules"}}


def test_every_package_the_code_imports_is_declared():
    """A module of indexer, webapp or mtgrules imports only distributions pyproject.toml
    declares (the `web` group only in gunicorn's worker, the `vectors` group only in the
    command that makes the word meaning table): none reaches the service through
    another package's requirements, where a version can change under it."""
    distributions = importlib.metadata.packages_distributions()
    undeclared = []
    for package in ("indexer", "webapp", "mtgrules"):
        for path in sorted((ROOT / package).rglob("*.py")):
            name = str(path.relative_to(ROOT))
            allowed = (set(DECLARED) | (set(GROUPS["web"]) if name in SERVING_MODULES else set())
                       | (set(GROUPS["vectors"]) if name in TABLE_MODULES else set()))
            for module in sorted(_third_party_imports(path)):
                providers = {canonical(d) for d in distributions.get(module, [module])}
                if not providers & allowed:
                    undeclared.append(f"{path.relative_to(ROOT)}: {module} ({', '.join(sorted(providers))})")
    assert undeclared == []


def test_the_project_is_installed_with_its_commands():
    """scripts/setup installs the project (editable): its metadata is pyproject's, and the
    console command and the Flask command group point at the command line's group."""
    try:
        installed = importlib.metadata.distribution(PROJECT["name"])
    except importlib.metadata.PackageNotFoundError:
        pytest.fail(f"{PROJECT['name']} is not installed in this environment (run ./scripts/test, "
                    "or pip install -e . --no-deps)", pytrace=False)
    assert installed.version == PROJECT["version"]
    points = {(point.group, point.name): point.value for point in installed.entry_points}
    assert points[("console_scripts", "mtgrules")] == PROJECT["scripts"]["mtgrules"] == "mtgrules.commands:main"
    assert points[("flask.commands", "kb")] == "mtgrules.commands:cli"


@pytest.mark.server
@pytest.mark.parametrize("argv", [
    [str(Path(sys.executable).with_name("mtgrules")), "--help"],
    [sys.executable, "-m", "mtgrules", "--help"],
    [sys.executable, "-m", "indexer", "--help"],
    [sys.executable, "-m", "flask", "--app", "webapp", "kb", "--help"],
], ids=["mtgrules", "python -m mtgrules", "python -m indexer", "flask kb"])
def test_every_name_of_the_command_line_runs_it(argv, tmp_path):
    completed = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True,
                               env={"PATH": "/usr/bin:/bin", "INDEX_ROOT": str(tmp_path)})
    assert completed.returncode == 0, completed.stderr
    words = " ".join(completed.stdout.split())
    assert "Build the knowledge base's index, and read rules, rulings and search from it." in words
    assert "search Search rules, cards, terms and documents." in words

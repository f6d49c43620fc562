"""What every benchmark shares: timing, percentiles, sizes, the judged queries, the machine
description and Markdown tables (so a run's output can be pasted into docs/benchmarks.md)."""
from __future__ import annotations

import importlib.metadata
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from indexer.search.build import current_folder

ROOT = Path(__file__).resolve().parents[1]
SHARED_CR = ROOT.parent / "shared" / "cr"
sys.path.insert(0, str(ROOT / "tests"))
import judged  # noqa: E402  (the project's judged queries and scorer live with the tests)

# The engine alone behind the real app's stack: the floor of a search (benchmarks/minimal_app.py).
MINIMAL_APP = "benchmarks.minimal_app:app"

PACKAGES = ("whoosh-reloaded", "jieba", "opencc", "flask", "gunicorn", "werkzeug", "tantivy", "hypothesis")


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (0-100) by the nearest-rank method: p99 of 100 values is the 99th."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * p // 100))
    return ordered[int(rank) - 1]


@contextmanager
def stopwatch() -> Iterator[list[float]]:
    """`with stopwatch() as t: ...` then `t[0]` is the elapsed seconds."""
    holder: list[float] = []
    started = time.perf_counter()
    try:
        yield holder
    finally:
        holder.append(time.perf_counter() - started)


def build_folder(index_root: Path) -> Path:
    """The build INDEX_ROOT's CURRENT names; exits with a message when there is none."""
    folder = current_folder(index_root)
    if folder is None:
        sys.exit(f"no index build in {index_root}")
    return folder


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def megabytes(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def judged_queries(*paths: Path) -> list[str]:
    """The queries of judged files (tests/judged_queries.tsv when none is named), in their order."""
    return [query for path in paths or (judged.QUERIES,) for _, query, _ in judged.load(path)]


# Asked before timing: loads what a process loads on its first query (jieba's dictionary,
# OpenCC), and is none of the judged queries, so their first asking is still timed cold.
WARM_UP_QUERY = "planar deck 時空套牌"


def time_queries(search: Callable[[str], object], queries: list[str], rounds: int = 3) -> dict[str, list[float]]:
    """Seconds per call of `search`: "first" is each query asked for the first time in the
    process (nothing of it cached yet), "again" the same queries `rounds` times more (what
    the engine's per-process caches make of a repeated query)."""
    search(WARM_UP_QUERY)
    times: dict[str, list[float]] = {"first": [], "again": []}
    for n in range(rounds + 1):
        for query in queries:
            started = time.perf_counter()
            search(query)
            times["first" if n == 0 else "again"].append(time.perf_counter() - started)
    return times


def latency_cells(times: dict[str, list[float]]) -> list[str]:
    """p50 and p99 of first askings, then of repeated ones, in milliseconds."""
    return [ms(percentile(times[k], p)) for k in ("first", "again") for p in (50, 99)]


LATENCY_HEADERS = ["p50 ms", "p99 ms", "p50 ms again", "p99 ms again"]


def table(headers: list[str], rows: Iterable[list]) -> str:
    """A Markdown table."""
    rows = [[str(cell) for cell in row] for row in rows]
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def machine() -> str:
    """The machine a run happened on, for the record next to its figures."""
    memory = ""
    with suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    cpu = ""
    with suppress(OSError):
        cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                    if line.startswith("model name")), "")
    packages = ", ".join(f"{p} {version(p)}" for p in PACKAGES)
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    return (f"{os.cpu_count()} cores ({cpu or platform.machine()}), {memory} memory, "
            f"Python {platform.python_version()} on {platform.platform()}; {packages}; "
            f"load average at the start {load}")


def mean(values: list[float]) -> float:
    return statistics.mean(values) if values else float("nan")

"""Cold start: from process start to the first answered query, over an index already built.

Two ways a process starts: a Python process that opens the library and searches (what the
command line and a worker without --preload pay), and the production server (gunicorn, two
workers, --preload, as scripts/serve starts it) polled over loopback until /api/search
answers. The first query of a process also loads jieba's dictionary and OpenCC, so it is
timed apart from the opening of the index.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from harness.server import Server, free_port

from .measure import ROOT, mean, table

QUERY = "persist"
# Asked of a server once it answers: no warm-up asks it.
NEW_QUERY = "defender%20attack"


def library_start(index_root: Path, query: str = QUERY) -> dict:
    """Timings printed by `benchmarks.first_query`, plus the wall time seen from outside
    (interpreter start-up included)."""
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "benchmarks.first_query", str(index_root), query],
                         cwd=ROOT, capture_output=True, text=True, timeout=600, check=True)
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    figures["wall_s"] = time.perf_counter() - started
    return figures


def server_start(index_root: Path, query: str = QUERY) -> tuple[float, float]:
    """Seconds from starting gunicorn to the first 200 from /api/search, and how long the
    next query, one no process has been asked, then takes (the index was opened by the
    master before the workers forked, so neither opens it)."""
    started = time.perf_counter()
    with Server.real_app(index_root, free_port()) as server:
        server.wait_for(f"/api/search?q={query}")
        elapsed = time.perf_counter() - started
        asked = time.perf_counter()
        server.wait_for(f"/api/search?q={NEW_QUERY}")
        first_new = time.perf_counter() - asked
        server.check_index()
        return elapsed, first_new


def report(index_root: Path, runs: int = 3) -> str:
    library = [library_start(index_root) for _ in range(runs)]
    server = [server_start(index_root) for _ in range(runs)]
    rows = [
        ["Python process: import the library", f"{mean([r['import_s'] for r in library]):.2f} s"],
        ["open the index (records, engine, user dictionary)", f"{mean([r['open_s'] for r in library]):.2f} s"],
        ["first query (loads jieba and OpenCC)", f"{mean([r['first_query_s'] for r in library]):.2f} s"],
        ["**process start to first answer** (wall, interpreter included)",
         f"**{mean([r['wall_s'] for r in library]):.2f} s**"],
        ["peak memory of that process", f"{mean([r['max_rss_mb'] for r in library]):.0f} MB"],
        ["**gunicorn (2 workers, --preload) start to first /api/search 200**",
         f"**{mean([s for s, _ in server]):.2f} s**"],
        ["then a query not asked before (the index opened before the fork)",
         f"{mean([n for _, n in server]) * 1000:.0f} ms"],
    ]
    return (f"Mean of {runs} runs over an index of {library[0]['records']} records; goal: at most 2 s.\n\n"
            + table(["step", "time"], rows))

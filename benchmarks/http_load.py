"""HTTP load: the real app against the bare stack, all under gunicorn with two workers on
loopback, loaded by wrk cycling through the judged queries.

Three targets, each loaded for a bounded time at each connection count, taking turns (the
machine has two cores: wrk shares them with the workers, and the figures include that):

- the real app's /api/search (`webapp.wsgi:app`, as scripts/serve runs it);
- a minimal Flask + Whoosh endpoint: the same query searched by Whoosh's own searcher, the
  ceiling the goal names (at least 0.8 of its requests/s);
- a minimal Flask endpoint calling only the engine's evaluation, which the real app also
  calls: the real app's distance from it is the cost of its own work (ranking, snippets,
  result records, JSON).

At 16 connections and two synchronous workers a request waits for about seven others, so its
latency is mostly queueing (Little's law: latency = connections / throughput); the run at 2
connections (one per worker) shows the latency of a request that does not queue.
"""
from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import quote

from harness.server import Server, free_port

from .measure import MINIMAL_APP, judged_queries, table
from .wrk import wrk_binary

LUA = Path(__file__).with_name("judged_queries.lua")
GOAL_RATIO = 0.8
GOAL_P99_MS = 30.0


def request_paths(queries: list[str], route: str = "/api/search") -> list[str]:
    return [f"{route}?q=" + quote(q, safe="") for q in queries]


def run_wrk(url: str, paths_file: Path, seconds: int, connections: int, threads: int = 2) -> dict:
    out = subprocess.run([wrk_binary(), f"-t{min(threads, connections)}", f"-c{connections}", f"-d{seconds}s",
                          "--timeout", "10s", "-s", str(LUA), url, "--", str(paths_file)],
                         capture_output=True, text=True, timeout=seconds + 60, check=True)
    line = next(row for row in out.stdout.splitlines() if row.startswith("WRK-JSON "))
    figures = json.loads(line[len("WRK-JSON "):])
    figures["rps"] = figures["requests"] / (figures["duration_us"] / 1e6)
    figures["failed"] = sum(figures["errors"].values())
    return figures


REAL, WHOOSH, ENGINE = "real app", "minimal Flask + Whoosh", "minimal Flask + engine only"


def compare(index_root: Path, seconds: int = 20, connections: tuple[int, ...] = (16, 2), rounds: int = 4) -> str:
    """The HTTP table for an index root that already holds a built index.

    Both servers run at once (an idle one costs nothing) and the targets are loaded in turn,
    `rounds` times each for seconds/rounds, so that whatever else the machine is doing weighs
    on all alike. Requests/s is over all rounds; a latency percentile is the median of the
    rounds'."""
    work = Path(tempfile.mkdtemp(prefix="bench-http-"))
    try:
        queries = judged_queries()
        paths = {}
        for label, route in ((REAL, "/api/search"), (WHOOSH, "/api/search"), (ENGINE, "/api/engine")):
            paths[label] = work / f"{route.strip('/').replace('/', '-')}.txt"
            paths[label].write_text("\n".join(request_paths(queries, route)) + "\n", encoding="utf-8")
        slice_seconds = max(2, seconds // rounds)
        rows, ratios = [], []
        with Server.real_app(index_root, free_port()) as real, \
                Server.gunicorn(MINIMAL_APP, index_root, free_port()) as minimal:
            targets = {REAL: real, WHOOSH: minimal, ENGINE: minimal}
            for server in (real, minimal):
                server.check_index()
            for label, server in targets.items():
                run_wrk(server.url, paths[label], 2, max(connections))  # warm-up: every worker opens the index
            for conns in connections:
                runs: dict[str, list[dict]] = {label: [] for label in targets}
                for _ in range(rounds):
                    for label, server in targets.items():
                        runs[label].append(run_wrk(server.url, paths[label], slice_seconds, conns))
                figures = {label: _combine(r) for label, r in runs.items()}
                for label, f in figures.items():
                    rows.append([label, conns, f"{f['rps']:.1f}", f"{f['p50']:.1f}", f"{f['p90']:.1f}",
                                 f"{f['p99']:.1f}", f"{f['max']:.1f}", f["requests"], f["failed"]])
                real_f = figures[REAL]
                ratios.append(f"{conns} connections: real / minimal Flask + Whoosh requests/s = "
                              f"{real_f['rps'] / figures[WHOOSH]['rps']:.2f} (goal ≥ {GOAL_RATIO}); real / engine "
                              f"only = {real_f['rps'] / figures[ENGINE]['rps']:.2f}; real app p99 "
                              f"{real_f['p99']:.1f} ms (goal ≤ {GOAL_P99_MS:.0f} ms)")
        header = ["server", "connections", "requests/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "requests", "failed"]
        return (f"gunicorn, 2 sync workers, --preload, on 127.0.0.1; wrk cycling through {len(queries)} "
                f"judged queries; per connection count, {rounds} rounds of {slice_seconds} s per target, "
                f"taking turns.\n\n" + table(header, rows) + "\n\n" + "\n".join(f"- {r}" for r in ratios))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _combine(runs: list[dict]) -> dict:
    requests = sum(r["requests"] for r in runs)
    seconds = sum(r["duration_us"] for r in runs) / 1e6
    out = {"requests": requests, "rps": requests / seconds, "failed": sum(r["failed"] for r in runs),
           "max": max(r["latency_us"]["max"] for r in runs) / 1000}
    for p in ("p50", "p90", "p99"):
        out[p] = statistics.median(r["latency_us"][p] for r in runs) / 1000
    return out

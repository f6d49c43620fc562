"""HTTP load: the real app against the minimal Flask + Whoosh endpoint, both under gunicorn
with two workers on loopback, loaded by wrk cycling through the judged queries.

Each server is loaded for a bounded time at each connection count, one server at a time (the
machine has two cores: wrk shares them with the workers, and the figures include that). The
ratio of the real app's requests/s to the minimal endpoint's says how much of the stack's
capacity the app's own work (ranking, snippets, result records, JSON) takes.

At 16 connections and two synchronous workers a request waits for about seven others, so its
latency is mostly queueing (Little's law: latency = connections / throughput); the run at 2
connections (one per worker) shows the latency of a request that does not queue.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import quote

from .measure import ROOT, judged_queries, table
from .server import Server, free_port

LUA = Path(__file__).with_name("judged_queries.lua")
GOAL_RATIO = 0.8
GOAL_P99_MS = 30.0


class WrkMissing(Exception):
    """wrk is not installed (Debian: apt-get install wrk)."""


def request_paths(queries: list[str]) -> list[str]:
    return ["/api/search?q=" + quote(q, safe="") for q in queries]


def run_wrk(url: str, paths_file: Path, seconds: int, connections: int, threads: int = 2) -> dict:
    wrk = shutil.which("wrk")
    if wrk is None:
        raise WrkMissing("wrk is not installed; as root: apt-get install wrk")
    out = subprocess.run([wrk, f"-t{min(threads, connections)}", f"-c{connections}", f"-d{seconds}s",
                          "--timeout", "10s", "-s", str(LUA), url, "--", str(paths_file)],
                         capture_output=True, text=True, timeout=seconds + 60, check=True)
    line = next(l for l in out.stdout.splitlines() if l.startswith("WRK-JSON "))
    figures = json.loads(line[len("WRK-JSON "):])
    figures["rps"] = figures["requests"] / (figures["duration_us"] / 1e6)
    figures["failed"] = sum(figures["errors"].values())
    return figures


def load(server: Server, paths_file: Path, seconds: int, connections: int) -> dict:
    server.check_index()
    run_wrk(server.url, paths_file, 2, connections)  # warm-up: every worker opens the index
    return run_wrk(server.url, paths_file, seconds, connections)


def compare(index_root: Path, seconds: int = 20, connections: tuple[int, ...] = (16, 2)) -> str:
    """The HTTP table for an index root that already holds a built index."""
    work = Path(tempfile.mkdtemp(prefix="bench-http-"))
    try:
        paths_file = work / "paths.txt"
        paths_file.write_text("\n".join(request_paths(judged_queries())) + "\n", encoding="utf-8")
        rows, ratios = [], []
        for conns in connections:
            figures = {}
            for label, start in (("real app", Server.real_app), ("minimal Flask + Whoosh", Server.minimal_app)):
                with start(index_root, free_port()) as server:
                    figures[label] = load(server, paths_file, seconds, conns)
            for label, f in figures.items():
                lat = f["latency_us"]
                rows.append([label, conns, f"{f['rps']:.1f}", f"{lat['p50'] / 1000:.1f}", f"{lat['p90'] / 1000:.1f}",
                             f"{lat['p99'] / 1000:.1f}", f"{lat['max'] / 1000:.1f}", f["requests"], f["failed"]])
            real, minimal = figures["real app"], figures["minimal Flask + Whoosh"]
            ratios.append(f"{conns} connections: real/minimal requests/s = {real['rps'] / minimal['rps']:.2f} "
                          f"(goal ≥ {GOAL_RATIO}); real app p99 {real['latency_us']['p99'] / 1000:.1f} ms "
                          f"(goal ≤ {GOAL_P99_MS:.0f} ms)")
        header = ["server", "connections", "requests/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "requests", "failed"]
        return (f"gunicorn, 2 sync workers, --preload, on 127.0.0.1; wrk, {seconds} s per run after a 2 s "
                f"warm-up, cycling through {len(judged_queries())} judged queries.\n\n"
                + table(header, rows) + "\n\n" + "\n".join(f"- {r}" for r in ratios))
    finally:
        shutil.rmtree(work, ignore_errors=True)

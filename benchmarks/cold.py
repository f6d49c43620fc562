"""Cold: queries never asked before, each asked once, the real app against a naive peer.

Thousands of distinct generated queries (benchmarks.cold_queries) go once to each of two
gunicorn servers with the same settings (2 sync workers, --preload, loopback): the real app's
/api/search and the naive Flask + Whoosh + jieba app (benchmarks.naive_app) over the same
records. 8 client threads ask them, each query on a new connection, in turns of 500 queries
per server, the servers alternating which goes first, so that whatever else the machine does
weighs on both alike. Then the first turn's queries are asked again, for the table of
repeated queries (what the per-process memos make of them).

The same queries are also asked in-process, once each, through `Library.search` (the time a
worker spends on a first-asked query, without HTTP).
"""
from __future__ import annotations

import http.client
import shutil
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote

from indexer.search.build import current_folder
from indexer.knowledge.library import Library

from .cold_queries import generate
from .corpora import build_records, documents_only, ingest_paths
from .measure import SHARED_CR, WARM_UP_QUERY, ms, percentile, table
from .peers import NaiveWhoosh
from .server import HOST, Server, free_port

NAIVE_APP = "benchmarks.naive_app:app"
TURN = 500
CLIENTS = 8
GOAL_RPS_RATIO, GOAL_P99_RATIO, GOAL_DOCS_RATIO = 3.0, 0.5, 1.5
GOAL_P50_MS, GOAL_P99_MS = 2.0, 8.0


def ask_once(port: int, paths: list[str], clients: int = CLIENTS) -> dict:
    """Every path once, shared among `clients` threads; latencies, seconds and failures."""
    latencies: list[float] = []
    failures = [0]
    lock = threading.Lock()
    todo = iter(paths)

    def client() -> None:
        while True:
            with lock:
                path = next(todo, None)
            if path is None:
                return
            started = time.perf_counter()
            try:
                conn = http.client.HTTPConnection(HOST, port, timeout=30)
                conn.request("GET", path)
                response = conn.getresponse()
                response.read()
                ok = response.status == 200
                conn.close()
            except OSError:
                ok = False
            elapsed = time.perf_counter() - started
            with lock:
                latencies.append(elapsed)
                failures[0] += not ok

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"latencies": latencies, "seconds": time.perf_counter() - started, "failures": failures[0]}


def _figures(runs: list[dict]) -> dict:
    latencies = [t for run in runs for t in run["latencies"]]
    seconds = sum(run["seconds"] for run in runs)
    return {"requests": len(latencies), "rps": len(latencies) / seconds, "p50": percentile(latencies, 50),
            "p90": percentile(latencies, 90), "p99": percentile(latencies, 99), "max": max(latencies),
            "failed": sum(run["failures"] for run in runs)}


def _row(label: str, target: str, f: dict) -> list:
    return [label, target, f["requests"], f"{f['rps']:.0f}", ms(f["p50"]), ms(f["p90"]), ms(f["p99"]),
            ms(f["max"]), f["failed"]]


def measure_corpus(label: str, paths: list[Path], work: Path, count: int, clients: int) -> dict:
    result, _ = ingest_paths(paths)
    real_root = work / "real"
    build_records(result, real_root)
    naive_root = work / "naive"
    naive_root.mkdir()
    NaiveWhoosh().index(result.records, naive_root)
    queries = [q for _, q in generate(result.records, count)]
    paths_ = [f"/api/search?q={quote(q, safe='')}" for q in queries]
    turns = [paths_[i:i + TURN] for i in range(0, len(paths_), TURN)]

    library = Library(current_folder(real_root))
    library.search(WARM_UP_QUERY)
    times = []
    for query in queries:
        started = time.perf_counter()
        library.search(query)
        times.append(time.perf_counter() - started)
    library.close()

    runs: dict[str, list[dict]] = {"real app": [], "naive peer": []}
    again: dict[str, list[dict]] = {"real app": [], "naive peer": []}
    with Server.real_app(real_root, free_port()) as real, Server.gunicorn(NAIVE_APP, naive_root, free_port()) as naive:
        real.check_index()
        naive.wait_for("/healthz")
        servers = {"real app": real, "naive peer": naive}
        warm = [f"/api/search?q={quote(WARM_UP_QUERY)}"] * (clients * 2)
        for server in servers.values():  # every worker opens its index and loads its analysis
            ask_once(server.port, warm, clients)
        for n, turn in enumerate(turns):
            order = list(servers.items()) if n % 2 == 0 else list(servers.items())[::-1]
            for name, server in order:
                runs[name].append(ask_once(server.port, turn, clients))
        for name, server in servers.items():
            again[name].append(ask_once(server.port, turns[0], clients))
    return {"label": label, "records": len(result.records), "queries": len(queries), "turns": len(turns),
            "cold": {k: _figures(v) for k, v in runs.items()}, "again": {k: _figures(v) for k, v in again.items()},
            "inprocess": (percentile(times, 50), percentile(times, 99), max(times))}


def report(paths: list[Path], count: int = 3000, clients: int = CLIENTS, with_rules: bool = True) -> str:
    """The cold tables of the documents of the corpus folders `paths` without their rules files
    (`corpora.documents_only`), then, `with_rules`, of the whole knowledge base: the folders
    as they are, every rules edition of theirs and of ../shared/cr."""
    corpora = [("documents", None)]
    if with_rules and SHARED_CR.is_dir():
        corpora.append(("documents + every rules edition", [*paths, SHARED_CR]))
    header = ["corpus", "server", "requests", "requests/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "failed"]
    cold_rows, again_rows, in_rows, verdicts = [], [], [], []
    for label, corpus_paths in corpora:
        work = Path(tempfile.mkdtemp(prefix="bench-cold-"))
        try:
            if corpus_paths is None:
                corpus_paths = [documents_only(p, work / "documents" / str(n)) for n, p in enumerate(paths)]
            m = measure_corpus(label, corpus_paths, work, count, clients)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        real, naive = m["cold"]["real app"], m["cold"]["naive peer"]
        for target in ("real app", "naive peer"):
            cold_rows.append(_row(f"{label} ({m['records']} records)", target, m["cold"][target]))
            again_rows.append(_row(label, target, m["again"][target]))
        p50, p99, worst = m["inprocess"]
        in_rows.append([label, m["queries"], ms(p50), ms(p99), ms(worst)])
        rps_ratio, p99_ratio = real["rps"] / naive["rps"], real["p99"] / naive["p99"]
        goal = GOAL_RPS_RATIO if "rules" in label else GOAL_DOCS_RATIO
        verdicts.append(f"{label}: real / naive requests/s = **{rps_ratio:.2f}×** (goal ≥ {goal}×), p99 real / "
                        f"naive = **{p99_ratio:.2f}** ({ms(real['p99'])} against {ms(naive['p99'])} ms"
                        f"{'; goal ≤ 0.5' if 'rules' in label else ''}); in-process p50 {ms(p50)} ms, p99 {ms(p99)} ms "
                        f"(goal ≤ {GOAL_P50_MS:.0f} and ≤ {GOAL_P99_MS:.0f} ms)")
    return (f"{count} distinct generated queries, each asked once of each server; gunicorn, 2 sync workers, "
            f"--preload, on 127.0.0.1; {clients} client threads, a new connection per request; turns of "
            f"{TURN} queries, the servers alternating.\n\n" + table(header, cold_rows) + "\n\n"
            + "\n".join(f"- {v}" for v in verdicts)
            + f"\n\nThe first turn's {TURN} queries asked again (repeated queries):\n\n" + table(header, again_rows)
            + "\n\nIn-process, `Library.search` for each query asked once (no HTTP):\n\n"
            + table(["corpus", "queries", "p50 ms", "p99 ms", "max ms"], in_rows))

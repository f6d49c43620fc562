"""Cold: queries never asked before, each asked once, the real app against a naive peer and the floor.

Thousands of distinct generated queries (benchmarks.cold_queries) go once to each of three
gunicorn servers with the same settings (2 sync workers, --preload, loopback): the real app's
/api/search, the naive Flask + Whoosh + jieba app (benchmarks.naive_app) over the same
records, and the engine alone over the real app's index (`TARGETS`). wrk asks them
(benchmarks.wrk: 8 connections, every query exactly once, each request timed), in turns of
500 queries per server, each server going first in turn, so that whatever else the machine
does weighs on all alike. Then the first turn's queries are asked again, for the table of
repeated queries (what the per-process memos make of them), and each server's /healthz as
many times as there are queries: the most this client and gunicorn's request handling let
through with no search at all, in the same run.

The same queries are also asked in-process, once each, through `Library.search` (the time a
worker spends on a first-asked query, without HTTP).
"""
from __future__ import annotations

import gc
import shutil
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

from harness.server import Server, free_port
from indexer.knowledge.library import Library

from .cold_queries import generate
from .corpora import build_records, documents_only, ingest_paths
from .measure import MINIMAL_APP, SHARED_CR, WARM_UP_QUERY, build_folder, ms, percentile, table
from .peers import NaiveWhoosh
from .wrk import CONNECTIONS, ask_once

NAIVE_APP = "benchmarks.naive_app:app"
# Each server's search endpoint. The engine alone (benchmarks.minimal_app's /api/engine) parses
# and expands the query as the real app does and answers the engine's top ten ids: no ranking
# bonuses, edition groups, result records or snippets. It is the floor of what a search over
# this index costs in this stack, so the real app's requests/s cannot pass its.
TARGETS = {"real app": "/api/search", "naive peer": "/api/search", "engine alone": "/api/engine"}
TURN = 500
GOAL_RPS_RATIO, GOAL_P99_RATIO, GOAL_DOCS_RATIO = 3.0, 0.5, 1.5
GOAL_P50_MS, GOAL_P99_MS = 2.0, 8.0
DOCUMENTS, WHOLE = "documents", "whole knowledge base"


def _ask(server: Server, paths: list[str], connections: int) -> dict:
    """`ask_once`, with the CPU time the server's processes used meanwhile."""
    before = server.cpu_seconds()
    run = ask_once(server.port, paths, connections)
    run["server_cpu_seconds"] = server.cpu_seconds() - before
    return run


def _figures(runs: list[dict]) -> dict:
    latencies = [t for run in runs for t in run["latencies"]]
    seconds = sum(run["seconds"] for run in runs)
    return {"requests": sum(run["asked"] for run in runs), "rps": len(latencies) / seconds,
            "p50": percentile(latencies, 50), "p90": percentile(latencies, 90), "p99": percentile(latencies, 99),
            "max": max(latencies), "failed": sum(run["failures"] for run in runs),
            "client_cpu": sum(run["cpu_seconds"] for run in runs) / len(latencies),
            "server_cpu": sum(run["server_cpu_seconds"] for run in runs) / len(latencies)}


HEADER = ["corpus", "server", "requests", "requests/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "failed",
          "server CPU ms/request", "wrk CPU ms/request"]


def _row(label: str, target: str, f: dict) -> list:
    return [label, target, f["requests"], f"{f['rps']:.0f}", ms(f["p50"]), ms(f["p90"]), ms(f["p99"]),
            ms(f["max"]), f["failed"], f"{f['server_cpu'] * 1000:.2f}", f"{f['client_cpu'] * 1000:.2f}"]


def measure_corpus(paths: list[Path], work: Path, count: int, connections: int) -> dict:
    result, _ = ingest_paths(paths)
    real_root = work / "real"
    build_records(result, real_root)
    naive_root = work / "naive"
    naive_root.mkdir()
    NaiveWhoosh().index(result.records, naive_root)
    queries = [q for _, q in generate(result.records, count)]
    turns = {name: [[f"{endpoint}?q={quote(q, safe='')}" for q in queries[i:i + TURN]]
                    for i in range(0, len(queries), TURN)] for name, endpoint in TARGETS.items()}

    library = Library(build_folder(real_root))
    library.search(WARM_UP_QUERY)
    # Out of the cyclic collector's reach, as the service keeps an opened library
    # (`LiveLibrary`): otherwise its full collections walk this process's own heap too (the
    # ingested records and the peer's index), pauses no worker has.
    gc.collect()
    gc.freeze()
    times = []
    for query in queries:
        started = time.perf_counter()
        library.search(query)
        times.append(time.perf_counter() - started)
    gc.unfreeze()
    library.close()

    runs: dict[str, list[dict]] = {name: [] for name in TARGETS}
    again: dict[str, list[dict]] = {name: [] for name in TARGETS}
    ceiling: dict[str, list[dict]] = {name: [] for name in TARGETS}
    with Server.real_app(real_root, free_port()) as real, \
            Server.gunicorn(NAIVE_APP, naive_root, free_port()) as naive, \
            Server.gunicorn(MINIMAL_APP, real_root, free_port()) as engine:
        real.check_index()
        engine.check_index()
        naive.wait_for("/healthz")
        servers = {"real app": real, "naive peer": naive, "engine alone": engine}
        for name, server in servers.items():  # every worker opens its index and loads its analysis
            ask_once(server.port, [f"{TARGETS[name]}?q={quote(WARM_UP_QUERY)}"] * (connections * 2), connections)
        names = list(servers)
        for n in range(len(turns["real app"])):
            for name in names[n % len(names):] + names[:n % len(names)]:  # each goes first in turn
                runs[name].append(_ask(servers[name], turns[name][n], connections))
        for name, server in servers.items():
            again[name].append(_ask(server, turns[name][0], connections))
        for name, server in servers.items():
            ceiling[name].append(_ask(server, ["/healthz"] * len(queries), connections))
    return {"records": len(result.records), "queries": len(queries), "turns": len(turns["real app"]),
            "cold": {k: _figures(v) for k, v in runs.items()}, "again": {k: _figures(v) for k, v in again.items()},
            "ceiling": {k: _figures(v) for k, v in ceiling.items()},
            "inprocess": (percentile(times, 50), percentile(times, 99), max(times))}


def _met(ok: bool) -> str:
    return "**yes**" if ok else "**no**"


def _goals(measured: dict[str, dict]) -> list[list[str]]:
    """The goals' rows: requests/s and p99 against the peer on each corpus measured, the whole
    knowledge base first, then the in-process first-asked times of the largest corpus (the
    other's beside them)."""
    rows = []
    for label, m in sorted(measured.items(), key=lambda item: item[0] != WHOLE):
        real, naive = m["cold"]["real app"], m["cold"]["naive peer"]
        rps, p99 = real["rps"] / naive["rps"], real["p99"] / naive["p99"]
        goal = GOAL_RPS_RATIO if label == WHOLE else GOAL_DOCS_RATIO
        rows.append([f"{label}: requests/s ≥ {goal:g}× the peer's",
                     f"real / naive = **{rps:.2f}×** ({real['rps']:.0f} / {naive['rps']:.0f})", _met(rps >= goal)])
        floor = m["cold"]["engine alone"]
        rows.append([f"{label}: the floor, the engine alone's requests/s (the most the real app could reach)",
                     f"engine alone / naive = {floor['rps'] / naive['rps']:.2f}× "
                     f"({floor['rps']:.0f} / {naive['rps']:.0f})", "—"])
        if label == WHOLE:
            rows.append([f"{label}: p99 ≤ {GOAL_P99_RATIO:g} of the peer's",
                         f"real / naive = **{p99:.2f}** ({ms(real['p99'])} / {ms(naive['p99'])} ms)",
                         _met(p99 <= GOAL_P99_RATIO)])
    *others, (label, m) = measured.items()
    for name, index, goal in (("p50", 0, GOAL_P50_MS), ("p99", 1, GOAL_P99_MS)):
        value = m["inprocess"][index]
        beside = "".join(f" ({other} {ms(o['inprocess'][index])} ms)" for other, o in others)
        rows.append([f"in-process first-asked {name} ≤ {goal:g} ms ({label})", f"**{ms(value)} ms**{beside}",
                     _met(value * 1000 <= goal)])
    return rows


def report(paths: list[Path], count: int = 3000, connections: int = CONNECTIONS, with_rules: bool = True) -> str:
    """The cold tables of the documents of the corpus folders `paths` without their rules files
    (`corpora.documents_only`), then, `with_rules`, of the whole knowledge base: the folders
    as they are, every rules edition of theirs and of ../shared/cr."""
    corpora: list[tuple[str, list[Path] | None]] = [(DOCUMENTS, None)]
    if with_rules and SHARED_CR.is_dir():
        corpora.append((WHOLE, [*paths, SHARED_CR]))
    measured: dict[str, dict] = {}
    cold_rows, again_rows, ceiling_rows, in_rows = [], [], [], []
    for label, corpus_paths in corpora:
        work = Path(tempfile.mkdtemp(prefix="bench-cold-"))
        try:
            if corpus_paths is None:
                corpus_paths = [documents_only(p, work / "documents" / str(n)) for n, p in enumerate(paths)]
            m = measured[label] = measure_corpus(corpus_paths, work, count, connections)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        for target in TARGETS:
            cold_rows.append(_row(f"{label} ({m['records']} records)", target, m["cold"][target]))
            again_rows.append(_row(label, target, m["again"][target]))
            ceiling_rows.append(_row(label, target, m["ceiling"][target]))
        p50, p99, worst = m["inprocess"]
        in_rows.append([label, m["queries"], ms(p50), ms(p99), ms(worst)])
    return (f"{count} distinct generated queries, each asked once of each server; gunicorn, 2 sync workers, "
            f"--preload, on 127.0.0.1; wrk, {connections} connections (one per thread), a new connection per "
            f"request (the sync workers close each); turns of {TURN} queries, the servers alternating. CPU per "
            f"request: the server's master and workers, and wrk's, over the requests answered.\n\n"
            + table(HEADER, cold_rows) + "\n\n" + table(["goal", "measured", "met"], _goals(measured))
            + f"\n\nThe first turn's {TURN} queries asked again (repeated queries):\n\n" + table(HEADER, again_rows)
            + f"\n\nThe ceiling of this client and gunicorn with no search: each server's /healthz, {count} times, "
              "after the queries:\n\n" + table(HEADER, ceiling_rows)
            + "\n\nIn-process, `Library.search` for each query asked once (no HTTP):\n\n"
            + table(["corpus", "queries", "p50 ms", "p99 ms", "max ms"], in_rows))

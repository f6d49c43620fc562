"""Where a first-asked request's CPU goes inside the server that answers it.

The in-process benchmarks (benchmarks.stages, benchmarks.web_ab, `scripts/bench profile`)
call the app in a loop in one process. A server's worker does more and does it in other
conditions: gunicorn accepts the connection, reads and parses the request and writes the
answer in Python around the app's call, and the app's call itself meets caches the other
processes on the cores (wrk, the other worker) have just used. This measures the real app
as the cold benchmark serves it (gunicorn, 2 sync workers, --preload, loopback, wrk asking
each generated query once), from inside its workers, with gunicorn's hooks
(`worker_exit` writes each worker's figures):

- a run without a profiler: each worker's CPU time from its first request on (the
  process's), in its request handling (between gunicorn's `pre_request` and `post_request`
  hooks: the app's call and the writing of its answer) and in the app's WSGI call alone
  (the worker's app called through a timer); beside them, the same queries' WSGI call in this process, as
  the in-process benchmarks measure it;
- a run under cProfile with a CPU-time clock in each worker (whose overhead inflates the
  parts made of many small Python calls): the request's parts (`PARTS`), gunicorn's
  included, and the functions with the most own time.

`python -m benchmarks.worker_profile INDEX_ROOT [--queries N]`: INDEX_ROOT holds a build's CURRENT.
"""
from __future__ import annotations

import cProfile
import gc
import io
import json
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

from harness.server import Server, free_port
from indexer.knowledge.library import Library

from .cold_queries import generate
from .measure import WARM_UP_QUERY, build_folder, table
from .profile_app import cumulative
from .wrk import ask_once
from .wsgi_search import ask, index_and_queries, search_environ

# Where the workers write their figures, and whether they profile (set for the server's run).
OUT = "KB_WORKER_PROFILE_OUT"
PROFILED = "KB_WORKER_PROFILE"
CONFIG = """
preload_app = True
control_socket_disable = True
graceful_timeout = 10
from benchmarks.worker_profile import post_worker_init, pre_request, post_request, worker_exit
"""
WARM_UP_PATH = f"/api/search?q={quote(WARM_UP_QUERY)}"
# (label, file suffix, function name): cumulative CPU time of each, a share of the workers'
# request handling (gunicorn's `handle`, from the accepted connection to its closing).
PARTS = [
    ("gunicorn: reading and parsing the request", "gunicorn/http/parser.py", "__next__"),
    ("the app's WSGI call (Flask)", "flask/app.py", "wsgi_app"),
    ("  the hook before the view (webapp.hooks)", "webapp/hooks.py", "before"),
    ("  the search view", "webapp/views/search.py", "search"),
    ("    Library.search", "indexer/knowledge/library.py", "search"),
    ("      ranking (Ranker.ranked)", "indexer/knowledge/ranking/__init__.py", "ranked"),
    ("        engine scoring (WhooshBackend.positions)", "indexer/search/whoosh_engine.py", "positions"),
    ("      result records (Results.result)", "indexer/knowledge/results.py", "result"),
    ("        snippets (Snippets.snippet)", "indexer/knowledge/snippets.py", "snippet"),
    ("    hints (webapp.hints)", "webapp/hints.py", "add_hints"),
    ("    addresses (webapp.urls)", "webapp/urls.py", "addressed"),
    ("    JSON (webapp.json_answers)", "webapp/json_answers.py", "response"),
    ("  the hook after the view (webapp.hooks)", "webapp/hooks.py", "after"),
    ("gunicorn: writing the answer", "gunicorn/http/wsgi.py", "write"),
]

# The running worker's own figures (each worker is a process of its own), from its first
# request after the warm-up.
_worker: dict = {"handling": 0.0, "requests": 0, "app": 0.0, "started": None, "counting": False}


def post_worker_init(worker) -> None:
    """The worker's app (`webapp.wsgi:app`, loaded by the master) is called through a timer."""
    served = worker.wsgi

    def timed(environ, start_response):
        started = time.thread_time()
        try:
            return served(environ, start_response)
        finally:
            if _worker["counting"]:
                _worker["app"] += time.thread_time() - started

    worker.wsgi = timed


def pre_request(worker, req) -> None:
    _worker["counting"] = counting = req.path == "/api/search" and req.uri != WARM_UP_PATH
    if counting and _worker["started"] is None:
        _worker["started"] = time.process_time()
        if os.environ.get(PROFILED) == "1":
            _worker["profiler"] = cProfile.Profile(time.process_time)
            _worker["profiler"].enable()
    _worker["since"] = time.thread_time()


def post_request(worker, req, environ, resp) -> None:
    if _worker["counting"]:
        _worker["handling"] += time.thread_time() - _worker["since"]
        _worker["requests"] += 1


def worker_exit(server, worker) -> None:
    if _worker["started"] is None:
        return
    out = Path(os.environ[OUT])
    profiler = _worker.get("profiler")
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(str(out / f"{os.getpid()}.prof"))
    figures = {key: _worker[key] for key in ("handling", "requests", "app")}
    figures["process"] = time.process_time() - _worker["started"]
    (out / f"{os.getpid()}.json").write_text(json.dumps(figures))


def _serve(root: Path, paths: list[str], out: Path, profiled: bool) -> None:
    """The real app under gunicorn with these hooks, asked `paths` once each after a warm-up;
    its workers' figures are in `out` once it has stopped."""
    config = out / "gunicorn.conf.py"
    config.write_text(CONFIG)
    os.environ[OUT], os.environ[PROFILED] = str(out), "1" if profiled else "0"
    try:
        with Server.real_app(root, free_port(), config=config) as server:
            server.check_index()
            ask_once(server.port, [WARM_UP_PATH] * 16)  # neither it nor /healthz is counted (`pre_request`)
            ask_once(server.port, paths)
    finally:
        del os.environ[OUT], os.environ[PROFILED]


def _in_process(root: Path, queries: list[str]) -> float:
    """CPU seconds a request of the app's WSGI call of `/api/search`, in this process."""
    from webapp import create_app

    web = create_app({"INDEX_ROOT": root})
    environs = [search_environ(q) for q in [WARM_UP_QUERY, *queries]]
    ask(web, environs[0])
    gc.freeze()  # as the service keeps an opened library
    started = time.process_time()
    for env in environs[1:]:
        ask(web, env)
    return (time.process_time() - started) / len(queries)


def measure(root: Path, count: int = 1500) -> dict:
    """The workers' CPU seconds a request (`process`, `handling`, `app`), the same calls' in
    this process (`in_process`), the requests the workers counted, and their profile."""
    library = Library(build_folder(root))
    queries = [q for _, q in generate(list(library.records.values()), count)]
    records = len(library.records)
    library.close()
    paths = [f"/api/search?q={quote(q, safe='')}" for q in queries]
    with tempfile.TemporaryDirectory(prefix="bench-worker-") as work:
        plain, profiled = Path(work) / "plain", Path(work) / "profiled"
        plain.mkdir()
        profiled.mkdir()
        _serve(root, paths, plain, profiled=False)
        _serve(root, paths, profiled, profiled=True)
        figures = [json.loads(f.read_text()) for f in plain.glob("*.json")]
        stats = pstats.Stats(*[str(f) for f in profiled.glob("*.prof")])
    requests = sum(f["requests"] for f in figures)
    return {"records": records, "requests": requests, "stats": stats, "in_process": _in_process(root, queries),
            **{key: sum(f[key] for f in figures) / requests for key in ("process", "handling", "app")}}


def report(root: Path, count: int = 1500, top: int = 15) -> str:
    m = measure(root, count)
    process, handling, wsgi, inside, stats = m["process"], m["handling"], m["app"], m["in_process"], m["stats"]
    rows = [["the worker, all of it (its process's CPU)", f"{process * 1000:.3f}", "100%"],
            ["  gunicorn around the app: accepting, reading and parsing the request, closing",
             f"{(process - handling) * 1000:.3f}", f"{(process - handling) / process:.0%}"],
            ["  writing the answer (gunicorn, the socket)", f"{(handling - wsgi) * 1000:.3f}",
             f"{(handling - wsgi) / process:.0%}"],
            ["  the app's WSGI call", f"{wsgi * 1000:.3f}", f"{wsgi / process:.0%}"],
            ["the same WSGI calls in one process, in a loop (the in-process benchmarks)", f"{inside * 1000:.3f}",
             f"{inside / process:.0%}"]]
    shares = [[label, f"{share(stats, suffix, name):.0%}"] for label, suffix, name in PARTS]
    own = io.StringIO()
    stats.stream = own
    stats.strip_dirs().sort_stats("tottime").print_stats(top)
    lines = [line for line in own.getvalue().splitlines() if line.strip()][-(top + 1):]
    return (f"{root} ({m['records']} records): {m['requests']} distinct generated queries, each asked once of "
            f"gunicorn (2 sync workers, --preload) by wrk; CPU ms a request, inside the workers.\n\n"
            + table(["part", "ms a request", "share"], rows)
            + "\n\nUnder cProfile (CPU time), share of the workers' request handling (gunicorn's `handle`):\n\n"
            + table(["part", "share"], shares)
            + "\n\nFunctions with the most own time:\n\n```\n" + "\n".join(lines) + "\n```")


def share(stats: pstats.Stats, suffix: str, name: str) -> float:
    """The cumulative time of the functions `name` of files ending in `suffix`, as a share of
    the workers' request handling."""
    return cumulative(stats, suffix, name) / cumulative(stats, "gunicorn/workers/sync.py", "handle")


def main(argv: list[str] | None = None) -> int:
    index_root, count = index_and_queries("python -m benchmarks.worker_profile", __doc__.splitlines()[0], 1500, argv)
    print(report(index_root, count))
    return 0


if __name__ == "__main__":
    sys.exit(main())

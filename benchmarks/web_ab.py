"""Before and after a change of the web layer: what a request costs beyond the search, in two
versions of the code side by side.

`python -m benchmarks.web_ab REV --index-root ROOT [--queries N]` starts two processes over the
index build ROOT names: the web app of git revision REV (exported to a temporary folder) and
the working tree's. Each asks the generated queries (benchmarks.cold_queries) in chunks of
100 handed to the two in turn, the order alternating, and measures its own CPU time (a busy
machine's waits do not inflate it) for each chunk:

- the WSGI call of `/api/search` for queries never asked before (as gunicorn calls the app,
  with its RAW_URI), and `Library.search` of the same queries on a library of their own (so
  neither finds the other's answers): the difference is what the request costs beyond the
  search (Flask, the hooks, hints, addresses, JSON);
- the same WSGI calls again, their answers now remembered: the web layer with the search
  a look-up;
- as many `/healthz` calls: Flask and the hooks around a view that does nothing.

Which of the WSGI app and the library asks a chunk first alternates too, as both share the
process's memos.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from indexer.knowledge.library import Library

from .code_ab import CHUNK, Worker, export
from .cold_queries import generate
from .measure import ROOT, build_folder, table

# Runs inside each version's tree: answers each line (a chunk of queries, and whether the
# library asks first) with the chunk's CPU seconds [cold WSGI, Library.search, remembered WSGI,
# /healthz].
WORKER = """
import gc, json, sys, time
from urllib.parse import quote
from werkzeug.test import EnvironBuilder
from webapp import create_app

web = create_app({"INDEX_ROOT": sys.argv[1]})
library = create_app({"INDEX_ROOT": sys.argv[1]}).extensions["kb.library"].get()

def environ(path, query=""):
    env = EnvironBuilder(path=path, query_string=query).get_environ()
    env["RAW_URI"] = path + ("?" + query if query else "")
    return env

def ask(environs):
    started = time.process_time()
    for env in environs:
        b"".join(web(dict(env), lambda *args: None))
    return time.process_time() - started

def search(queries):
    started = time.process_time()
    for query in queries:
        library.search(query, limit=10)
    return time.process_time() - started

ask([environ("/api/search", "q=" + quote(sys.argv[2]))])
search([sys.argv[2]])
gc.freeze()  # as the service freezes what it opened
for line in sys.stdin:
    queries, library_first = json.loads(line)
    searches = [environ("/api/search", "q=" + quote(q, safe="")) for q in queries]
    if library_first:
        direct = search(queries)
        cold = ask(searches)
    else:
        cold = ask(searches)
        direct = search(queries)
    print(json.dumps([cold, direct, ask(searches), ask([environ("/healthz")] * len(queries))]), flush=True)
"""


def compare(rev: str, root: Path, count: int) -> str:
    library = Library(build_folder(root))
    queries = [q for _, q in generate(list(library.records.values()), count)]
    records = len(library.records)
    library.close()
    with tempfile.TemporaryDirectory(prefix="bench-web-ab-") as work:
        before_tree = export(rev, Path(work) / "before")
        workers = {f"before ({rev})": Worker(WORKER, before_tree, root),
                   "after (working tree)": Worker(WORKER, ROOT, root)}
        totals = {name: [0.0] * 4 for name in workers}
        try:
            for n, start in enumerate(range(0, len(queries), CHUNK)):
                order = list(workers.items()) if n % 2 == 0 else list(workers.items())[::-1]
                for name, worker in order:
                    spent = worker.ask([queries[start:start + CHUNK], n // 2 % 2 == 1])
                    totals[name] = [a + b for a, b in zip(totals[name], spent, strict=True)]
        finally:
            for worker in workers.values():
                worker.close()
    rows: list[list[str]] = []
    figures: list[list[float]] = []
    for name, (cold, direct, again, health) in totals.items():
        each = [1000 * t / len(queries) for t in (cold, direct, cold - direct, again, health)]
        figures.append(each)
        rows.append([name, *(f"{v:.3f}" for v in each)])
    rows.append(["after / before", *(f"{a / b:.2f}" for a, b in zip(figures[1], figures[0], strict=True))])
    return (f"{root} ({records} records); {len(queries)} distinct generated queries, each asked once in each "
            f"process, in chunks of {CHUNK} taking turns; CPU ms per request.\n\n"
            + table(["code", "WSGI /api/search", "Library.search", "beyond the search",
                     "WSGI, answer remembered", "WSGI /healthz"], rows))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.web_ab", description=__doc__.splitlines()[0])
    ap.add_argument("rev", help="the git revision to compare the working tree with")
    ap.add_argument("--index-root", type=Path, required=True, help="a folder of index builds (INDEX_ROOT)")
    ap.add_argument("--queries", type=int, default=3000)
    args = ap.parse_args(argv)
    print(compare(args.rev, args.index_root, args.queries))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where a first-asked search request's time goes, stage by stage, without a profiler.

cProfile (benchmarks.profile_app) charges every Python call, so it inflates the stages made
of many small calls (marking, the web layer) against those that run in numpy or C. Here each
stage's function is wrapped by a timer instead, a few calls a request in all: every
generated query (benchmarks.cold_queries) is asked once through the web app's WSGI call, as
gunicorn calls it, and each stage's wall-clock time is summed over its calls (no stage's
function calls itself; the search the hints make again for an old word's official name is a
second call of Library.search). What is not the library's is the web layer's: Flask, the
hooks, the hints, the addresses and the JSON.

`python -m benchmarks.stages INDEX_ROOT [--queries N]` (INDEX_ROOT holds a build's CURRENT).
"""
from __future__ import annotations

import functools
import gc
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from indexer.knowledge.grouping import EditionGrouping
from indexer.knowledge.library import Library
from indexer.knowledge.ranking import Ranker
from indexer.knowledge.ranking.bonuses import Bonuses
from indexer.knowledge.results import Results
from indexer.knowledge.snippets import Snippets
from indexer.knowledge.spelling import Spelling
from indexer.search.whoosh_engine import WhooshBackend

from .cold_queries import generate
from .measure import WARM_UP_QUERY, table
from .wsgi_search import ask, index_and_queries, search_environ

# (label, owner, function name, depth): in the library's order; a deeper stage runs inside
# the one above it.
STAGES = [
    ("Library.search", Library, "search", 0),
    ("parse and glossary expansion", Library, "engine_query", 1),
    ("ranking", Ranker, "ranked", 1),
    ("engine scoring", WhooshBackend, "positions", 2),
    ("ranking bonuses", Bonuses, "_bonuses", 2),
    ("did-you-mean", Spelling, "did_you_mean", 1),
    ("edition groups", EditionGrouping, "collapse", 1),
    ("result records", Results, "result", 1),
    ("snippets", Snippets, "snippet", 2),
]


@contextmanager
def timed_stages() -> Iterator[dict[str, float]]:
    """While open, each stage's function adds its calls' seconds to the dict."""
    seconds = {label: 0.0 for label, *_ in STAGES}
    originals = []

    def timer(label, function):
        @functools.wraps(function)
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                seconds[label] += time.perf_counter() - started
        return timed

    for label, owner, name, _ in STAGES:
        originals.append((owner, name, owner.__dict__[name]))
        setattr(owner, name, timer(label, owner.__dict__[name]))
    try:
        yield seconds
    finally:
        for owner, name, function in originals:
            setattr(owner, name, function)


def report(index_root: Path, count: int = 3000) -> str:
    from webapp import create_app

    app = create_app({"INDEX_ROOT": index_root})
    library = app.extensions["kb.library"].get()
    queries = [q for _, q in generate(list(library.records.values()), count)]
    environs = [search_environ(q) for q in queries]
    ask(app, search_environ(WARM_UP_QUERY))
    gc.freeze()  # as the service keeps an opened library
    with timed_stages() as seconds:
        started = time.perf_counter()
        for env in environs:
            ask(app, env)
        total = time.perf_counter() - started
    rows = [["WSGI /api/search (all of it)", f"{total / count * 1000:.3f}", "100%"]]
    rows += [["  " * (depth + 1) + label, f"{seconds[label] / count * 1000:.3f}", f"{seconds[label] / total:.0%}"]
             for label, _, _, depth in STAGES]
    web = total - seconds["Library.search"]
    rows.append(["  the web layer (Flask, hooks, hints, addresses, JSON)", f"{web / count * 1000:.3f}",
                 f"{web / total:.0%}"])
    return (f"{index_root} ({len(library.records)} records): {count} distinct generated queries, each asked once "
            "through the WSGI call; wall-clock ms a request, each stage's calls summed.\n\n"
            + table(["stage", "ms a request", "share"], rows))


def main(argv: list[str] | None = None) -> int:
    index_root, count = index_and_queries("python -m benchmarks.stages", __doc__.splitlines()[0], 3000, argv)
    print(report(index_root, count))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where a request's time goes in the real app: /api/search for every judged query through
Flask's test client under cProfile (the same code a gunicorn worker runs, without the
network), split into the parts a fix would target."""
from __future__ import annotations

import cProfile
import io
import pstats
import time
from pathlib import Path
from urllib.parse import quote

from indexer.search import analysis
from webapp import create_app

from .measure import judged_queries, table

# (label, file suffix, function name): cumulative time of each, as a share of all requests.
PARTS = [
    ("the search view (everything /api/search runs past Flask's dispatch)", "webapp/views/search.py", "search"),
    ("  Library.search (all of the library's work)", "indexer/knowledge/library.py", "search"),
    ("    engine search (summing the query terms' scored postings)", "indexer/search/whoosh_engine.py", "search"),
    ("    snippets (marking the query's words)", "indexer/knowledge/snippets.py", "snippet"),
    ("    did-you-mean (Latin words not in the index)", "indexer/knowledge/spelling.py", "did_you_mean"),
    ("    result records (text in all languages, titles)", "indexer/knowledge/display.py", "plain_text"),
    ("  present.group_results (page grouping, also run for JSON)", "webapp/present.py", "group_results"),
    ("  JSON encoding of the answer", "flask/json/provider.py", "response"),
]


def cumulative(stats: pstats.Stats, suffix: str, name: str) -> float:
    rows = stats.stats  # type: ignore[attr-defined]  # typeshed leaves out the table print_stats reads
    return sum(row[3] for (filename, _, func), row in rows.items()
               if func == name and filename.endswith(suffix))


def report(index_root: Path) -> str:
    analysis.warm_up()
    client = create_app({"INDEX_ROOT": index_root}).test_client()
    paths = ["/api/search?q=" + quote(q, safe="") for q in judged_queries()]
    for path in paths:
        client.get(path)
    started = time.perf_counter()
    for path in paths:
        client.get(path)
    plain = (time.perf_counter() - started) / len(paths)
    profiler = cProfile.Profile()
    profiler.enable()
    for path in paths:
        client.get(path)
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = cumulative(stats, "flask/app.py", "wsgi_app")
    rows = [[label, f"{cumulative(stats, suffix, name) / total:.0%}"] for label, suffix, name in PARTS]
    top = io.StringIO()
    pstats.Stats(profiler, stream=top).sort_stats("tottime").print_stats(12)
    own = [line for line in top.getvalue().splitlines() if line.strip()][-13:]
    return (f"Mean time of /api/search in-process, without the profiler: {plain * 1000:.1f} ms over "
            f"{len(paths)} judged queries. Share of the profiled request time:\n\n"
            + table(["part", "share"], rows)
            + "\n\nFunctions with the most own time:\n\n```\n" + "\n".join(own) + "\n```")

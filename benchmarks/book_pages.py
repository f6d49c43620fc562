"""The book's pages: the CPU time of a table of contents, a whole section, a rule page and the
glossary, and of the searches that find nothing and get help, through Flask's test client
over the whole knowledge base (corpus/ as shipped). Each page is asked for once (what the
first reader of a build pays, once per worker, edition and script) and then REPEATS times
(what every later reader pays: the page's parts are remembered for the build).
`scripts/bench book` runs it."""
from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

from indexer.documents.ingest import DEFAULT_CORPUS
from indexer.search.build import build
from webapp import create_app
from webapp.book_parts import write as write_book_parts
from webapp.offline_copy import write as write_offline_copy

from .measure import table

REPEATS = 5
PAGES = ("/rules", "/rules?script=hans", "/api/toc", "/rules?edition=2008", "/glossary", "/api/glossary",
         "/rules/510", "/rules/702", "/rules/702.79", "/rules/702.79a",
         "/?q=702.999", "/?q=" + quote("持存"), "/?q=asdfgh")


def cpu_ms(client, path: str) -> tuple[float, int]:
    started = time.process_time()
    response = client.get(path)
    return (time.process_time() - started) * 1000, len(response.data)


def report(index_root: Path | None = None) -> str:
    if index_root is None:
        index_root = Path(tempfile.mkdtemp(prefix="book-pages-")) / "index"
        build([DEFAULT_CORPUS], root=index_root, extras={"offline": write_offline_copy, "book": write_book_parts})
    client = create_app({"TESTING": True, "INDEX_ROOT": index_root}).test_client()
    client.get("/healthz")  # the app opens the index on its first request: not timed
    client.get("/rules/100.1")  # and a first page's templates are compiled
    rows = []
    for path in PAGES:
        first, size = cpu_ms(client, path)
        again = statistics.median(cpu_ms(client, path)[0] for _ in range(REPEATS))
        rows.append([path, f"{size / 1024:.0f}", f"{first:.1f}", f"{again:.1f}"])
    return ("CPU time of one request (time.process_time), whole knowledge base, uncompressed answers.\n\n"
            + table(["page", "KiB", "first ms", f"again ms (median of {REPEATS})"], rows))


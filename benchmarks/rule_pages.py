"""Rule pages: what a rule page's data costs (`Library.rule`: the rule, its quotations,
parent, subrules, editions, keyword numbers and history) and the whole JSON page through
Flask's test client, over the corpus with every rules file of ../shared/cr when present
(sixteen thousand rules in eight editions), for a fixed sample of rule numbers."""
from __future__ import annotations

import random
import tempfile
from pathlib import Path

from indexer.documents.ingest import DEFAULT_CORPUS
from indexer.knowledge.library import Library
from indexer.search.build import build
from webapp import create_app

from .measure import SHARED_CR, build_folder, ms, percentile, stopwatch, table

SAMPLE = 200


def report(work: Path | None = None) -> str:
    work = Path(work or tempfile.mkdtemp(prefix="rule-pages-"))
    paths = [DEFAULT_CORPUS, *([SHARED_CR] if SHARED_CR.is_dir() else [])]
    root = work / "rules-index"
    build(paths, root=root)
    library = Library(build_folder(root))
    try:
        numbers = sorted(library.catalogue.by_number)
        sample = random.Random(0).sample(numbers, min(SAMPLE, len(numbers)))
        data = []
        for number in sample:
            with stopwatch() as t:
                library.rule(number)
            data.append(t[0])
        client = create_app({"TESTING": True, "INDEX_ROOT": root}).test_client()
        client.get("/healthz")  # the app opens the index on its first request: not timed
        pages = []
        for number in sample:
            with stopwatch() as t:
                client.get(f"/api/rules/{number}")
            pages.append(t[0])
        rows = [[label, len(library.records), len(sample), ms(percentile(times, 50)), ms(percentile(times, 99)),
                 ms(max(times))] for label, times in (("Library.rule", data), ("GET /api/rules/<number>", pages))]
    finally:
        library.close()
    inputs = "corpus/ and ../shared/cr" if SHARED_CR.is_dir() else "corpus/ (../shared/cr absent)"
    return f"Index of {inputs}.\n\n" + table(["what", "records", "rule numbers", "p50 ms", "p99 ms", "max ms"], rows)

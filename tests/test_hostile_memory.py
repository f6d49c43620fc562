"""Distinct queries never grow a process's memory past its caches' budgets.

A crawler or an attacker asks queries never seen before, each as long as a query may be,
made of words no document has. Every cache a search fills is bounded in bytes
(`indexer.search.memo`, the scored postings' budget), and nothing is remembered per query
elsewhere (Whoosh's searcher keeps every term's idf in a dict that never shrinks; the engine
no longer asks it). The test asks QUERIES such queries of a fresh library over the small
index: once the caches are full (the first WARM_UP fill them several times over), the
process's resident memory may grow by at most GROWTH_BOUND_MB more, and every cache is
within its budget. (Before, 6,000 queries left 874 MB.) docs/benchmarks.md gives the figures
of 20,000 such queries over the whole corpus.
"""
from __future__ import annotations

import gc
import random

from indexer.knowledge.library import Library
from indexer.search.build import current_folder
from indexer.search.query import MAX_QUERY_CHARS

QUERIES = 2_000
WARM_UP = 800
GROWTH_BOUND_MB = 12
WORDS = ["persist", "留存", "multikicker", "增幅", "exile", "planar", "redcap", "奪魂", "夺魂", "kicker", "規則"]


def resident_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096 / 2**20


def distinct_queries(count: int, seed: int = 1):
    rng = random.Random(seed)
    for i in range(count):
        words = (f"{rng.choice(WORDS)}{rng.randrange(10**6)}" for _ in range(60))
        yield f"{i} {' '.join(words)}"[:MAX_QUERY_CHARS]


def caches(library: Library) -> dict:
    engine = library.engine
    return {"tokens": engine._token_cache, "clauses": engine._clause_cache, "highlights": engine._highlight_cache,
            "snippets": library._snippets._snippets, "expansions": library._expander.expand,
            "corrections": library._spelling._corrections}


def test_distinct_long_queries_leave_memory_within_the_caches_budgets(small_index):
    library = Library(current_folder(small_index))
    try:
        queries = distinct_queries(QUERIES)
        for q in (next(queries) for _ in range(WARM_UP)):
            library.search(q)
        gc.collect()
        warm = resident_mb()
        for q in queries:
            library.search(q)
        gc.collect()
        grown = resident_mb() - warm
        for name, cached in caches(library).items():
            assert cached.cache.currsize <= cached.cache.maxsize, name
        postings = library.engine._postings
        assert postings.size <= postings._cache.maxsize
        assert grown <= GROWTH_BOUND_MB, f"{QUERIES - WARM_UP} more distinct queries grew memory by {grown:.0f} MB"
    finally:
        library.close()

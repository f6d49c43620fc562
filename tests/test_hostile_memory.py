"""Distinct queries never grow a process's memory past its caches' budgets.

A crawler or an attacker asks queries never seen before, each as long as a query may be,
made of words no document has. Every cache a search fills is bounded in bytes
(`indexer.documents.bounded_cache`; the scored postings are a read-only map), those of the process (word stems,
rule numbers) as well as those of each opened build, and nothing is
remembered per query elsewhere (Whoosh's searcher keeps every term's idf in a dict that never
shrinks; the engine does not ask it). The test asks QUERIES such queries, in process, of a
library over the small index whose caches have small budgets (SMALL_CACHES), so that the
first WARM_UP fill every cache a query fills to its budget (the token, clause, answer,
expansion and defining-rule caches: checked); each asks for one result, whose answer is
remembered per query as one of ten would be, at a third of the time. After that, the
process's resident memory may grow by at most GROWTH_BOUND_MB over the remaining queries
(under 3 KB a query; unbounded, the caches kept about 145 KB a query: 6,000 queries left
874 MB), and every cache is within its budget. docs/benchmarks.md gives the figures of 20,000
such queries with the default budgets over the whole corpus (`./scripts/bench memory`).
"""
from __future__ import annotations

import dataclasses
import gc
import random

import pytest

from indexer.documents import chinese
from indexer.documents.references import rule_sort_key
from indexer.knowledge.library import Library
from indexer.knowledge.settings import CacheSizes, size_process_caches
from indexer.search import analysis
from indexer.search.build import current_folder
from indexer.search.query import MAX_QUERY_CHARS

QUERIES = 3_000
WARM_UP = 1_500
GROWTH_BOUND_MB = 4
SMALL_CACHES = CacheSizes(**{f.name: 2**20 for f in dataclasses.fields(CacheSizes)})
WORDS = ["persist", "留存", "multikicker", "增幅", "exile", "planar", "redcap", "奪魂", "夺魂", "kicker", "規則"]


def resident_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096 / 2**20


def distinct_queries(count: int, seed: int = 1):
    rng = random.Random(seed)
    for i in range(count):
        words = (f"{rng.choice(WORDS)}{rng.randrange(10**6)}" for _ in range(60))
        yield f"{i} {' '.join(words)}"[:MAX_QUERY_CHARS]


# The caches every one of these queries adds to: full after the warm-up.
FILLED = ("tokens", "clauses", "answers", "expansions", "defining rules")


def lru_caches(library: Library) -> dict:
    engine = library.engine
    return {"tokens": engine._query._token_cache, "clauses": engine._query._clause_cache,
            "answers": library._answers, "expansions": library._expander.expand,
            "defining rules": library._expander.defining_rules, "results": library._results._fields,
            "corrections": library._spelling._corrections}


@pytest.mark.slow  # 3,000 queries of 500 characters: about 25 s
def test_distinct_long_queries_leave_memory_within_the_caches_budgets(small_index):
    size_process_caches(SMALL_CACHES)
    library = Library(current_folder(small_index), caches=SMALL_CACHES)
    try:
        queries = distinct_queries(QUERIES)
        for q in (next(queries) for _ in range(WARM_UP)):
            library.search(q, 1)
        caches = lru_caches(library)
        assert {name: caches[name].cache.currsize > 0.9 * 2**20 for name in FILLED} == dict.fromkeys(FILLED, True)
        gc.collect()
        warm = resident_mb()
        for q in queries:
            library.search(q, 1)
        gc.collect()
        grown = resident_mb() - warm
        for name, cached in lru_caches(library).items():
            assert cached.cache.currsize <= cached.cache.maxsize == 2**20, name
        for cached in (analysis.english_stem, rule_sort_key, library._results.snippets._blocks):
            assert cached.bytes() <= cached.max_bytes() == 2**20
        segmented = library.build.segmenter._words  # the build's Chinese runs' words
        assert 0 < segmented.bytes() <= segmented.max_bytes() == analysis.SEGMENTS_BYTES
        assert grown <= GROWTH_BOUND_MB, f"{QUERIES - WARM_UP} more distinct queries grew memory by {grown:.0f} MB"
    finally:
        library.close()
        size_process_caches(CacheSizes())


def test_the_process_caches_take_their_budgets_from_the_settings():
    try:
        size_process_caches(dataclasses.replace(CacheSizes(), stems=10_000, traditional=20_000))
        for i in range(1_000):
            analysis.english_stem(f"distinct{i}words")
        assert 0 < analysis.english_stem.bytes() <= 10_000 and analysis.english_stem.entries() < 1_000
        assert chinese._short_hant.max_bytes() == 20_000
    finally:
        size_process_caches(CacheSizes())

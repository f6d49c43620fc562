"""The cold benchmark's queries: thousands of distinct ones of every kind readers type, the
same from one run to the next."""
from __future__ import annotations

import re
from collections import Counter

from benchmarks.cold_queries import QUERY_KINDS, generate
from benchmarks.corpora import documents_only
from indexer.documents.ingest import DEFAULT_CORPUS, ingest
from indexer.documents.records import from_rules_file


def test_three_thousand_distinct_queries_of_every_kind_the_same_every_run(ingested):
    records = ingested.records
    queries = generate(records, 3000)
    texts = [q for _, q in queries]
    assert len(texts) == 3000 and len({t.casefold() for t in texts}) == 3000
    kinds = Counter(kind for kind, _ in queries)
    assert set(kinds) == set(QUERY_KINDS) and min(kinds.values()) >= 100
    assert generate(records, 3000) == queries
    by_kind = {kind: [q for k, q in queries if k == kind] for kind in QUERY_KINDS}
    assert all(re.search(r"\d{3}", q) for q in by_kind["rule number"])
    assert any(re.search(r"[０-９]", q) for q in by_kind["rule number"])
    assert all(re.fullmatch(r"[\u0400-\u04ff ]+", q) for q in by_kind["bg"])
    assert all(re.fullmatch(r"[\u4e00-\u9fff]{2,8}", q) for q in by_kind["zh word"] + by_kind["zh phrase"])


def test_the_documents_corpus_is_corpus_without_its_rules_files(ingested, tmp_path):
    whole = ingested.records
    documents = ingest([documents_only(DEFAULT_CORPUS, tmp_path / "documents")]).records
    rules = {r.source for r in whole if from_rules_file(r)}
    assert rules and not any(from_rules_file(r) for r in documents)
    assert not any(p.name == "rules" for p in (tmp_path / "documents").iterdir())
    # The documents' own records are the same, and only theirs and the glossary's are there.
    assert sorted(r.id for r in documents) == sorted(r.id for r in whole if r.source not in rules)

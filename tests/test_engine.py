"""The Whoosh backend's own query evaluation against Whoosh's searcher.

`WhooshBackend.search` sums each term's cached BM25F postings instead of running Whoosh's
matchers; `search_with_whoosh` runs the same query through Whoosh's searcher. Both must give
the same documents, in the same order, with the same scores."""
from __future__ import annotations

import pytest

from indexer.search.query import parse_query
from indexer.search.whoosh_engine import _ScoredPostings

import judged

EXTRA_QUERIES = [
    "kind:rule exile", "source:shadowmoor-faq 乾枯", "lang:en planar", "edition:2008-05-01 persist",
    "kind:card \"-1/-1 counter\"", "\"時空換境\" kind:rule", "the", "of the", "702.30a", "{藍/黑}",
    "\"你可以犧牲任意數量的生物\"", "source:nowhere exile",
]


@pytest.mark.parametrize("limit", [10, 200])
def test_search_equals_whooshs_own_evaluation(corpus_library, limit):
    queries = [query for _, query, _ in judged.load()] + EXTRA_QUERIES
    compared = 0
    for text in queries:
        engine_query = corpus_library.engine_query(parse_query(text))
        ours = corpus_library.engine.search(engine_query, limit)
        theirs = corpus_library.engine.search_with_whoosh(engine_query, limit)
        assert [record_id for record_id, _ in ours] == [record_id for record_id, _ in theirs], text
        assert all(abs(a - b) < 1e-9 for (_, a), (_, b) in zip(ours, theirs)), text
        compared += bool(ours)
    assert compared > 0.8 * len(queries)  # most queries found something to compare


def test_a_phrase_keeps_only_its_rare_tokens(corpus_library):
    engine = corpus_library.engine
    reader = engine._searcher.reader()
    must = engine._clauses(corpus_library.engine_query(parse_query("\"you may sacrifice any number of creatures\""))).must
    assert must and all(reader.doc_frequency("body", tok) <= 0.05 * reader.doc_count() for tok in must[0])
    assert "the" not in must[0] and "of" not in must[0]
    must = engine._clauses(corpus_library.engine_query(parse_query("\"of the\""))).must
    assert len(must[0]) == 1  # common words only: the rarer one stands for the phrase


def test_scored_postings_stay_within_their_budget(corpus_library):
    searcher = corpus_library.engine._searcher
    reader = searcher.reader()
    terms = [("body", tok) for tok in ("exil", "persist", "干枯", "放逐", "planar", "game")]
    sizes = {term: reader.doc_frequency(*term) for term in terms}
    assert all(sizes.values())
    unlimited = _ScoredPostings(searcher)
    budget = max(unlimited.cost(term, unlimited.get(*term)) for term in terms) + 1
    postings = _ScoredPostings(searcher, budget=budget)
    first = {term: postings.get(*term) for term in terms}
    assert postings.size <= budget
    assert 1 <= len(postings) < len(terms)  # the least recently used were let go
    for term in terms:
        docs, scores = postings.get(*term)
        assert len(docs) == sizes[term] and list(docs) == list(first[term][0]) and list(scores) == list(first[term][1])
    assert postings.size <= budget


def test_terms_no_document_has_are_not_kept(corpus_library):
    """Made-up words (every distinct hostile query brings new ones) cost no memory."""
    postings = _ScoredPostings(corpus_library.engine._searcher)
    for i in range(1000):
        docs, scores = postings.get("body", f"zzq{i}")
        assert len(docs) == len(scores) == 0
    assert len(postings) == 0 and postings.size == 0


def test_a_common_token_finds_nothing_itself_but_ranks_what_rarer_ones_found(corpus_library):
    engine = corpus_library.engine
    both = corpus_library.engine_query(parse_query("persist creature"))
    rare_only = corpus_library.engine_query(parse_query("persist"))
    clauses = engine._clauses(both)
    common = {tok for _, tok in clauses.common}  # in more than COMMON_SHARE of the records (any field)
    assert "creatur" in common and "persist" not in common
    assert not common & {tok for _, tok in clauses.terms}
    with_common, without = engine.search(both, 1000), engine.search(rare_only, 1000)
    assert {i for i, _ in with_common} == {i for i, _ in without}  # the same documents
    assert [i for i, _ in with_common] != [i for i, _ in without]  # ranked by both words

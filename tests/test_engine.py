"""The Whoosh backend's own query evaluation against Whoosh's searcher.

`WhooshBackend.search` sums each term's BM25F postings, scored at build time, instead of running Whoosh's
matchers; `search_with_whoosh` runs the same query through Whoosh's searcher. Both must give
the same documents, in the same order, with the same scores."""
from __future__ import annotations

import judged
import numpy as np
import pytest

from indexer.documents.bounded_cache import entry_bytes
from indexer.search.clauses import _clauses_bytes
from indexer.search.query import parse_query
from indexer.search.schema import FIELD_WEIGHTS, RECALL_FIELD
from indexer.search.term_sums import TermSums
from indexer.search.whoosh_engine import _ScoredPostings

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
        assert all(abs(a - b) < 1e-9 for (_, a), (_, b) in zip(ours, theirs, strict=True)), text
        compared += bool(ours)
    assert compared > 0.8 * len(queries)  # most queries found something to compare


def test_a_phrase_keeps_only_its_rare_tokens(corpus_library):
    engine = corpus_library.engine
    reader = engine._searcher.reader()
    must = engine._query.clauses(
        corpus_library.engine_query(parse_query("\"you may sacrifice any number of creatures\""))).must
    assert must and all(reader.doc_frequency("body", tok) <= 0.05 * reader.doc_count() for tok in must[0])
    assert "the" not in must[0] and "of" not in must[0]
    must = engine._query.clauses(corpus_library.engine_query(parse_query("\"of the\""))).must
    assert len(must[0]) == 1  # common words only: the rarer one stands for the phrase


def test_the_postings_written_with_the_index_are_whooshs_scored(corpus_library):
    """Each term's postings as the build wrote them are Whoosh's documents of the term, scored
    as its matchers score them (`_ScoredPostings`), and their number its document frequency."""
    engine = corpus_library.engine
    reader = engine._searcher.reader()
    scorer = _ScoredPostings(engine._searcher)
    terms = [("body", tok) for tok in ("exil", "persist", "干枯", "放逐", "planar", "game")]
    terms += [("names", next(iter(engine._postings.tokens("names")))), ("title", "persist"), ("kind", "rule")]
    for field, tok in terms:
        docs, scores = engine._postings.get(field, tok)
        expected_docs, expected_scores = scorer._score(field, tok)
        assert len(docs) == reader.doc_frequency(field, tok) == engine._postings.frequency(field, tok) > 0
        assert docs.tolist() == expected_docs.tolist() and scores.tolist() == expected_scores.tolist()


def test_terms_no_document_has_have_no_postings(corpus_library):
    postings = corpus_library.engine._postings
    for field, tok in [("body", "zzq1"), ("names", "zzq2"), ("kind", "nothing"), ("no such field", "persist")]:
        docs, scores = postings.get(field, tok)
        assert len(docs) == len(scores) == postings.frequency(field, tok) == 0


def test_a_common_token_finds_nothing_itself_but_ranks_what_rarer_ones_found(corpus_library):
    engine = corpus_library.engine
    both = corpus_library.engine_query(parse_query("persist creature"))
    rare_only = corpus_library.engine_query(parse_query("persist"))
    clauses = engine._query.clauses(both)
    common = {tok for _, tok in clauses.common}  # in more than COMMON_SHARE of the records (any field)
    assert "creatur" in common and "persist" not in common
    assert not common & {tok for _, tok in clauses.terms}
    with_common, without = engine.search(both, 1000), engine.search(rare_only, 1000)
    assert {i for i, _ in with_common} == {i for i, _ in without}  # the same documents
    assert [i for i, _ in with_common] != [i for i, _ in without]  # ranked by both words


def test_text_without_chinese_is_analysed_once_for_every_field(corpus_library, monkeypatch):
    """Every field's query tokens are its own analyzer's, while a text without Chinese is
    analysed once for all of them (the recall field's bigrams only cut Chinese), and a text
    is analysed for all fields at once, then remembered."""
    clauses = corpus_library.engine._query
    analysed = []

    def analyse(field, text):
        analysed.append(field)
        return type(clauses)._analyse_query(clauses, field, text)

    monkeypatch.setattr(clauses, "_analyse_query", analyse)
    for text, analyses in (("Tapped persisting creatures 702.30a", 1), ("多重增幅 persisting", 2)):
        clauses._token_cache.cache_clear()
        analysed.clear()
        for field in FIELD_WEIGHTS:
            assert clauses.tokens(field, text) == type(clauses)._analyse_query(clauses, field, text), (field, text)
        assert len(analysed) == analyses and len(clauses._token_cache.cache) == 1, text
    assert clauses.tokens("grams", "多重增幅") != clauses.tokens("body", "多重增幅")


def test_remembered_clauses_are_charged_at_least_their_size(corpus_library):
    queries = [query for _, query, _ in judged.load()] + EXTRA_QUERIES + ["x" * 300 + " 多重增幅" * 40]
    for text in queries:
        engine_query = corpus_library.engine_query(parse_query(text))
        args = (tuple(engine_query.terms), tuple(engine_query.phrases))
        clauses = corpus_library.engine._query._make_clauses(*args)
        assert _clauses_bytes(args, clauses) >= entry_bytes(args, clauses), text


def test_term_frequencies_within_documents_name_only_theirs(corpus_library):
    """With a mask of documents (the offline copy's records), each token keeps its whole
    document frequency and names its postings among those documents only."""
    engine, positions = corpus_library.engine, corpus_library.catalogue.positions
    within = np.zeros(engine.doc_count(), bool)
    within[: engine.doc_count() // 3] = True
    everything = {token: found for token, _, _, found in engine.term_frequencies("title")[1]}
    held, unheld = 0, {}
    for token, _common, frequency, found in engine.term_frequencies("title", within)[1]:
        assert frequency == engine._postings.frequency("title", token) == len(everything[token])
        assert found == [(record_id, tf) for record_id, tf in everything[token] if within[positions[record_id]]]
        held += bool(found)
        if not found:
            unheld[token] = frequency
    assert 0 < held < len(everything)
    assert engine.unheld("title", within) == unheld  # the tokens none of them holds, told without reading


@pytest.mark.parametrize("field", [*FIELD_WEIGHTS, "kind", "lang"])
def test_a_field_scored_in_one_pass_is_each_term_scored_alone(cards_library, field):
    """The build scores a field's terms in one pass over its term table (`_ScoredPostings.field`):
    the same tokens, postings and scores, to the last bit, as scoring them one by one."""
    scorer = _ScoredPostings(cards_library.engine._whoosh())
    tokens, counts, docs, scores = scorer.field(field)
    expected = scorer._field_by_term(field)
    assert tokens == expected[0] and counts == expected[1] and len(tokens) > 1
    assert np.array_equal(docs, expected[2]) and scores.tobytes() == expected[3].tobytes()


def test_summed_postings_are_each_term_added_in_turn(cards_library):
    """`TermSums.scores` sums every term's postings in one pass, weighted in place: the same
    floats, to the last bit, as adding each term's weighted scores to its documents in turn,
    a common term's only where a term outside the recall field matched."""
    engine = cards_library.engine
    question = ("My opponent attacks with a creature that has flying and first strike; I block it "
                "with Kitchen Finks, it dies, and persist returns it: does the damage still happen?")
    terms, common, _ = engine._query.clauses(cards_library.engine_query(parse_query(question)))
    assert len(terms) > 10 and common
    count = engine.doc_count()
    expected, matched, outside = np.zeros(count), np.zeros(count, bool), np.zeros(count, bool)
    for (field, tok), boost in terms.items():
        docs, scores = engine._postings.get(field, tok)
        expected[docs] += scores * boost
        matched[docs] = True
        if field != RECALL_FIELD:
            outside[docs] = True
    for (field, tok), boost in common.items():
        docs, scores = engine._postings.get(field, tok)
        expected[docs] += scores * boost * outside[docs]
    summed, found = engine._sums.scores(terms, common)
    assert summed.tobytes() == expected.tobytes() and np.array_equal(found, matched)
    # Of the documents of a range only (a filter's): theirs the same, the others 0 and unmatched.
    first, last = count // 3, 2 * count // 3
    part, part_found = engine._sums.scores(terms, common, (first, last))
    assert part[first:last].tobytes() == summed[first:last].tobytes() and part_found[first:last].any()
    assert np.array_equal(part_found[first:last], found[first:last])
    assert not part[:first].any() and not part[last:].any() and not part_found[:first].any()


def test_named_only_documents_count_by_their_names_in_every_run():
    """`TermSums` skips the named-only documents outside the name fields however they are
    numbered (a build writes them in one run; here in two, and one at the very end)."""
    postings = {("names", "finks"): ([2, 7, 9], [1.0, 2.0, 4.0]),
                ("body", "persist"): ([0, 2, 3, 5, 7, 8, 9], [1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0])}

    class Postings:
        def get(self, field, token):
            docs, scores = postings.get((field, token), ([], []))
            return np.array(docs, np.int32), np.array(scores)
    sums = TermSums(Postings(), 10, np.array([2, 3, 7, 9]))
    terms = {("names", "finks"): 2.0, ("body", "persist"): 1.0}
    scores, matched = sums.scores(terms, {}, names_only=True)
    assert scores.tolist() == [1.0, 0, 2.0, 0, 0, 2.5, 0, 4.0, 3.5, 8.0]
    assert np.flatnonzero(matched).tolist() == [0, 2, 5, 7, 8, 9]
    everything, _ = sums.scores(terms, {})
    assert everything.tolist() == [1.0, 0, 3.5, 2.0, 0, 2.5, 0, 7.0, 3.5, 12.0]

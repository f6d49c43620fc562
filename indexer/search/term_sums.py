"""Every document's score for a query's clauses: the sums of its terms' scored postings
(`whoosh_engine._PostingsFile`), which give what Whoosh's matchers give (tests/test_engine.py)."""
from __future__ import annotations

from typing import Protocol

import numpy as np

from .schema import NAME_FIELDS, RECALL_FIELD


class Postings(Protocol):
    def get(self, field: str, token: str) -> tuple[np.ndarray, np.ndarray]: ...


class TermSums:
    def __init__(self, postings: Postings, doc_count: int):
        self._postings = postings
        self._doc_count = doc_count

    def scores(self, terms: dict, common: dict, within: tuple[int, int] | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
        """Every document's score, and whether a term matched it (a score may be 0); with
        `within` (first, past last), of those documents only, the others 0 and unmatched:
        a filtered search (today's rules) reads only the part of each term's postings that
        its documents span, the documents of a source or an edition being written together.

        All the postings of the terms, then of the common terms, are summed by one
        `np.bincount`: the same additions, in the same order, as adding each term's scores
        to the documents it holds in turn, so the same floats, with one pass instead of a
        gather and a scatter for each term. Each term's scores are weighted in place by its
        boost (no array of boosts as long as the postings), and a common term's count only
        at the documents a term outside the recall field matched. A long question's postings
        are several MB with every card, and memory a process touches for the first time
        costs more than the arithmetic on it: a copy fewer is a first-asked search's
        milliseconds (docs/benchmarks.md, "Every card")."""
        count = self._doc_count
        matched = np.zeros(count, bool)
        found = [self._postings.get(field, tok) for field, tok in (*terms, *common)]
        if within is not None:
            found = [_within(docs, scores, within) for docs, scores in found]
        if not found:
            return np.zeros(count), matched
        docs = np.concatenate([d for d, _ in found])
        weighted = np.concatenate([s for _, s in found])
        at = 0
        for (term_docs, _), boost in zip(found, (*terms.values(), *common.values()), strict=True):
            weighted[at:at + len(term_docs)] *= boost
            at += len(term_docs)
        in_terms = sum(len(d) for d, _ in found[:len(terms)])
        matched[docs[:in_terms]] = True
        if common:
            outside = np.zeros(count, bool)
            for (field, _), (term_docs, _) in zip(terms, found[:len(terms)], strict=True):
                if field != RECALL_FIELD:
                    outside[term_docs] = True
            weighted[in_terms:] *= outside[docs[in_terms:]]
        return np.bincount(docs, weighted, count), matched

    def found_by_name(self, terms: dict) -> np.ndarray:
        """The documents a term of a name field matched (`schema.NAME_FIELDS`)."""
        found = np.zeros(self._doc_count, bool)
        for field, tok in terms:
            if field in NAME_FIELDS:
                found[self._postings.get(field, tok)[0]] = True
        return found

    def required(self, scores: np.ndarray, matched: np.ndarray | None,
                 must: list[tuple[str, ...]]) -> tuple[np.ndarray, np.ndarray]:
        """Only documents holding every phrase token (and matching a term, when there are
        terms), each token's score added, as Whoosh's intersection adds its parts'."""
        total, count = np.zeros(self._doc_count), np.zeros(self._doc_count, np.int32)
        required = [tok for tokens in must for tok in tokens]
        for tok in required:
            docs, term_scores = self._postings.get("body", tok)
            total[docs] += term_scores
            count[docs] += 1
        holding = count == len(required)
        if matched is None:
            return total, holding
        return total + scores, holding & matched


def _within(docs: np.ndarray, scores: np.ndarray, bounds: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """A term's postings of the documents numbered from `bounds[0]` up to `bounds[1]`."""
    start, end = np.searchsorted(docs, bounds).tolist()
    return docs[start:end], scores[start:end]

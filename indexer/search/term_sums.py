"""Every document's score for a query's clauses: the sums of its terms' scored postings
(`whoosh_engine._PostingsFile`), which give what Whoosh's matchers give (tests/test_engine.py)."""
from __future__ import annotations

from typing import Protocol

import numpy as np

from .schema import NAME_FIELDS, RECALL_FIELD


class Postings(Protocol):
    def get(self, field: str, token: str) -> tuple[np.ndarray, np.ndarray]: ...


class TermSums:
    def __init__(self, postings: Postings, doc_count: int, named_only: np.ndarray):
        """`named_only`: the documents found by their names only (`schema.NAMED_ONLY_SOURCE`),
        in ascending order."""
        self._postings = postings
        self._doc_count = doc_count
        # Where each run of them starts and ends (past its last), in turn: a build writes them
        # together, so there is one run, and cutting a term's postings is one bisection.
        self._runs = np.zeros(0, np.int64)
        if len(named_only):
            breaks = np.flatnonzero(np.diff(named_only) != 1) + 1
            starts, lasts = named_only[np.r_[0, breaks]], named_only[np.r_[breaks - 1, len(named_only) - 1]]
            self._runs = np.column_stack([starts, lasts + 1]).ravel().astype(np.int64)

    def scores(self, terms: dict, common: dict, within: tuple[int, int] | None = None,
               names_only: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Every document's score, and whether a term matched it (a score may be 0).

        With `within` (first, past last), of those documents only, the others 0 and
        unmatched: a filtered search (today's rules) reads only the part of each term's
        postings that its documents span, the documents of a source or an edition being
        written together. With `names_only`, the named-only documents are scored and matched
        by the terms of the name fields only: a search that is not for cards finds a card
        by its name (and its name ranks it), never by its text, so the tens of thousands of
        Oracle texts' postings of the game's commonest words are not read.

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
        pieces = self._pieces(terms, within, names_only)
        in_terms = len(pieces)
        pieces += self._pieces(common, within, names_only)
        if not pieces:
            return np.zeros(count), matched
        docs = np.concatenate([piece[0] for piece in pieces])
        weighted = np.concatenate([piece[1] for piece in pieces])
        at = 0
        for piece_docs, _, boost, _ in pieces:
            weighted[at:at + len(piece_docs)] *= boost
            at += len(piece_docs)
        in_term_postings = sum(len(piece[0]) for piece in pieces[:in_terms])
        matched[docs[:in_term_postings]] = True
        if common:
            outside = np.zeros(count, bool)
            for piece_docs, _, _, outside_recall in pieces[:in_terms]:
                if outside_recall:
                    outside[piece_docs] = True
            weighted[in_term_postings:] *= outside[docs[in_term_postings:]]
        return np.bincount(docs, weighted, count), matched

    def _pieces(self, terms: dict, within: tuple[int, int] | None, names_only: bool
                ) -> list[tuple[np.ndarray, np.ndarray, float, bool]]:
        """Each term's postings as (documents, scores, boost, outside the recall field) pieces,
        in the terms' order: of `within` only, and without the named-only documents outside
        the name fields if `names_only`."""
        pieces = []
        for (field, tok), boost in terms.items():
            docs, scores = self._postings.get(field, tok)
            if within is not None:
                start, end = np.searchsorted(docs, within).tolist()
                docs, scores = docs[start:end], scores[start:end]
            if names_only and field not in NAME_FIELDS and len(self._runs) and len(docs):
                start = 0
                for n, cut in enumerate(np.searchsorted(docs, self._runs).tolist()):
                    if n % 2 == 0 and cut > start:  # up to a run's start
                        pieces.append((docs[start:cut], scores[start:cut], boost, field != RECALL_FIELD))
                    start = cut
                if start < len(docs):
                    pieces.append((docs[start:], scores[start:], boost, field != RECALL_FIELD))
            else:
                pieces.append((docs, scores, boost, field != RECALL_FIELD))
        return pieces

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


"""Pseudo-relevance feedback for a question: the words of its best first-pass answers.

A question often does not use the words of the rule that answers it ("can a tapped creature
block": 509.1a says a blocker must be untapped; a colloquial Chinese question against the
translated rules' prose). The rules its own words rank best are mostly about what it asks,
and the words they share that are rare among the other rules are the answer's words as well,
so the question is searched again with them: relevance feedback as RM3 does it (Lavrenko and
Croft's relevance model of the best first-pass documents, interpolated with the query;
Anserini's `-rm3`).

Each of today's rules and glossary entries is read, once per opened build, as its terms: the
Snowball stems of its English words (Whoosh's stop words left out) and the character bigrams of
its Chinese (`bigrams`), of its text and heading, in both languages (a Chinese
question's best rules give their English words too, and the other way round). For a question,
the best candidate of each of its `DOCUMENTS` best results (a numbered paragraph with its
subrules is one result: the best candidates are often the subrules of one rule, whose shared
words would raise them all) gives each of its terms a weight: the sum over those candidates of
the candidate's share of their scores times the term's share of its length (the relevance
model), times how rare the term is among today's rules (its idf: a word every rule has says
nothing of these ones). The `TERMS` heaviest that are not the question's own (the first pass
searched those) are a query scoring today's rules as BM25 scores a word, and a candidate's
score becomes (1 − λ) × its share of the best first-pass score + λ × its share of the best
feedback score, λ being `Weights.feedback`.
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

import numpy as np
from whoosh.analysis import STOP_WORDS

from indexer.documents.chinese import HAN_RUN, to_hans
from indexer.documents.records import Record
from indexer.search.analysis import _stem

from .catalogue import Catalogue

# How many of the best first-pass results the feedback is drawn from, and how many of their
# terms it searches with (Anserini's fbDocs and fbTerms are 10 and 10).
DOCUMENTS = 10
TERMS = 10
# BM25's saturation of a term's count and its length normalisation (Robertson's defaults).
K1 = 1.2
B = 0.75
# An English word shorter than this is no feedback term (a, of, 's).
MIN_WORD = 3
_WORD = re.compile(r"[a-z]+")


def bigrams(text: str) -> list[str]:
    """The pairs of adjacent Chinese characters of a Simplified text, inside each run of
    Chinese (a Latin word or a number breaks the run), with repeats: the same in a colloquial
    question and the translated rules' prose however a segmenter would cut the words of each
    (Lucene's CJKAnalyzer indexes them for that reason)."""
    return [run[i:i + 2] for run in HAN_RUN.findall(text) for i in range(len(run) - 1)]


def _simplified(part: dict[str, str]) -> str:
    """A text's Chinese in Simplified: its own Simplified text, else its Traditional converted."""
    return part.get("zh_hans") or to_hans(part.get("zh_hant", ""))


def text_terms(english: str, chinese: str) -> list[str]:
    """The feedback terms of a text, with repeats: its English words' stems and the bigrams
    of its Chinese (in Simplified)."""
    words = [_stem(w) for w in _WORD.findall(english.lower()) if len(w) >= MIN_WORD and w not in STOP_WORDS]
    return words + bigrams(chinese)


def terms(record: Record) -> list[str]:
    """A record's feedback terms: those of its text and its heading (not its rule's heading,
    which its sibling subrules share: the feedback would raise them all)."""
    parts = [record.text, record.title]
    return text_terms("\n".join(p.get("en", "") for p in parts), "\n".join(map(_simplified, parts)))


class Feedback:
    """Today's rules as terms, both ways: each record's terms (for the feedback) and each
    term's records (for the search with them)."""

    def __init__(self, texts: Iterable[tuple[int, list[str]]], group_at: np.ndarray):
        """`texts`: (catalogue position, its terms) of each record; `group_at`: the result
        each record of the catalogue is shown in, by position."""
        size = len(group_at)
        self._group_at = group_at
        numbers: dict[str, int] = {}
        rows: list[tuple[int, Counter[int]]] = []
        for at, found in texts:
            if found:
                rows.append((at, Counter(numbers.setdefault(t, len(numbers)) for t in found)))
        self._numbers = numbers
        self._row_at = np.full(size, -1, np.int32)
        self._row_at[np.array([at for at, _ in rows], np.int64)] = np.arange(len(rows))
        lengths = np.array([sum(c.values()) for _, c in rows], np.float64)
        # Each record's terms (a row its slice of `_terms` and `_counts`; 32-bit numbers: a
        # catalogue and its words are far fewer than 2**31).
        self._starts = np.cumsum([0, *(len(c) for _, c in rows)])
        self._terms = np.array([t for _, c in rows for t in c], np.int32)
        self._counts = np.array([n for _, c in rows for n in c.values()], np.float64)
        self._lengths = np.maximum(lengths, 1.0)
        # Each term's records and BM25 count parts (a term its slice of `_positions`, `_parts`).
        row_of_entry = np.repeat(np.arange(len(rows)), np.diff(self._starts))
        order = np.argsort(self._terms, kind="stable")
        norm = K1 * (1 - B + B * lengths / (lengths.mean() if len(rows) else 1.0))
        tf = self._counts[order]
        self._positions = np.array([at for at, _ in rows], np.int32)[row_of_entry[order]]
        self._parts = tf * (K1 + 1) / (tf + norm[row_of_entry[order]])
        held = np.bincount(self._terms, minlength=len(numbers))
        self._term_starts = np.cumsum([0, *held])
        self._idf = np.log(1 + (len(rows) - held + 0.5) / (held + 0.5))

    @classmethod
    def of_todays_rules(cls, catalogue: Catalogue) -> Feedback:
        """The table of today's rules and glossary entries, each in its question result
        (`Catalogue.paragraph_group_at`: a numbered paragraph with its subrules)."""
        return cls(((at, terms(r)) for at, r in enumerate(catalogue.by_position) if catalogue.of_todays_rules(r)),
                   catalogue.paragraph_group_at)

    def query(self, question: str, docs: np.ndarray, scores: np.ndarray) -> list[tuple[int, float]]:
        """The feedback query of ranked candidates (positions, scores): its terms and
        weights, heaviest first, drawn from the best candidate in the table of each of the
        best `DOCUMENTS` results (a rule's subrules are one result: drawn from all of them,
        the feedback would be about that rule alone)."""
        rows = self._row_at[docs]
        held = rows >= 0
        rows, weights, groups = rows[held], np.maximum(scores[held], 0.0), self._group_at[docs[held]]
        order = np.argsort(-weights, kind="stable")
        _, first = np.unique(groups[order], return_index=True)
        best = order[np.sort(first)[:DOCUMENTS]]
        rows, weights = rows[best], weights[best]
        if not len(rows) or not weights.sum():
            return []
        weights = weights / weights.sum()
        found = [np.arange(self._starts[r], self._starts[r + 1]) for r in rows.tolist()]
        entries = np.concatenate(found)
        share = np.repeat(weights / self._lengths[rows], [len(f) for f in found])
        # Their terms, each once, and each one's weight in the relevance model times its idf.
        held_terms, at = np.unique(self._terms[entries], return_inverse=True)
        model = np.bincount(at, share * self._counts[entries], len(held_terms)) * self._idf[held_terms]
        # The question's own words are the first pass's: the feedback adds the others.
        own = [self._numbers[t] for t in text_terms(question, to_hans(unicodedata.normalize("NFKC", question)))
               if t in self._numbers]
        model[np.isin(held_terms, own)] = 0.0
        chosen = np.argsort(-model, kind="stable")[:TERMS]
        chosen = chosen[model[chosen] > 0]
        total = model[chosen].sum()
        if not total:
            return []
        return [(int(t), float(w / total)) for t, w in zip(held_terms[chosen], model[chosen], strict=True)]

    def scores(self, query: list[tuple[int, float]], size: int) -> np.ndarray:
        """Each record's BM25 score for the feedback query's weighted terms, by position,
        in an array of `size`."""
        total = np.zeros(size)
        for term, weight in query:
            start, end = self._term_starts[term], self._term_starts[term + 1]
            total[self._positions[start:end]] += weight * self._parts[start:end]
        return total

    def rescored(self, question: str, docs: np.ndarray, scores: np.ndarray, weight: float) -> np.ndarray:
        """The candidates' scores interpolated with their feedback scores: (1 − weight) × the
        share of the best score + weight × the share of the best feedback score."""
        query = self.query(question, docs, scores)
        if not query:
            return scores
        again = self.scores(query, len(self._row_at))[docs]
        top = again.max()
        first = scores / (scores.max() or 1.0)
        return (1 - weight) * first + weight * again / top if top else first


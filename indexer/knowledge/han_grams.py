"""Chinese character bigrams: a question in Chinese matched against today's rules' Chinese
text pair of characters by pair of characters, beside the words the segmenter makes.

jieba segments a colloquial question and the translated rules' prose differently, so a word
of the one is often no word of the other; two characters side by side are the same in both,
which is why Chinese retrieval indexes character bigrams beside words (Lucene's
CJKAnalyzer). Each of today's rules and glossary entries is read as the bigrams of its
Chinese text in Simplified, its heading and its rule's heading (a keyword's subrule stands
under the keyword); a question is scored against them as BM25 scores a word: a bigram
weighs the log of how rare it is among today's rules, and a rule's count of it is saturated
and set against the rule's length.

The table is made once per opened build, from the build's records (`HanGrams.of_todays_rules`),
and held by that build's ranker: every bigram's postings in two arrays, a bigram its slice.
"""
from __future__ import annotations

import math
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable

import numpy as np

from indexer.documents.chinese import HAN_RUN, to_hans
from indexer.documents.records import Record

from .catalogue import Catalogue

# BM25's saturation of a bigram's count and its length normalisation (Robertson's defaults).
K1 = 1.2
B = 0.75


def bigrams(text: str) -> list[str]:
    """The pairs of adjacent Chinese characters of a Simplified text, inside each run of
    Chinese (a Latin word or a number breaks the run), with repeats."""
    return [run[i:i + 2] for run in HAN_RUN.findall(text) for i in range(len(run) - 1)]


def _simplified(part: dict[str, str]) -> str:
    """A text's Chinese in Simplified: its own Simplified text, else its Traditional converted."""
    return part.get("zh_hans") or to_hans(part.get("zh_hant", ""))


class HanGrams:
    """BM25 over Chinese bigrams of a fixed set of records (by catalogue position)."""

    def __init__(self, texts: Iterable[tuple[int, str]]):
        counts: dict[int, Counter[str]] = {}
        for at, text in texts:
            grams = Counter(bigrams(text))
            if grams:
                counts[at] = grams
        self.doc_count = len(counts)
        lengths = {at: sum(c.values()) for at, c in counts.items()}
        average = sum(lengths.values()) / max(self.doc_count, 1)
        postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for at, grams in counts.items():
            norm = K1 * (1 - B + B * lengths[at] / (average or 1.0))
            for gram, tf in grams.items():
                postings[gram].append((at, tf * (K1 + 1) / (tf + norm)))
        # The postings of every bigram in one array of positions and one of count parts, a
        # bigram's its slice from its number's start to the next's (arrays a bigram would weigh
        # several times more).
        self._numbers = {gram: n for n, gram in enumerate(postings)}
        self._starts = np.cumsum([0, *map(len, postings.values())])
        self._idf = np.array([math.log(1 + (self.doc_count - len(found) + 0.5) / (len(found) + 0.5))
                              for found in postings.values()])
        self._positions = np.array([a for found in postings.values() for a, _ in found], np.int64)
        self._parts = np.array([p for found in postings.values() for _, p in found])

    @classmethod
    def of_todays_rules(cls, catalogue: Catalogue) -> HanGrams:
        """The table of today's rules and glossary entries: each one's Chinese text, heading
        and its rule's heading (none when the edition has no Chinese)."""
        def text(record: Record) -> str:
            parts = [_simplified(record.title), _simplified(record.text)]
            if record.parent:
                for parent in catalogue.rule_records(record.parent, record.edition)[:1]:
                    parts.append(_simplified(parent.title))
            return "\n".join(parts)

        return cls((at, text(r)) for at, r in enumerate(catalogue.by_position) if catalogue.of_todays_rules(r))

    def scores(self, question: str, size: int) -> np.ndarray:
        """Each record's BM25 score for the question's bigrams (each counted once), by
        position, in an array of `size` (zeros for a question with no Chinese)."""
        total = np.zeros(size)
        normal = to_hans(unicodedata.normalize("NFKC", question))
        for gram in dict.fromkeys(bigrams(normal)):
            n = self._numbers.get(gram)
            if n is not None:
                start, end = self._starts[n], self._starts[n + 1]
                total[self._positions[start:end]] += self._idf[n] * self._parts[start:end]
        return total

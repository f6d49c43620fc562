"""Did-you-mean: a Latin word of the query that no record holds, corrected to a known one.

Known words are the Latin words of every name, title and alias and of the glossary. Only
known words sharing a trigram with the typed word are compared with it, which keeps a
correction fast however large the vocabulary grows; the comparison is RapidFuzz's ratio
(the normalised edit similarity difflib's ratio approximates), at least CUTOFF, the best
score first and, among equal scores, the alphabetically last word (as difflib chose).
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from rapidfuzz import fuzz, process

from indexer.documents.glossary import Glossary
from indexer.documents.memo import bounded_cache
from indexer.documents.records import Record
from indexer.search.engine import SearchBackend

# A word of the vocabulary a misspelling is corrected toward: ASCII letters, with hyphens
# and apostrophes inside (two-headed, owner's), two letters at least.
VOCABULARY_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]+")
CUTOFF = 75  # percent


def trigrams(word: str) -> set[str]:
    """The three-letter pieces of a word marked at both ends (^persist$: ^pe, per, …, st$)."""
    marked = f"^{word}$"
    return {marked[i:i + 3] for i in range(len(marked) - 2)}


class Spelling:
    def __init__(self, engine: SearchBackend, records: Iterable[Record], glossary: Glossary, cache_bytes: int):
        self.engine = engine
        self.vocabulary: set[str] = set()
        for r in records:
            for value in [*r.names.values(), *r.title.values(), *r.aliases]:
                self.vocabulary.update(w.lower() for w in VOCABULARY_WORD.findall(value))
        for entry in glossary.entries:
            for form in entry.forms():
                self.vocabulary.update(w.lower() for w in VOCABULARY_WORD.findall(form))
        self._words_by_trigram: dict[str, list[str]] = defaultdict(list)
        for word in self.vocabulary:
            for gram in trigrams(word):
                self._words_by_trigram[gram].append(word)
        # Remembered per word for this build.
        self._corrections = bounded_cache(cache_bytes)(self._correction)

    def did_you_mean(self, text: str) -> str | None:
        """The query corrected, or None when every Latin word of it is known."""
        changed = False
        for word in set(VOCABULARY_WORD.findall(text)):
            close = self._corrections(word.lower())
            if close:
                fixed = close.capitalize() if word[0].isupper() else close
                text = re.sub(rf"\b{re.escape(word)}\b", fixed, text)
                changed = True
        return text if changed else None

    def _correction(self, word: str) -> str | None:
        """The known word closest to a lower-case word that no record holds, or None."""
        if word in self.vocabulary or all(known for _, known in self.engine.known_words(word)):
            return None
        candidates = {known for gram in trigrams(word) for known in self._words_by_trigram.get(gram, ())}
        close = process.extract(word, candidates, scorer=fuzz.ratio, score_cutoff=CUTOFF, limit=None)
        return max(close, key=lambda found: (found[1], found[0]))[0] if close else None

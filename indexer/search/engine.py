"""The search-backend interface: what the library needs from a full-text engine.

The library (query understanding, ranking, result shaping) talks only to this interface, and
the web layer talks only to the library, so neither imports an engine. Whoosh is the one
implementation (`indexer.search.whoosh_engine`).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from indexer.documents.records import Record

from .analysis import Segmenter


@dataclass
class EngineQuery:
    """A query ready for an engine: weighted free-text strings (the literal query weighs 1.0,
    glossary expansions less), phrases that must all occur, and exact-value filters."""

    terms: list[tuple[str, float]] = field(default_factory=list)
    phrases: list[str] = field(default_factory=list)
    filters: dict[str, str] = field(default_factory=dict)


class SearchBackend(ABC):
    """Index records once, then search them; records themselves are served by the library."""

    @classmethod
    @abstractmethod
    def build(cls, records: list[Record], directory: Path, segmenter: Segmenter, helper: Executor | None = None,
              meanwhile: Callable[[], None] | None = None, progress: bool = False) -> None:
        """Write a complete index of `records` into the empty folder `directory`, Chinese
        segmented by `segmenter`, with a progress bar if asked. With `helper` (another
        process), the part `writes_apart` names is written there, and this process does
        `meanwhile` while it waits for it."""

    @classmethod
    def writes_apart(cls, records: list[Record]) -> bool:
        """Whether `build` gives a part of an index of `records` to a helper."""
        return False

    @classmethod
    @abstractmethod
    def open(cls, directory: Path, segmenter: Segmenter, cache_bytes: int,
             record_ids: list[str] | None = None) -> SearchBackend:
        """Open an index written by `build`, its queries segmented by `segmenter` (the build's
        words), remembering up to `cache_bytes` of analysed queries and clauses (each);
        `record_ids`, the records in the order they were built, name its documents without
        reading them. Raise `IndexUnavailable` when it is missing or broken."""

    @abstractmethod
    def search(self, query: EngineQuery, limit: int) -> list[tuple[str, float]]:
        """Up to `limit` (record id, score) pairs, best first."""

    @abstractmethod
    def positions(self, query: EngineQuery, limit: int) -> tuple[np.ndarray, np.ndarray]:
        """What `search` finds as two arrays: the records' positions in `record_ids` (the
        order they were built) and their scores, for ranking them as arrays. Raises ValueError
        for an index opened without `record_ids`."""

    @abstractmethod
    def highlighter(self, query: EngineQuery) -> Callable[[str, str | None], str | None]:
        """A function that gives a text as escaped HTML with the query's matched words in
        <mark>, or None when none occurs; its second argument, the text in the form the build
        keeps of it (`indexer.search.highlighting`), spares converting its script again. Made once
        for all of a query's snippets."""

    @abstractmethod
    def word_frequencies(self, text: str) -> list[tuple[str, int]]:
        """The query's words as the index's text analyzer reads them (English stems, Chinese
        words in Simplified), each with how many records hold it: a Chinese word the
        segmenter cut otherwise in the records counts those holding its rarest character
        bigram. How much a question's word says is how rare it is (`knowledge.questions`)."""

    @abstractmethod
    def doc_count(self) -> int:
        """How many records the index holds."""

    @abstractmethod
    def known_words(self, text: str) -> list[tuple[str, bool]]:
        """The query's words with whether the index holds each one (for typo correction)."""

    @abstractmethod
    def reopen(self) -> None:
        """Open the index files again for this process (after a fork: an inherited handle's
        file position would be shared with the parent and its other children)."""

    @abstractmethod
    def close(self) -> None:
        """Release files and searchers."""


class IndexUnavailable(Exception):
    """No usable index at a path: missing, half-written or corrupt. The message says which."""

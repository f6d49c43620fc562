"""Snippets: a result's text with the query's words marked, in the reader's script.

The snippet comes from the language that matched (Chinese first for a Chinese query). Only
a window around the first place a query word occurs is marked, so a card with many rulings
costs no more than a short rule: the window is found in the text's marking form, which the
build keeps (`indexer.search.highlighting`), and only the window is converted to the reader's
script (conversion keeps every offset) and marked.
"""
from __future__ import annotations

import functools
import html
from collections.abc import Callable
from typing import NamedTuple

from indexer.documents.bounded_cache import cleared_when_full
from indexer.documents.chinese import HAN_RUN
from indexer.documents.records import Record
from indexer.search.engine import EngineQuery, SearchBackend
from indexer.search.highlighting import marking_form
from indexer.search.schema import searched_blocks

from .catalogue import Catalogue
from .display import display, shown_lang

WINDOW = 300
# Characters of text kept before the first query word, so the word is seen in its sentence.
LEAD = 100
# A snippet with no marked word: the text's start, this long.
UNMARKED = 200
# Queries whose snippet plan is kept (a page's ten snippets share it).
RECENT_QUERIES = 32
# Marks a query's words in a text, given the text's marking form (`SearchBackend.highlighter`).
Highlight = Callable[[str, "str | None"], "str | None"]


class SnippetPlan(NamedTuple):
    """What a query's snippets look for, shared by its page of results (`Snippets.plan`)."""
    highlight: Highlight  # marks the query's words (`SearchBackend.highlighter`)
    prefer_zh: bool  # its snippets are taken from Chinese text first
    needles: list[str]  # what a long text's window is placed by (`needles`)


def needles(texts: list[str]) -> list[str]:
    """Strings to look for when placing a snippet: each query word in its marking form
    (`indexer.search.highlighting`: Simplified, lower case), a long Latin word by its first five
    letters only, which survive stemming (kicker, kicked) and occur wherever the word does."""
    out: dict[str, None] = {}
    for text in texts:
        for word in marking_form(text).split():
            out[word[:5] if len(word) > 5 and word.isascii() else word] = None
    return list(out)


def window_start(form: str, needles: list[str]) -> int:
    """Where a long text's snippet window starts: a little before the first occurrence of a
    needle in the text's marking form (its start if none). Each needle is looked for only
    before the first occurrence found so far."""
    if len(form) <= WINDOW:
        return 0
    first = len(form)
    for needle in needles:
        at = form.find(needle, 0, first + len(needle) - 1)
        if at >= 0:
            first = at
    return max(0, first - LEAD) if first < len(form) else 0


class Snippets:
    def __init__(self, engine: SearchBackend, catalogue: Catalogue, cache_bytes: int):
        self.engine = engine
        self.catalogue = catalogue
        # Each record's blocks with their marking forms, remembered per record: most of a
        # query's results answered other queries before
        # (docs/decisions/0014-cold-round-4-snippets-ranking-arrays-answer-memo.md).
        self._blocks = cleared_when_full(cache_bytes)(self._record_blocks)
        # What a query's snippets look for, worked out once for its page of results.
        self._plan = functools.lru_cache(maxsize=RECENT_QUERIES)(self._query_plan)

    def plan(self, engine_query: EngineQuery) -> SnippetPlan:
        """What the snippets of `engine_query`'s results look for, worked out once for its
        page rather than for each result (remembered for RECENT_QUERIES queries, as a
        query's next page asks again)."""
        return self._plan(tuple(engine_query.terms), tuple(engine_query.phrases))

    def snippet(self, record: Record, plan: SnippetPlan, script: str | None, text: str) -> tuple[str, str]:
        """Escaped HTML with the matched words of `plan`'s query marked, and the language it
        is shown in; with no word to mark, the start of `text`, the record's `plain_text` in
        `script` (which its result holds already)."""
        highlight, prefer_zh, words = plan
        blocks, others = self._blocks(record.id)
        if prefer_zh and 0 < others < len(blocks):  # Chinese first, each part in language order
            blocks = blocks[others:] + blocks[:others]
        for lang, block, form in blocks:
            start = window_start(form, words)
            end = start + WINDOW
            marked = highlight(display(block[start:end], lang, script), form[start:end])
            if marked:
                return marked, shown_lang(lang, script)
        lang = blocks[0][0] if blocks else "en"
        return html.escape(text[:UNMARKED] + ("…" if len(text) > UNMARKED else "")), shown_lang(lang, script)

    def _record_blocks(self, record_id: str) -> tuple[tuple[tuple[str, str, str], ...], int]:
        """(language, text, marking form) of each block a query searches, other languages
        before Chinese (then in language order), as a query of no Chinese reads them; and
        how many are of other languages (a Chinese query's snippet reads the rest first)."""
        record = self.catalogue.records[record_id]
        blocks = zip(searched_blocks(record), self.catalogue.marking_forms(record), strict=True)
        ordered = tuple(sorted(((lang, block, form) for (lang, block), form in blocks),
                               key=lambda block: (block[0].startswith("zh"), block[0])))
        return ordered, sum(not lang.startswith("zh") for lang, _, _ in ordered)

    def _query_plan(self, terms: tuple, phrases: tuple) -> SnippetPlan:
        return SnippetPlan(self.engine.highlighter(EngineQuery(terms=list(terms), phrases=list(phrases))),
                           bool(terms and HAN_RUN.search(terms[0][0])), needles([t for t, _ in terms] + list(phrases)))

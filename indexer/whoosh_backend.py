"""The Whoosh implementation of the search backend."""
from __future__ import annotations

import html
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from whoosh import highlight, index
from whoosh.analysis import Token
from whoosh.query import And, Or, Term
from whoosh.scoring import BM25F

from .backend import EngineQuery, IndexUnavailable, SearchBackend
from .records import Record
from .schema import FIELD_WEIGHTS, build_schema, document

INDEX_NAME = "records"
# Longest run of query tokens turned into terms: a pasted paragraph still answers quickly.
MAX_QUERY_TOKENS = 48
FILTER_FIELDS = ("kind", "source", "edition", "lang")
# A query token in more than this share of the records is dropped when rarer ones remain.
COMMON_SHARE = 0.05


class MarkFormatter(highlight.Formatter):
    """Escaped HTML with matches in <mark>: a snippet is safe to insert as it is."""

    between = " … "

    def _text(self, text: str) -> str:
        return html.escape(text, quote=True)

    def format_token(self, text, token, replace=False):
        return "<mark>%s</mark>" % html.escape(highlight.get_text(text, token, replace), quote=True)


class _CachedTokens:
    """The body analyzer as the highlighter calls it, remembering each text's tokens: the same
    records come back for many queries, and segmenting them again is most of a snippet's cost.
    The tokens are the analyzer's own, so highlights stay exactly where it puts them."""

    def __init__(self, analyzer):
        self._analyzer = analyzer
        self._spans = lru_cache(maxsize=16384)(self._analyse)

    def _analyse(self, text: str, mode: str) -> tuple[tuple[str, int, int, int], ...]:
        return tuple((t.text, t.startchar, t.endchar, t.pos)
                     for t in self._analyzer(text, chars=True, positions=True, mode=mode, removestops=False))

    def __call__(self, text: str, mode: str = "", **kwargs):
        for word, start, end, pos in self._spans(text, mode):
            token = Token(positions=True, chars=True, mode=mode)
            token.text, token.startchar, token.endchar, token.pos = word, start, end, pos
            yield token


class WhooshBackend(SearchBackend):
    def __init__(self, ix):
        self._ix = ix
        self._searcher = ix.searcher(weighting=BM25F())
        self._analyzers = {name: ix.schema[name].analyzer for name in FIELD_WEIGHTS}
        self._highlight_tokens = _CachedTokens(self._analyzers["body"])
        self._token_cache = lru_cache(maxsize=8192)(self._analyse_query)
        self._highlight_cache = lru_cache(maxsize=8192)(self._highlight)

    @classmethod
    def build(cls, records: Iterable[Record], directory: Path) -> None:
        ix = index.create_in(str(directory), build_schema(), indexname=INDEX_NAME)
        writer = ix.writer(limitmb=256)
        try:
            for record in records:
                writer.add_document(**document(record))
        except BaseException:
            writer.cancel()
            raise
        writer.commit()

    @classmethod
    def open(cls, directory: Path) -> "WhooshBackend":
        try:
            if not index.exists_in(str(directory), indexname=INDEX_NAME):
                raise IndexUnavailable(f"{directory}: no search index there")
            return cls(index.open_dir(str(directory), indexname=INDEX_NAME))
        except IndexUnavailable:
            raise
        except Exception as exc:  # whoosh raises many types for damaged files
            raise IndexUnavailable(f"{directory}: search index unreadable ({type(exc).__name__}: {exc})") from None

    def _tokens(self, field: str, text: str) -> tuple[str, ...]:
        """The query tokens of `text` for one field (cached: glossary expansions and popular
        queries repeat)."""
        return self._token_cache(field, text)

    def _analyse_query(self, field: str, text: str) -> tuple[str, ...]:
        tokens: dict[str, None] = {}
        for token in self._analyzers[field](text, mode="query"):
            tokens[token.text] = None
            if len(tokens) >= MAX_QUERY_TOKENS:
                break
        return tuple(tokens)

    def _query(self, query: EngineQuery):
        """One clause per field and token, at the best weight any form of the query gives it.
        A token found in more than COMMON_SHARE of the records adds little but cost, so it is
        left out while rarer tokens remain (a query of common words only keeps them all)."""
        boosts: dict[tuple[str, str], float] = {}
        for text, weight in query.terms:
            for field, field_weight in FIELD_WEIGHTS.items():
                for tok in self._tokens(field, text):
                    boosts[(field, tok)] = max(boosts.get((field, tok), 0.0), weight * field_weight)
        reader = self._searcher.reader()
        most = COMMON_SHARE * reader.doc_count()
        rare = {key: boost for key, boost in boosts.items() if reader.doc_frequency(*key) <= most}
        clauses = [Term(field, tok, boost=boost) for (field, tok), boost in (rare or boosts).items()]
        must = []
        for phrase in query.phrases:
            tokens = self._tokens("body", phrase)
            if tokens:
                must.append(And([Term("body", tok) for tok in tokens]))
        if not clauses and not must:
            return None
        union = Or(clauses)
        union.matcher_type = Or.ARRAY_MATCHER  # the block-skipping union costs more than it saves in Python
        if must:
            return And(must + ([union] if clauses else []))
        return union

    def search(self, query: EngineQuery, limit: int) -> list[tuple[str, float]]:
        q = self._query(query)
        if q is None:
            return []
        filters = [Term(name, value) for name, value in query.filters.items() if name in FILTER_FIELDS]
        try:
            hits = self._searcher.search(q, limit=limit, filter=And(filters) if filters else None)
            return [(hit["id"], hit.score) for hit in hits]
        except Exception as exc:  # whoosh keeps no checksums: damage shows up as any error here
            raise IndexUnavailable(f"{self._ix.storage.folder}: search index damaged ({type(exc).__name__}: {exc})") from None

    def highlight(self, text: str, query: EngineQuery) -> str | None:
        terms = set()
        for text_part, _ in query.terms:
            terms.update(self._tokens("body", text_part))
        for phrase in query.phrases:
            terms.update(self._tokens("body", phrase))
        if not terms or not text:
            return None
        return self._highlight_cache(text, frozenset(terms))

    def _highlight(self, text: str, terms: frozenset[str]) -> str | None:
        fragmenter = highlight.ContextFragmenter(maxchars=240, surround=60)
        out = highlight.highlight(text, terms, self._highlight_tokens, fragmenter, MarkFormatter(), top=2,
                                  mode="index")
        return out or None

    def known_words(self, text: str) -> list[tuple[str, bool]]:
        reader = self._searcher.reader()
        try:
            return [(tok, reader.doc_frequency("body", tok) > 0 or reader.doc_frequency("names", tok) > 0)
                    for tok in self._tokens("body", text)]
        except Exception as exc:
            raise IndexUnavailable(f"{self._ix.storage.folder}: search index damaged ({type(exc).__name__}: {exc})") from None

    def close(self) -> None:
        self._searcher.close()
        self._ix.close()

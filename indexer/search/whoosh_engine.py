"""The Whoosh implementation of the search backend.

Whoosh writes and reads the index and analyses text; snippets are marked by
`indexer.search.highlighting` with the same analysis. A query, always a
flat union of weighted terms (plus phrase tokens that must all occur, and exact-value
filters), is answered by summing each term's BM25F postings, scored when the index is built
(`_ScoredPostings`) and read from arrays in memory (`_PostingsFile`); the same query run
by Whoosh's own searcher (`search_with_whoosh`) gives the same documents and scores, and the
tests hold the two together."""
from __future__ import annotations

import json
import threading
from array import array
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future
from itertools import accumulate, groupby
from math import log
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm
from whoosh import index
from whoosh.codec.whoosh3 import LENGTHS_COLUMN
from whoosh.filedb.filestore import FileStorage
from whoosh.index import FileIndex
from whoosh.query import And, AndMaybe, AndNot, Not, Or, Require, Term
from whoosh.scoring import BM25F, bm25
from whoosh.util.numeric import byte_to_length

from indexer.documents.chinese import HAN_RUN
from indexer.documents.records import Record

from . import highlighting
from .analysis import Segmenter
from .clauses import COMMON_SHARE, QueryClauses
from .engine import EngineQuery, IndexUnavailable, SearchBackend
from .query import FILTERS
from .schema import (
    FIELD_WEIGHTS,
    NAME_FIELDS,
    NAMED_ONLY_KIND,
    NAMED_ONLY_SOURCE,
    RECALL_FIELD,
    build_schema,
    document,
)
from .term_sums import TermSums
from .term_table import TermTable
from .whoosh_writer import BuildStorage, commit_segments, write_segment, write_segment_apart

INDEX_NAME = "records"
# Whoosh's BM25F with its own parameters (B, K1), the same for every field: the searcher's
# weighting, whose idf and parameters the scored postings use.
WEIGHTING = BM25F()
# The document length each of Whoosh's one-byte quantised lengths stands for.
_BYTE_LENGTHS = np.array([byte_to_length(code) for code in range(256)], np.float64)
# Every term's scored postings, written with the index: documents, scores, and the table of
# terms (per field, each token and its number of postings, in the arrays' order).
POSTINGS_DOCS, POSTINGS_SCORES, POSTINGS_TERMS = "postings-docs.npy", "postings-scores.npy", "postings-terms.json"
# Bytes of query tokens and clauses an opened index remembers, each (whole answers are
# remembered by the library, per query).
CACHE_BYTES = 8 * 2**20


class _ScoredPostings:
    """Each term's postings with their BM25F scores, worked out from Whoosh's postings when the
    index is built (`_PostingsFile.write`).

    A query is a flat union of weighted terms, so a document's score is the sum over the
    query's terms of (term score in that document × the term's weight). Whoosh's matchers
    compute the same sum but call several Python methods for every posting of every query,
    which made them most of a search's time; with each term's scores kept as two arrays, a
    term costs one vectorised addition (numpy: a document's score is added in the same
    order, so the sums are the same floats)."""

    def __init__(self, searcher):
        self._searcher = searcher
        # Every document's quantised length, per (segment offset, field), read whole once.
        self._lengths: dict[tuple[int, str], np.ndarray] = {}

    def _score(self, field: str, token: str) -> tuple[np.ndarray, np.ndarray]:
        """(global document numbers, scores) of one term: Whoosh's own BM25 function with the
        same parameters and statistics its scorer reads (collection idf and average length,
        quantised document length), so the sums equal what its matchers would compute."""
        top = self._searcher
        if not top.schema[field].scorable:  # an exact-value field: membership only
            docs: list[np.ndarray] = [np.fromiter(matcher.all_ids(), np.int32) + offset
                                      for _, offset, matcher in _segments_holding(top.leaf_searchers(), field, token)]
            found = np.concatenate(docs) if docs else np.empty(0, np.int32)
            return found, np.zeros(len(found))
        # Whoosh's own BM25 function, called once over all of a term's postings. Not
        # top.idf: the searcher remembers every term's idf in a dict that never shrinks.
        idf = top.weighting.idf(top, field, token)
        avgfl = top.avg_field_length(field) or 1
        docs = []
        tfs: list[Any] = []
        lengths: list[np.ndarray] = []
        for leaf, offset, matcher in _segments_holding(top.leaf_searchers(), field, token):
            blocks = list(_posting_blocks(matcher))
            ids = np.concatenate([np.asarray(ids, np.int32) for ids, _ in blocks])
            docs.append(ids + offset)
            tfs.extend(weights for _, weights in blocks)
            lengths.append(self._field_lengths(leaf, offset, field)[ids])
        if not docs:
            return np.empty(0, np.int32), np.empty(0)
        tf = np.concatenate([np.asarray(weights, np.float64) for weights in tfs])
        return np.concatenate(docs), bm25(idf, tf, np.concatenate(lengths), avgfl, WEIGHTING.B, WEIGHTING.K1)

    def field(self, field: str) -> tuple[list[str], list[int], np.ndarray, np.ndarray]:
        """Every term of `field` in Whoosh's order: (tokens, postings per token, document
        numbers, scores), the scores those of `_score`. Each segment without deletions (every
        build's) is read in one pass over its term table, each term's postings read from the
        term information the pass gives, and the segments' terms merged in order; then all
        are scored at once: looking each term up three times, and scoring it alone, was most
        of a build's scoring (a quarter of a minute with every card). Any other index term
        by term."""
        leaves = self._searcher.leaf_searchers()
        readers = [leaf.reader() for leaf, _ in leaves]
        if any(reader.has_deletions() or not hasattr(reader, "_terms") for reader in readers):
            return self._field_by_term(field)
        parts = [_segment_terms(reader, field, offset) for reader, (_, offset) in zip(readers, leaves, strict=True)]
        tokens, counts, docs, frequencies, doc_frequencies = _merged(parts)
        if not self._searcher.schema[field].scorable:  # an exact-value field: membership only
            return tokens, counts, docs, np.zeros(len(docs))
        documents = self._searcher.doc_count_all()
        idfs = np.asarray([log(documents / (frequency + 1)) + 1 for frequency in doc_frequencies])  # Whoosh's `idf`
        lengths = np.concatenate([self._field_lengths(leaf, offset, field) for leaf, offset in leaves])
        scores = bm25(np.repeat(idfs, counts), frequencies, lengths[docs],
                      self._searcher.avg_field_length(field) or 1, WEIGHTING.B, WEIGHTING.K1)
        return tokens, counts, docs, scores

    def _field_by_term(self, field: str) -> tuple[list[str], list[int], np.ndarray, np.ndarray]:
        """`field`, a term at a time (`_score`)."""
        tokens, counts, docs, scores = [], [], [], []
        for token in self._searcher.reader().field_terms(field):
            found_docs, found_scores = self._score(field, token)
            tokens.append(token)
            counts.append(len(found_docs))
            docs.append(found_docs.astype(np.int32))
            scores.append(found_scores.astype(np.float64))
        return (tokens, counts, np.concatenate(docs) if docs else np.empty(0, np.int32),
                np.concatenate(scores) if scores else np.empty(0))

    def _field_lengths(self, leaf, offset: int, field: str) -> np.ndarray:
        """The quantised length BM25F reads (`doc_field_length`) of every document of one
        segment and field, read once: scoring a term is then one pass over its postings,
        without a lookup per posting."""
        key = (offset, field)
        lengths = self._lengths.get(key)
        if lengths is None:
            lengths = self._lengths[key] = _quantised_lengths(leaf, field)
        return lengths


def _segment_terms(reader, field: str, offset: int) -> tuple[list[bytes], list[int], list, list, list[int]]:
    """One segment's terms of `field` in its term table's order: (tokens, postings per token,
    global document numbers, term frequencies, document frequencies)."""
    tokens: list[bytes] = []
    counts: list[int] = []
    ids: list[int] = []
    weights: list[float] = []
    doc_frequencies: list[int] = []
    terms, field_format = reader._terms, reader.schema[field].format
    for (name, token), info in terms.items_from(field, b""):
        if name != field:
            break
        matcher = reader._codec.postings_reader(terms._postfile, info, field_format, term=(field, token))
        count = len(ids)
        for block_ids, block_weights in _posting_blocks(matcher):
            ids.extend(block_ids)
            weights.extend(block_weights)
        tokens.append(token)
        counts.append(len(ids) - count)
        doc_frequencies.append(info.doc_frequency())
    return tokens, counts, [offset + doc for doc in ids] if offset else ids, weights, doc_frequencies


def _merged(parts: list[tuple]) -> tuple[list[str], list[int], np.ndarray, np.ndarray, list[int]]:
    """The terms of several segments (`_segment_terms`, in the segments' order) as one index's:
    each token once, in byte order (Whoosh's), its postings those of each segment in turn (so
    in document order), its document frequency their sum."""
    entries = sorted((token, k, at) for k, part in enumerate(parts) for at, token in enumerate(part[0]))
    starts = [list(accumulate(part[1], initial=0)) for part in parts]
    bases = list(accumulate((len(part[2]) for part in parts), initial=0))
    tokens: list[str] = []
    counts: list[int] = []
    doc_frequencies: list[int] = []
    begins: list[int] = []  # where each (segment, term)'s postings start in the segments' arrays, in order
    lengths: list[int] = []
    for token, group in groupby(entries, key=lambda entry: entry[0]):
        count = frequency = 0
        for _, k, at in group:
            begins.append(bases[k] + starts[k][at])
            lengths.append(parts[k][1][at])
            count += parts[k][1][at]
            frequency += parts[k][4][at]
        tokens.append(token.decode("utf-8"))
        counts.append(count)
        doc_frequencies.append(frequency)
    docs = np.concatenate([np.asarray(part[2], np.int32) for part in parts]) if parts else np.empty(0, np.int32)
    weights = np.concatenate([np.asarray(part[3], np.float64) for part in parts]) if parts else np.empty(0)
    if len(parts) > 1:
        begin, length = np.asarray(begins, np.int64), np.asarray(lengths, np.int64)
        order = np.repeat(begin - (np.cumsum(length) - length), length) + np.arange(int(length.sum()))
        docs, weights = docs[order], weights[order]
    return tokens, counts, docs, weights, doc_frequencies


def _quantised_lengths(leaf, field: str) -> np.ndarray:
    """Every document's length in one field of a segment as BM25F reads it (Whoosh's
    one-byte quantised length; 1 where there is none), the segment's column of length bytes
    read in one piece: asked document by document, the whole knowledge base's four fields
    took half a second, paid by a worker's first query. Document by document still for a
    segment without that column."""
    count = leaf.doc_count_all()
    try:
        column = leaf.reader()._perdoc._cached_reader(f"_{field}_len", LENGTHS_COLUMN)
        raw = np.frombuffer(column._dbfile.get(column._basepos, column._count), np.uint8)
    except AttributeError:
        return np.array([leaf.doc_field_length(d, field, 1) or 1 for d in range(count)], np.float64)
    codes = np.zeros(count, np.uint8)
    codes[:len(raw)] = raw[:count]
    return np.where(codes == 0, 1.0, _BYTE_LENGTHS[codes])


class _PostingsFile:
    """Every term's scored postings as the build wrote them: two arrays, read into memory, and
    a table of where each term's part starts. A term asked for the first time costs a dict
    look-up and two slices instead of decoding Whoosh's pickled blocks and scoring them
    (which was a fifth of a first-asked query's time), the server's workers share the pages
    of the master's copy until they switch builds, and nothing grows with the queries asked.
    Read, not mapped: a mapped file cut short under a running server is a SIGBUS at the first
    read past its new end, which kills the worker (docs/decisions/0026-builds-read-into-memory-checksums-fetch.md:
    17 MB for the whole knowledge base). A term's number of postings is its document
    frequency, so choosing a query's terms reads no Whoosh term info either."""

    def __init__(self, directory: Path):
        """Raises OSError or ValueError (a damaged or missing file)."""
        table = json.loads((directory / POSTINGS_TERMS).read_text(encoding="utf-8"))
        self._docs = _array(directory / POSTINGS_DOCS, np.int32)
        self._scores = _array(directory / POSTINGS_SCORES, np.float64)
        # Each field's term table (`TermTable`: a token's number); term k's postings are
        # starts[k]:starts[k + 1] of the arrays. A number and one array, not a (start, end)
        # pair per term: a table of every card's name grams is a third the memory.
        self._terms: dict[str, TermTable] = {}
        counts: list[int] = []
        for field, (tokens, field_counts) in table.items():
            if len(tokens) != len(field_counts):
                raise ValueError(f"{POSTINGS_TERMS}: {field} names {len(tokens)} terms and {len(field_counts)} counts")
            self._terms[field] = TermTable(tokens, len(counts))
            counts.extend(field_counts)
        self._starts = array("q", [0])
        self._starts.extend(accumulate(counts))
        if self._starts[-1] != len(self._docs) or self._starts[-1] != len(self._scores):
            raise ValueError(f"{POSTINGS_TERMS} names {self._starts[-1]} postings, the arrays hold {len(self._docs)}")

    def _span(self, field: str, token: str) -> tuple[int, int]:
        terms = self._terms.get(field)
        term = terms.number(token) if terms is not None else None
        return (0, 0) if term is None else (self._starts[term], self._starts[term + 1])

    @staticmethod
    def write(searcher, directory: Path, fields: Iterable[str]) -> None:
        """Score every term of `fields` (`_ScoredPostings`) and write the arrays and table."""
        scorer = _ScoredPostings(searcher)
        table, docs, scores = {}, [], []
        for field in fields:
            tokens, counts, field_docs, field_scores = scorer.field(field)
            table[field] = [tokens, counts]
            docs.append(field_docs.astype(np.int32))
            scores.append(field_scores.astype(np.float64))
        np.save(directory / POSTINGS_DOCS, np.concatenate(docs) if docs else np.empty(0, np.int32))
        np.save(directory / POSTINGS_SCORES, np.concatenate(scores) if scores else np.empty(0, np.float64))
        (directory / POSTINGS_TERMS).write_text(json.dumps(table, ensure_ascii=False), encoding="utf-8")

    def get(self, field: str, token: str) -> tuple[np.ndarray, np.ndarray]:
        """(document numbers, scores) of one term; empty arrays for a token no document has."""
        start, end = self._span(field, token)
        return self._docs[start:end], self._scores[start:end]

    def frequency(self, field: str, token: str) -> int:
        """How many documents hold the term."""
        start, end = self._span(field, token)
        return end - start

    def held(self, field: str, within: np.ndarray) -> dict[str, bool]:
        """Whether a document of `within` (a mask of document numbers) holds each token of
        `field`: counted for all the field's tokens at once."""
        terms = self._terms.get(field)
        if not terms:
            return {}
        numbers = terms.numbers()
        starts = np.frombuffer(self._starts, np.int64)
        counted = np.concatenate([[0], np.cumsum(within[self._docs], dtype=np.int64)])
        return dict(zip(terms, (counted[starts[numbers + 1]] - counted[starts[numbers]] > 0).tolist(), strict=True))

    def frequencies(self, terms: Iterable[tuple[str, str]]) -> dict[tuple[str, str], int]:
        """`frequency` of each (field, token) term: a query's terms in one call."""
        return {term: self.frequency(*term) for term in terms}

    def tokens(self, field: str) -> Iterator[str]:
        return iter(self._terms.get(field, ()))


def _array(path: Path, dtype) -> np.ndarray:
    """A saved one-dimensional array of `dtype`, read into memory and made read-only."""
    array = np.load(path, allow_pickle=False)
    if array.dtype != dtype or array.ndim != 1:
        raise ValueError(f"{path.name} holds {array.dtype} in {array.ndim} dimensions, not {np.dtype(dtype)} in 1")
    array.flags.writeable = False
    return array


def _posting_blocks(matcher) -> Iterable[tuple]:
    """(document numbers, term frequencies) of a term's postings, a block at a time: Whoosh's
    on-disk matcher decodes a block at once, and reading it posting by posting costs two
    method calls each. Other matchers (postings kept inline for rare terms) one by one."""
    if not hasattr(matcher, "_read_ids"):
        ids, weights = [], []
        while matcher.is_active():
            ids.append(matcher.id())
            weights.append(matcher.weight())
            matcher.next()
        yield ids, weights
        return
    while matcher.is_active():
        matcher._read_ids()
        matcher._read_weights()
        yield matcher._ids, matcher._weights
        matcher._next_block()


def _segments_holding(leaves, field: str, token: str) -> Iterator[tuple[Any, int, Any]]:
    """(segment searcher, its first document's number, the term's matcher) of each of the
    segments `leaves` (a searcher's `leaf_searchers`) that holds the term, in document order."""
    for leaf, offset in leaves:
        reader = leaf.reader()
        if (field, token) in reader:
            yield leaf, offset, reader.postings(field, token)


def _written_apart(record: Record) -> bool:
    """Whether a large build writes the record's document in a segment of another process:
    the card data's (`schema.NAMED_ONLY_SOURCE`), most of a build that has it."""
    return record.source == NAMED_ONLY_SOURCE


class WhooshBackend(SearchBackend):
    def __init__(self, ix, postings: _PostingsFile, segmenter: Segmenter, cache_bytes: int = CACHE_BYTES,
                 record_ids: list[str] | None = None):
        self._ix = ix
        # Whoosh's own searcher, opened when something asks Whoosh itself (`_whoosh`): a
        # search reads only the scored postings, and Whoosh copies each file of a segment it
        # opens (its postings and terms) into the process's own memory, which a server's
        # every worker would hold, again for each build it switches to
        # (docs/decisions/0010-memory-across-index-switches.md).
        self._searcher = None
        self._searcher_lock = threading.Lock()
        self._doc_count = ix.doc_count_all()
        self._postings = postings
        # The query's tokens per field and its clauses, with this build's analyzers and postings.
        self._query = QueryClauses({name: ix.schema[name].analyzer for name in FIELD_WEIGHTS}, segmenter,
                                   postings, self._doc_count, cache_bytes)
        self._record_ids = self._ids_by_number(record_ids)
        # The documents found by their names only (`schema.NAMED_ONLY_SOURCE`), or None.
        named_only = postings.get("source", NAMED_ONLY_SOURCE)[0]
        self._named_only: np.ndarray | None = None
        if len(named_only):
            self._named_only = np.zeros(self._doc_count, bool)
            self._named_only[named_only] = True
        self._sums = TermSums(postings, self._doc_count, named_only)

    @classmethod
    def build(cls, records: list[Record], directory: Path, segmenter: Segmenter, helper: Executor | None = None,
              meanwhile: Callable[[], None] | None = None, progress: bool = False) -> None:
        """With `helper`, the index is written as one segment for each run of records that
        are, or are not, written apart (`_written_apart`), in the records' order: `helper`
        writes the former's while this process writes the others' and then does `meanwhile`.
        Without it, one segment of every record. The scored postings are the same either way."""
        ix = FileIndex.create(BuildStorage(str(directory)), build_schema(), INDEX_NAME)
        runs = [(apart, list(run)) for apart, run in groupby(records, _written_apart)] if helper else [(False, records)]
        words = frozenset(segmenter.words)
        segments: list[Any] = [
            helper.submit(write_segment_apart, str(directory), INDEX_NAME, [document(r) for r in run], words)
            if apart and helper else None for apart, run in runs]
        try:
            for at, (apart, run) in enumerate(runs):
                if not apart:
                    shown = tqdm(run, desc="indexing", unit=" records", disable=not progress)
                    segments[at] = write_segment(ix, (document(record) for record in shown), segmenter)
            if meanwhile is not None:
                meanwhile()
            segments = [segment.result() if isinstance(segment, Future) else segment for segment in segments]
        except BaseException:
            for segment in segments:
                if isinstance(segment, Future):
                    segment.cancel()
            raise
        commit_segments(ix, segments)
        with ix.searcher(weighting=WEIGHTING) as searcher:
            _PostingsFile.write(searcher, directory, (*FIELD_WEIGHTS, *FILTERS))

    @classmethod
    def writes_apart(cls, records: list[Record]) -> bool:
        return any(_written_apart(record) for record in records)

    @classmethod
    def open(cls, directory: Path, segmenter: Segmenter, cache_bytes: int = CACHE_BYTES,
             record_ids: list[str] | None = None) -> WhooshBackend:
        try:
            if not index.exists_in(str(directory), indexname=INDEX_NAME):
                raise IndexUnavailable(f"{directory}: no search index there")
            # Whoosh reads its segment through file reads, not a memory map (its default),
            # for the reason the postings are read (`_PostingsFile`): a damaged file is then
            # an error in one request, never a SIGBUS.
            storage = FileStorage(str(directory), supports_mmap=False, readonly=True)
            return cls(storage.open_index(INDEX_NAME), _PostingsFile(directory), segmenter, cache_bytes, record_ids)
        except IndexUnavailable:
            raise
        except Exception as exc:  # noqa: BLE001  (whoosh raises many types for damaged files)
            raise IndexUnavailable(f"{directory}: search index unreadable ({type(exc).__name__}: {exc})") from None

    def search_with_whoosh(self, query: EngineQuery, limit: int) -> list[tuple[str, float]]:
        """What `search` answers, computed the standard way: the same clauses as a Whoosh
        query, run by Whoosh's searcher and matchers. The tests check that both agree; the
        benchmarks' bare Flask + Whoosh endpoint runs this."""
        terms, common, must = self._query.clauses(query)
        names_only = self._counted_by_name(query) is not None
        cards = Term("source", NAMED_ONLY_SOURCE)

        def term(field: str, tok: str, boost: float):
            """A term's clause; outside the name fields, not of the named-only documents (Whoosh's
            AndNot excludes nothing inside a union, And with Not adds 1.0: Require scores its
            first part only)."""
            clause = Term(field, tok, boost=boost)
            return Require(clause, Not(cards)) if names_only and field not in NAME_FIELDS else clause

        clauses = [(field, term(field, tok, boost)) for (field, tok), boost in terms.items()]
        required = [And([Term("body", tok) for tok in tokens]) for tokens in must]
        if not clauses and not required:
            return []
        union = Or([c for _, c in clauses])
        union.matcher_type = Or.ARRAY_MATCHER
        main = [c for field, c in clauses if field != RECALL_FIELD]
        if common and main:
            # The common terms' scores for what the rare terms found outside the recall field.
            optional = Or([term(field, tok, boost) for (field, tok), boost in common.items()])
            optional.matcher_type = Or.ARRAY_MATCHER
            union = Or([AndMaybe(Or(main), optional), *(c for field, c in clauses if field == RECALL_FIELD)])
        q = And(required + ([union] if clauses else [])) if required else union
        filters = [Term(name, value) for name, value in query.filters.items() if name in FILTERS]
        mask = None
        if names_only:
            by_name = [c for field, c in clauses if field in NAME_FIELDS]
            mask = AndNot(cards, Or(by_name)) if by_name else cards
        hits = self._whoosh().search(q, limit=limit, filter=And(filters) if filters else None, mask=mask)
        return [(hit["id"], hit.score) for hit in hits]

    def _counted_by_name(self, query: EngineQuery) -> np.ndarray | None:
        """The named-only documents (a mask) when `query` counts them by their names only,
        that is unless it asks for cards (`kind:card`); None when it does or there are none."""
        return self._named_only if query.filters.get("kind") != NAMED_ONLY_KIND else None

    def search(self, query: EngineQuery, limit: int) -> list[tuple[str, float]]:
        docs, scores = self._best(query, limit)
        return [(self._record_id(doc), score) for doc, score in zip(docs.tolist(), scores.tolist(), strict=True)]

    def positions(self, query: EngineQuery, limit: int) -> tuple[np.ndarray, np.ndarray]:
        if self._record_ids is None:
            raise ValueError("the index was opened without its records' order")
        return self._best(query, limit)  # the n-th document is the n-th record (`_ids_by_number`)

    def _best(self, query: EngineQuery, limit: int) -> tuple[np.ndarray, np.ndarray]:
        """The best `limit` documents' numbers and scores, best first, then in index order."""
        try:
            terms, common, must = self._query.clauses(query)
            if not terms and not must:
                return np.zeros(0, np.int64), np.zeros(0)
            sums = self._sums
            allowed = None  # the documents the filters let through
            for name, value in query.filters.items():
                if name in FILTERS:
                    holding = np.zeros(self._doc_count, bool)
                    holding[self._postings.get(name, value)[0]] = True
                    allowed = holding if allowed is None else allowed & holding
            within = None
            if allowed is not None:
                first, last = int(allowed.argmax()), self._doc_count - int(allowed[::-1].argmax())
                within = (first, last) if allowed[first] else (0, 0)
            named_only = self._counted_by_name(query)
            scores, matched = sums.scores(terms, common, within, named_only is not None)
            if must:
                scores, matched = sums.required(scores, matched if terms else None, must)
            if allowed is not None:
                matched &= allowed
            # With terms, a named-only document matched only by a name field's (`names_only`);
            # without, only by a phrase, which names no card.
            if named_only is not None and not terms:
                matched &= ~named_only
            docs = np.flatnonzero(matched)
            found = scores[docs]
            if len(docs) > limit:  # the best `limit` and any tied with the last of them
                keep = found >= np.partition(found, len(found) - limit)[len(found) - limit]
                docs, found = docs[keep], found[keep]
            order = np.lexsort((docs, -found))[:limit]  # best first, then in index order
            return docs[order], found[order]
        except Exception as exc:  # noqa: BLE001  (whoosh keeps no checksums: damage shows up as any error)
            raise IndexUnavailable(
                f"{self._ix.storage.folder}: search index damaged ({type(exc).__name__}: {exc})") from None

    def term_frequencies(self, field: str, within: np.ndarray | None = None
                         ) -> tuple[dict, Iterator[tuple[str, bool, int, list[tuple[str, int]]]]]:
        """What a term's score in `field` is made of, for the offline copy (`webapp.offline_copy`),
        which ships frequencies and works the scores out as `_ScoredPostings` does: BM25F's
        parameters, the number of documents its idf counts, the field's average length and each
        record's quantised length (by record id); then every token, whether a search leaves it
        out as common, its document frequency and its postings (record id, term frequency).
        With `within` (a mask of document numbers), a token's postings are those of its
        documents only, and the postings of a token none of them holds are not read (an empty
        list: told from the scored postings in memory): the tens of thousands of cards' words,
        and the cards among a common word's documents, are neither read from disk nor named."""
        searcher = self._ix.searcher(weighting=WEIGHTING)
        lengths = {}
        for leaf, offset in searcher.leaf_searchers():
            for doc, length in enumerate(_quantised_lengths(leaf, field).tolist()):
                lengths[self._record_id(doc + offset)] = length
        scoring = {"b": WEIGHTING.B, "k1": WEIGHTING.K1, "documents": searcher.doc_count_all(),
                   "average": searcher.avg_field_length(field) or 1, "lengths": lengths}

        def terms() -> Iterator[tuple[str, bool, int, list[tuple[str, int]]]]:
            most = COMMON_SHARE * self._doc_count
            try:
                leaves = searcher.leaf_searchers()
                held = self._postings.held(field, within) if within is not None else None
                inside = within.tolist() if within is not None else None  # read per posting
                for token in self._postings.tokens(field):  # Whoosh's order, read from memory
                    frequency = self._postings.frequency(field, token)
                    postings = []
                    if held is None or held[token]:
                        for _, offset, matcher in _segments_holding(leaves, field, token):
                            for ids, tfs in _posting_blocks(matcher):
                                postings += [(self._record_id(doc + offset), int(tf))
                                             for doc, tf in zip(ids, tfs, strict=True)
                                             if inside is None or inside[doc + offset]]
                    yield token, frequency > most, frequency, postings
            finally:
                searcher.close()
        return scoring, terms()

    def unheld(self, field: str, within: np.ndarray) -> dict[str, int]:
        """Each token of `field` that no document of `within` (a mask of document numbers)
        holds, with its document frequency: told from the scored postings in memory."""
        return {token: self._postings.frequency(field, token)
                for token, held in self._postings.held(field, within).items() if not held}

    def _ids_by_number(self, record_ids: list[str] | None) -> list[str] | None:
        """Record ids by document number: the build adds the records in their order, so the
        n-th document is the n-th record, which the first and last documents' stored ids
        confirm; None (each id read from Whoosh's stored fields) for an index written otherwise."""
        if not record_ids or len(record_ids) != self._doc_count:
            return None
        ends = (0, self._doc_count - 1)
        with self._ix.searcher() as searcher:  # closed at once: its copies are freed
            if any(searcher.stored_fields(n)["id"] != record_ids[n] for n in ends):
                return None
        return record_ids

    def _record_id(self, docnum: int) -> str:
        if self._record_ids is not None:
            return self._record_ids[docnum]
        return self._whoosh().stored_fields(docnum)["id"]

    def _whoosh(self):
        """Whoosh's searcher over the index, opened on first use."""
        if self._searcher is None:
            with self._searcher_lock:
                if self._searcher is None:
                    self._searcher = self._ix.searcher(weighting=WEIGHTING)
        return self._searcher

    def highlighter(self, query: EngineQuery) -> Callable[[str, str | None], str | None]:
        """Marks the body tokens of the query's terms and phrases (`highlighting.Marker`)."""
        tokens: set[str] = set()
        for text in [t for t, _ in query.terms] + list(query.phrases):
            tokens.update(self._query.tokens("body", text))
        return highlighting.Marker(frozenset(tokens)).mark

    def word_frequencies(self, text: str) -> list[tuple[str, int]]:
        frequency = self._postings.frequency
        found = []
        tokens = self._query.tokens
        for tok in tokens("body", text):
            count = frequency("body", tok)
            if not count and HAN_RUN.fullmatch(tok):
                count = min((frequency(RECALL_FIELD, gram) for gram in tokens(RECALL_FIELD, tok)), default=0)
            found.append((tok, count))
        return found

    def doc_count(self) -> int:
        return self._doc_count

    def known_words(self, text: str) -> list[tuple[str, bool]]:
        frequency = self._postings.frequency
        return [(tok, frequency("body", tok) > 0 or frequency("names", tok) > 0)
                for tok in self._query.tokens("body", text)]

    def reopen(self) -> None:
        """A searcher opened before the fork is closed, and opened again when next asked for
        (the scored postings are read-only arrays, shared as they are)."""
        with self._searcher_lock:
            inherited, self._searcher = self._searcher, None
        if inherited is not None:
            inherited.close()

    def close(self) -> None:
        if self._searcher is not None:
            self._searcher.close()
        self._ix.close()

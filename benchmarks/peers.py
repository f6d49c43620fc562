"""This engine against peer engines: the same records, the same judged queries, one run.

Peers, each in a good-faith default configuration over the same fields of every record
(`indexer.search.schema.document`: names, title, body):

* naive Whoosh: jieba's `ChineseAnalyzer` on every field, the query through Whoosh's plain
  `MultifieldParser` (its default: all words required);
* SQLite FTS5 with the `trigram` tokenizer, ranked by bm25 with the same field weights as this
  engine; the query is split at spaces and each piece is matched as a quoted phrase (quotes
  doubled, so no FTS5 syntax reaches the parser). A piece of fewer than three characters
  cannot be a trigram query, so it is matched with LIKE '%piece%' over the columns (a full
  scan; the columns are concatenated with '' so that SQLite does not hand the pattern to the
  trigram index, which in SQLite 3.40 answers a two-character Chinese LIKE pattern with no
  rows at all). All pieces are required; a query of short pieces only is ordered by where the
  match is: name, then title, then shorter body first;
* tantivy (when installed) with jieba pre-segmentation: texts cut with `cut_for_search` and
  joined with spaces, English stemmed by tantivy's `en_stem`; the query cut with jieba, every
  word a quoted term, any word may match (tantivy's default), field boosts as this engine's.

Every peer's hits are turned into the result shape the judged scorer reads, from the same
records, so MRR@10 and hit@5 mean the same for every engine. A peer's query time is its
search and the mapping of hits to records; this engine's is the whole `Library.search`
(query understanding, ranking, snippets, result dicts), i.e. what /api/search does.
"""
from __future__ import annotations

import re
import shutil
import sqlite3
import tempfile
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Protocol

import jieba
from whoosh import index as whoosh_index
from whoosh.fields import ID, TEXT, Schema
from whoosh.qparser import MultifieldParser

from indexer.documents.ingest import IngestResult
from indexer.documents.records import Record
from indexer.knowledge.display import names_in_all_scripts, plain_text, record_title
from indexer.knowledge.library import Library
from indexer.search.schema import FIELD_WEIGHTS, document

from . import measure
from .corpora import build_records, ingest_paths
from .measure import LATENCY_HEADERS, build_folder, folder_bytes, judged, latency_cells, megabytes, stopwatch, table

FIELDS = ("names", "title", "body")
RESULTS = 10
ENGINE_FILES = re.compile(r"^_?records_")   # Whoosh's files (segments, TOC, lock) in an index folder


def result_dict(record: Record) -> dict:
    """A record in the shape of an /api/search result, as far as the judged scorer reads it."""
    names = record.names if record.kind != "rule" else record.title
    return {"id": record.id, "kind": record.kind, "rule": record.number, "title": record_title(record),
            "names": names_in_all_scripts(names), "text": plain_text(record)}


class ThisEngine:
    name = "this engine (Library over the built index)"

    def build(self, result: IngestResult, folder: Path) -> None:
        outcome = build_records(result, folder)
        self.folder = outcome.folder
        self.library = Library(build_folder(folder))

    def size(self) -> int:
        return sum(p.stat().st_size for p in self.folder.iterdir() if ENGINE_FILES.match(p.name))

    def search(self, query: str) -> list[dict]:
        return self.library.search(query, RESULTS)["results"]

    def close(self) -> None:
        self.library.close()


class Engine(Protocol):
    """What the comparison asks of each engine: build an index of the records, search it, say
    its size on disk, and close it."""

    name: str

    def build(self, result: IngestResult, folder: Path) -> None: ...

    def size(self) -> int: ...

    def search(self, query: str) -> list[dict]: ...

    def close(self) -> None: ...


class RecordPeer(ABC):
    """A peer that returns record ids; the records are this engine's, for scoring."""

    name: str

    @abstractmethod
    def index(self, records: list[Record], folder: Path) -> None:
        """The peer's own index of `records`, in `folder`."""

    @abstractmethod
    def ids(self, query: str) -> list[str]:
        """The ids of the records the peer finds for `query`, best first."""

    @abstractmethod
    def close(self) -> None: ...

    def build(self, result: IngestResult, folder: Path) -> None:
        self.records = {r.id: r for r in result.records}
        self.folder = folder
        self.index(result.records, folder)

    def size(self) -> int:
        return folder_bytes(self.folder)

    def search(self, query: str) -> list[dict]:
        return [result_dict(self.records[i]) for i in self.ids(query)]


class NaiveWhoosh(RecordPeer):
    name = "naive Whoosh + jieba ChineseAnalyzer"

    def index(self, records: list[Record], folder: Path) -> None:
        from jieba.analyse import ChineseAnalyzer

        analyzer = ChineseAnalyzer()
        schema = Schema(id=ID(stored=True, unique=True), **{f: TEXT(analyzer=analyzer) for f in FIELDS})
        ix = whoosh_index.create_in(str(folder), schema)
        writer = ix.writer(limitmb=256)
        for record in records:
            doc = document(record)
            writer.add_document(id=record.id, **{f: doc[f] for f in FIELDS})
        writer.commit()
        self.searcher = ix.searcher()
        self.parser = MultifieldParser(list(FIELDS), schema)

    def ids(self, query: str) -> list[str]:
        return [hit["id"] for hit in self.searcher.search(self.parser.parse(query), limit=RESULTS)]

    def close(self) -> None:
        self.searcher.close()


class SqliteTrigram(RecordPeer):
    name = "SQLite FTS5 trigram"
    MIN_TRIGRAM = 3

    def index(self, records: list[Record], folder: Path) -> None:
        self.db = sqlite3.connect(folder / "fts.sqlite3")
        self.db.execute("CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, names, title, body, tokenize='trigram')")
        rows = []
        for record in records:
            doc = document(record)
            rows.append((record.id, *(doc[f] for f in FIELDS)))
        self.db.executemany("INSERT INTO docs VALUES (?, ?, ?, ?)", rows)
        self.db.commit()
        self.weights = ", ".join(str(FIELD_WEIGHTS[f]) for f in FIELDS)

    def ids(self, query: str) -> list[str]:
        pieces = re.findall(r'[^\s"]+', query)
        phrases = ['"' + p.replace('"', '""') + '"' for p in pieces if len(p) >= self.MIN_TRIGRAM]
        short = [p for p in pieces if len(p) < self.MIN_TRIGRAM]
        if not pieces:
            return []
        where, params = [], []
        if phrases:
            where.append("docs MATCH ?")
            params.append(" ".join(phrases))
        for piece in short:
            pattern = "%" + piece.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            where.append("(names || '' LIKE ? ESCAPE '\\' OR title || '' LIKE ? ESCAPE '\\'"
                         " OR body || '' LIKE ? ESCAPE '\\')")
            params += [pattern] * 3
        if phrases:
            order = f"bm25(docs, 0, {self.weights})"
        else:
            pattern = params[0]
            order = "(names || '' LIKE ? ESCAPE '\\') DESC, (title || '' LIKE ? ESCAPE '\\') DESC, length(body)"
            params += [pattern, pattern]
        sql = f"SELECT id FROM docs WHERE {' AND '.join(where)} ORDER BY {order} LIMIT {RESULTS}"
        return [row[0] for row in self.db.execute(sql, params)]

    def close(self) -> None:
        self.db.close()


class TantivyJieba(RecordPeer):
    name = "tantivy + jieba pre-segmentation"

    def index(self, records: list[Record], folder: Path) -> None:
        import tantivy

        builder = tantivy.SchemaBuilder()
        builder.add_text_field("id", stored=True, tokenizer_name="raw")
        for f in FIELDS:
            builder.add_text_field(f, tokenizer_name="en_stem")
        self.index_ = tantivy.Index(builder.build(), path=str(folder))
        writer = self.index_.writer()
        for record in records:
            doc = document(record)
            writer.add_document(tantivy.Document(id=record.id, **{f: self.segment(doc[f]) for f in FIELDS}))
        writer.commit()
        writer.wait_merging_threads()
        self.index_.reload()
        self.searcher = self.index_.searcher()

    @staticmethod
    def segment(text: str) -> str:
        return " ".join(w for w in jieba.cut_for_search(text) if w.strip())

    def ids(self, query: str) -> list[str]:
        words = [w for w in jieba.cut(query) if re.search(r"\w", w)]
        if not words:
            return []
        text = " ".join('"' + re.sub(r'["\\]', " ", w) + '"' for w in words)
        parsed = self.index_.parse_query(text, list(FIELDS), field_boosts={f: FIELD_WEIGHTS[f] for f in FIELDS})
        hits = self.searcher.search(parsed, RESULTS).hits
        return [self.searcher.doc(address)["id"][0] for _, address in hits]

    def close(self) -> None:
        pass


def tantivy_available() -> bool:
    try:
        import tantivy  # noqa: F401
    except ImportError:
        return False
    return True


def compare(paths: list[Path], rounds: int = 3) -> str:
    """The side-by-side table: quality and speed of every engine on the records of `paths`."""
    result, ingest_seconds = ingest_paths(paths)
    queries = measure.judged_queries()
    engines: list[Engine] = [ThisEngine(), NaiveWhoosh(), SqliteTrigram()]
    if tantivy_available():
        engines.append(TantivyJieba())
    rows, failures = [], {}
    work = Path(tempfile.mkdtemp(prefix="bench-peers-"))
    try:
        for n, engine in enumerate(engines):
            folder = work / str(n)
            folder.mkdir()
            with stopwatch() as built:
                engine.build(result, folder)
            errors: list[str] = []

            def search(query: str, engine=engine, errors=errors) -> list[dict]:
                try:
                    return engine.search(query)
                except Exception as exc:  # noqa: BLE001  a peer's parser may refuse a query with any error: a miss, counted
                    errors.append(f"{query!r}: {type(exc).__name__}: {exc}")
                    return []

            times = measure.time_queries(search, queries, rounds)
            quality = judged.score(lambda q, k: search(q)[:k])
            rows.append([engine.name, f"{quality['mrr']:.3f}", f"{quality['hit5']:.3f}", *latency_cells(times),
                         f"{built[0]:.1f} s", megabytes(engine.size())])
            failures[engine.name] = sorted(set(errors))
            engine.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    lines = [f"{len(result.records)} records from {', '.join(str(p) for p in paths)} (ingested in "
             f"{ingest_seconds:.1f} s, shared by all engines); {len(queries)} judged queries, timed "
             f"when first asked and over {rounds} more rounds (\"again\").", "",
             table(["engine", "MRR@10", "hit@5", *LATENCY_HEADERS, "index build", "index size"], rows)]
    if not tantivy_available():
        lines.append("\ntantivy is not installed: its row is missing.")
    for name, errors in failures.items():
        if errors:
            lines.append(f"\n{name}: {len(errors)} queries raised (scored as misses): " + "; ".join(errors[:5]))
    return "\n".join(lines)

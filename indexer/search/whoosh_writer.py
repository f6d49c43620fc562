"""Whoosh's segment writer, without the costs that grow with every posting.

Whoosh 2.7's writer asks the kernel for each term's file position, opens a document-length
column file (or looks for one) for every posting it writes, and sorts a large build's postings
on disk one marshalled posting at a time: on a build of every card, a third of the build
(docs/decisions/0076-whoosh-written-without-its-costs-per-posting.md). This writer writes the
same files: positions are counted as the bytes are written, lengths are read once per field,
and a run is written and read in pieces. A document may also come analysed already
(`analysed`, run in another process), its postings added as they are. Its output is held to
Whoosh's own by `tests/test_whoosh_writer.py`."""
from __future__ import annotations

import heapq
import marshal
from collections.abc import Iterable, Iterator
from itertools import islice
from struct import Struct

from whoosh.codec.whoosh3 import LENGTHS_COLUMN
from whoosh.filedb.filestore import FileStorage
from whoosh.filedb.structfile import StructFile
from whoosh.util.numeric import byte_to_length
from whoosh.writing import PostingPool, SegmentWriter

from .analysis import attach_segmenter, segmenter_for
from .schema import build_schema

# Postings a run holds in one marshalled piece: about 6 MB of postings read back at a time.
RUN_PIECE = 65_536
_PIECE_SIZE = Struct("<Q")
# The length each of Whoosh's one-byte quantised lengths stands for (0: none recorded).
_LENGTHS = (None, *(byte_to_length(code) for code in range(1, 256)))


class _CountedFile:
    """A file being written that counts its own position: Whoosh asks for it at every term,
    and a buffered file's `tell` is a system call each time."""

    def __init__(self, file):
        self._file = file
        self._position = file.tell()

    def write(self, data) -> int:
        written = self._file.write(data)
        self._position += written
        return written

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = 0) -> int:
        self._position = self._file.seek(offset, whence)
        return self._position

    def __getattr__(self, name: str):
        return getattr(self._file, name)


class BuildStorage(FileStorage):
    """A folder an index is written into: each file it creates counts its position."""

    def create_file(self, name, excl=False, mode="wb", **kwargs) -> StructFile:
        created = super().create_file(name, excl, mode, **kwargs)
        created.file = _CountedFile(created.file)
        return created


class _PiecewisePool(PostingPool):
    """Whoosh's posting pool, its runs written and read a piece of RUN_PIECE postings at a
    time: marshal reading a file posting by posting is a Python call per field of each."""

    def _write_run(self, f, items: Iterable) -> None:
        postings = iter(items)
        while piece := list(islice(postings, RUN_PIECE)):
            data = marshal.dumps(piece, 2)
            f.write(_PIECE_SIZE.pack(len(data)))
            f.write(data)
        f.close()

    def _read_run(self, path: str) -> Iterator:
        f = self._open_run(path)
        try:
            while head := f.read(_PIECE_SIZE.size):
                yield from marshal.loads(f.read(_PIECE_SIZE.unpack(head)[0]))
        finally:
            f.close()
            self._remove_run(path)

    def _merge_runs(self, paths: list[str]) -> Iterator:
        return heapq.merge(*(self._read_run(path) for path in paths))


class _LengthsInMemory:
    """The new segment's document lengths as the postings are written: each field's column
    read once, where Whoosh's reader reads (or looks for) a file at each posting."""

    def __init__(self, perdoc, fields: Iterable[str]):
        self._perdoc = perdoc
        self._columns: dict[str, bytes] = {}
        count = perdoc.doc_count_all()
        for field in fields:
            column = perdoc._cached_reader(f"_{field}_len", LENGTHS_COLUMN)
            if column is not None:  # a document past the column's end has no length
                self._columns[field] = column._dbfile.get(column._basepos, column._count).ljust(count, b"\0")

    def doc_field_length(self, docnum: int, fieldname: str, default=0):
        column = self._columns.get(fieldname)
        return default if column is None else _LENGTHS[column[docnum]]

    def close(self) -> None:
        self._perdoc.close()


def analysed(documents: list[dict[str, str]], words: frozenset[str]) -> bytes:
    """Each document's postings by field, as the build's schema analyses them with the
    segmenter of `words` (for `BuildWriter.add_analysed`, in another process), marshalled:
    as bytes they take a third of the memory they take as objects until they are indexed."""
    schema = build_schema()
    segmenter = segmenter_for(words)
    for name in schema.names():
        attach_segmenter(getattr(schema[name], "analyzer", None), segmenter)
    return marshal.dumps([{name: list(schema[name].index(value)) for name, value in document.items()
                           if value is not None and schema[name].indexed} for document in documents])


class BuildWriter(SegmentWriter):
    """Whoosh's `SegmentWriter` with the pool and the lengths above, and documents analysed
    elsewhere."""

    def __init__(self, ix, limitmb: int = 128, **kwargs):
        super().__init__(ix, limitmb=limitmb, **kwargs)
        self.pool = _PiecewisePool(self._tempstorage, self.newsegment, limitmb=limitmb)
        # What `add_analysed` leaves out of `add_document`: spelling words, term vectors, columns.
        self._plain = not any(field.separate_spelling() or field.vector or field.column_type
                              for _, field in self.schema.items())

    def add_analysed(self, fields: dict[str, str], postings: dict[str, list[tuple]]) -> None:
        """`add_document(**fields)`, each indexed field's postings as `analysed` made them."""
        if not self._plain:
            raise ValueError("a schema with spelling, vectors or columns takes documents whole")
        self._check_state()
        perdoc, docnum, add = self.perdocwriter, self.docnum, self.pool.add
        docboost = self._doc_boost(fields)
        perdoc.start_doc(docnum)
        for name in sorted(name for name in fields if not name.startswith("_")):
            value = fields[name]
            if value is None:
                continue
            field = self.schema[name]
            length = 0
            if field.indexed:
                boost = self._field_boost(fields, name, docboost)
                for text, frequency, weight, encoded in postings[name]:
                    if field.scorable:
                        length += frequency
                    add((name, text, docnum, weight * boost, encoded))
            perdoc.add_field(name, field, value if field.stored else None, length)
        perdoc.finish_doc()
        self._added = True
        self.docnum += 1

    def per_document_reader(self) -> _LengthsInMemory:
        return _LengthsInMemory(super().per_document_reader(), self.schema.scorable_names())

"""Whoosh's segment writer, without the costs that grow with every posting.

Whoosh 2.7's writer asks the kernel for each term's file position, opens a document-length
column file (or looks for one) for every posting it writes, and sorts a large build's postings
on disk one marshalled posting at a time: on a build of every card, a third of the build
(docs/decisions/0076-whoosh-written-without-its-costs-per-posting.md). This writer writes the
same files: positions are counted as the bytes are written, lengths are read once per field,
and a run is written and read in pieces. A segment may be written by another process
(`write_segment_apart`): each process's writer spills its runs into a folder of its own. Its output is
held to Whoosh's own by `tests/test_whoosh_writer.py`."""
from __future__ import annotations

import heapq
import marshal
import os
from collections.abc import Iterable, Iterator
from itertools import islice
from struct import Struct
from typing import Any

from whoosh.codec.whoosh3 import LENGTHS_COLUMN
from whoosh.filedb.filestore import FileStorage
from whoosh.filedb.structfile import StructFile
from whoosh.index import TOC, clean_files
from whoosh.util.numeric import byte_to_length
from whoosh.writing import PostingPool, SegmentWriter

from .analysis import Segmenter, attach_segmenter, segmenter_for

# Postings a run holds in one marshalled piece: about 6 MB of postings read back at a time.
RUN_PIECE = 65_536
_PIECE_SIZE = Struct("<Q")
# The length each of Whoosh's one-byte quantised lengths stands for (0: none recorded).
_LENGTHS = (None, *(byte_to_length(code) for code in range(1, 256)))
# The postings a segment's writer holds in memory before it spills a run to disk, in Whoosh's
# estimate of their size.
POOL_MB = 256


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
    """A folder an index is written into: each file it creates counts its position, and the
    temporary folder of a segment's writer (its spilled runs and columns) is named for its
    process, where Whoosh names one for every writer of an index: two processes writing a
    segment each would otherwise delete each other's files. (A process writes its segments
    one after another, and a writer deletes the folder when it is done.)"""

    def create_file(self, name, excl=False, mode="wb", **kwargs) -> StructFile:
        created = super().create_file(name, excl, mode, **kwargs)
        created.file = _CountedFile(created.file)
        return created

    def temp_storage(self, name=None):
        return super().temp_storage(f"{name or 'writer'}.{os.getpid()}")


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
        documents = perdoc.doc_count_all()
        for field in fields:
            column = perdoc._cached_reader(f"_{field}_len", LENGTHS_COLUMN)
            if column is not None:  # a document past the column's end has no length
                self._columns[field] = column._dbfile.get(column._basepos, column._count).ljust(documents, b"\0")

    def doc_field_length(self, docnum: int, fieldname: str, default=0):
        column = self._columns.get(fieldname)
        return default if column is None else _LENGTHS[column[docnum]]

    def close(self) -> None:
        self._perdoc.close()


class BuildWriter(SegmentWriter):
    """Whoosh's `SegmentWriter` with the pool and the lengths above."""

    def __init__(self, ix, limitmb: int = 128, **kwargs):
        super().__init__(ix, limitmb=limitmb, **kwargs)
        self.pool = _PiecewisePool(self._tempstorage, self.newsegment, limitmb=limitmb)

    def per_document_reader(self) -> _LengthsInMemory:
        return _LengthsInMemory(super().per_document_reader(), self.schema.scorable_names())


def write_segment(ix, documents: Iterable[dict], segmenter: Segmenter) -> Any:
    """A segment of `documents` (`schema.document`'s fields) written into the index `ix`, the
    Chinese segmented by `segmenter`; the segment, not yet in the index's table of contents
    (`commit_segments`). Writers of several segments of one index may run at once: none
    takes the index's lock (the build owns its folder)."""
    writer = BuildWriter(ix, limitmb=POOL_MB, _lk=False)
    for name in writer.schema.names():
        attach_segmenter(getattr(writer.schema[name], "analyzer", None), segmenter)
    try:
        for fields in documents:
            writer.add_document(**fields)
        segment = writer._finalize_segment()
    except BaseException:
        writer.cancel()
        raise
    writer._finish()
    return segment


def write_segment_apart(directory: str, index_name: str, documents: list[dict], words: frozenset[str]) -> Any:
    """`write_segment` in another process: the index in `directory`, the segmenter of `words`."""
    ix = BuildStorage(directory).open_index(index_name)
    return write_segment(ix, documents, segmenter_for(words))


def commit_segments(ix, segments: list) -> None:
    """Make `segments` the index's segments, in their order (their documents are numbered in
    it), in a new table of contents; the files of no segment are deleted."""
    generation = ix.latest_generation() + 1
    TOC(ix.schema, segments, generation).write(ix.storage, ix.indexname)
    clean_files(ix.storage, ix.indexname, generation, segments)

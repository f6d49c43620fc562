"""The build's segment writer (`indexer.search.whoosh_writer`) writes what Whoosh's own writes:
every file of the segment the same bytes, with its postings sorted in memory or spilled to
runs of several pieces, and with documents analysed apart."""
from __future__ import annotations

import hashlib
import marshal
from concurrent.futures import Executor, Future
from pathlib import Path

import pytest
from whoosh import index
from whoosh.filedb.compound import CompoundStorage
from whoosh.filedb.filestore import FileStorage
from whoosh.index import FileIndex

from indexer.search import analysis, whoosh_engine, whoosh_writer
from indexer.search.analysis import attach_segmenter
from indexer.search.build import user_words
from indexer.search.schema import build_schema, document
from indexer.search.whoosh_writer import BuildStorage, BuildWriter, analysed

NAME = "records"


def _segment_files(folder: Path) -> dict[str, str]:
    """Each file of the folder's one segment (the segment's random name taken out): its digest."""
    [compound] = folder.glob(f"{NAME}_*.seg")
    segment_id = compound.stem.removeprefix(f"{NAME}_")
    storage = CompoundStorage(FileStorage(str(folder)).open_file(compound.name), use_mmap=False)
    files = {}
    for name in storage.list():
        with storage.open_file(name) as f:
            files[name.replace(segment_id, "ID")] = hashlib.sha256(f.read()).hexdigest()
    return files


def _write(records, folder: Path, ix: FileIndex, writer, analysed_apart: bool = False) -> dict[str, str]:
    words = frozenset(user_words(records))
    segmenter = analysis.segmenter_for(words)
    for name in writer.schema.names():
        attach_segmenter(getattr(writer.schema[name], "analyzer", None), segmenter)
    documents = [document(record) for record in records]
    if analysed_apart:
        for fields, postings in zip(documents, marshal.loads(analysed(documents, words)), strict=True):
            writer.add_analysed(fields, postings)
    else:
        for fields in documents:
            writer.add_document(**fields)
    writer.commit()
    ix.close()
    return _segment_files(folder)


@pytest.fixture(scope="module")
def whooshs_own(ingested, tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("whoosh")
    ix = index.create_in(str(folder), build_schema(), indexname=NAME)
    return _write(ingested.records[:3000], folder, ix, ix.writer())


@pytest.mark.parametrize("limitmb", [256, 1], ids=["in-memory", "spilled"])
def test_the_segment_is_whooshs_own(ingested, whooshs_own, tmp_path, monkeypatch, limitmb):
    monkeypatch.setattr(whoosh_writer, "RUN_PIECE", 1000)
    ix = FileIndex.create(BuildStorage(str(tmp_path)), build_schema(), NAME)
    writer = BuildWriter(ix, limitmb=limitmb)
    if limitmb == 1:  # the pool spills runs of more than one piece each
        real_save = writer.pool.save
        spilled = []

        def save():
            spilled.append(len(writer.pool.current))
            real_save()
        monkeypatch.setattr(writer.pool, "save", save)
    files = _write(ingested.records[:3000], tmp_path, ix, writer)
    assert files == whooshs_own
    assert {"pst", "trm"} <= {name.rsplit(".", 1)[-1] for name in files}
    if limitmb == 1:
        assert len(spilled) > 2 and max(spilled) > 2 * whoosh_writer.RUN_PIECE


def test_documents_analysed_apart_make_the_same_segment(ingested, whooshs_own, tmp_path):
    ix = FileIndex.create(BuildStorage(str(tmp_path)), build_schema(), NAME)
    assert _write(ingested.records[:3000], tmp_path, ix, BuildWriter(ix, limitmb=1), analysed_apart=True) == whooshs_own


class _Idle(Executor):
    """Another process that never starts what it is handed."""

    def submit(self, fn, /, *args, **kwargs) -> Future:
        return Future()


def test_pieces_the_other_process_has_not_started_are_analysed_here(ingested, monkeypatch):
    monkeypatch.setattr(whoosh_engine, "HANDED_DOCUMENTS", 5)
    records = ingested.records[:23]
    segmenter = analysis.segmenter_for(frozenset(user_words(records)))
    handed = whoosh_engine._Handed(records, segmenter, _Idle())
    expected = marshal.loads(analysed([document(r) for r in records], frozenset(segmenter.words)))
    assert [handed.next(record) for record in records] == [
        (document(record), postings) for record, postings in zip(records, expected, strict=True)]
    assert not handed._pieces


def test_a_counted_file_knows_its_position_after_seeks(tmp_path):
    created = BuildStorage(str(tmp_path)).create_file("f")
    created.write(b"abcdef")
    assert created.tell() == 6
    created.seek(2)
    created.write(b"XY")
    assert created.tell() == 4
    created.seek(0, 2)
    assert created.tell() == 6
    created.close()
    assert (tmp_path / "f").read_bytes() == b"abXYef"

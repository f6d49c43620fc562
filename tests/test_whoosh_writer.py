"""The build's segment writer (`indexer.search.whoosh_writer`) writes what Whoosh's own writes:
every file of the segment the same bytes, with its postings sorted in memory or spilled to
runs of several pieces; and an index of several segments, written at once, scores as one."""
from __future__ import annotations

import hashlib
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from whoosh import index
from whoosh.filedb.compound import CompoundStorage
from whoosh.filedb.filestore import FileStorage
from whoosh.index import FileIndex

from indexer.search import analysis, whoosh_engine, whoosh_writer
from indexer.search.analysis import attach_segmenter
from indexer.search.build import user_words
from indexer.search.schema import build_schema, document
from indexer.search.whoosh_writer import BuildStorage, BuildWriter, commit_segments, write_segment

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


def _write(records, folder: Path, ix: FileIndex, writer) -> dict[str, str]:
    segmenter = analysis.segmenter_for(frozenset(user_words(records)))
    for name in writer.schema.names():
        attach_segmenter(getattr(writer.schema[name], "analyzer", None), segmenter)
    for record in records:
        writer.add_document(**document(record))
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


def test_segments_written_at_once_score_as_one(ingested, tmp_path):
    """An index written as segments, one of them by another process at the same time, each
    writer spilling its own runs: its scored postings are those of one segment of the same
    records, term for term, in the same order and the same floats."""
    records = ingested.records[:1500]
    segmenter = analysis.segmenter_for(frozenset(user_words(records)))
    whole_folder, split_folder = tmp_path / "whole", tmp_path / "split"
    whole_folder.mkdir()
    split_folder.mkdir()
    whole = FileIndex.create(BuildStorage(str(whole_folder)), build_schema(), NAME)
    commit_segments(whole, [write_segment(whole, [document(r) for r in records], segmenter)])
    split = FileIndex.create(BuildStorage(str(split_folder)), build_schema(), NAME)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as other:
        apart = other.submit(whoosh_writer.write_segment_apart, str(split_folder), NAME,
                             [document(r) for r in records[400:1100]], frozenset(segmenter.words))
        first = write_segment(split, [document(r) for r in records[:400]], segmenter)
        last = write_segment(split, [document(r) for r in records[1100:]], segmenter)
        commit_segments(split, [first, apart.result(), last])
    assert not [p for p in split_folder.iterdir() if p.is_dir()]
    with whole.searcher() as one, split.searcher() as three:
        assert len(three.leaf_searchers()) == 3
        for field in ("names", "body", "grams", "kind"):
            expected = whoosh_engine._ScoredPostings(one).field(field)
            found = whoosh_engine._ScoredPostings(three).field(field)
            assert expected[:2] == found[:2], field
            assert np.array_equal(expected[2], found[2]) and np.array_equal(expected[3], found[3]), field


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

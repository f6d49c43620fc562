"""Folded texts: the form literal and phrase checks compare in, and the file the build keeps."""
from __future__ import annotations

import pytest

from indexer.documents.records import Record
from indexer.search.folding import FILE, fold_key, fold_record, write
from indexer.search.record_lines import RecordLines


@pytest.mark.parametrize("text, key", [
    ("Murderous Redcap", "murderousredcap"),
    ("奪魂紅帽客", "夺魂红帽客"),
    ("ＭＵＲＤＥＲＯＵＳ　Ｒｅｄｃａｐ！", "murderousredcap"),
    ("「乾枯」異能，如常地", "干枯异能如常地"),
    ("702.30a", "70230a"),
    ("", ""),
])
def test_fold_key(text, key):
    assert fold_key(text) == key


def records():
    return [
        Record(id="a", kind="card", source="s", edition=None, line=1, offset=0,
               names={"zh_hant": "奪魂紅帽客", "en": "Murderous Redcap"},
               text={"zh_hant": "當奪魂紅帽客進場時，\n它對任一目標造成傷害。", "en": "When it enters, deal damage."}),
        Record(id="b", kind="rule", source="s", edition="2026-01-01", line=2, offset=9, number="702.79",
               text={"en": "Persist\nis a triggered ability."}),
        Record(id="c", kind="section", source="s", edition=None, line=3, offset=20, text={}),
    ]


def test_written_file_reads_back_by_position(tmp_path):
    write(records(), tmp_path)
    folded = RecordLines(tmp_path / FILE, 3)
    try:
        assert [folded[i] for i in range(3)] == [fold_record(r) for r in records()]
        assert "当夺魂红帽客进场时它对任一目标造成伤害" in folded[0] and "whenitentersdealdamage" in folded[0]
        assert folded[1] == "persistisatriggeredability" and folded[2] == ""
    finally:
        folded.close()


def test_a_file_of_another_record_count_is_refused(tmp_path):
    write(records(), tmp_path)
    with pytest.raises(ValueError, match=f"{FILE} holds 3 lines for 4 records"):
        RecordLines(tmp_path / FILE, 4)
    (tmp_path / FILE).write_bytes(b"abc\ndef")  # the last line cut short
    with pytest.raises(ValueError):
        RecordLines(tmp_path / FILE, 2)


def test_an_empty_index_has_an_empty_file(tmp_path):
    write([], tmp_path)
    assert (tmp_path / FILE).read_bytes() == b""
    RecordLines(tmp_path / FILE, 0).close()


def test_a_damaged_byte_reads_as_a_replacement_not_an_error(tmp_path):
    (tmp_path / FILE).write_bytes(b"abc\xffdef\n\xe5\xa4\n")
    folded = RecordLines(tmp_path / FILE, 2)
    assert folded[0] == "abc\ufffddef" and folded[1] == "\ufffd"
    folded.close()


def test_lines_are_searched_where_they_lie_in_the_file(tmp_path):
    write(records(), tmp_path)
    folded = RecordLines(tmp_path / FILE, 3)
    try:
        assert folded.holding([0, 1, 2], "夺魂红帽客".encode()) == [0]
        assert folded.holding([2, 1, 0], b"persist") == [1] and folded.holding([0, 0], b"dealdamage") == [0, 0]
        # A line's end is its own: neither the next line nor the line break is searched.
        assert folded.holding([0, 1], b"damagepersist") == [] and folded.holding([1], b"ability\n") == []
        assert folded.holding([2], b"a") == [] and folded.holding([2], b"") == [2]
    finally:
        folded.close()


def test_many_needles_are_found_in_the_lines_as_each_alone(tmp_path):
    """`holding_each` joins the lines once for all its needles: the same answers as `holding`,
    in the order and with the repeats of the positions given, none across two lines."""
    write(records(), tmp_path)
    folded = RecordLines(tmp_path / FILE, 3)
    needles = ["夺魂红帽客".encode(), b"persist", b"dealdamage", b"damagepersist", b"ability\n", b"a", b"", b"zzz"]
    for positions in ([0, 1, 2], [2, 1, 0], [0, 0], [1], []):
        assert folded.holding_each(positions, needles) == [folded.holding(positions, n) for n in needles]

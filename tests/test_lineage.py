"""The lineage of the rules across editions, on the real files of corpus/rules/, checked
against a list found by reading the files (tests/lineage_gold.tsv: each row's note quotes the
text of both editions, or says the newer edition has no rule with the text)."""
from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest

from benchmarks.lineage_reading import READS, readings
from indexer.search import lineage

GOLD = Path(__file__).with_name("lineage_gold.tsv")
PAIRS = [("2008-05-01", "2009-07-11"), ("2009-07-11", "2010-02-01"), ("2010-02-01", "2016-09-30"),
         ("2016-09-30", "2022-11-18"), ("2022-11-18", "2026-01-16"), ("2026-01-16", "2026-04-17")]


def gold_rows() -> list[dict]:
    with open(GOLD, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


@pytest.fixture(scope="module")
def edges(rules_lineage):
    """`lineage.align` of the records."""
    return rules_lineage


@pytest.fixture(scope="module")
def forward(edges):
    found: dict[tuple[str, str], list[lineage.Edge]] = {}
    for e in edges:
        found.setdefault((e.from_edition, e.from_key), []).append(e)
    return found


def test_the_gold_list_is_large_and_covers_every_pair_of_editions():
    rows = gold_rows()
    assert len(rows) >= 80
    assert {(r["from_edition"], r["to_edition"]) for r in rows} == set(PAIRS)
    relations = Counter(r["relation"] for r in rows)
    assert relations["renumbered"] >= 40 and relations["split"] >= 6 and relations["removed"] >= 4
    assert all(r["note"] for r in rows)


@pytest.mark.parametrize("row", gold_rows(), ids=lambda r: f"{r['from_edition'][:4]}:{r['from_number']}"
                         f"->{r['to_edition'][:4]}:{r['to_number']}")
def test_the_lineage_agrees_with_the_gold_list(forward, row):
    found = forward.get((row["from_edition"], row["from_number"]))
    assert found, f"{row['from_number']} of {row['from_edition']} is not in the lineage"
    if row["to_number"] == "REMOVED":
        assert [(e.to_key, e.relation) for e in found] == [("", "removed")]
    else:
        assert (row["to_number"], row["relation"]) in [(e.to_key, e.relation) for e in found], found


@pytest.mark.parametrize("old, new", [
    (("2010-02-01", "109.4b"), ("2016-09-30", "109.4e")),    # each vanguard card / each conspiracy card
    (("2016-09-30", "118.1c"), ("2022-11-18", "119.1d")),    # commander's life total / brawl's
    (("2016-09-30", "702.122b"), ("2022-11-18", "702.157b")),  # fabricate's instances / squad's
    (("2010-02-01", "616.1c"), ("2016-09-30", "616.1c")),    # a rule matched whole is no part of another
])
def test_rules_written_from_one_template_are_not_parts_of_each_other(forward, old, new):
    """Their words are nearly all the same, but the names of things differ: no edge."""
    assert new not in [(e.to_edition, e.to_key) for e in forward.get(old, [])]


@pytest.mark.parametrize("old, new", [
    (("2010-02-01", "702.70b"), ("2016-09-30", "702.89f")),  # multiple changeling / multiple infect
    (("2008-05-01", "424.3"), ("2009-07-11", "116.4")),      # unpayable costs / costs with {X}
    (("2008-05-01", "term:order"), ("2009-07-11", "term:damage-assignment-order")),  # a library's order
    (("2008-05-01", "419.6g"), ("2009-07-11", "613.2")),     # modal replacement effects / damage's
    (("2010-02-01", "806.2"), ("2016-09-30", "810.2")),      # no multiplayer options / shared turns
    (("2022-11-18", "719.3"), ("2026-01-16", "720.3")),      # casting a prototype / an omen card
    (("2016-09-30", "106.10"), ("2022-11-18", "106.11")),    # generic mana added / snow mana added
    (("2016-09-30", "704.5j"), ("2022-11-18", "704.5j")),    # planeswalker uniqueness / legend rule
])
def test_rules_that_share_words_but_not_a_rule_are_not_linked(forward, old, new):
    """Each the other's nearest in words, or one's text found in the other's: still two rules."""
    assert new not in [(e.to_edition, e.to_key) for e in forward.get(old, [])]


def test_every_entry_of_every_edition_has_a_place(rules_records, edges):
    """Each rule and glossary entry of an edition leads somewhere in the next (or is removed),
    and each of the next comes from somewhere (or is added): nothing falls out of the table."""
    editions = lineage.rules_file_records(rules_records)
    for old, new in PAIRS:
        keys = {lineage.record_key(r) for r in editions[old]}
        assert {e.from_key for e in edges if e.from_edition == old and e.from_key} == keys
        keys = {lineage.record_key(r) for r in editions[new]}
        assert {e.to_key for e in edges if e.to_edition == new and e.to_key} == keys
    assert all(e.relation in lineage.RELATIONS and 0 <= e.score <= 100 for e in edges)


def test_keywords_and_subrules_follow_their_text_not_their_number(forward):
    def chain(edition, key):
        out = [key]
        while (edition, key) in forward:
            edge = max(forward[(edition, key)], key=lambda e: e.score)
            edition, key = edge.to_edition, edge.to_key
            out.append(key)
        return out

    assert chain("2008-05-01", "502.79") == ["502.79", "702.76", "702.76", "702.78", "702.79", "702.79", "702.79"]
    assert chain("2010-02-01", "702.30c") == ["702.30c", "702.32c", "702.33c", "702.33c", "702.33c"]
    assert chain("2008-05-01", "term:mana-burn")[1:] == ["term:mana-burn-obsolete"] * 6


def test_the_table_reads_back_and_refuses_what_is_not_one(edges, tmp_path):
    lineage.write(edges, tmp_path)
    assert lineage.read(tmp_path / lineage.FILE) == edges
    (tmp_path / "bad.tsv").write_text("from_edition\tnot\n", encoding="utf-8")
    with pytest.raises(ValueError):
        lineage.read(tmp_path / "bad.tsv")


@pytest.mark.parametrize("path", READS, ids=lambda path: path.name)
def test_each_reading_names_entries_the_files_hold(edges, path):
    """The links read against the files (`benchmarks.lineage_reading`'s samples) name entries of
    their editions, with a verdict, and a correction wherever they disagree: a reading of an
    entry no file holds would measure nothing."""
    held = {(e.from_edition, e.from_key) for e in edges} | {(e.to_edition, e.to_key) for e in edges}
    rows = readings(path)
    assert len(rows) >= 150
    for row in rows:
        assert row["verdict"] in ("agree", "disagree", "unsure"), row
        assert row["verdict"] != "disagree" or row["correct"], row
        for edition, key in ((row["from_edition"], row["from_key"]), (row["to_edition"], row["to_key"])):
            assert not key or (edition, key) in held, row

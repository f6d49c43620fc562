"""One rule across editions: numbers that name different rules, keywords that moved, and
how a rule's text changed, along the lineage of the real editions of corpus/rules/; the
mixed-source cases add a record the way a FAQ quoting the rules of its day produces it."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from indexer.documents.records import Record
from indexer.knowledge.editions import EditionTables, by_edition, tokens
from webapp.history import typographic_key, word_changes

PERSIST = {"2008-05-01": "502.79", "2009-07-11": "702.76", "2010-02-01": "702.76", "2016-09-30": "702.78",
           "2022-11-18": "702.79", "2026-01-16": "702.79", "2026-04-17": "702.79"}


@pytest.fixture(scope="module")
def tables(rules_records, rules_lineage):
    return EditionTables(rules_records, rules_lineage)


def faq_record(**changes) -> Record:
    """A rule quoted by the Shadowmoor FAQ: Traditional Chinese title, keyword from it."""
    fields = dict(id="shadowmoor-faq:rule:502.79", kind="rule", source="shadowmoor-faq", edition="2008-05-01",
                  line=1, offset=0, number="502.79", parent="502", keyword="persist",
                  title={"zh_hant": "留存"}, text={"zh_hant": "留存"})
    fields.update(changes)
    return Record(**fields)


def test_what_702_79_names_in_each_edition(tables):
    assert [(v.edition, v.name) for v in tables.editions_of("702.79")] == [
        ("2009-07-11", "Devour"), ("2010-02-01", "Devour"), ("2016-09-30", "Wither"),
        ("2022-11-18", "Persist"), ("2026-01-16", "Persist"), ("2026-04-17", "Persist")]


def test_persist_number_in_every_edition(tables):
    assert tables.keyword_numbers(tables.index[("2026-04-17", "702.79a")]) == PERSIST
    assert tables.keyword_numbers(tables.index[("2009-07-11", "702.79")]) == {
        "2009-07-11": "702.79", "2010-02-01": "702.79", "2016-09-30": "702.81",
        "2022-11-18": "702.82", "2026-01-16": "702.82", "2026-04-17": "702.82"}
    assert tables.keyword_numbers(tables.index[("2026-04-17", "100.4")]) == {}


def test_persist_followed_from_502_79(tables):
    history = tables.history("2008-05-01", "502.79")
    assert {v.edition: v.number for v in history} == PERSIST
    assert [v.text["en"] for v in history] == ["Persist"] * 7
    assert history[-1].text["zh_hans"] == "留存"


def test_subrule_followed_by_its_text(tables):
    history = tables.history("2026-04-17", "702.79a")
    assert [(v.edition, v.number) for v in history] == [(e, n + "a") for e, n in PERSIST.items()]
    assert "from play" in history[0].text["en"] and "from the battlefield" in history[-1].text["en"]
    diff = word_changes(history[0].text["en"], history[-1].text["en"])
    assert ("delete", "play") in diff and ("insert", "the battlefield") in diff
    # The 2008 file lost its curly quotes in export; restored, they match the 2026 text's.
    assert diff[0] == ("equal", "Persist is a triggered ability. “Persist” means “When this permanent is put "
                                "into a graveyard from ")


def test_devour_followed_back_from_2026(tables):
    history = tables.history("2026-01-16", "702.82")
    assert [(v.edition, v.number) for v in history] == [
        ("2009-07-11", "702.79"), ("2010-02-01", "702.79"), ("2016-09-30", "702.81"),
        ("2022-11-18", "702.82"), ("2026-01-16", "702.82"), ("2026-04-17", "702.82")]


def test_rule_without_keyword_followed_by_its_text(tables):
    history = tables.history("2008-05-01", "100.4")
    assert [v.edition for v in history] == sorted(PERSIST)
    assert history[0].text["en"] == "There is no maximum deck size."
    assert tables.history("2026-04-17", "999.9") == []
    assert tables.history("1999-01-01", "702.79") == []


def test_a_subrules_history_is_its_own_not_its_sections(tables):
    """Today's 118.4 was 2009's 116.4 (not the section 116) and 2016's 117.4."""
    history = tables.history("2026-04-17", "118.4")
    assert [(v.edition, v.number) for v in history][:3] == [
        ("2009-07-11", "116.4"), ("2010-02-01", "116.4"), ("2016-09-30", "117.4")]
    assert history[2].relation == "renumbered"


def test_a_removed_rule_names_the_last_edition_that_had_it(tables):
    assert tables.ending("2008-05-01", "300.3") == {"last": "2008-05-01", "last_number": "300.3",
                                                    "gone_in": "2009-07-11"}
    assert tables.follow("2008-05-01", "300.3", "2026-04-17") is None
    assert tables.ending("2008-05-01", "104.3f") is None
    assert tables.follow("2008-05-01", "104.3f", "2026-04-17") == "107.4e"
    assert tables.follow("2026-04-17", "107.4e", "2008-05-01") == "104.3f"


def test_what_changed_between_two_editions(tables):
    changes = tables.changes("2026-01-16", "2026-04-17")
    kinds = {c.kind for c in changes}
    assert kinds <= {"added", "removed", "renumbered", "renamed", "changed"} and "renumbered" in kinds
    # Across several editions: a rule that only moved in between is one entry, end to end.
    multikicker = [c for c in tables.changes("2010-02-01", "2026-04-17") if c.old == "702.30c"]
    assert [(c.kind, c.new) for c in multikicker] == [("renumbered", "702.33c")]
    assert all(c.kind != "same" for c in changes)
    assert tables.changes("2026-04-17", "2010-02-01") == []


def test_mixed_sources_keyed_by_edition_and_number(rules_records, rules_lineage):
    faq = faq_record()
    mixed = EditionTables([faq, *rules_records], rules_lineage)
    # The rules file speaks for (2008-05-01, 502.79); the FAQ's quotation does not replace it.
    assert mixed.index[("2008-05-01", "502.79")].source == "cr-2008-05-01"
    assert mixed.keyword_numbers(faq) == PERSIST
    # Without the 2008 rules file no lineage holds 2008: the FAQ's rule is its own history.
    later = [r for r in rules_records if r.edition != "2008-05-01"]
    # align's edges go from each edition to the next: those of the later editions are theirs.
    alone = EditionTables([faq, *later], [e for e in rules_lineage if e.from_edition != "2008-05-01"])
    assert [(v.edition, v.number, v.record) for v in alone.history("2008-05-01", "502.79")] == [
        ("2008-05-01", "502.79", faq)]
    assert [(v.edition, v.name) for v in alone.editions_of("502.79")] == [("2008-05-01", "persist")]


def test_records_without_number_or_edition_are_ignored():
    term = Record(id="cr-2026-01-16:term:persist", kind="term", source="cr-2026-01-16", edition="2026-01-16",
                  line=1, offset=0, names={"en": "Persist"})
    loose = faq_record(edition=None)
    assert by_edition([term, loose]) == {}
    assert EditionTables([term, loose]).editions_of("502.79") == []


def test_diff_chinese_by_characters():
    assert word_changes("留存属于触发式异能。", "留存是触发式异能。") == [
        ("equal", "留存"), ("delete", "属于"), ("insert", "是"), ("equal", "触发式异能。")]
    assert tokens("留存persist’s 1/1") == ["留", "存", "persist’s", " ", "1", "/", "1"]


@given(st.text(alphabet="ab 留存,.’'\n", max_size=40), st.text(alphabet="ab 留存,.’'\n", max_size=40))
def test_diff_rebuilds_both_texts(old, new):
    """The equal and inserted pieces are the newer text; the equal and deleted ones the older
    text up to its typography (an equal piece shows the newer quote style)."""
    diff = word_changes(old, new)
    assert "".join(t for op, t in diff if op != "delete") == new
    assert typographic_key("".join(t for op, t in diff if op != "insert")) == typographic_key(old)
    assert all(op in ("equal", "insert", "delete") and t for op, t in diff)


def test_a_long_diff_keeps_its_common_start_and_end_and_rebuilds_both_texts():
    """The creature types of 205.3m, changed at both ends and in the middle: the matched work
    is bounded (DIFF_WORK), the common start and end stay equal, both texts rebuild."""
    words = [f"Type{n}" for n in range(1500)]
    old = ", ".join(words)
    new = ", ".join(["Aardvark", *words[:700], "Bat", *words[700:], "Zombie"])
    diff = word_changes(old, new)
    assert "".join(t for op, t in diff if op != "insert") == old
    assert "".join(t for op, t in diff if op != "delete") == new
    small = word_changes(old, old.replace("Type700,", "Type700, Bat,"))
    assert [op for op, _ in small] == ["equal", "insert", "equal"]

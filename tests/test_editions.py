"""One rule across editions: numbers that name different rules, keywords that moved, and
how a rule's text changed. Real editions come from corpus/rules/; the
mixed-source cases add a record the way a FAQ quoting the rules of its day produces it."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from indexer.documents.comprules import read_rules_files
from indexer.documents.records import Record
from indexer.knowledge.editions import by_edition, editions_of, keyword_numbers, rule_history, tokens, word_diff

CR = Path(__file__).parents[1] / "corpus" / "rules"

PERSIST = {"2008-05-01": "502.79", "2009-07-11": "702.76", "2010-02-01": "702.76", "2016-09-30": "702.78",
           "2022-11-18": "702.79", "2026-01-16": "702.79", "2026-04-17": "702.79"}


@pytest.fixture(scope="module")
def records():
    result = read_rules_files([CR])
    assert result.errors == []
    return result.records


def faq_record(**changes) -> Record:
    """A rule quoted by the Shadowmoor FAQ: Traditional Chinese title, keyword from it."""
    fields = dict(id="shadowmoor-faq:rule:502.79", kind="rule", source="shadowmoor-faq", edition="2008-05-01",
                  line=1, offset=0, number="502.79", parent="502", keyword="persist",
                  title={"zh_hant": "留存"}, text={"zh_hant": "留存"})
    fields.update(changes)
    return Record(**fields)


def test_what_702_79_names_in_each_edition(records):
    assert [(v.edition, v.name) for v in editions_of(records, "702.79")] == [
        ("2009-07-11", "Devour"), ("2010-02-01", "Devour"), ("2016-09-30", "Wither"),
        ("2022-11-18", "Persist"), ("2026-01-16", "Persist"), ("2026-04-17", "Persist")]


def test_persist_number_in_every_edition(records):
    assert keyword_numbers(records, "persist") == PERSIST
    assert keyword_numbers(records, "Devour") == {
        "2009-07-11": "702.79", "2010-02-01": "702.79", "2016-09-30": "702.81",
        "2022-11-18": "702.82", "2026-01-16": "702.82", "2026-04-17": "702.82"}
    assert keyword_numbers(records, "no such keyword") == {}


def test_persist_followed_from_502_79(records):
    history = rule_history(records, "502.79", "2008-05-01")
    assert {v.edition: v.number for v in history} == PERSIST
    assert [v.text["en"] for v in history] == ["Persist"] * 7
    assert history[-1].text["zh_hans"] == "留存"


def test_subrule_followed_by_keyword_and_letter(records):
    history = rule_history(records, "702.79a")  # latest edition holding it: 2026-04-17
    assert [(v.edition, v.number) for v in history] == [(e, n + "a") for e, n in PERSIST.items()]
    assert "from play" in history[0].text["en"] and "from the battlefield" in history[-1].text["en"]
    diff = word_diff(history[0].text["en"], history[-1].text["en"])
    assert ("delete", "play") in diff and ("insert", "the battlefield") in diff
    # The 2008 file lost its curly quotes in export; restored, they match the 2026 text's.
    assert diff[0] == ("equal", "Persist is a triggered ability. “Persist” means “When this permanent is put "
                                "into a graveyard from ")


def test_devour_followed_back_from_2026(records):
    history = rule_history(records, "702.82", "2026-01-16")
    assert [(v.edition, v.number) for v in history] == [
        ("2009-07-11", "702.79"), ("2010-02-01", "702.79"), ("2016-09-30", "702.81"),
        ("2022-11-18", "702.82"), ("2026-01-16", "702.82"), ("2026-04-17", "702.82")]


def test_rule_without_keyword_followed_by_number(records):
    history = rule_history(records, "100.4", "2008-05-01")
    assert [v.edition for v in history] == sorted(PERSIST)
    assert history[0].text["en"] == "There is no maximum deck size."
    assert rule_history(records, "999.9") == []
    assert rule_history(records, "702.79", "1999-01-01") == []


def test_mixed_sources_keyed_by_edition_and_number(records):
    faq = faq_record()
    mixed = [faq, *records]
    # The rules file speaks for (2008-05-01, 502.79); the FAQ's quotation does not replace it.
    assert by_edition(mixed)[("2008-05-01", "502.79")].source == "cr-2008-05-01"
    assert keyword_numbers(mixed, "persist") == PERSIST
    # Without the 2008 rules file, the FAQ alone tells where persist was in 2008.
    later = [faq, *(r for r in records if r.edition != "2008-05-01")]
    assert keyword_numbers(later, "persist") == PERSIST
    history = rule_history(later, "502.79", "2008-05-01")
    assert history[0].record is faq and history[0].name == "persist"
    assert [v.number for v in history] == list(PERSIST.values())
    assert [(v.edition, v.name) for v in editions_of(later, "502.79")] == [("2008-05-01", "persist")]


def test_faq_keyword_disagreeing_with_rules_file_loses():
    rules = faq_record(id="cr-2008-05-01:rule:502.79", source="cr-2008-05-01", title={"en": "Persist"})
    wrong = faq_record(number="502.78", id="shadowmoor-faq:rule:502.78")
    assert keyword_numbers([wrong, rules], "persist") == {"2008-05-01": "502.79"}
    assert keyword_numbers([wrong], "persist") == {"2008-05-01": "502.78"}


def test_records_without_number_or_edition_are_ignored():
    term = Record(id="cr-2026-01-16:term:persist", kind="term", source="cr-2026-01-16", edition="2026-01-16",
                  line=1, offset=0, names={"en": "Persist"})
    loose = faq_record(edition=None)
    assert by_edition([term, loose]) == {}
    assert editions_of([term, loose], "502.79") == []


def test_diff_english_by_words():
    assert word_diff("return it to play under its owner's control", "return it to the battlefield under its "
                     "owner's control") == [("equal", "return it to "), ("delete", "play"),
                                            ("insert", "the battlefield"), ("equal", " under its owner's control")]
    assert word_diff("same", "same") == [("equal", "same")]
    assert word_diff("", "new") == [("insert", "new")]


def test_diff_chinese_by_characters():
    assert word_diff("留存属于触发式异能。", "留存是触发式异能。") == [
        ("equal", "留存"), ("delete", "属于"), ("insert", "是"), ("equal", "触发式异能。")]
    assert tokens("留存persist’s 1/1") == ["留", "存", "persist’s", " ", "1", "/", "1"]


@given(st.text(alphabet="ab 留存,.’\n", max_size=40), st.text(alphabet="ab 留存,.’\n", max_size=40))
def test_diff_rebuilds_both_texts(old, new):
    diff = word_diff(old, new)
    assert "".join(t for op, t in diff if op != "insert") == old
    assert "".join(t for op, t in diff if op != "delete") == new
    assert all(op in ("equal", "insert", "delete") and t for op, t in diff)


def test_a_long_diff_keeps_its_common_start_and_end_and_rebuilds_both_texts():
    """The creature types of 205.3m, changed at both ends and in the middle: the matched part
    is bounded (MAX_DIFF_WORK), the common start and end stay equal, both texts rebuild."""
    words = [f"Type{n}" for n in range(1500)]
    old = ", ".join(words)
    new = ", ".join(["Aardvark", *words[:700], "Bat", *words[700:], "Zombie"])
    diff = word_diff(old, new)
    assert "".join(t for op, t in diff if op != "insert") == old
    assert "".join(t for op, t in diff if op != "delete") == new
    small = word_diff(old, old.replace("Type700,", "Type700, Bat,"))
    assert [op for op, _ in small] == ["equal", "insert", "equal"]

"""The real Comprehensive Rules files, every edition and encoding they were published in.

The files ship in corpus/rules/, byte for byte as published.
Counts are checked against an independent reading of each file: Python's own codec for the
encoding the file is known to have, str.splitlines, and one regular expression over the
lines between the Contents and the Glossary.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from indexer.documents.comprules import is_rules_file

CR = Path(__file__).parents[1] / "corpus" / "rules"

# file -> (edition, encoding reported, Python codec for the independent reading)
FILES = {
    "MagicCompRules-2008-05-01.txt": ("2008-05-01", "ascii", "ascii"),
    "MagicCompRules-2009-07-11.txt": ("2009-07-11", "ascii", "ascii"),
    "MagicCompRules-2010-02-01.txt": ("2010-02-01", "cp1252", "cp1252"),
    "MagicCompRules-2016-09-30.txt": ("2016-09-30", "utf-16-le", "utf-16"),
    "MagicCompRules-2022-11-18.txt": ("2022-11-18", "utf-16-be", "utf-16"),
    "MagicCompRules-2026-01-16.txt": ("2026-01-16", "utf-8-sig", "utf-8-sig"),
    "bilingual-2026-04-17-en.txt": ("2026-04-17", "utf-8", "utf-8"),
    "bilingual-2026-04-17-zh-hans.txt": ("2026-04-17", "utf-8", "utf-8"),
}


@pytest.fixture(scope="module")
def result(rules_read):
    return rules_read


@pytest.fixture(scope="module")
def records(result):
    return {r.id: r for r in result.records}


def summary(result, name):
    return next(s for s in result.summaries if Path(s.file).name == name)


def independent_lines(name: str) -> list[str]:
    return (CR / name).read_bytes().decode(FILES[name][2]).splitlines()


def independent_counts(name: str) -> tuple[int, int, int]:
    """(sections, rules, examples) after the Contents, counted by regex: the Contents end at
    their last entry (the first Credits heading), the rules at the last Glossary heading,
    the glossary (whose entries may have examples too) at the last Credits heading."""
    lines = independent_lines(name)
    credits = {"Credits", "版权信息"}
    glossary = {"Glossary", "词汇表"}
    start = next(i for i, line in enumerate(lines) if line.strip() in credits)
    rules_end = max(i for i, line in enumerate(lines) if line.strip() in glossary)
    end = max(i for i, line in enumerate(lines) if line.strip() in credits)
    body = lines[start + 1:rules_end]
    sections = sum(1 for line in body if re.fullmatch(r"\d{3}\. [^\d].*", line.strip()))
    rules = sum(1 for line in body if re.match(r"\s*\d{3}\.\s?\d+", line))
    examples = sum(1 for line in lines[start + 1:end] if line.lstrip().startswith(("Example", "例如")))
    return sections, rules, examples


def test_every_file_read_without_error(result):
    assert result.errors == []
    assert sorted(Path(s.file).name for s in result.summaries) == sorted(FILES)
    assert result.warnings == []


@pytest.mark.parametrize("name", FILES)
def test_edition_and_encoding(result, name):
    s = summary(result, name)
    assert (s.edition, s.encoding) == FILES[name][:2]
    assert s.lang == ("zh_hans" if name.endswith("zh-hans.txt") else "en")


@pytest.mark.parametrize("name", FILES)
def test_counts_match_an_independent_count(result, name):
    s = summary(result, name)
    sections, rules, examples = independent_counts(name)
    assert (s.sections, s.rules, s.examples) == (sections, rules, examples)


def test_counts_of_editions(result):
    counts = {Path(s.file).name: (s.sections, s.rules, s.terms) for s in result.summaries}
    assert counts["MagicCompRules-2008-05-01.txt"] == (85, 1148, 392)
    assert counts["MagicCompRules-2009-07-11.txt"][1] == 1472
    assert counts["MagicCompRules-2026-01-16.txt"] == (146, 3114, 725)
    assert counts["bilingual-2026-04-17-en.txt"] == counts["bilingual-2026-04-17-zh-hans.txt"] == (147, 3138, 730)


def test_no_replacement_character_introduced(result):
    for name, (_, _, codec) in FILES.items():
        assert "\ufffd" not in (CR / name).read_bytes().decode(codec)
    bad = [r.id for r in result.records for lang in r.languages() for t in r.texts(lang) if "\ufffd" in t]
    assert bad == []


def test_editions_kept_apart(result, records):
    editions = {s["edition"]: s for s in result.sources}
    assert sorted(editions) == ["2008-05-01", "2009-07-11", "2010-02-01", "2016-09-30",
                                "2022-11-18", "2026-01-16", "2026-04-17"]
    assert {r.source for r in result.records} == {f"cr-{e}" for e in editions}
    assert all(r.source == f"cr-{r.edition}" and r.id.startswith(r.source + ":") for r in result.records)
    pair = editions["2026-04-17"]
    assert pair["id"] == "cr-2026-04-17"
    assert pair["languages"] == ["en", "zh_hans"]
    assert pair["files"] == ["bilingual-2026-04-17-en.txt", "bilingual-2026-04-17-zh-hans.txt"]
    assert pair["encoding"] == {"bilingual-2026-04-17-en.txt": "utf-8", "bilingual-2026-04-17-zh-hans.txt": "utf-8"}
    assert pair["title"] == "Magic: The Gathering Comprehensive Rules / 万智牌完整规则 (2026-04-17)"
    assert editions["2022-11-18"]["encoding"] == {"MagicCompRules-2022-11-18.txt": "utf-16-be"}


def test_702_79_names_different_rules(records):
    assert records["cr-2009-07-11:rule:702.79"].title == {"en": "Devour"}
    assert records["cr-2009-07-11:rule:702.79"].keyword == "devour"
    assert records["cr-2026-01-16:rule:702.79"].title == {"en": "Persist"}
    assert records["cr-2026-01-16:rule:702.79"].keyword == "persist"
    assert records["cr-2026-01-16:rule:702.79a"].title == {"en": "Persist"}
    assert records["cr-2026-01-16:rule:702.79a"].parent == "702.79"
    assert records["cr-2026-01-16:rule:702.79"].parent == "702"


def test_section_heading_is_a_rule_record(records):
    section = records["cr-2026-01-16:rule:702"]
    assert (section.kind, section.number, section.parent) == ("rule", "702", None)
    assert section.title == section.text == {"en": "Keyword Abilities"}
    assert section.keyword is None


def test_pair_702_79a_in_both_languages(records):
    rule = records["cr-2026-04-17:rule:702.79a"]
    assert rule.text == {
        "en": "Persist is a triggered ability. “Persist” means “When this permanent is put into a graveyard "
              "from the battlefield, if it had no -1/-1 counters on it, return it to the battlefield under "
              "its owner’s control with a -1/-1 counter on it.”",
        "zh_hans": "留存属于触发式异能。“留存”意指，“当此永久物从战场置入坟墓场时，如果其上没有-1/-1指示物，"
                   "则将它在其拥有者的操控下返回战场，且其上具有一个-1/-1指示物。”",
    }
    assert rule.title == {"en": "Persist", "zh_hans": "留存"}
    assert rule.keyword == "persist"
    assert (rule.line, rule.source, rule.edition) == (4570, "cr-2026-04-17", "2026-04-17")


def test_line_and_offset_point_into_the_decoded_file(records):
    for rid, name, start in [("cr-2026-04-17:rule:702.79a", "bilingual-2026-04-17-en.txt", "702.79a Persist"),
                             ("cr-2026-01-16:rule:702.79a", "MagicCompRules-2026-01-16.txt", "702.79a Persist"),
                             ("cr-2022-11-18:rule:702.79a", "MagicCompRules-2022-11-18.txt", "702.79a Persist"),
                             ("cr-2016-09-30:rule:702.78", "MagicCompRules-2016-09-30.txt", "702.78. Persist")]:
        record = records[rid]
        text = (CR / name).read_bytes().decode(FILES[name][2])
        assert text[record.offset:].startswith(start), rid
        lines = re.split(r"\r\n|\r|\n", text)
        assert lines[record.line - 1].startswith(start), rid


def test_examples_attached_to_their_rule(records):
    rule = records["cr-2026-01-16:rule:613.6"]
    assert len(rule.examples) == 4
    assert rule.examples[1] == {"en": "Act of Treason has an effect that reads “Gain control of target creature "
                                      "until end of turn. Untap that creature. It gains haste until end of turn.” "
                                      "This is both a control-changing effect and an effect that adds an ability "
                                      "to an object. The “gain control” part is applied in layer 2, and then the "
                                      "“it gains haste” part is applied in layer 6."}
    assert rule.examples[3]["en"].startswith("Svogthos, the Restless Tomb, is on the battlefield.")
    assert records["cr-2026-01-16:rule:613.7"].text["en"].startswith("Within a layer or sublayer")
    pair = records["cr-2026-04-17:rule:613.6"]
    assert len(pair.examples) == 4 and all(set(e) == {"en", "zh_hans"} for e in pair.examples)
    assert pair.examples[1]["zh_hans"].startswith("叛行具有效应")


def test_chinese_example_written_with_a_comma(records):
    rule = records["cr-2026-04-17:rule:111.11"]
    assert len(rule.examples) == 1
    assert rule.examples[0]["en"].startswith("Disa the Restless has the ability")
    assert rule.examples[0]["zh_hans"].startswith("勇行者蒂莎具有异能")


def test_glossary_term_with_its_rules(records):
    term = records["cr-2026-01-16:term:persist"]
    assert term.kind == "term" and term.number is None
    assert term.names == {"en": "Persist"}
    assert term.text == {"en": "A keyword ability that can return a creature from the graveyard to the "
                               "battlefield. See rule 702.79, “Persist.”"}
    assert [(r.number, r.lang) for r in term.references] == [("702.79", "en")]
    devour = records["cr-2009-07-11:term:devour"]
    assert [r.number for r in devour.references] == ["702.79"]


def test_glossary_paired_where_the_translation_reorders_terms(records):
    """The Chinese glossary sorts Exchange/Exert/Exhaust/Exile and Color Identity/Colorless in
    its own order: entries pair by content, not by line."""
    assert records["cr-2026-04-17:term:exile"].names == {"en": "Exile", "zh_hans": "放逐"}
    assert records["cr-2026-04-17:term:exhaust"].names == {"en": "Exhaust", "zh_hans": "竭绝"}
    assert records["cr-2026-04-17:term:colorless"].names == {"en": "Colorless", "zh_hans": "无色"}
    identity = records["cr-2026-04-17:term:color-identity"]
    assert identity.names == {"en": "Color Identity", "zh_hans": "标识色"}
    assert identity.text["zh_hans"] == "一系列颜色，在指挥官休闲玩法中决定哪些牌可以加入套牌。参见规则903.4。"
    assert [(r.number, r.lang) for r in identity.references] == [("903.4", "en"), ("903.4", "zh_hans")]
    # An entry whose translation cites an older rule number still pairs with its neighbour on the line.
    loop = records["cr-2026-04-17:term:loop"]
    assert loop.names == {"en": "Loop", "zh_hans": "循环（动作）"}
    terms = [r for r in records.values() if r.kind == "term" and r.edition == "2026-04-17"]
    assert len(terms) == 730 and all(set(t.names) == {"en", "zh_hans"} for t in terms)


def test_glossary_definition_paragraphs(records):
    exile = records["cr-2026-04-17:term:exile"]
    assert exile.text["en"].split("\n") == [
        "1. A zone. Exile is essentially a holding area for cards. It used to be known as the "
        "“removed-from-the-game” zone.",
        "2. To put an object into the exile zone from whatever zone it’s currently in. An “exiled” card is "
        "one that’s been put into the exile zone.",
        "See rule 406, “Exile.”",
    ]


def test_old_format_quirks(records):
    # 2009: "702. 37a Storm ..." has a stray space inside the number.
    assert records["cr-2009-07-11:rule:702.37a"].text["en"].startswith("Storm is a triggered ability")
    # 2022: "901.4.All plane ..." has no space after the number.
    assert records["cr-2022-11-18:rule:901.4"].text["en"].startswith("All plane and phenomenon cards")
    # 2008: "609.6 In the Teams variant" has no full stop after a main rule number.
    assert records["cr-2008-05-01:rule:609.6"].text["en"].startswith("In the Teams variant")
    # 2010: italics written _Magic_ are plain text.
    assert records["cr-2010-02-01:rule:100.1"].text == {
        "en": "These Magic rules apply to any Magic game with two or more players, including two-player "
              "games and multiplayer games."}
    # 2008: a rule continued by an indented paragraph, and an example on the line after a rule.
    paragraphs = records["cr-2008-05-01:rule:203.1b"].text["en"].split("\n")
    assert len(paragraphs) == 2
    assert paragraphs[1].startswith("If an unpayable cost is increased by an effect")
    assert records["cr-2008-05-01:rule:609.3"].examples[0]["en"].startswith("In a Teams game with three teams")


def test_2008_quotes_and_apostrophes_lost_as_question_marks_are_back(records):
    """The 2008 file's export turned curly quotes, apostrophes and dashes into '?' (4,755 of
    them); the record texts have them back, and the few '?' left are real question marks or
    lost signs nothing tells enough about."""
    assert records["cr-2008-05-01:rule:502.79a"].text["en"] == (
        "Persist is a triggered ability. “Persist” means “When this permanent is put into a graveyard from "
        "play, if it had no -1/-1 counters on it, return it to play under its owner’s control with a -1/-1 "
        "counter on it.”")
    edition = [r for r in records.values() if r.edition == "2008-05-01"]
    left = sum(text.count("?") for r in edition for lang in r.languages() for text in r.texts(lang))
    assert left < 50


def test_keyword_headings_beyond_701_702(records):
    assert records["cr-2026-01-16:rule:205.3"].keyword == "subtypes"
    assert records["cr-2026-04-17:rule:702.163"].title == {"en": "For Mirrodin!", "zh_hans": "秘罗万岁！"}
    assert records["cr-2026-04-17:rule:702.163a"].keyword == "for mirrodin!"
    assert records["cr-2026-01-16:rule:100.4"].keyword is None


def test_references_found_in_rule_text(records):
    kicker = records["cr-2010-02-01:rule:702.30a"]
    assert [(r.number, r.end) for r in kicker.references] == [("601.2b", None), ("601.2e", "601.2g")]


@pytest.mark.parametrize("name", FILES)
def test_sniff_recognises_every_file(name):
    assert is_rules_file((CR / name).read_bytes())


def test_sniff_rejects_the_readme():
    assert not is_rules_file((CR / "README.md").read_bytes())

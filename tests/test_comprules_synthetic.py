"""Small rules files written for each case the reader must handle: every encoding and line
end a published file has used, a bilingual pair, and the ways a file can be broken."""
from __future__ import annotations

import codecs

import pytest

from indexer.documents.comprules import RulesError, is_rules_file, read_rules_file, read_rules_files
from indexer.documents.rules_punctuation import restore_lost_punctuation

EN = """\
Magic: The Gathering Comprehensive Rules

These rules are effective as of April 17, 2026.

Introduction

This document is the ultimate authority for Magic: The Gathering® competitive game play.

Contents

1. Game Concepts
100. General

7. Additional Rules
702. Keyword Abilities

Glossary

Credits

1. Game Concepts

100. General

100.1. These Magic rules apply to any Magic game with two or more players.

100.1a A two-player game is a game that begins with only two players.

7. Additional Rules

702. Keyword Abilities

702.1. Most abilities describe exactly what they do.

702.79. Persist

702.79a Persist is a triggered ability. “Persist” means “When this permanent dies, return it.” See rule 702.1.
Example: A creature with persist dies; it returns with a -1/-1 counter.
Example: It won’t return a second time.

702.79b If a permanent has multiple instances of persist, each triggers separately.
     Each one checks the counters on its own.

Glossary

Persist
A keyword ability that can return a creature from the graveyard to the battlefield. See rule 702.79, “Persist.”

Player
One of the people in the game. See rule 100.1a.

Credits

Magic: The Gathering Original Game Design: Richard Garfield
"""

# Line-aligned with EN, except that the glossary lists its two terms in its own order.
ZH = """\
万智牌完整规则

此规则于2026年4月17日起生效。

前言

本文件是万智牌®竞技游戏的最终解释。

目录

1. 游戏概念
100. 总则

7. 附加规则
702. 关键字异能

词汇表

版权信息

1. 游戏概念

100. 总则

100.1. 这些万智牌规则适用于任何两位或是更多牌手的万智牌游戏。

100.1a 双人游戏指在游戏开始时只有两位牌手的游戏。

7. 附加规则

702. 关键字异能

702.1. 大多数异能都会描述它们的作用。

702.79. 留存

702.79a 留存属于触发式异能。“留存”意指“当此永久物死去时，将它移回。”参见规则702.1。
例如：具有留存异能的生物死去；它返回时其上有一个-1/-1指示物。
例如：它不会第二次返回。

702.79b 如果一个永久物具有多个留存异能，则每个都分别触发。
     每一个都各自检查指示物。

词汇表

牌手
游戏中的人之一。参见规则100.1a。

留存
一个关键字异能，可以让生物从坟墓场返回战场。参见规则702.79，“留存”。

版权信息

万智牌原始游戏设计：Richard Garfield
"""

RULES = ["100", "100.1", "100.1a", "702", "702.1", "702.79", "702.79a", "702.79b"]


def write(tmp_path, name: str, text: str, codec: str = "utf-8", newline: str = "\n", bom: bytes = b""):
    path = tmp_path / name
    path.write_bytes(bom + text.replace("\n", newline).encode(codec))
    return path


def rules(records):
    return {r.number: r for r in records if r.kind == "rule"}


# ---------------------------------------------------------------- encodings and line ends

ASCII_EN = EN.replace("®", "").replace("“", '"').replace("”", '"').replace("’", "'")


@pytest.mark.parametrize("codec, bom, text, reported", [
    ("utf-8", b"", EN, "utf-8"),
    ("utf-8", codecs.BOM_UTF8, EN, "utf-8-sig"),
    ("utf-16-le", codecs.BOM_UTF16_LE, EN, "utf-16-le"),
    ("utf-16-be", codecs.BOM_UTF16_BE, EN, "utf-16-be"),
    ("cp1252", b"", EN, "cp1252"),
    ("ascii", b"", ASCII_EN, "ascii"),
])
@pytest.mark.parametrize("newline", ["\r\n", "\r", "\n"])
def test_every_encoding_and_line_end(tmp_path, codec, bom, text, reported, newline):
    path = write(tmp_path, "rules.txt", text, codec, newline, bom)
    parsed = read_rules_file(path)
    assert (parsed.lang, parsed.edition, parsed.encoding) == ("en", "2026-04-17", reported)
    result = read_rules_files([path])
    assert result.errors == []
    found = rules(result.records)
    assert list(found) == RULES
    persist = found["702.79a"]
    expected = text.split("\n")[36].split(" ", 1)[1]
    assert persist.text == {"en": expected}
    assert persist.line == 37
    decoded = path.read_bytes()[len(bom):].decode(codec)
    assert decoded[persist.offset:].startswith("702.79a Persist is a triggered ability.")
    assert [e["en"] for e in persist.examples] == [
        "A creature with persist dies; it returns with a -1/-1 counter.",
        "It won’t return a second time." if text is EN else "It won't return a second time."]
    assert found["702.79b"].text["en"] == ("If a permanent has multiple instances of persist, each triggers "
                                           "separately.\nEach one checks the counters on its own.")
    assert all("\ufffd" not in t for r in result.records for t in r.texts("en"))


def test_cp1252_curly_quote_decoded(tmp_path):
    path = write(tmp_path, "rules.txt", EN, "cp1252", "\r\n")
    assert b"\x92" in path.read_bytes()  # the right single quote of "won’t", one byte in Windows-1252
    persist = rules(read_rules_files([path]).records)["702.79a"]
    assert persist.examples[1] == {"en": "It won’t return a second time."}
    assert persist.text["en"].startswith("Persist is a triggered ability. “Persist” means")


def test_mixed_line_ends_in_one_file(tmp_path):
    lines = EN.split("\n")
    text = "".join(line + ("\r\n" if n % 3 == 0 else "\r") for n, line in enumerate(lines[:-1])) + lines[-1]
    path = tmp_path / "mixed.txt"
    path.write_bytes(codecs.BOM_UTF16_BE + text.encode("utf-16-be"))
    found = rules(read_rules_files([path]).records)
    assert found["702.79a"].line == 37 and found["702.79b"].line == 41


def test_record_fields(tmp_path):
    result = read_rules_files([write(tmp_path, "a.txt", EN)])
    found = rules(result.records)
    assert found["702"].title == found["702"].text == {"en": "Keyword Abilities"}
    assert (found["702"].parent, found["702"].keyword) == (None, None)
    assert found["702.79"].title == {"en": "Persist"} and found["702.79"].keyword == "persist"
    assert found["702.79b"].title == {"en": "Persist"} and found["702.79b"].keyword == "persist"
    assert found["702.79b"].parent == "702.79"
    assert found["100.1a"].title == {"en": "General"} and found["100.1a"].keyword is None
    assert found["702.79a"].id == "cr-2026-04-17:rule:702.79a"
    assert [(r.number, r.where) for r in found["702.79a"].references] == [("702.1", "text")]
    terms = {r.id: r for r in result.records if r.kind == "term"}
    assert list(terms) == ["cr-2026-04-17:term:persist", "cr-2026-04-17:term:player"]
    player = terms["cr-2026-04-17:term:player"]
    assert player.names == {"en": "Player"}
    assert player.text == {"en": "One of the people in the game. See rule 100.1a."}
    assert [r.number for r in player.references] == ["100.1a"]
    assert result.sources == [{
        "id": "cr-2026-04-17", "file": "a.txt", "files": ["a.txt"],
        "title": "Magic: The Gathering Comprehensive Rules (2026-04-17)", "family": "comprehensive-rules",
        "languages": ["en"], "product": "", "date": "2026-04-17", "edition": "2026-04-17", "urls": [],
        "encoding": {"a.txt": "utf-8"},
        # The book's chapters, from the file's part headings; no Chinese glossary to read.
        "chapters": {"1": {"en": "Game Concepts"}, "7": {"en": "Additional Rules"}}, "readings": {}}]
    summary = result.summaries[0].to_dict()
    assert {k: summary[k] for k in ("edition", "encoding", "sections", "rules", "examples", "terms")} == {
        "edition": "2026-04-17", "encoding": "utf-8", "sections": 2, "rules": 6, "examples": 2, "terms": 2}


def test_glossary_entries_spelt_alike_keep_apart_ids(tmp_path):
    text = EN.replace("\nPlayer\n", "\nPersist\n")
    terms = [r for r in read_rules_files([write(tmp_path, "a.txt", text)]).records if r.kind == "term"]
    assert [(t.id, t.names["en"], t.line) for t in terms] == [
        ("cr-2026-04-17:term:persist", "Persist", 46), ("cr-2026-04-17:term:persist-2", "Persist", 49)]


def test_empty_file(tmp_path):
    with pytest.raises(RulesError) as caught:
        read_rules_file(write(tmp_path, "empty.txt", ""))
    assert "not a Comprehensive Rules file" in str(caught.value) and caught.value.line == 1


def test_current_as_of_date(tmp_path):
    text = EN.replace("These rules are effective as of April 17, 2026.", "These rules are current as of May 1, 2008.")
    assert read_rules_file(write(tmp_path, "old.txt", text)).edition == "2008-05-01"


# ---------------------------------------------------------------- a bilingual pair

def test_bilingual_pair_is_one_edition(tmp_path):
    result = read_rules_files([write(tmp_path, "en.txt", EN), write(tmp_path, "zh.txt", ZH, "utf-8", "\r\n")])
    assert result.errors == [] and result.warnings == []
    assert [(s.lang, s.encoding) for s in result.summaries] == [("en", "utf-8"), ("zh_hans", "utf-8")]
    found = rules(result.records)
    assert list(found) == RULES
    persist = found["702.79a"]
    assert persist.text["zh_hans"] == "留存属于触发式异能。“留存”意指“当此永久物死去时，将它移回。”参见规则702.1。"
    assert persist.title == {"en": "Persist", "zh_hans": "留存"}
    assert persist.keyword == "persist"
    assert persist.examples == [
        {"en": "A creature with persist dies; it returns with a -1/-1 counter.",
         "zh_hans": "具有留存异能的生物死去；它返回时其上有一个-1/-1指示物。"},
        {"en": "It won’t return a second time.", "zh_hans": "它不会第二次返回。"}]
    assert [(r.number, r.lang) for r in persist.references] == [("702.1", "en"), ("702.1", "zh_hans")]
    assert found["702.79b"].text["zh_hans"] == ("如果一个永久物具有多个留存异能，则每个都分别触发。\n"
                                                "每一个都各自检查指示物。")
    terms = {r.names["en"]: r for r in result.records if r.kind == "term"}
    assert terms["Persist"].names == {"en": "Persist", "zh_hans": "留存"}
    assert terms["Player"].names == {"en": "Player", "zh_hans": "牌手"}
    assert terms["Player"].text["zh_hans"] == "游戏中的人之一。参见规则100.1a。"
    assert result.sources[0]["languages"] == ["en", "zh_hans"]
    assert result.sources[0]["files"] == ["en.txt", "zh.txt"]


def test_chinese_file_alone(tmp_path):
    result = read_rules_files([write(tmp_path, "zh.txt", ZH)])
    found = rules(result.records)
    assert found["702.79a"].text == {"zh_hans": "留存属于触发式异能。“留存”意指“当此永久物死去时，将它移回。”"
                                                "参见规则702.1。"}
    assert found["702.79a"].title == {"zh_hans": "留存"}
    assert found["702.79a"].keyword is None  # the keyword identity is English
    assert result.sources[0]["languages"] == ["zh_hans"]


def test_translation_missing_a_rule_is_reported(tmp_path):
    zh = ZH.replace("100.1a 双人游戏指在游戏开始时只有两位牌手的游戏。", "")
    result = read_rules_files([write(tmp_path, "en.txt", EN), write(tmp_path, "zh.txt", zh)])
    assert rules(result.records)["100.1a"].text == {
        "en": "A two-player game is a game that begins with only two players."}
    assert result.warnings == [f"{tmp_path / 'zh.txt'}: lacks 1 rules that the other language of edition "
                               "2026-04-17 has (first: 100.1a)"]


# ---------------------------------------------------------------- recognising files

def test_sniff(tmp_path):
    assert is_rules_file(EN.encode("utf-8"))
    assert is_rules_file(codecs.BOM_UTF16_BE + EN.encode("utf-16-be"))
    assert is_rules_file(codecs.BOM_UTF16_LE + EN.replace("\n", "\r").encode("utf-16-le"))
    assert is_rules_file(ZH.encode("gb18030"))
    assert is_rules_file(EN.replace("Magic: The Gathering", "_Magic: The Gathering_", 1).encode("cp1252"))
    assert not is_rules_file(b"Some notes about Magic: The Gathering.\nComprehensive Rules are long.\n")
    assert not is_rules_file(bytes(range(256)))


def test_not_a_rules_file(tmp_path):
    path = write(tmp_path, "notes.txt", "\n\nSome notes about cards.\nNothing else.\n")
    with pytest.raises(RulesError) as caught:
        read_rules_file(path)
    assert caught.value.line == 3
    assert str(caught.value).startswith(f"{path}:3: not a Comprehensive Rules file")


def test_folder_reads_txt_files_and_keeps_going_after_a_failure(tmp_path, capsys):
    write(tmp_path, "a-rules.txt", EN, "utf-16-le", "\r\n", codecs.BOM_UTF16_LE)
    write(tmp_path, "b-notes.txt", "Not rules at all.\n")
    write(tmp_path, "README.md", EN)
    write(tmp_path, "c-zh.txt", ZH)
    result = read_rules_files([tmp_path], progress=True)
    assert [s.file for s in result.summaries] == [str(tmp_path / "a-rules.txt"), str(tmp_path / "c-zh.txt")]
    assert [e.path for e in result.errors] == [str(tmp_path / "b-notes.txt")]
    assert len(rules(result.records)) == 8
    assert "rules files" in capsys.readouterr().err  # the progress bar


def test_same_edition_twice_and_missing_path(tmp_path):
    path = write(tmp_path, "a.txt", EN)
    copy = write(tmp_path, "b.txt", EN)
    result = read_rules_files([path, copy, tmp_path / "gone.txt"])
    assert len(result.summaries) == 1
    messages = sorted(str(e) for e in result.errors)
    assert messages == [f"{copy}: edition 2026-04-17 (English) was already read from {path}",
                        f"{tmp_path / 'gone.txt'}: no such file or folder"]
    assert len(rules(result.records)) == 8


# ---------------------------------------------------------------- broken files

@pytest.mark.parametrize("cut, line, words", [
    ("702.79b If a permanent", 41, "inside the rules, before the Glossary"),
    ("Player\nOne of the people", 49, "inside the Glossary, before the Credits"),
    ("Contents", 9, "no numbered rule"),
])
def test_truncated_file(tmp_path, cut, line, words):
    text = EN[:EN.index(cut)]
    path = write(tmp_path, "cut.txt", text, "utf-8", "\r\n")
    with pytest.raises(RulesError) as caught:
        read_rules_file(path)
    assert caught.value.line == line
    assert str(caught.value).startswith(f"{path}:{line}: ")
    assert words in str(caught.value)
    result = read_rules_files([path])
    assert (result.records, len(result.errors)) == ([], 1)


def test_undecodable_after_bom(tmp_path):
    data = codecs.BOM_UTF8 + EN.encode("utf-8").replace(b"\xe2\x80\x9cPersist\xe2\x80\x9d", b"\xffPersist")
    path = tmp_path / "bad.txt"
    path.write_bytes(data)
    with pytest.raises(RulesError) as caught:
        read_rules_file(path)
    assert caught.value.line == 37
    assert str(caught.value) == f"{path}:37: not valid utf-8-sig after its byte order mark: byte 0xff cannot be decoded"


def test_undecodable_without_bom(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(EN.replace("\n", "\r\n").encode("utf-8").replace(b"Introduction", b"Intro\x81\r\n"))
    with pytest.raises(RulesError) as caught:
        read_rules_file(path)
    assert caught.value.line == 5
    assert "cannot be decoded as UTF-8, Windows-1252 or GB18030: byte 0x81" in str(caught.value)


def test_broken_utf16(tmp_path):
    path = tmp_path / "bad.txt"
    # A low surrogate with no high surrogate before it, after the first 200 characters.
    path.write_bytes(codecs.BOM_UTF16_LE + EN[:200].encode("utf-16-le") + b"\x00\xdc" + b"a\x00")
    with pytest.raises(RulesError) as caught:
        read_rules_file(path)
    assert "not valid utf-16-le" in str(caught.value) and caught.value.line == EN[:200].count("\n") + 1


@pytest.mark.parametrize("old, new, line, words", [
    ("100.1a A two-player", "100.2a A two-player", 27, "subrule 100.2a does not follow rule 100.2"),
    ("702.1. Most abilities", "703.1. Most abilities", 33, "rule 703.1 is outside its section"),
    ("702.79b If a permanent", "702.79l If a permanent", 41, "subrule letters skip l and o"),
    ("702.79b If a permanent", "702.79a If a permanent", 41, "rule 702.79a is repeated or out of order"),
    ("702.79. Persist", "702.79.", 35, "rule 702.79 has no text"),
    ("\n702. Keyword Abilities\n\n702.1.", "\n702. Keyword Abilities\nStray words.\n702.1.", 32,
     "text outside any rule: 'Stray words.'"),
    ("7. Additional Rules\n\n702. Keyword Abilities\n\n702.1. Most",
     "7. Additional Rules\n\n702. Keyword Abilities\n\nExample: lost.\n\n702.1. Most", 33,
     "an example outside any rule"),
    ("These rules are effective as of April 17, 2026.", "These rules are effective.", 1, "no effective date"),
    ("\nGlossary\n\nCredits\n\n1. Game", "\n\n1. Game", 11, "the Contents do not end with the Glossary"),
    ("Player\nOne of the people in the game. See rule 100.1a.", "Player", 49,
     "glossary term 'Player' has no definition"),
])
def test_broken_structure(tmp_path, old, new, line, words):
    assert old in EN
    path = write(tmp_path, "broken.txt", EN.replace(old, new, 1))
    with pytest.raises(RulesError) as caught:
        read_rules_file(path)
    assert caught.value.line == line, str(caught.value)
    assert str(caught.value).startswith(f"{path}:{line}: ")
    assert words in str(caught.value)


# --- punctuation an export turned into '?' ---

DAMAGED = ("You can?t play it. If you?re the player?s opponent, see section 6, ?Multiplayer Rules.? "
           "The players? hands are shuffled. 409.1a?h apply; see rules 306?311. Stephen D?Angelo. "
           "It has ?Cumulative upkeep?Sacrifice a creature.? Creature ? Goblin Wizard. Choose one ?. "
           "Cards aren?t considered cards?even a token. Is that a question? Yes. "
           "www.wizards.com/default.asp?x=magic. Magic: The Gathering? game.\n") * 6


def test_punctuation_lost_as_question_marks_is_restored_in_place():
    restored = restore_lost_punctuation(DAMAGED)
    assert len(restored) == len(DAMAGED)
    assert restored.split("\n")[0] == (
        "You can’t play it. If you’re the player’s opponent, see section 6, “Multiplayer Rules.” "
        "The players’ hands are shuffled. 409.1a–h apply; see rules 306–311. Stephen D’Angelo. "
        "It has “Cumulative upkeep—Sacrifice a creature.” Creature — Goblin Wizard. Choose one —. "
        "Cards aren’t considered cards—even a token. Is that a question? Yes. "
        "www.wizards.com/default.asp?x=magic. Magic: The Gathering? game.")


def test_text_without_that_damage_keeps_its_question_marks():
    few = "Can?t you? Who?s there? ?Quoted?"
    assert restore_lost_punctuation(few) == few  # too few lost apostrophes to tell
    proper = DAMAGED + "It’s a real apostrophe."
    assert restore_lost_punctuation(proper) == proper  # a file with curly quotes lost none


def test_a_rules_file_with_lost_punctuation_reads_restored(tmp_path):
    contractions = " A player can’t, won’t or doesn’t." * 8
    original = EN.replace("two or more players.", "two or more players." + contractions)
    damaged = original.replace("“", "?").replace("”", "?").replace("’", "?").replace("®", "?")
    found = rules(read_rules_files([write(tmp_path, "old.txt", damaged)]).records)
    assert found["702.79a"].text["en"] == (
        "Persist is a triggered ability. “Persist” means “When this permanent dies, return it.” See rule 702.1.")
    assert found["702.79a"].examples[1]["en"] == "It won’t return a second time."
    assert found["100.1"].text["en"].endswith(contractions)

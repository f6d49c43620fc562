"""The PTT keyword digest parser on the real post: preamble sections and rules 702.79-702.82b."""
import re
from collections import Counter
from pathlib import Path

import pytest
from corpus_support import corpus_source

from indexer.documents.parsers import ParseError, position
from indexer.documents.parsers.keyword_digest import parse, split_languages
from indexer.documents.references import is_rule_number
from indexer.documents.textclean import mixed_script_words

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = "keyword-digest"
SOURCE = corpus_source(DOCUMENT)
TEXT = SOURCE.path.read_text(encoding="utf-8")
CJK_NEWLINE_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]\n[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")


def test_counts_per_kind(parsed):
    assert Counter(r.kind for r in parsed.records) == {"section": 12, "rule": 11}


def test_rule_numbers(parsed):
    assert [r.number for r in parsed.records if r.kind == "rule"] == [
        "702.79", "702.79a", "702.79b", "702.80", "702.80a", "702.80b",
        "702.81", "702.81a", "702.82", "702.82a", "702.82b",
    ]


def test_keyword_heading_gives_the_title_its_subrules_inherit(rec):
    heading = rec["keyword-digest:rule:702.79"]
    assert heading.title == {"zh_hant": "吞噬", "en": "Devour"}
    assert heading.keyword == "devour" and heading.parent == "702"
    assert (heading.line, heading.offset) == (31, TEXT.index("702.79. 吞噬 Devour"))
    sub = rec["keyword-digest:rule:702.79b"]
    assert sub.title == {"zh_hant": "吞噬", "en": "Devour"}
    assert sub.keyword == "devour" and sub.parent == "702.79" and sub.edition == "2009-07-08"
    assert rec["keyword-digest:rule:702.82b"].title == {"zh_hant": "傾曳", "en": "Cascade"}


def test_702_82a_texts_exactly(rec):
    rule = rec["keyword-digest:rule:702.82a"]
    assert rule.text["zh_hant"] == (
        "傾曳屬於觸發式異能，只當具有傾曳異能的牌在堆疊中時生效。「傾曳」意指「當你施放此咒語時，你會從自己的牌庫頂"
        "開始將牌放逐，直到放逐出一張總魔法力費用比此咒語低、而且不是地的牌為止。你可以施放該牌，且不需支付其魔法力"
        "費用。然後將所有以此法放逐、且並未施放的牌以隨機順序置於你的牌庫底。"
    )
    assert rule.text["en"] == (
        'Cascade is a triggered ability that functions only while the spell with cascade is on the stack. '
        '"Cascade" means "When you cast this spell, exile cards from the top of your library until you exile a '
        "nonland card whose converted mana cost is less than this spell's converted mana cost. You may cast that "
        "card without paying its mana cost. Then put all cards exiled from the game this way that weren't cast on "
        'the bottom of your library in a random order."'
    )
    assert set(rule.text) == {"zh_hant", "en"}
    assert (rule.line, rule.offset) == (61, TEXT.index("702.82a"))


def test_english_starts_where_the_chinese_ends(rec):
    devour = rec["keyword-digest:rule:702.79a"].text
    assert devour["zh_hant"].endswith("它上面便有N 個+1/+1指示物。」")
    assert devour["en"].startswith('Devour is a static ability. "Devour N" means '
                                   '"As this object enters the battlefield,')
    alone = rec["keyword-digest:rule:702.80b"].text
    assert alone["zh_hant"] == ("在戰鬥階段中，若沒有其他生物與之同時進行攻擊，則此攻擊生物便是單獨攻擊。"
                                "請參見規則506.5。")
    assert alone["en"] == ('A creature "attacks alone" if it\'s the only creature declared as an attacker in a given '
                           "combat phase. See rule 506.5.")
    assert split_languages("單獨攻擊。請參見規則506.5。A creature") == ("單獨攻擊。請參見規則506.5。", "A creature")


def test_702_80b_references_506_5_in_both_languages(rec):
    rule = rec["keyword-digest:rule:702.80b"]
    assert [(r.number, r.lang, r.where) for r in rule.references] == [
        ("506.5", "zh_hant", "text"), ("506.5", "en", "text")]
    for ref in rule.references:
        assert rule.text[ref.lang][ref.start:ref.stop] == "506.5"


def test_preamble_paragraphs_are_unwrapped_sections(parsed, rec):
    first = rec["keyword-digest:section:1"]
    assert first.title == {"zh_hant": "MtG關鍵字解說～Planeswalker時空"} and first.attrs == {"level": "1"}
    assert first.text["zh_hant"] == (
        "大家都知道MtG的關鍵字很多，雖然只要在FAQ出來時把它背下來就好了，但是有很多新加入的玩家並不會也不知道要去找那些"
        "散落在各處的規則集。還有那些在日後更新的規則，那些只有刻意關心的人才會注意，因此我把完整規則裡有關關鍵字的段落"
        "整理好，加上已經翻過的翻譯，中文缺漏的部份由我加以翻譯。"
    )
    # a line broken before a URL too long to fit is a wrap, not a paragraph end
    assert rec["keyword-digest:section:6"].text["zh_hant"] == (
        "本文件的原始文件為Comprehensive Rules，網址為http://www.wizards.com/Magic/TCG/Resources.aspx?x=magic/rules；"
        "另外部份語言的常見問題集網址也為此。"
    )
    # the article the colon announces belongs to its paragraph
    assert rec["keyword-digest:section:2"].text["zh_hant"].endswith(
        "這篇文章︰\n文章代碼(AID): #1AOpAfP7 (Magic) [ptt.cc] [問題] 許多新的技能")
    preface = rec["keyword-digest:section:5"]
    assert preface.title == {"zh_hant": "序言"} and preface.line == 13
    assert preface.text["zh_hant"].endswith("於正式比賽中，主審有最高的規則解釋權。")
    assert all(r.line < 31 for r in parsed.records if r.kind == "section")


def test_signature_is_not_content(parsed):
    for record in parsed.records:
        for lang in record.languages():
            for text in record.texts(lang):
                assert "發信站" not in text and "114.24" not in text and "esotebri" not in text
    assert parsed.warnings == ["lines 73-77: PTT signature skipped"]


def test_texts_are_clean(parsed):
    for record in parsed.records:
        for text in record.texts("zh_hant"):
            assert not CJK_NEWLINE_CJK.search(text), text
        for text in record.texts("en"):
            assert mixed_script_words(text) == [] and "\n" not in text, text
        for ref in record.references:
            assert is_rule_number(ref.number) and (ref.end is None or is_rule_number(ref.end))


def test_positions_and_stable_unique_ids(parsed):
    for record in parsed.records:
        assert position(TEXT, record.offset)[0] == record.line
    ids = [r.id for r in parsed.records]
    assert len(ids) == len(set(ids))
    assert [r.to_dict() for r in parse(SOURCE, TEXT).records] == [r.to_dict() for r in parsed.records]


@pytest.mark.parametrize("text, line", [
    ("", 1),
    ("\x00\x01 ### ===\n", 1),
    ("\n\n序言\n請注意，這並非正式的完整規則譯本。\n", 3),
])
def test_input_that_is_not_a_digest_raises_with_a_position(text, line):
    with pytest.raises(ParseError) as info:
        parse(SOURCE, text)
    assert info.value.line == line

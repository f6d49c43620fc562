"""The Planechase guide parser on the real document: the insert, the 40 cards, rules 901."""
import re
from collections import Counter
from pathlib import Path

import pytest
from corpus_support import corpus_source

from indexer.documents.parsers import ParseError, position
from indexer.documents.parsers.planechase_guide import parse
from indexer.documents.references import is_rule_number
from indexer.documents.textclean import mixed_script_words

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = "planechase-guide"
SOURCE = corpus_source(DOCUMENT)
TEXT = SOURCE.path.read_text(encoding="utf-8")
CJK_NEWLINE_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]\n[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")


def all_texts(records, lang):
    return [t for r in records for t in r.texts(lang)]


def test_counts_per_kind(parsed):
    assert Counter(r.kind for r in parsed.records) == {"section": 9, "planar_card": 40, "rule": 35}
    types = Counter(r.attrs["type_line"].split(" — ")[0] for r in parsed.records if r.kind == "planar_card")
    assert types == {"Plane": 32, "Phenomenon": 8}


def test_rule_numbers_are_901_and_all_its_subrules(parsed):
    numbers = {r.number for r in parsed.records if r.kind == "rule"}
    expected = {"901"} | {f"901.{n}" for n in range(1, 16)} | {
        "901.3a", "901.7a", "901.9a", "901.9b", "901.9c", "901.10a", "901.10b", "901.11a", "901.11b",
        "901.11c", "901.12a", "901.12b", "901.12c", "901.12d", "901.14a", "901.14b", "901.15a", "901.15b",
        "901.15c",
    }
    assert numbers == expected


def test_chaotic_aether_pairs_names_and_its_encounter_ability(rec):
    card = rec["planechase-guide:planar_card:chaotic-aether"]
    assert card.kind == "planar_card"
    assert card.names == {"en": "Chaotic Aether", "zh_hant": "混亂乙太"}
    assert card.attrs == {"type_line": "Phenomenon", "type_line_zh_hant": "奇跡"}
    assert card.abilities == [{
        "en": "When you encounter Chaotic Aether, each blank roll of the planar die is a chaos symbol until a "
              "player planeswalks away from a plane. (Then planeswalk away from this phenomenon.)",
        "zh_hant": "當你遭遇Chaotic Aether 混亂乙太時，每個時空骰子的空白面都視作混亂標記，直到一個玩家從一個地域"
                   "時空旅行離開。（然後時空旅行離開這個奇跡。）",
    }]
    assert card.text == card.abilities[0]
    assert (card.line, card.offset) == (390, TEXT.index("Chaotic Aether\n"))
    assert card.source == "planechase-guide" and card.edition == "2016-01"


def test_akoum_type_line_world_and_both_abilities(rec):
    card = rec["planechase-guide:planar_card:akoum"]
    assert card.names == {"en": "Akoum", "zh_hant": "阿庫姆"}
    assert card.attrs == {
        "type_line": "Plane — Zendikar", "world": "Zendikar",
        "type_line_zh_hant": "地域 — Zendikar 贊迪卡", "world_zh_hant": "贊迪卡",
    }
    assert card.abilities == [
        {"en": "Planeswalking Ability: Players may cast enchantment cards as though they had flash.",
         "zh_hant": "時空旅行異能：玩家可以像結界牌擁有閃現一樣施放它們。"},
        {"en": "Chaos Ability: Whenever you roll chaos symbol, destroy target creature that isn't enchanted.",
         "zh_hant": "混亂異能：每當你擲到混亂標記，破壞目標未被結附的生物。"},
    ]
    assert card.text["en"] == "\n".join(a["en"] for a in card.abilities)
    assert card.text["zh_hant"] == "".join(a["zh_hant"] for a in card.abilities)
    assert card.line == 218


def test_an_ability_over_several_lines_stays_one_ability_in_both_languages(rec):
    # English gives the second sentence its own line; the Chinese has both sentences on one.
    card = rec["planechase-guide:planar_card:mount-keralia"]
    assert card.names == {"en": "Mount Keralia"}  # the Chinese block gives no Chinese name
    assert [a["en"].split(":")[0] for a in card.abilities] == ["Planeswalking Ability", "Chaos Ability"]
    assert card.abilities[0]["en"].endswith(
        "put a pressure counter on Mount Keralia. When you planeswalk away from Mount Keralia, it deals damage "
        "equal to the number of pressure counters on it to each creature and each planeswalker."
    )
    assert card.abilities[0]["zh_hant"].startswith("時空旅行異能：在你的結束步驟開始時")
    assert card.abilities[1]["zh_hant"].startswith("混亂異能：")


def test_every_card_has_both_languages_on_every_ability(parsed):
    for card in (r for r in parsed.records if r.kind == "planar_card"):
        assert card.abilities, card.id
        for ability in card.abilities:
            assert set(ability) == {"en", "zh_hant"}, card.id


def test_rule_901_and_its_subrules_carry_the_section_title(rec):
    rule = rec["planechase-guide:rule:901"]
    assert rule.title == {"zh_hant": "競逐時空", "en": "Planechase"}
    assert rule.parent is None and rule.line == 1048
    sub = rec["planechase-guide:rule:901.15a"]
    assert sub.title == {"zh_hant": "競逐時空", "en": "Planechase"}
    assert sub.number == "901.15a" and sub.parent == "901.15" and sub.edition == "2016-01"
    assert sub.text == {"zh_hant": (
        "競逐時空遊戲也能以使用單一共用時空套牌的玩法進行遊戲。在此情況下，時空套牌須至少為四十張或至少十倍於參加遊戲的"
        "牌手數量，取兩者間較小者。時空套牌中包含的異象牌數量，不得多於參加遊戲之牌手數量的兩倍。成時空套牌的各牌英文"
        "名稱須各不相同。"
    )}
    assert sub.references == []


def test_rule_901_3a(rec):
    rule = rec["planechase-guide:rule:901.3a"]
    assert rule.text == {"zh_hant": "時空骰為六面骰。其中一面為鵬洛客符號{PW}。一面為混沌符號{CHAOS}。其他面為空白。"}
    assert rule.parent == "901.3"
    assert (rule.line, rule.offset) == (1064, TEXT.index("901.3a "))


def test_rule_references(rec):
    assert [(r.number, r.lang) for r in rec["planechase-guide:rule:901.2"].references] == [("806", "zh_hant")]
    refs = rec["planechase-guide:rule:901.11a"].references
    assert [r.number for r in refs] == ["901.8", "901.10", "704.5x"]
    text = rec["planechase-guide:rule:901.11a"].text["zh_hant"]
    assert [text[r.start:r.stop] for r in refs] == ["901.8", "901.10", "704.5x"]


def test_shared_planar_deck_is_one_bilingual_section(parsed):
    sections = [r for r in parsed.records if r.kind == "section" and "SHARED PLANAR DECK" in r.title.get("en", "")]
    assert len(sections) == 1
    section = sections[0]
    assert section.title == {"en": "OPTIONAL RULE: SHARED PLANAR DECK", "zh_hant": "可選規則：共用時空牌"}
    en, zh = section.text["en"], section.text["zh_hant"]
    assert en.startswith("An alternate way to play Planechase is with one shared planar deck")
    assert en.endswith("No two cards in the planar deck can have the same name, and the deck can't contain more "
                       "phenomenon cards than twice the number of players in the game.")
    assert en.count("\n") == 1
    assert zh.startswith("另一種進行時空競逐遊戲的方式是用一個共用的時空牌牌堆進行遊戲")
    assert zh.endswith("所有時空牌不能重名，而且其中不能有超過玩家數量兩倍的奇跡牌。")
    assert section.line == 164 and section.attrs == {"level": "2"}


def test_insert_sections_in_order_with_their_headings(parsed):
    titles = [r.title.get("en") or r.title.get("zh_hant") for r in parsed.records if r.kind == "section"]
    assert titles == [
        "競逐時空ANTHOLOGY", "魔法風雲會Magic規則", None, "PLANECHASE", "SETUP", "USING YOUR PLANAR DECK",
        "WINNING THE GAME", "OPTIONAL RULE: SHARED PLANAR DECK", "CUSTOMIZING YOUR PLANAR DECK",
    ]


def test_english_has_no_look_alike_letters_and_reads_in_lower_case(parsed):
    for text in all_texts(parsed.records, "en"):
        assert mixed_script_words(text) == [], text
    setup = next(r for r in parsed.records if r.title.get("en") == "SETUP")
    assert "(It will have no effect because the first turn hasn't started yet.)" in setup.text["en"]


def test_chinese_noise_is_gone_and_the_words_it_split_are_whole(parsed, rec):
    for lang in ("zh_hant", "en"):
        for text in all_texts(parsed.records, lang):
            assert "位元" not in text and "囘" not in text, text
            assert "\u00a0" not in text
    customizing = next(r for r in parsed.records if r.title.get("en") == "CUSTOMIZING YOUR PLANAR DECK")
    assert "在你的時空牌中只有三條規則你需要遵守" in customizing.text["zh_hant"]
    assert "依照回合順序的下一位不會離開遊戲的牌手" in rec["planechase-guide:rule:901.6"].text["zh_hant"]


def test_no_chinese_sentence_is_broken_by_a_newline(parsed):
    for text in all_texts(parsed.records, "zh_hant"):
        assert not CJK_NEWLINE_CJK.search(text), text


def test_references_are_well_formed(parsed):
    refs = [ref for r in parsed.records for ref in r.references]
    assert len(refs) == 15
    for ref in refs:
        assert is_rule_number(ref.number) and (ref.end is None or is_rule_number(ref.end))


def test_positions_point_at_the_first_line_of_each_record(parsed):
    for record in parsed.records:
        assert position(TEXT, record.offset)[0] == record.line
        assert record.offset == 0 or TEXT[record.offset - 1] == "\n"


def test_ids_are_unique_and_stable(parsed):
    ids = [r.id for r in parsed.records]
    assert len(ids) == len(set(ids))
    assert [r.to_dict() for r in parse(SOURCE, TEXT).records] == [r.to_dict() for r in parsed.records]


def test_warnings_name_what_was_skipped(parsed):
    assert "line 424: deck heading 'CHAOS REGINS 混亂統治' before a card skipped" in parsed.warnings
    assert "line 452: Grand Ossuary: world 'Revnica' in English, 'Ravnica' in Chinese" in parsed.warnings


def test_a_world_misspelt_once_is_the_world_the_other_planes_name(rec):
    """Grand Ossuary's English type line says Revnica; its Chinese line and every other plane
    of that world say Ravnica."""
    ossuary = rec["planechase-guide:planar_card:grand-ossuary"]
    assert (ossuary.attrs["type_line"], ossuary.attrs["world"]) == ("Plane — Ravnica", "Ravnica")
    assert ossuary.attrs["world_zh_hant"] == "拉尼卡"


@pytest.mark.parametrize("text, line", [
    ("", 1),
    ("\u00a0\n\n \n", 1),
    ("\x00\x01\x02 ### 123 ***\n", 1),
    ("\nhello world, nothing here\n\nno cards\n", 2),
])
def test_input_that_is_not_a_guide_raises_with_a_position(text, line):
    with pytest.raises(ParseError) as info:
        parse(SOURCE, text)
    assert info.value.line == line

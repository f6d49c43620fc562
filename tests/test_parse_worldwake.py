"""The Worldwake FAQ, Traditional Chinese in paragraphs, read into records."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from indexer.documents.parsers import ParseError, parser_for, position, set_faq
from indexer.documents.references import is_rule_number

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = "worldwake-faq"


def test_the_family_is_read_by_this_parser(source):
    assert source.family == "set-faq"
    assert parser_for(source.family) is set_faq.parse


def test_record_counts_per_kind(parsed):
    assert Counter(r.kind for r in parsed.records) == {"section": 5, "card": 6, "rule": 8}


def test_rule_numbers(parsed):
    assert [r.number for r in parsed.records if r.kind == "rule"] == [
        "702.30", "702.30a", "702.30b", "702.30c", "702.30d", "702.30e", "702.30f", "702.30g"]


def test_sections(parsed):
    sections = [r for r in parsed.records if r.kind == "section"]
    assert [(s.title["zh_hant"], s.line) for s in sections] == [
        ("關鍵字異能變化：多重增幅", 8), ("主題：變成生物的地", 56), ("複出異能提示：地落", 110),
        ("主題：在乎基本地類別", 137), ("其他複出機制", 152)]
    assert all(s.attrs == {"level": "2"} for s in sections)
    assert sections[0].text["zh_hant"].split("\n") == [
        "多重增幅是增幅異能的變化，後者最近一次登場是在贊迪卡系列。增幅代表了只能于施放某咒語時支付一次的額外性費用。"
        "多重增幅則代表了于施放某咒語時可以多次支付的額外性費用。",
        "增幅與多重增幅異能的正式規則解析如下：",
    ]
    landfall = sections[2].text["zh_hant"].split("\n")
    assert len(landfall) == 4  # two paragraphs of prose and the two bullets between them
    assert landfall[0].startswith("地落屬於異能提示。（異能提示並無規則含義。）在英文版永久物牌上")
    assert landfall[1].startswith("每當一個地由於任何原因在你的操控下進戰場時")


def test_multikicker_rule_text(rec):
    rule = rec["worldwake-faq:rule:702.30c"]
    assert rule.text == {"zh_hant": "多重增幅是增幅異能的變化。「多重增幅[費用]」意指："
                                    "「你施放此咒語時，可以任意次數地額外支付[費用]。」"
                                    "多重增幅的費用屬於增幅費用。"}
    assert (rule.parent, rule.title, rule.edition, rule.line) == ("702.30", {"zh_hant": "增幅"}, "2010-02-01", 27)


def test_kicker_rule_and_its_bullets(rec):
    rule = rec["worldwake-faq:rule:702.30"]
    assert (rule.text, rule.title, rule.parent, rule.keyword) == ({"zh_hant": "增幅"}, {"zh_hant": "增幅"}, "702", None)
    assert len(rule.rulings) == 9
    assert rule.rulings[0]["zh_hant"].startswith("你於施放咒語的同時增幅它。")
    assert rule.rulings[-1]["zh_hant"].startswith("腐生蔓延這張較老的牌")
    assert all(not rec[f"worldwake-faq:rule:702.30{x}"].rulings for x in "abcdefg")


def test_references_of_702_30a(rec):
    rule = rec["worldwake-faq:rule:702.30a"]
    text = rule.text["zh_hant"]
    assert [(r.number, r.end, r.where, text[r.start:r.stop]) for r in rule.references] == [
        ("601.2b", None, "text", "601.2b"), ("601.2f", "601.2h", "text", "601.2f至h")]
    assert text.endswith("需依照規則601.2b與規則601.2f至h之規範來支付額外費用。")
    assert [r.number for r in rec["worldwake-faq:rule:702.30e"].references] == ["607"]


def test_gnarlid_pack(rec):
    card = rec["worldwake-faq:card:咆哮獸群"]
    assert card.names == {"zh_hant": "咆哮獸群"}
    assert card.attrs == {"mana_cost": "{一}{綠}", "type_line": "生物～野獸", "power_toughness": "2/2",
                          "set": "Worldwake"}
    assert card.text == {"zh_hant": "多重增幅{一}{綠}（你施放此咒語時，可以任意次數地額外支付{一}{綠}。）\n"
                                    "咆哮獸群進場時上面有數個+1/+1指示物，其數量為它增幅過的次數。"}
    # the multikicker section's example card: the bullets after the quoted 702.30 are its rulings too
    assert card.line == 12
    assert card.rulings == rec["worldwake-faq:rule:702.30"].rulings and len(card.rulings) == 9


def test_a_themes_bullets_are_about_each_of_its_example_cards(rec):
    """The section on lands that become creatures shows a land, a creature and an aura, its
    prose between them, then its bullets: all three cards have them."""
    cards = [rec[f"worldwake-faq:card:{name}"] for name in ("天界柱廊", "廣林物靈師", "行風贊迪肯")]
    assert [len(card.rulings) for card in cards] == [12, 12, 12]
    assert cards[0].rulings == cards[1].rulings == cards[2].rulings
    assert cards[0].rulings[0]["zh_hant"].startswith("在所有這些狀況下，此永久物最後的狀況都將既是地又是生物")
    # A card followed by its own bullets keeps them alone.
    assert len(rec["worldwake-faq:card:入墓邪術"].rulings) == 5 and len(rec["worldwake-faq:card:黑土獅"].rulings) == 2


def test_other_cards(rec):
    colonnade = rec["worldwake-faq:card:天界柱廊"]
    assert colonnade.attrs == {"type_line": "地", "set": "Worldwake"}
    assert colonnade.text["zh_hant"].split("\n")[0] == "天界柱廊須橫置進戰場。"
    assert rec["worldwake-faq:card:廣林物靈師"].attrs["type_line"] == "生物～妖精／祭師／夥伴"
    zendikon = rec["worldwake-faq:card:行風贊迪肯"]
    assert zendikon.attrs == {"mana_cost": "{藍}", "type_line": "結界～靈氣", "set": "Worldwake"}
    assert zendikon.text["zh_hant"].split("\n") == [
        "結附於地", "所結附的地是2/2藍色，具飛行異能的元素生物。它仍然是地。",
        "當所結附的地置入墳墓場時，將該牌移回其擁有者手上。"]
    assert len(zendikon.rulings) == 12
    summary = zendikon.rulings[8]["zh_hant"].split("\n")
    assert summary[0] == "以下用幾個特殊例子來總結最後幾點："
    assert [line[:8] for line in summary[1:]] == ["如果兩個贊迪肯結", "如果像天界柱廊這"]
    hex_ = rec["worldwake-faq:card:入墓邪術"]
    assert (hex_.attrs["type_line"], len(hex_.rulings)) == ("瞬間", 5)
    lion = rec["worldwake-faq:card:黑土獅"]
    assert lion.attrs == {"mana_cost": "{白}", "type_line": "生物～貓", "power_toughness": "1/1", "set": "Worldwake"}
    assert len(lion.rulings) == 2


def test_positions_point_at_the_original_text(parsed, text):
    for r in parsed.records:
        assert (r.line, r.offset) == position(text, r.offset)
        at = text[r.offset:]
        expected = {"card": lambda record: record.names["zh_hant"] + "\n", "rule": lambda record: record.number,
                    "section": lambda record: "***" + record.title["zh_hant"] + "***"}[r.kind](r)
        assert at.startswith(expected), r.id


def test_texts_are_clean(parsed):
    for r in parsed.records:
        for lang in r.languages():
            for value in r.texts(lang):
                assert "*" not in value and "_" not in value, (r.id, value)
                assert not re.search(r"(?m)^-{1,2}\s|^\s|\s$|\n\n", value), (r.id, value)
                assert not re.search(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef][ \t]"
                                     r"|[ \t][\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]", value), (r.id, value)


def test_conversion_mistakes_are_repaired_as_in_every_document(rec, text):
    assert "一部分隻會" in text
    assert rec["worldwake-faq:rule:702.30g"].text["zh_hant"].startswith(
        "如果某異能的一部分只會在該咒語增幅過後才會生效")


def test_references_are_rule_numbers(parsed):
    refs = [ref for r in parsed.records for ref in r.references]
    assert len(refs) == 5
    assert all(is_rule_number(ref.number) and (ref.end is None or is_rule_number(ref.end)) for ref in refs)


def test_ids_are_unique_and_stable(source, text, parsed):
    ids = [r.id for r in parsed.records]
    assert len(ids) == len(set(ids))
    again = set_faq.parse(source, text)
    assert [r.to_dict() for r in again.records] == [r.to_dict() for r in parsed.records]


def test_lines_before_the_first_heading_are_reported(parsed):
    assert len(parsed.warnings) == 1
    assert "魔導公會.2023" in parsed.warnings[0] and "中文版還沒出" in parsed.warnings[0]


@pytest.mark.parametrize("bad, line", [("", 1), ("\n\n", 1), ("hello world\nno headings\n", 1),
                                        ("***標題***\n\n只有一段文字。\n", 1)])
def test_not_this_family_raises_with_a_position(source, bad, line):
    with pytest.raises(ParseError) as err:
        set_faq.parse(source, bad)
    assert err.value.line == line
    assert str(err.value).startswith(f"line {line}: ") and err.value.message


def test_the_one_line_export_is_not_a_paragraph_faq(source):
    export = (ROOT / "corpus" / "shadowmoor-faq-zh-hant.txt").read_text(encoding="utf-8")
    with pytest.raises(ParseError, match="no `\\*\\*\\*heading\\*\\*\\*` line"):
        set_faq.parse(source, export)

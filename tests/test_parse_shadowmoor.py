"""The Shadowmoor FAQ, exported from a PTT digest as one 97 KB line, read into records."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from indexer.documents.parsers import ParseError, parser_for, position, shadowmoor_faq
from indexer.documents.parsers.shadowmoor_faq import COLOUR_HEADINGS
from indexer.documents.references import is_rule_number

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = "shadowmoor-faq"
CJK_NEXT_TO_SPACE = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef][ \t]"
                               r"|[ \t][\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def test_the_family_is_read_by_this_parser(source):
    assert source.family == "ptt-faq-export"
    assert parser_for(source.family) is shadowmoor_faq.parse


def test_record_counts_per_kind(parsed):
    assert Counter(r.kind for r in parsed.records) == {"section": 12, "card": 107, "rule": 16}


def test_every_quoted_rule_is_a_record(parsed):
    assert [r.number for r in parsed.records if r.kind == "rule"] == [
        "104.3", "104.3f", "203.2e", "203.3c", "104.5", "212.3f", "502.5b",
        "502.78", "502.78a", "502.78b", "502.79", "502.79a", "212.3g", "502.80", "502.80a", "502.80b",
    ]
    for r in parsed.records:
        if r.kind == "rule":
            assert r.edition == "2008-05-01"
            assert r.id == f"shadowmoor-faq:rule:{r.number}"


def test_section_titles_in_order(parsed):
    assert [r.title["zh_hant"] for r in parsed.records if r.kind == "section"] == [
        "暗影荒原常見問題集", "複出機制：混血", "新機制：單色混血", "主題：顏色很重要", "主題：-1/-1指示物",
        "新符號：重置符號", "新關鍵字異能：協力(Conspire)", "新關鍵字異能：留存(Persist)",
        "新關鍵字異能：乾枯(Wither)", "組合：「混血強化」咒語", "組合：具有基本地類別的非基本地", "簡體中文版勘誤",
    ]


def test_header_section_has_its_fields_on_lines_of_their_own(rec):
    header = rec["shadowmoor-faq:section:1"]
    assert header.attrs == {"level": "1"}
    lines = header.text["zh_hant"].split("\n")
    assert lines[:4] == [
        "編纂：Mark L. Gottlieb，且有Laurie Cheers，Jeff Jordan，及Lee Sharpe的貢獻",
        "此檔最近更新日期：2008年4月4日",
        "暗影荒原售前現開賽日期：2008年4月19-20日",
        "暗影荒原正式發售日期：2008年5月2日",
    ]
    assert lines[4].startswith("自正式發售當日起，暗影荒原系列便可在有認證之構組賽制中使用。")
    assert lines[-1].endswith("惟因篇幅所限，僅列舉本系列部分的牌。")


def test_wasp_lancer(rec):
    card = rec["shadowmoor-faq:card:wasp-lancer"]
    assert card.names == {"zh_hant": "蜂矛兵", "en": "Wasp Lancer"}
    assert card.attrs == {"mana_cost": "{藍/黑}{藍/黑}{藍/黑}", "type_line": "生物～仙靈／士兵",
                          "power_toughness": "3/2", "set": "Shadowmoor"}
    assert card.text == {"zh_hant": "飛行"}
    assert len(card.rulings) == 6
    assert card.rulings[0] == {"zh_hant": "混血法術力符號只會出現在費用中，"
                                          "例如牌張右上角的法術力費用，或是起動式異能的費用。"}
    # `{藍}{ 藍}` of the export is the symbol {藍}.
    assert card.rulings[3]["zh_hant"].endswith("你可以用{白}{白}，{白}{藍}，或是{藍}{藍}來支付。")
    assert card.rulings[5] == {"zh_hant": "混血法術力符號並不是新的顏色。你無法將混血法術力加入你的法術力池中。"}


def test_murderous_redcap_is_one_card_from_both_sections(rec, text):
    entry = "奪魂紅帽客/ Murderous Redcap {二}{黑/紅}{黑/紅} 生物～精靈／殺手 2/2"
    first = text.index(entry)
    assert text.index(entry, first + 1) > first  # described in the persist section and the card part
    cards = [r for r in rec.values() if r.names.get("en") == "Murderous Redcap"]
    assert len(cards) == 1
    card = cards[0]
    assert card.id == "shadowmoor-faq:card:murderous-redcap"
    assert card.offset == first and card.line == 3
    assert card.attrs == {"mana_cost": "{二}{黑/紅}{黑/紅}", "type_line": "生物～精靈／殺手",
                          "power_toughness": "2/2", "set": "Shadowmoor"}
    assert card.text["zh_hant"] == (
        "當奪魂紅帽客進場時，它對目標生物或牌手造成傷害，其數量等同於其力量。\n"
        "留存（當此生物從場上置入墳墓場時，若其上沒有-1/-1指示物，則將它在其擁有者的操控下返回場上，且其上有一個-1/-1指示物。）"
    )
    # In the persist section the card is the example of the quoted rules 502.79-502.79a: the
    # seven bullets after them are the rule's and the card's; the card part adds one more.
    persist = rec["shadowmoor-faq:rule:502.79"]
    assert len(persist.rulings) == 7
    assert card.rulings == [
        *persist.rulings,
        {"zh_hant": "此異能結算時，才會檢查奪魂紅帽客之力量。如果當時它已離場，則會使用其已知的最後資訊。"}]
    assert card.rulings[0] == {"zh_hant": "所有暗影荒原中具留存異能的牌都是生物。"
                                          "如果這類牌在場上時因故不再是生物，留存依舊會生效。"}


def test_cards_described_twice_collect_the_rulings_of_both_places(rec):
    shield = rec["shadowmoor-faq:card:shield-of-the-oversoul"]
    assert [r["zh_hant"][:12] for r in shield.rulings] == [
        "若受此結界的生物具有所列", "如果某效應將同時消滅超靈", "如果超靈之盾所結附的綠色"]
    torrent = rec["shadowmoor-faq:card:torrent-of-souls"]
    assert len(torrent.rulings) == 5
    assert torrent.rulings[0]["zh_hant"].startswith("此咒語在乎的是支付其總費用時用了哪種法術力")
    assert torrent.rulings[4]["zh_hant"].startswith("此咒語的效應會依序發生。")
    knight = rec["shadowmoor-faq:card:kulrath-knight"]  # the wither section's example card
    wither = rec["shadowmoor-faq:rule:502.80"]
    assert len(wither.rulings) == 5
    assert knight.rulings == [*wither.rulings, {"zh_hant": "這會檢查對手的生物上是否有指示物，而不只檢查-1/-1指示物。"}]


def test_colour_headings_are_not_part_of_card_names(rec, text):
    pool = rec["shadowmoor-faq:card:reflecting-pool"]
    assert pool.names == {"zh_hant": "映景明湖", "en": "Reflecting Pool"}
    assert pool.attrs == {"type_line": "地", "set": "Shadowmoor"}
    assert pool.text == {"zh_hant": "{橫置}：加一點法術力到你的法術力池中，其類別為由你操控的地能產生之任一類別。"}
    assert len(pool.rulings) == 4
    assert text[pool.offset - 1:pool.offset + 6] == "地映景明湖/ "
    firsts = {"barrenton-medic": "八連屯醫護員", "advice-from-the-fae": "仙兒建言", "blowfly-infestation": "綠蠅侵擾",
              "cragganwick-cremator": "喀幹偉火葬師", "devoted-druid": "虔誠德魯伊", "cemetery-puca": "墓地鋪卡",
              "cauldron-of-souls": "靈魂鼎鑊", "reflecting-pool": "映景明湖"}
    for (key, zh), colour in zip(firsts.items(), COLOUR_HEADINGS, strict=True):
        card = rec[f"shadowmoor-faq:card:{key}"]
        assert card.names["zh_hant"] == zh
        assert text[card.offset - len(colour):card.offset] == colour
    assert not [r for r in rec.values() if r.kind == "card" and r.names["zh_hant"].startswith(COLOUR_HEADINGS[:6])]


def test_type_lines_glued_to_rules_text_are_taken_apart(rec):
    shield = rec["shadowmoor-faq:card:shield-of-the-oversoul"]
    assert shield.attrs["type_line"] == "結界～靈氣"
    assert shield.text["zh_hant"].split("\n")[0] == "生物結界"
    torture = rec["shadowmoor-faq:card:torture"]
    assert torture.attrs == {"mana_cost": "{黑}", "type_line": "結界～靈氣", "set": "Shadowmoor"}
    assert torture.text["zh_hant"] == "生物結界\n{一}{黑}：在受此結界的生物上放置一個-1/-1指示物。"
    burn = rec["shadowmoor-faq:card:burn-trail"]
    assert burn.attrs["type_line"] == "法術"
    assert burn.text["zh_hant"].startswith("焚跡對目標生物或牌手造成3點傷害。\n協力（")
    knight = rec["shadowmoor-faq:card:kulrath-knight"]
    assert knight.text["zh_hant"].split("\n") == [
        "飛行", "乾枯（此來源會以-1/-1指示物的方式對生物造成傷害。）",
        "由對手操控、且上面有指示物的生物不能進行攻擊或阻擋。"]
    oona = rec["shadowmoor-faq:card:oona-queen-of-the-fae"]
    assert oona.names["en"] == "Oona, Queen of the Fae"
    assert oona.attrs["type_line"] == "傳奇生物～仙靈／法術師"
    assert oona.attrs["power_toughness"] == "5/5"
    assert rec["shadowmoor-faq:card:grim-poppet"].attrs["type_line"] == "神器生物～稻草人"
    assert rec["shadowmoor-faq:card:sapseep-forest"].attrs == {"type_line": "地～樹林", "set": "Shadowmoor"}


def test_persist_rule(rec):
    rule = rec["shadowmoor-faq:rule:502.79"]
    assert rule.title == {"zh_hant": "留存", "en": "Persist"}
    assert rule.text == {"zh_hant": "留存"}
    assert (rule.number, rule.parent, rule.keyword) == ("502.79", "502", "persist")
    assert len(rule.rulings) == 7
    assert rule.rulings[0] == {"zh_hant": "所有暗影荒原中具留存異能的牌都是生物。"
                                          "如果這類牌在場上時因故不再是生物，留存依舊會生效。"}
    sub = rec["shadowmoor-faq:rule:502.79a"]
    assert sub.title == {"zh_hant": "留存", "en": "Persist"}
    assert (sub.parent, sub.keyword, sub.rulings) == ("502.79", "persist", [])
    assert sub.text == {"zh_hant": "留存屬於觸發式異能。「留存」意指「當此永久物從場上置入墳墓場時，"
                                   "若其上沒有-1/-1指示物，則將它在其擁有者的操控下返回場上，"
                                   "且其上有一個-1/-1指示物。」"}


def test_keyword_titles_and_other_rules(rec):
    assert rec["shadowmoor-faq:rule:502.78b"].title == {"zh_hant": "協力", "en": "Conspire"}
    assert len(rec["shadowmoor-faq:rule:502.78"].rulings) == 6
    assert rec["shadowmoor-faq:rule:502.80"].title == {"zh_hant": "乾枯", "en": "Wither"}
    assert len(rec["shadowmoor-faq:rule:502.80"].rulings) == 5
    assert rec["shadowmoor-faq:rule:502.80b"].text == {"zh_hant": "同一個物件上的數個乾枯異能並無意義。"}
    for number in ("104.3", "104.3f", "104.5", "212.3f", "212.3g", "502.5b"):
        assert rec[f"shadowmoor-faq:rule:{number}"].title == {}
        assert rec[f"shadowmoor-faq:rule:{number}"].keyword is None
    # The sentence that introduces the wither rules is the section's, not 212.3g's.
    damage = rec["shadowmoor-faq:rule:212.3g"]
    assert damage.text["zh_hant"].endswith("在清除步驟時也會移除（請參見規則314.2）。")
    assert [(r.number, r.end, r.where) for r in damage.references] == [
        ("420.5c", None, "text"), ("501.5", None, "text"), ("314.2", None, "text")]
    assert rec["shadowmoor-faq:section:9"].text["zh_hant"].split("\n")[-1] == "乾枯的正式規則解析如下："
    hybrid = rec["shadowmoor-faq:rule:104.3"].text["zh_hant"]
    assert "{二/白}，{二/藍}，{二/黑}，{二/紅}，以及{二/綠}之類的單色混血符號" in hybrid


def test_general_bullets_belong_to_their_section(rec):
    colour = rec["shadowmoor-faq:section:4"].text["zh_hant"].split("\n")
    assert colour[-3:] == [
        "其他關於顏色的注意事項：", "「無色」不算是一種顏色。",
        "除非特別注明，否則地與神器正常來說都是無色，因為它們的法術力費用並不含有色法術力符號。"
        "如果讓地或神器獲得顏色，並不會改變此牌的類別；它依舊會是地或神器。",
    ]
    assert colour[1] == "某些牌上面則有兩個觸發式異能，會分別檢查特定的顏色。"
    assert len(rec["shadowmoor-faq:card:cerulean-wisps"].rulings) == 2
    counters = rec["shadowmoor-faq:section:5"].text["zh_hant"].split("\n")
    assert len(counters) == 7 and counters[1].startswith("上面有-1/-1指示物的生物，其防禦力可能會等於0或更少。")


def test_errata_section(rec):
    errata = rec["shadowmoor-faq:section:12"].text["zh_hant"].split("\n")
    assert errata[0] == "1.河流凱爾比規則誤植：簡體中文版之河流凱爾比牌上印製的內文敘述有誤。以下是該牌正確的規則敘述："
    assert errata[2].startswith("River Kelpie Whenever River Kelpie or another permanent is put into play")
    assert errata[5:8] == ["英文名稱｜中文名稱｜系列", "Put Away｜封貯｜暗影荒原", "Envelop｜封存｜神譴"]
    assert errata[9:12] == ["英文名稱｜中文名稱｜系列", "Torture｜酷刑｜暗影荒原，第五版，家鄉",
                            "Afflict｜折磨｜奧德賽"]
    assert errata[-1] == "Graven Cairns｜銘刻石標｜暗影荒原，預知將來"
    kelpie = rec["shadowmoor-faq:card:river-kelpie"]
    assert kelpie.text["en"].startswith("Whenever River Kelpie or another permanent is put into play from a graveyard")
    assert kelpie.text["en"].endswith("return it to play under its owner's control with a -1/-1 counter on it.)")


def test_positions_point_at_the_original_text(parsed, text):
    for r in parsed.records:
        assert (r.line, r.offset) == position(text, r.offset)
        at = text[r.offset:]
        if r.kind == "card":
            assert at.startswith(r.names["zh_hant"] + "/ " + r.names["en"])
        elif r.kind == "rule":
            assert at.startswith(r.number)
        elif r.title["zh_hant"].startswith(("新", "複出", "主題", "組合")):
            assert at.startswith("***" + r.title["zh_hant"] + "***")
    offsets = [r.offset for r in parsed.records]
    assert offsets == sorted(offsets)


def test_texts_are_clean(parsed):
    for r in parsed.records:
        for lang in r.languages():
            for value in r.texts(lang):
                assert "*" not in value and "_" not in value, (r.id, value)
                assert not re.search(r"(?m)^-{1,2}\s|^\s|\s$|\n\n", value), (r.id, value)
                assert not CJK_NEXT_TO_SPACE.search(value), (r.id, value)


def test_conversion_mistakes_are_repaired_as_in_every_document(rec, text):
    """The export converted Simplified to Traditional with Taiwan phrases, as the Planechase
    guide did: 每位元 and 一位元 are 每位 and 一位, 數位記號 is 數字記號."""
    assert "每位元牌手" in text and "數位記號" in text
    assert rec["shadowmoor-faq:card:spiteful-visions"].text["zh_hant"].startswith("在每位牌手的抓牌步驟開始時")
    assert any("但一定要選一位牌手為目標" in r["zh_hant"] for r in rec["shadowmoor-faq:card:torrent-of-souls"].rulings)
    assert "之類的數字記號" in rec["shadowmoor-faq:rule:104.3"].text["zh_hant"]
    for r in rec.values():
        for value in r.texts("zh_hant"):
            assert "位元" not in value and "數位記號" not in value, r.id


def test_references_are_rule_numbers_and_locate_their_text(parsed):
    count = 0
    for r in parsed.records:
        for ref in r.references:
            assert is_rule_number(ref.number) and (ref.end is None or is_rule_number(ref.end))
            where = r.text[ref.lang] if ref.where == "text" else r.rulings[int(ref.where[8:-1])][ref.lang]
            assert where[ref.start:ref.stop].lower().startswith(ref.number)
            count += 1
    assert count == 10


def test_ids_are_unique_and_stable(source, text, parsed):
    ids = [r.id for r in parsed.records]
    assert len(ids) == len(set(ids))
    again = shadowmoor_faq.parse(source, text)
    assert [r.to_dict() for r in again.records] == [r.to_dict() for r in parsed.records]


def test_skipped_parts_are_reported(parsed):
    assert len(parsed.warnings) == 2
    assert "page title" in parsed.warnings[0] and "批踢踢實業坊" in parsed.warnings[0]
    assert "所有注冊商標" in parsed.warnings[1]


@pytest.mark.parametrize("bad", ["", "   \n", "hello world\nnothing to see here\n"])
def test_not_this_family_raises_with_a_position(source, bad):
    with pytest.raises(ParseError) as err:
        shadowmoor_faq.parse(source, bad)
    assert err.value.line == 1
    assert str(err.value).startswith("line 1: ") and "PTT" in str(err.value)


def test_a_paragraph_faq_is_not_an_export(source):
    other = (ROOT / "corpus" / "worldwake-faq-zh-hant.txt").read_text(encoding="utf-8")
    with pytest.raises(ParseError, match="not a PTT FAQ export"):
        shadowmoor_faq.parse(source, other)


def test_a_card_entry_without_a_type_line_is_kept_and_reported(source):
    export = ("頁首\n----- 測試常見問題集 說明。 ----- ***主題：測試*** 測試說明。 "
              "怪牌/ Odd Card {一} 奇怪的東西 * 一條裁定。")
    parsed = shadowmoor_faq.parse(source, export)
    card = next(r for r in parsed.records if r.kind == "card")
    assert (card.names, card.attrs, card.text) == (
        {"zh_hant": "怪牌", "en": "Odd Card"}, {"mana_cost": "{一}", "set": "Shadowmoor"}, {"zh_hant": "奇怪的東西"})
    assert card.rulings == [{"zh_hant": "一條裁定。"}]
    assert any("怪牌 has no type line" in w and ":2 " in w for w in parsed.warnings)

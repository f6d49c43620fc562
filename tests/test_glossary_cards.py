"""A glossary card is its card: a row of kind `card` of corpus/glossary.tsv whose name is a
card record's gives that record its names and forms and is no term of its own, so a search
for the card lists it once; one without a card record is a term that says what it is, its
kind and documents in words a reader uses. A set FAQ's card reads in both languages: with
card data, Scryfall's English Oracle text beside the FAQ's Chinese; without, a note in the
reader's script says how to add card data."""
import re

import pytest
from html_support import main, page

from indexer.documents.glossary import TERM_KINDS, Glossary
from indexer.documents.ingest import glossary_records, name_cards
from indexer.documents.records import Record
from webapp import create_app
from webapp.labels import LABELS

REDCAP = "/cards/shadowmoor-faq:card:murderous-redcap"
HEADER = "english\tzh_hant\tzh_hans\tvariants\tkind\trules\tsource\n"
FAQ = {"shadowmoor-faq": {"title": "暗影荒原常見問題集 / Shadowmoor FAQ"}}


@pytest.fixture(scope="module")
def cards_client(cards_index):
    return create_app({"TESTING": True, "INDEX_ROOT": cards_index}).test_client()


def _glossary(tmp_path, *rows: str) -> Glossary:
    path = tmp_path / "glossary.tsv"
    path.write_text(HEADER + "".join(row + "\n" for row in rows), encoding="utf-8")
    return Glossary.load(path)


def _card(**names: str) -> Record:
    return Record(id="faq:card:1", kind="card", source="faq", edition=None, line=1, offset=0, names=names)


def test_a_glossary_card_gives_its_record_every_form_and_is_no_term(tmp_path):
    glossary = _glossary(tmp_path, "Graven Cairns\t銘刻石標\t铭刻石标\t銘刻圓石 (misprinted)\tcard\t\tshadowmoor-faq",
                         "Hex Card\t巫術牌\t法术牌\t\tcard\t\tshadowmoor-faq",
                         "Afflict\t折磨\t折磨\t\tcard\t\tshadowmoor-faq",
                         "persist\t留存\t留存\t\tkeyword\t\tshadowmoor-faq")
    cairns, hex_card = _card(zh_hant="銘刻石標"), _card(en="HEX CARD", zh_hant="巫術牌")
    named = name_cards([cairns, hex_card], glossary)
    # A name of a language it lacks (the Simplified one only where it is not the conversion), the rest aliases.
    assert cairns.names == {"zh_hant": "銘刻石標", "en": "Graven Cairns"} and cairns.aliases == ["銘刻圓石"]
    assert hex_card.names == {"en": "HEX CARD", "zh_hant": "巫術牌", "zh_hans": "法术牌"} and hex_card.aliases == []
    terms = glossary_records(glossary, named, FAQ)
    assert [t.id for t in terms] == ["glossary:term:afflict", "glossary:term:persist"]
    assert terms[0].text == {"en": "A card named in: 暗影荒原常見問題集 / Shadowmoor FAQ."}
    assert glossary_records(glossary, named, {})[0].text == {"en": "A card named in the glossary."}


def test_a_card_with_an_english_name_is_only_the_glossary_card_of_that_name(tmp_path):
    """Cards share Chinese names (the Simplified Torture was printed 折磨, Afflict's name)."""
    glossary = _glossary(tmp_path, "Afflict\t折磨\t折磨\t\tcard\t\tshadowmoor-faq")
    torture = _card(en="Torture", zh_hans="折磨")
    assert name_cards([torture], glossary) == set() and torture.names == {"en": "Torture", "zh_hans": "折磨"}


def test_every_kind_of_glossary_entry_has_a_label():
    assert [kind for kind in TERM_KINDS if kind.replace(" ", "_") not in LABELS] == []


def test_a_search_for_a_card_lists_it_and_no_term_repeating_it(client):
    for query, script in (("Murderous Redcap", "hant"), ("夺魂红帽客", "hans"), ("奪魂紅帽客", "hant")):
        results = client.get("/api/search", query_string={"q": query, "script": script}).get_json()["results"]
        assert results[0]["id"] == "shadowmoor-faq:card:murderous-redcap", query
        assert [r["id"] for r in results if r["kind"] == "term" and r["names"].get("en") == "Murderous Redcap"] == []


def test_a_glossary_card_without_a_card_record_says_what_it_is(client):
    html = main(page(client, "/terms/glossary:term:afflict"))
    text = re.sub(r"<[^>]+>", "", html)
    assert "A card named in: 暗影荒原常見問題集 / Shadowmoor FAQ." in text and ">card.<" not in html
    assert '<span lang="zh-Hant">牌</span> <span lang="en">Card</span>' in html
    assert '<a href="/sources/shadowmoor-faq">暗影荒原常見問題集 / Shadowmoor FAQ</a>' in html
    assert "shadowmoor-faq" not in text


@pytest.mark.parametrize("script, kind, reference", [("hant", "關鍵字異能", "官方中英術語對照"),
                                                    ("hans", "关键字异能", "官方中英术语对照")])
def test_a_term_s_kind_and_documents_are_in_the_reader_s_script(client, script, kind, reference):
    html = main(page(client, f"/terms/glossary:term:persist?script={script}"))
    text = re.sub(r"<[^>]+>", "", html)
    assert f"{kind} Keyword ability" in text and reference in text
    assert not re.search(r"shadowmoor-faq|terminology", text)


def test_the_names_of_a_card_are_side_by_side(client):
    html = main(page(client, REDCAP))
    names = html[html.index('<dl class="names">'):]
    names = names[:names.index("</dl>")]
    assert names.count("<div><dt>") == 3 and '<dd lang="en">Murderous Redcap</dd>' in names


@pytest.mark.parametrize("script, note", [("hant", "此牌只有中文：牌資料中沒有它的英文牌文"),
                                          ("hans", "此牌只有中文：牌资料中没有它的英文牌文")])
def test_without_card_data_a_card_says_it_has_no_english_and_how_to_add_it(client, script, note):
    html = main(page(client, f"{REDCAP}?script={script}"))
    found = html[html.index('<p class="note languages-note">'):]
    found = found[:found.index("</p>")]
    assert note in found and "mtgrules fetch cards" in found
    assert client.get(f"/api{REDCAP}").get_json()["languages_note"] == "no_card_data"


@pytest.mark.parametrize("url", [REDCAP, "/cards/scryfall:card:murderous-redcap"])
def test_with_card_data_the_oracle_text_is_beside_the_faq_s_chinese(cards_client, url):
    html = main(page(cards_client, url))
    texts = html[html.index('<div class="texts main side-by-side">'):]
    texts = texts[:texts.index("</div></div>") + len("</div></div>")]
    assert re.findall(r'<div class="text" lang="([^"]+)">', texts) == ["en", "zh-Hant"]
    assert "deals damage equal to its power to any target" in texts and "當奪魂紅帽客進場時" in texts
    assert "languages-note" not in html
    view = cards_client.get(f"/api{url}").get_json()
    assert view["languages_note"] is None
    # The other record's text is beside the card's, not again under "Also in".
    shown = {block["text"] for block in view["text"]}
    assert len(view["also"]) == 1 and not [b for b in view["also"][0]["text"] if b["text"] in shown]

"""Every card a judge names, from Scryfall's bulk data: read from files in Scryfall's formats
(recognised by their content, an item at a time), one record per Oracle id with its faces,
names in three scripts and dated rulings; found by its names in any script, never filling a
rules query's answers; one card with a set FAQ's entry of the same name; its page and JSON.
The cards are real (tests/fixtures/scryfall, each with where it was read)."""
from __future__ import annotations

import json
import shutil

import pytest
from corpus_support import SCRYFALL

from indexer.documents import scryfall
from indexer.documents.ingest import ingest
from indexer.search.build import BuildError, build, current_folder
from indexer.search.engine import EngineQuery
from webapp import create_app, offline_copy


@pytest.fixture(scope="module")
def cards():
    data = scryfall.read_files(sorted(SCRYFALL.glob("*.json")))
    return {r.names["en"]: r for r in scryfall.records(data)}


@pytest.fixture(scope="module")
def cards_client(cards_index):
    return create_app({"TESTING": True, "INDEX_ROOT": cards_index}).test_client()


def _fixture(name: str) -> list[dict]:
    return json.loads((SCRYFALL / name).read_text(encoding="utf-8"))


def test_one_record_per_oracle_id_with_every_ruling(cards):
    oracle = _fixture("oracle-cards.json")
    ids = {card.get("oracle_id") or card["card_faces"][0]["oracle_id"] for card in oracle}
    assert len(cards) == len(ids) >= 60
    assert {r.attrs["oracle_id"] for r in cards.values()} == ids
    assert sum(len(r.rulings) for r in cards.values()) == len(_fixture("rulings.json"))
    assert all(r.kind == "card" and r.source == scryfall.SOURCE for r in cards.values())
    # Every layout of the fixture is a card record.
    assert {r.attrs["layout"] for r in cards.values()} == {card["layout"] for card in oracle}


def test_each_face_s_text_is_the_card_s_text(cards):
    by_layout = {}
    for card in _fixture("oracle-cards.json"):
        by_layout.setdefault(card["layout"], card)
    for layout in ("split", "flip", "transform", "modal_dfc", "adventure"):
        card = by_layout[layout]
        record = cards[card["name"]]
        for face in card["card_faces"]:
            assert face["oracle_text"] in record.text["en"], (layout, face["name"])
            assert face["name"] in record.text["en"] and face["name"] in record.aliases
    meld = [card for card in _fixture("oracle-cards.json") if card["layout"] == "meld"]
    assert len(meld) == 3 and all(cards[c["name"]].text["en"] == c["oracle_text"] for c in meld)


def test_a_reversible_card_takes_its_oracle_id_from_its_faces(cards):
    card = next(c for c in _fixture("oracle-cards.json") if c["layout"] == "reversible_card")
    assert "oracle_id" not in card
    assert cards[card["name"]].attrs["oracle_id"] == card["card_faces"][0]["oracle_id"]


def test_chinese_names_are_the_printed_ones_and_a_converted_one_says_so(cards):
    printings = _fixture("chinese-printings.json")
    english = {c.get("oracle_id"): c["name"] for c in _fixture("oracle-cards.json")}
    for printing in printings:
        record = cards[english[printing["oracle_id"]]]
        lang = scryfall.CHINESE[printing["lang"]]
        assert record.names[lang] in {p["printed_name"] for p in printings
                                      if p["oracle_id"] == printing["oracle_id"] and p["lang"] == printing["lang"]}
    traditional = {p["oracle_id"] for p in printings if p["lang"] == "zht"}
    simplified_only = [r for r in cards.values() if "zh_hans" in r.names and r.attrs["oracle_id"] not in traditional]
    assert simplified_only and all(r.attrs["zh_hant_converted"] == "zh_hans" and r.names["zh_hant"]
                                   for r in simplified_only)
    assert not any("zh_hant_converted" in r.attrs for r in cards.values() if r.attrs["oracle_id"] in traditional)


def test_rulings_come_newest_first_with_their_dates_and_sources(cards):
    ruled = [r for r in cards.values() if r.rulings]
    assert len(ruled) >= 20
    for record in ruled:
        dates = record.attrs["ruling_dates"].split("; ")
        assert len(dates) == len(record.rulings)
        assert [d.split()[0] for d in dates] == sorted((d.split()[0] for d in dates), reverse=True)
    finks = cards["Kitchen Finks"]
    assert any("persist" in ruling["en"] for ruling in finks.rulings)


def test_a_file_is_known_by_its_content_whatever_its_name(tmp_path):
    shutil.copy(SCRYFALL / "oracle-cards.json", tmp_path / "cards.data")
    shutil.copy(SCRYFALL / "rulings.json", tmp_path / "r")
    (tmp_path / "notes.json").write_text('[{"name": "not a card"}]', encoding="utf-8")
    result = ingest([tmp_path])
    found = [r for r in result.records if r.source == scryfall.SOURCE]
    assert len(found) == len(_fixture("oracle-cards.json")) and not result.errors
    assert sum(len(r.rulings) for r in found) == len(_fixture("rulings.json"))


@pytest.mark.parametrize("damage", ["cut", "not json", "html"])
def test_a_damaged_file_is_an_error_naming_it_and_the_build_before_keeps_serving(tmp_path, damage):
    data = (SCRYFALL / "oracle-cards.json").read_bytes()
    broken = {"cut": data[: len(data) // 2], "not json": data[:200] + b"}}}{{{" + data[210:],
              "html": b'[{"object": "card", "name": <html><body>502 Bad Gateway</body></html>'}[damage]
    folder = tmp_path / "cards"
    folder.mkdir()
    (folder / "oracle-cards.json").write_bytes(broken)
    result = ingest([folder])
    assert len(result.errors) == 1 and "oracle-cards.json" in result.errors[0]
    assert not [r for r in result.records if r.source == scryfall.SOURCE]
    good = tmp_path / "good"
    good.mkdir()
    shutil.copy(SCRYFALL / "oracle-cards.json", good)
    root = tmp_path / "index"
    build([good], root=root)
    before = current_folder(root)
    with pytest.raises(BuildError, match=r"oracle-cards\.json"):
        build([folder], root=root, force=True)
    assert current_folder(root) == before


def test_a_card_is_found_by_any_of_its_names(cards_library):
    def first(q):
        return cards_library.search(q, limit=1)["results"][0]["id"]
    finks = "scryfall:card:kitchen-finks"
    assert first("Kitchen Finks") == finks and first("kitchen finks") == finks
    assert first("Finks") == finks  # partly typed
    assert first("帮厨奥夫") == finks and first("幫廚奧夫") == finks  # printed Simplified, and converted
    assert first("Petty Theft") == "scryfall:card:brazen-borrower-petty-theft"  # a face's name
    assert cards_library.search("Kitchn Fniks", limit=1)["did_you_mean"] == "Kitchen Finks"


def test_a_rules_query_is_never_filled_with_cards(cards_library):
    for query in ("persist", "flying", "Equipment", "enters the battlefield", "protection from red"):
        found = [r["id"] for r in cards_library.search(query, limit=20)["results"]]
        assert not [i for i in found if i.startswith("scryfall:")], query
    under_kind = [r["id"] for r in cards_library.search("kind:card persist", limit=20)["results"]]
    assert "scryfall:card:kitchen-finks" in under_kind


def test_the_engine_and_whoosh_agree_with_cards_in_the_index(cards_library):
    engine = cards_library.engine
    question = "Kitchen Finks blocks a creature with flying and first strike: does persist return it?"
    for terms, filters in ((["persist"], {}), (["kitchen finks"], {}), (["flying"], {"kind": "card"}),
                           (["帮厨奥夫"], {}), ([question], {}), ([question], {"kind": "card"})):
        query = EngineQuery(terms=tuple((t, 1.0) for t in terms), phrases=(), filters=filters)
        ours = engine.search(query, 50)
        theirs = engine.search_with_whoosh(query, 50)
        assert [i for i, _ in ours] == [i for i, _ in theirs]
        assert [round(s, 4) for _, s in ours] == [round(s, 4) for _, s in theirs]


def test_a_card_is_ranked_by_its_names_unless_cards_are_asked_for(cards_library):
    """Outside `kind:card` a card counts by its names only: its Oracle text ("When Kitchen Finks
    enters") adds nothing, so a rules query's words in card texts read no card postings."""
    engine = cards_library.engine
    by_name = engine.search(EngineQuery(terms=(("kitchen finks", 1.0),), phrases=(), filters={}), 5)
    as_card = engine.search(EngineQuery(terms=(("kitchen finks", 1.0),), phrases=(), filters={"kind": "card"}), 5)
    assert by_name[0][0] == as_card[0][0] == "scryfall:card:kitchen-finks"
    assert by_name[0][1] < as_card[0][1]


def test_a_set_faq_s_card_and_scryfall_s_are_one_card(cards_library, cards_client):
    found = cards_library.search("Murderous Redcap", limit=10)["results"]
    assert len([r for r in found if r["kind"] == "card"]) == 1
    page = cards_client.get("/api/cards/scryfall:card:murderous-redcap").get_json()
    assert page["attrs"]["mana_cost"] == "{2}{B/R}{B/R}"
    assert [also["source"]["id"] for also in page["also"]] == ["shadowmoor-faq"]
    assert page["also"][0]["rulings"] and page["rulings"]
    faq = cards_client.get("/api/cards/shadowmoor-faq:card:murderous-redcap").get_json()
    assert [also["source"]["id"] for also in faq["also"]] == [scryfall.SOURCE]


def test_a_card_s_page_shows_its_symbols_dated_rulings_and_rules(cards_client):
    html = cards_client.get("/cards/scryfall:card:kitchen-finks").get_data(as_text=True)
    assert '<span class="symbol">{G/W}</span>' in html
    assert '<p class="ruling-date">2013-06-07 Wizards of the Coast</p>' in html
    assert 'href="/rules/702.76?edition=2010-02-01"' in html  # persist's rule in this index's newest edition
    page = cards_client.get("/api/cards/scryfall:card:kitchen-finks").get_json()
    assert page["names"]["zh_hans"] == "帮厨奥夫" and page["attrs"]["zh_hant_converted"] == "zh_hans"
    assert any(k["title"].endswith("persist") for k in page["keywords"])


def test_the_linker_links_card_names_in_any_script(cards_client):
    answer = cards_client.post("/api/linkify", json={"text": "[[Kitchen Finks]] [[帮厨奥夫]] [[No Such Card]]",
                                                     "format": "markdown"}).get_json()
    assert [link["target"] for link in answer["links"]] == ["scryfall:card:kitchen-finks"] * 2
    assert answer["unknown_names"] == ["No Such Card"]


def test_the_offline_copy_leaves_the_cards_to_the_site(cards_library):
    """Tens of thousands of cards are beyond a phone's copy: it holds none of Scryfall's, nor
    their words, and names the source whose pages open online only (the worker says so)."""
    copy = offline_copy.build(cards_library, "cards")
    assert not [r for r in copy["records"] if r["source"] == scryfall.SOURCE]
    assert copy["online_only"] == [scryfall.SOURCE]
    assert "finks" not in copy["vocabulary"] and "shm" not in copy["stems"]
    assert [r for r in copy["records"] if r["id"] == "shadowmoor-faq:card:murderous-redcap"]

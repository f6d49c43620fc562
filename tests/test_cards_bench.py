"""The cards benchmark's generated data is in Scryfall's formats, as the reader reads them: the
counts asked for, every ruling and printing of a generated card, and an All Cards file whose
size grows while what the reader keeps does not."""
from __future__ import annotations

from benchmarks import card_data
from indexer.documents import scryfall


def test_generated_files_are_read_as_scryfall_s(tmp_path, ingested):
    records = ingested.records
    sizes = card_data.write(tmp_path, records, cards=200, ruling_count=400, chinese=300)
    assert set(sizes) == {"oracle-cards.json", "rulings.json", "chinese-printings.json"}
    data = scryfall.read_files(sorted(tmp_path.glob("*.json")))
    assert len(data.english) == 200 and sum(map(len, data.rulings.values())) <= 400
    assert {lang for _, lang in data.chinese} == {"zh_hans", "zh_hant"}
    cards = scryfall.records(data)
    assert all(card.text["en"] and card.names["zh_hans"] for card in cards)


def test_all_cards_grows_while_the_reader_keeps_the_same(tmp_path, ingested):
    words = card_data.Words(ingested.records)
    cards = card_data.oracle_cards(words, 50)
    printings = card_data.chinese_printings(words, cards, 60)
    kept = []
    for size in (100_000, 1_000_000):
        path = tmp_path / f"all-{size}.json"
        written = card_data.write_array(path, card_data.all_cards(cards, printings, size))
        assert written >= size
        data = scryfall.read_files([path])
        kept.append((len(data.english), len(data.chinese)))
    assert kept[0] == kept[1] == (50, 60)

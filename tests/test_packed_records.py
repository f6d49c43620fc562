"""A served build's cards kept packed (`indexer.documents.packed_records`): read as the same
records, compressed with a dictionary once there are enough of them, decoded within a budget,
and not decoded wholesale when a build opens."""
from __future__ import annotations

import orjson
import pytest
from corpus_support import QUESTION_CARDS

from indexer.documents import packed_records, scryfall
from indexer.documents.bounded_cache import approximate_bytes
from indexer.documents.ingest import read_records
from indexer.documents.packed_records import PACKED_FIELDS, PackedRecord, Packing
from indexer.documents.records import Record
from indexer.knowledge.library import Library
from indexer.search.build import current_folder
from indexer.search.opened_build import PACKED_KINDS


@pytest.fixture(scope="module")
def folder(cards_index):
    return current_folder(cards_index)


def test_packed_cards_read_as_the_records_read_whole(folder):
    whole, _ = read_records(folder)
    packed, _ = read_records(folder, PACKED_KINDS)
    assert len(packed) == len(whole)
    cards = [r for r in packed if r.kind == "card"]
    assert len(cards) >= 60 and all(isinstance(r, PackedRecord) for r in cards)
    assert not any(isinstance(r, PackedRecord) for r in packed if r.kind != "card")
    for read, kept in zip(whole, packed, strict=True):
        assert read.to_dict() == kept.to_dict()
        assert read.blocks() == kept.blocks() and read.languages() == kept.languages()
    assert any(r.rulings for r in cards) and any(r.attrs.get("type_line") for r in cards)


def test_a_packed_record_holds_only_what_the_build_is_indexed_by(folder):
    card = next(r for r in read_records(folder, PACKED_KINDS)[0] if r.kind == "card" and r.rulings)
    assert not PACKED_FIELDS & set(vars(card))
    assert all(isinstance(getattr(PackedRecord, name), property) for name in PACKED_FIELDS)
    assert card.names and card.id in repr(card)
    with pytest.raises(AttributeError):
        card.no_such_field  # noqa: B018


def card_lines() -> list[bytes]:
    """The JSON lines of the real cards the players' questions name."""
    cards = scryfall.records(scryfall.read_files(sorted(QUESTION_CARDS.glob("*.json"))))
    lines = [orjson.dumps(r.to_dict()) for r in cards]
    assert len(lines) >= 100
    return lines


def test_enough_lines_train_a_dictionary_and_every_line_decodes(monkeypatch):
    monkeypatch.setattr(packed_records, "DICTIONARY_FROM", 50)
    monkeypatch.setattr(packed_records, "DICTIONARY_SAMPLES", 80)
    lines = card_lines()
    alone, trained = Packing(), Packing()
    for line in lines[:40]:
        alone.add(line)
    for line in lines:
        trained.add(line)
    alone.close()
    trained.close()
    assert alone._dictionary is None and trained._dictionary is not None
    # Lines added after the dictionary (the 81st on) are compressed with it as they come.
    assert trained.packed_bytes() * 3 < sum(map(len, lines))
    for at, line in enumerate(lines):
        data = orjson.loads(line)
        assert trained.fields(at) == {name: data[name] for name in PACKED_FIELDS}
    assert [alone.fields(at)["text"] for at in range(40)] == [orjson.loads(line)["text"] for line in lines[:40]]


def test_the_fields_read_last_are_kept_within_their_budget():
    packing = Packing()
    records = [PackedRecord(orjson.loads(line), line, packing) for line in card_lines()]
    packing.close()
    packing._decoded.resize(20_000)
    for record in records:
        assert isinstance(record.text, dict) and isinstance(record.rulings, list)
    assert 0 < packing._decoded.cache.currsize <= 20_000 and len(packing._decoded.cache) < len(records)


def test_opening_a_build_decodes_only_the_cards_named_with_a_comma(cards_index):
    library = Library(current_folder(cards_index))
    try:
        cards = [r for r in library.records.values() if isinstance(r, PackedRecord)]
        with_comma = sum(any("," in n for n in [*r.names.values(), *r.aliases]) for r in cards)
        assert len(cards[0]._packing._decoded.cache) <= with_comma < len(cards)
    finally:
        library.close()


def test_a_record_read_whole_is_a_plain_record(folder):
    assert all(type(r) is Record for r in read_records(folder)[0])


def test_a_decoded_record_is_charged_at_least_what_its_fields_hold():
    packing = Packing()
    lines = card_lines()
    for line in lines:
        packing.add(line)
    packing.close()
    for at in range(len(lines)):
        fields, charged = packing._decode(at)
        assert approximate_bytes(fields) < charged

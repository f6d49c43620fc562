"""A field's terms by their tokens (`indexer.search.term_table`): every token finds its own
number, whatever the script, and a token it does not hold finds none, hashes colliding or not."""
from __future__ import annotations

import pytest

from indexer.search import term_table
from indexer.search.term_table import TermTable

TOKENS = ["persist", "留存", "留", "存", "persists", "ＡＢ", "", "wither 乾枯", "\U0001f600"]


def test_every_token_finds_its_number_from_the_first():
    table = TermTable(TOKENS, first=100)
    assert len(table) == len(TOKENS)
    assert [table.number(t) for t in TOKENS] == list(range(100, 100 + len(TOKENS)))
    assert list(table) == TOKENS and table.numbers().tolist() == list(range(100, 100 + len(TOKENS)))
    for absent in ("persis", "persist ", "留存留", "PERSIST", "乾"):
        assert table.number(absent) is None


@pytest.mark.parametrize("collide", [lambda data: 7, lambda data: len(data)])
def test_tokens_of_one_hash_are_told_apart_by_their_bytes(monkeypatch, collide):
    monkeypatch.setattr(term_table, "xxh3_64_intdigest", collide)
    table = TermTable(TOKENS)
    assert [table.number(t) for t in TOKENS] == list(range(len(TOKENS)))
    assert table.number("absent") is None


def test_an_empty_field_finds_nothing():
    table = TermTable([])
    assert len(table) == 0 and table.number("persist") is None and list(table) == []

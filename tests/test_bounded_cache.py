"""Remembered answers within a budget of bytes: the least recently used go first, and what
is kept is never charged more than the budget."""
from __future__ import annotations

from indexer.documents.bounded_cache import ENTRY_BYTES, ByteBudgetLRU, bounded_cache


def test_the_least_recently_used_entries_go_first_and_the_charges_stay_within_the_budget():
    cache = ByteBudgetLRU(300)
    for key in "abc":
        cache.put(key, 100, key.upper())
    assert cache.get("a") == (100, "A")  # used: b is now the oldest
    cache.put("d", 150, "D")
    assert cache.get("b") is None and cache.get("c") is None
    assert [cache.get(k) for k in "ad"] == [(100, "A"), (150, "D")]
    assert (len(cache), cache.currsize) == (2, 250)


def test_an_entry_put_again_is_charged_once_at_its_new_charge():
    cache = ByteBudgetLRU(300)
    cache.put("a", 100, 1)
    cache.put("a", 250, 2)
    assert (len(cache), cache.currsize, cache.get("a")) == (1, 250, (250, 2))
    cache.clear()
    assert (len(cache), cache.currsize, cache.get("a")) == (0, 0, None)


def test_a_cached_function_keeps_what_fits_and_computes_the_rest_again():
    calls = []

    @bounded_cache(3 * ENTRY_BYTES, size=lambda args, value: len(value))
    def pad(n: int) -> str:
        calls.append(n)
        return "x" * n

    assert pad(10) == pad(10) and calls == [10]  # charged ENTRY_BYTES at least
    assert pad(4 * ENTRY_BYTES) == pad(4 * ENTRY_BYTES) and calls == [10, 400, 400]  # larger than the budget
    for n in (11, 12, 13):
        pad(n)
    assert len(pad.cache) == 3 and pad.cache.currsize == 3 * ENTRY_BYTES
    pad(10)
    assert calls[-1] == 10  # the oldest went first
    pad.resize(10 * ENTRY_BYTES)
    assert len(pad.cache) == 0 and pad.cache.maxsize == 10 * ENTRY_BYTES

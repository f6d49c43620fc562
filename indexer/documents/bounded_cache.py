"""Remembered answers kept within a budget of bytes, whatever is asked: the one kind of cache
of every stage (word stems and rule numbers' order here, the engine's, each opened build's).

`functools.lru_cache` bounds entries only, and an entry keyed by a query of 500 characters
(its tokens, clauses, snippets) weighs kilobytes, so a budget of entries is no budget of
memory (docs/decisions/0007-caches-bounded-in-bytes.md has what distinct long queries did to one). `bounded_cache`
charges each entry the approximate size of its key and value (`approximate_bytes`) against
a budget, dropping the least recently used (`ByteBudgetLRU`). An entry costs at least
ENTRY_BYTES, so the budget bounds the entries too. A process-wide cache is made with a
default budget and given the configured one (`Settings`) by `resize`.
"""
from __future__ import annotations

import re
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol, cast

_CONTAINERS = (tuple, list, set, frozenset)
# Nested deeper than this, a container is charged for itself only.
_DEPTH = 4
# The least an entry is charged: the cache's own bookkeeping of it (its key's place in the
# LRU order and table), so that a budget of bytes also bounds how many entries are kept.
ENTRY_BYTES = 100
# A compiled pattern holds a few code words for each character of its source.
_PATTERN_BYTES_PER_CHAR = 8


# Values holding nothing else: their getsizeof is their size (most of what a cache holds).
_LEAVES = frozenset({str, bytes, int, float, bool, type(None)})
_getsizeof = sys.getsizeof


def approximate_bytes(value, depth: int = 0) -> int:
    """sys.getsizeof of `value` and, a few levels deep, of what its containers hold. A value
    holding nothing else is sized where it is met rather than by a call of its own: every
    remembered answer is charged once, and a page's ten snippets and results are charged ten
    times a query."""
    size = _getsizeof(value)
    kind = type(value)
    if kind in _LEAVES:
        return size
    if depth >= _DEPTH:
        return size + (_PATTERN_BYTES_PER_CHAR * len(value.pattern) if kind is re.Pattern else 0)
    depth += 1
    if kind is dict or isinstance(value, dict):
        for item in value.items():
            for part in item:
                size += _getsizeof(part) if type(part) in _LEAVES else approximate_bytes(part, depth)
    elif kind in _CONTAINERS or isinstance(value, _CONTAINERS):
        for part in value:
            size += _getsizeof(part) if type(part) in _LEAVES else approximate_bytes(part, depth)
    elif kind is re.Pattern:
        size += _PATTERN_BYTES_PER_CHAR * len(value.pattern)
    return size


def entry_bytes(args: tuple, value) -> int:
    """What an entry is charged: its key's and value's `approximate_bytes`."""
    return approximate_bytes(args) + approximate_bytes(value)


class ByteBudgetLRU:
    """Entries (charge, value) by key, in the order they were last used, the least recently
    used dropped while the charges would exceed `maxsize`; `currsize` is what they are
    charged. An OrderedDict's own look-up and move: cachetools' LRUCache, which this replaced,
    took six Python calls for a look-up and about four times as long to add an entry. Not
    thread-safe: `bounded_cache` holds a lock around each call."""

    def __init__(self, maxsize: int):
        self.maxsize = maxsize
        self.currsize = 0
        self._entries: OrderedDict = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key) -> tuple[int, object] | None:
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
        return found

    def put(self, key, size: int, value) -> None:
        entries = self._entries
        replaced = entries.pop(key, None)
        if replaced is not None:
            self.currsize -= replaced[0]
        while entries and self.currsize + size > self.maxsize:
            self.currsize -= entries.popitem(last=False)[1][0]
        entries[key] = (size, value)
        self.currsize += size

    def clear(self) -> None:
        self._entries.clear()
        self.currsize = 0


class BoundedCached(Protocol):
    """What `bounded_cache` makes of a function: the function, with its cache beside it."""

    cache: ByteBudgetLRU
    cache_clear: Callable[[], None]
    resize: Callable[[int], None]  # a new budget, emptied
    __wrapped__: Callable[..., Any]

    def __call__(self, *args: Any) -> Any: ...


class ClearedWhenFull(Protocol):
    """What `cleared_when_full` makes of a function: the function, with its budget beside it."""

    resize: Callable[[int], None]  # a new budget, emptied
    bytes: Callable[[], int]  # what it holds
    max_bytes: Callable[[], int]
    entries: Callable[[], int]
    __wrapped__: Callable[[Any], Any]

    def __call__(self, arg: Any) -> Any: ...


class bounded_cache:
    """Wraps `function` (positional, hashable arguments) with an LRU cache of at most
    `max_bytes`; thread-safe. An answer larger than the whole budget is not kept.
    `resize(max_bytes)` starts it again, empty, with another budget. `size(args, value)`
    charges an entry (`entry_bytes` unless a caller knows a cheaper bound of its values)."""

    def __init__(self, max_bytes: int, size: Callable[[tuple, Any], int] = entry_bytes):
        self.max_bytes = max_bytes
        self.size = size

    def __call__(self, function: Callable[..., Any]) -> BoundedCached:
        lock = threading.Lock()
        size_of = self.size

        def cached(*args: Any) -> Any:
            cache = wrapper.cache
            with lock:
                found = cache.get(args)
            if found is not None:
                return found[1]
            value = function(*args)
            size = max(ENTRY_BYTES, size_of(args, value))
            if size <= cache.maxsize:
                with lock:
                    cache.put(args, size, value)
            return value

        def cache_clear() -> None:
            with lock:
                wrapper.cache.clear()

        def resize(max_bytes: int) -> None:
            with lock:
                wrapper.cache = ByteBudgetLRU(max_bytes)

        wrapper = cast(BoundedCached, cached)
        wrapper.cache = ByteBudgetLRU(self.max_bytes)
        wrapper.cache_clear = cache_clear
        wrapper.resize = resize
        wrapper.__wrapped__ = function
        return wrapper


class cleared_when_full:
    """Wraps `function` of one hashable argument with a dict of its answers, emptied whenever
    the next would take it past `max_bytes`: for hot functions cheap to compute again (a
    word's stem, a rule number's order), where an LRU's bookkeeping would cost more than the
    answer. `bytes()` is what it holds; `resize(max_bytes)` starts it again with another
    budget. Thread-safe as dict operations are; the byte count may be off by the entries
    of threads adding at the moment it is emptied."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes

    def __call__(self, function: Callable[[Any], Any]) -> ClearedWhenFull:
        table: dict = {}
        state = {"used": 0, "budget": self.max_bytes}

        def cached(arg: Any) -> Any:
            try:
                return table[arg]
            except KeyError:
                pass
            value = function(arg)
            size = ENTRY_BYTES + approximate_bytes(arg) + approximate_bytes(value)
            if state["used"] + size > state["budget"]:
                table.clear()
                state["used"] = 0
                if size > state["budget"]:
                    return value
            table[arg] = value
            state["used"] += size
            return value

        def resize(max_bytes: int) -> None:
            table.clear()
            state.update(used=0, budget=max_bytes)

        wrapper = cast(ClearedWhenFull, cached)
        wrapper.resize = resize
        wrapper.bytes = lambda: state["used"]
        wrapper.max_bytes = lambda: state["budget"]
        wrapper.entries = table.__len__
        wrapper.__wrapped__ = function
        return wrapper

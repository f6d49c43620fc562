"""Remembered answers kept within a budget of bytes, whatever is asked.

`functools.lru_cache` bounds entries only, and an entry keyed by a query of 500 characters
(its tokens, clauses, snippets) weighs kilobytes: 8,192 of them were over 100 MB for one
cache. `bounded_cache` charges each entry the approximate size of its key and value
(`approximate_bytes`) against a budget, dropping the least recently used, on cachetools'
LRUCache.
"""
from __future__ import annotations

import sys
import threading
from typing import Callable

from cachetools import LRUCache

_CONTAINERS = (tuple, list, set, frozenset)
# Nested deeper than this, a container is charged for itself only.
_DEPTH = 4


def approximate_bytes(value, depth: int = 0) -> int:
    """sys.getsizeof of `value` and, a few levels deep, of what its containers hold."""
    size = sys.getsizeof(value)
    if depth < _DEPTH:
        if isinstance(value, dict):
            size += sum(approximate_bytes(k, depth + 1) + approximate_bytes(v, depth + 1) for k, v in value.items())
        elif isinstance(value, _CONTAINERS):
            size += sum(approximate_bytes(v, depth + 1) for v in value)
    return size


class bounded_cache:
    """Wraps `function` (positional, hashable arguments) with an LRU cache of at most
    `max_bytes`; thread-safe. An answer larger than the whole budget is not kept."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes

    def __call__(self, function: Callable):
        cache: LRUCache = LRUCache(maxsize=self.max_bytes, getsizeof=lambda entry: entry[0])
        lock = threading.Lock()
        max_bytes = self.max_bytes

        def cached(*args):
            with lock:
                found = cache.get(args)
            if found is not None:
                return found[1]
            value = function(*args)
            size = approximate_bytes(args) + approximate_bytes(value)
            if size <= max_bytes:
                with lock:
                    cache[args] = (size, value)
            return value

        def cache_clear() -> None:
            with lock:
                cache.clear()

        cached.cache_clear = cache_clear
        cached.cache = cache
        return cached

"""One field's terms by their tokens, in a few flat arrays rather than a dict of strings.

The scored postings name each term by a number (`whoosh_engine._PostingsFile`); with every
card, the name grams alone are hundreds of thousands of tokens, which as a dict of str to int
were tens of megabytes of every worker (docs/benchmarks.md, Every card). Here a token is found
by the 64-bit XXH3 hash of its UTF-8 bytes in a sorted array (bisection), and the bytes
themselves, kept in one blob, are compared on a hit: two tokens of one hash are both found. A
look-up is a bisection and a slice, where a search makes tens of them.
"""
from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator
from itertools import accumulate

import numpy as np
from xxhash import xxh3_64_intdigest


class TermTable:
    """The tokens of one field, numbered from `first` in the order given."""

    def __init__(self, tokens: list[str], first: int = 0):
        encoded = [token.encode() for token in tokens]
        self._first = first
        self._blob = b"".join(encoded)
        self._ends = array("q", accumulate(map(len, encoded), initial=0))
        hashes = np.fromiter((xxh3_64_intdigest(e) for e in encoded), np.uint64, len(encoded))
        order = np.argsort(hashes, kind="stable")
        self._hashes = array("Q", hashes[order].tobytes())
        self._order = array("q", order.astype(np.int64).tobytes())

    def __len__(self) -> int:
        return len(self._order)

    def number(self, token: str) -> int | None:
        """The token's term number, or None for a token the field does not hold."""
        data = token.encode()
        digest = xxh3_64_intdigest(data)
        hashes, order, ends = self._hashes, self._order, self._ends
        at = bisect_left(hashes, digest)
        while at < len(hashes) and hashes[at] == digest:
            k = order[at]
            if self._blob[ends[k]:ends[k + 1]] == data:
                return self._first + k
            at += 1
        return None

    def numbers(self) -> np.ndarray:
        """Every token's number, in the order of `__iter__`."""
        return np.arange(self._first, self._first + len(self), dtype=np.int64)

    def __iter__(self) -> Iterator[str]:
        """The tokens in the order they were given."""
        blob, ends = self._blob, self._ends
        return (blob[ends[k]:ends[k + 1]].decode() for k in range(len(ends) - 1))

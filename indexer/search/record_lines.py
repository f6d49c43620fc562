"""A file of one line per record, held in memory (`RecordLines`): the build writes such files (`folding`,
`marking`) so that opening an index finds a record's line by its position without parsing
anything, and the server's workers share the master's copy until they switch builds.

Held as bytes read once, not memory-mapped: a mapped file cut short under a running server
is a SIGBUS at the first read past its new end, which kills the worker
(docs/decisions/0026-builds-read-into-memory-checksums-fetch.md: 4.9 and 5.7 MB for the whole knowledge base).
"""
from __future__ import annotations

from array import array
from collections.abc import Iterable
from pathlib import Path

import numpy as np


class RecordLines:
    """The lines of a file the build wrote a line per record, by record position."""

    def __init__(self, path: Path, count: int, data: bytes | None = None):
        """The lines of `data`, else of the file at `path`. Raises OSError when the file
        cannot be read and ValueError when it does not hold exactly `count` lines (a damaged
        or foreign file)."""
        self._data = path.read_bytes() if data is None else data
        self._starts = array("q", [0])  # not a list: an int object per line was 2 MB with every card
        at = self._data.find(b"\n")
        while at >= 0:
            self._starts.append(at + 1)
            at = self._data.find(b"\n", at + 1)
        if len(self._starts) - 1 != count or self._starts[-1] != len(self._data):
            raise ValueError(f"{path.name} holds {len(self._starts) - 1} lines for {count} records")

    def __getitem__(self, position: int) -> str:
        # A damaged byte makes a line match less, never a failed search.
        return self._data[self._starts[position]:self._starts[position + 1] - 1].decode("utf-8", errors="replace")

    def holding(self, positions: Iterable[int], needle: bytes) -> list[int]:
        """The positions among `positions` whose line holds `needle` (UTF-8), searched where
        the lines lie in the bytes, so that no text is decoded to be searched (UTF-8 finds a
        text's characters where its string would)."""
        find, starts = self._data.find, self._starts
        return [p for p in positions if find(needle, starts[p], starts[p + 1] - 1) >= 0]

    def holding_each(self, positions: list[int], needles: list[bytes]) -> list[list[int]]:
        """`holding` for each of `needles`: the lines joined once (`Joined`), and each needle
        looked for once in them (a long question's words in hundreds of candidates, not in each)."""
        starts = self._starts
        joined = Joined([self._data[starts[p]:starts[p + 1] - 1] for p in positions], b"\n")
        # A line's end is its own, as `holding` reads it: no needle holding one is found.
        return [[] if b"\n" in needle else [positions[n] for n in np.flatnonzero(joined.counts(needle)).tolist()]
                for needle in needles]

    def close(self) -> None:
        """Nothing to release: the lines are bytes, freed with the object."""


def _found_at(text: bytes, piece: bytes) -> list[int]:
    """Where `piece` starts in `text`, not overlapping (as `bytes.count` counts it): found by
    `bytes.find`, as a regular expression compiled for each of a new question's pieces cost more."""
    found, step = [], max(len(piece), 1)
    at = text.find(piece)
    while at >= 0:
        found.append(at)
        at = text.find(piece, at + step)
    return found


class Joined:
    """Texts as one, each after a byte that no piece holds: a piece is looked for once in all of
    them, not once in each (a long question's hundred pieces in hundreds of candidates)."""

    def __init__(self, texts: list[bytes], between: bytes):
        self.all = between.join(texts)
        self.starts = np.cumsum([0, *(len(t) + 1 for t in texts[:-1])]) if texts else np.zeros(0, np.int64)

    def counts(self, piece: bytes) -> np.ndarray:
        """How many times `piece` is in each text, not overlapping (as `bytes.count`)."""
        if not len(self.starts):
            return np.zeros(0)
        at = np.searchsorted(self.starts, _found_at(self.all, piece), side="right") - 1
        return np.bincount(at, minlength=len(self.starts)).astype(np.float64)

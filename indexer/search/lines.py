"""A file of one line per record, read from a memory map: the build writes such files
(`folding`, `marking`) so that opening an index reads nothing of them, and the server's
workers share their pages.
"""
from __future__ import annotations

import mmap
from collections.abc import Iterable
from pathlib import Path


class MappedLines:
    """The lines of a file the build wrote a line per record, by record position, read from a
    memory map."""

    def __init__(self, path: Path, count: int):
        """Raises OSError when the file cannot be read and ValueError when it does not hold
        exactly `count` lines (a damaged or foreign file)."""
        with open(path, "rb") as fh:
            self._map = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) if path.stat().st_size else b""
        self._starts = [0]
        at = self._map.find(b"\n")
        while at >= 0:
            self._starts.append(at + 1)
            at = self._map.find(b"\n", at + 1)
        if len(self._starts) - 1 != count or self._starts[-1] != len(self._map):
            self.close()
            raise ValueError(f"{path.name} holds {len(self._starts) - 1} lines for {count} records")

    def __getitem__(self, position: int) -> str:
        # A damaged byte makes a line match less, never a failed search.
        return self._map[self._starts[position]:self._starts[position + 1] - 1].decode("utf-8", errors="replace")

    def holding(self, positions: Iterable[int], needle: bytes) -> list[int]:
        """The positions among `positions` whose line holds `needle` (UTF-8), searched where
        the lines lie in the map, so that no text is decoded to be searched (UTF-8 finds a
        text's characters where its string would)."""
        find, starts = self._map.find, self._starts
        return [p for p in positions if find(needle, starts[p], starts[p + 1] - 1) >= 0]

    def close(self) -> None:
        if isinstance(self._map, mmap.mmap):
            self._map.close()

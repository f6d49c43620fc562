"""The folded form texts are compared in, and the file of every record's folded text that an
index keeps.

Folding (`fold_key`) removes case, script, width, spacing and punctuation: `Murderous Redcap`
and `murderousredcap` are one key, as are 奪魂紅帽客 and 夺魂红帽客. A search looks for the
query's key inside its candidates' folded texts (the literal-match bonus, phrase filters).
Folding the new candidates of a first search on a large index was most of that search
(docs/benchmarks.md, growth); so the build folds
every record once and writes `folded.txt`, one line per record in the order of
records.jsonl, and the library maps that file into memory instead of reading it: opening an
index costs no more, and the server's workers share its pages.
"""
from __future__ import annotations

import mmap
import re
import unicodedata
from pathlib import Path
from typing import Iterable

from indexer.documents.chinese import to_hans
from indexer.documents.records import Record

FILE = "folded.txt"
_PUNCT = re.compile(r"[\W_]+")


def fold_key(text: str) -> str:
    """`text` with case, script, width, spacing and punctuation folded away."""
    return _PUNCT.sub("", to_hans(unicodedata.normalize("NFKC", text)).casefold())


def fold_record(record: Record) -> str:
    """All of a record's texts in all its languages, folded."""
    return fold_key(" ".join(t for lang in record.languages() for t in record.texts(lang)))


def write(records: Iterable[Record], folder: Path) -> None:
    """`folded.txt` in `folder`: the folded text of each record, a line each, in order (a
    folded text has no line breaks)."""
    with open(folder / FILE, "w", encoding="utf-8") as fh:
        for record in records:
            fh.write(fold_record(record) + "\n")


class FoldedTexts:
    """The lines of a `folded.txt`, by record position, read from a memory map."""

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

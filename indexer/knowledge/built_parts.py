"""Parts of pages the build rendered, read from the build's files when a page asks for one.

A part too costly to make in a request (a section of the rules, every rule and subrule under
it, rendered: `webapp.book_parts`) is written by the build into one file of texts and an
index of where each lies, under a key its writer chooses, with a fingerprint of the code it
was made with. A part is read from the file when asked for (one read of its bytes: nothing is
held in memory but the index), and none is given when the fingerprint is not the caller's (the
code changed since the build) or the file does not hold it whole: the caller makes it then.
"""
from __future__ import annotations

import json
from pathlib import Path

TEXTS_FILE = "parts.bin"
INDEX_FILE = "parts.json"


def write_parts(folder: Path, fingerprint: str, parts: dict[str, str]) -> dict:
    """Writes `parts` (key → text) into the build folder; a text that several keys share is
    written once. Returns the figures the build's manifest keeps."""
    at: dict[str, list[int]] = {}
    where: dict[str, list[int]] = {}
    offset = 0
    with open(folder / TEXTS_FILE, "wb") as fh:
        for key, text in parts.items():
            if text not in where:
                data = text.encode("utf-8")
                fh.write(data)
                where[text] = [offset, len(data)]
                offset += len(data)
            at[key] = where[text]
    (folder / INDEX_FILE).write_text(json.dumps({"fingerprint": fingerprint, "parts": at}), encoding="utf-8")
    return {"parts": len(at), "bytes": offset}


class BuiltParts:
    """The parts a build holds (none when it has no parts file)."""

    def __init__(self, folder: Path):
        self._texts = folder / TEXTS_FILE
        self.fingerprint: str | None = None
        self._at: dict[str, list[int]] = {}
        index = folder / INDEX_FILE
        if index.is_file():
            held = json.loads(index.read_text(encoding="utf-8"))
            self.fingerprint, self._at = held["fingerprint"], held["parts"]

    def __len__(self) -> int:
        return len(self._at)

    def get(self, key: str, fingerprint: str) -> str | None:
        """The part written under `key` by code of `fingerprint`, or None."""
        if fingerprint != self.fingerprint or key not in self._at:
            return None
        offset, length = self._at[key]
        try:
            with open(self._texts, "rb") as fh:
                fh.seek(offset)
                data = fh.read(length)
            return data.decode("utf-8") if len(data) == length else None
        except (OSError, UnicodeDecodeError):  # damaged since it opened: made again by the caller
            return None

"""Records whose texts stay compressed in memory until something reads them: the cards.

Every card at Scryfall's size is tens of thousands of records whose texts, rulings and
attributes few requests read, yet as objects they were most of what a worker held for them
(docs/benchmarks.md, Every card). A packed record keeps as objects what the service indexes
every record by when a build opens (id, kind, source, edition, numbers, names, aliases, titles,
references) and the rest as its JSON line, compressed by Zstandard with a dictionary trained on
the build's own packed lines. Reading one of `PACKED_FIELDS` decodes the line; the decoded
fields of the records read last are kept within a budget of bytes (`bounded_cache`), so a page
that reads a card's text many times decodes it once.
"""
from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any

import orjson
from backports import zstd

from .bounded_cache import ENTRY_BYTES, bounded_cache
from .records import Record, Reference

# The fields a packed record decodes when read; the others it holds as objects.
PACKED_FIELDS = frozenset({"text", "rulings", "examples", "abilities", "attrs"})
# A dictionary is trained from this many packed lines at least (fewer compress alone), on at
# most `DICTIONARY_SAMPLES` of them, into `DICTIONARY_BYTES`: Zstandard's own default size.
DICTIONARY_FROM = 1000
DICTIONARY_SAMPLES = 4000
DICTIONARY_BYTES = 110 * 1024
LEVEL = 3
# What the decoded fields of recently read records may hold (a card's are a few kilobytes),
# each charged this many times the length of its JSON line: more than its strings and
# containers take as objects (`approximate_bytes`, which cost more than the decoding itself).
RECENT_BYTES = 4 * 1024 * 1024
DECODED_BYTES_PER_BYTE = 5


class Packing:
    """One build's packed lines, the dictionary they are compressed with and the recently
    decoded ones. Lines are added as the build's records are read, each compressed once the
    dictionary is trained on the first `DICTIONARY_SAMPLES` (so no more of them than those are
    ever held whole); `close` compresses what is left, before any record is read."""

    def __init__(self) -> None:
        self._lines: list[bytes] = []
        self._dictionary: zstd.ZstdDict | None = None
        self._compressor: zstd.ZstdCompressor | None = None
        self._decoded = bounded_cache(RECENT_BYTES, size=lambda _, value: value[1])(self._decode)
        # The record read last and its fields: a result reads a card's fields one after another.
        self._last: tuple[int, dict[str, Any]] = (-1, {})

    def add(self, line: bytes) -> int:
        """Where the line is kept (a packed record's `_at`)."""
        if self._compressor is not None:
            self._lines.append(self._compressor.compress(line, mode=zstd.ZstdCompressor.FLUSH_FRAME))
        else:
            self._lines.append(line)
            if len(self._lines) == DICTIONARY_SAMPLES:
                self.close()
        return len(self._lines) - 1

    def close(self) -> None:
        """Compresses the lines added whole, with a dictionary trained on them if there are enough."""
        if self._compressor is not None:
            return
        if len(self._lines) >= DICTIONARY_FROM:
            try:
                self._dictionary = zstd.train_dict(self._lines, DICTIONARY_BYTES)
            except zstd.ZstdError:  # lines too alike or too short to learn from: each alone
                self._dictionary = None
        self._compressor = zstd.ZstdCompressor(level=LEVEL, zstd_dict=self._dictionary)
        self._lines = [self._compressor.compress(line, mode=zstd.ZstdCompressor.FLUSH_FRAME) for line in self._lines]

    def packed_bytes(self) -> int:
        """What the compressed lines hold (the dictionary aside)."""
        return sum(map(len, self._lines))

    def fields(self, at: int) -> dict[str, Any]:
        """The packed fields of the record kept at `at` (read only: shared by every reader)."""
        last = self._last
        if last[0] != at:
            last = self._last = (at, self._decoded(at)[0])
        return last[1]

    def _decode(self, at: int) -> tuple[dict[str, Any], int]:
        """The fields, and what they are charged in the cache: `DECODED_BYTES_PER_BYTE` times their JSON's length."""
        line = zstd.decompress(self._lines[at], zstd_dict=self._dictionary)
        data = orjson.loads(line)
        fields = {name: data[name] if name in data else _default(name) for name in PACKED_FIELDS}
        return fields, ENTRY_BYTES + DECODED_BYTES_PER_BYTE * len(line)


def _packed(name: str) -> Any:
    """A packed field: a property, not `__getattr__`, whose fallback on a missing attribute
    costs a caught exception at every read."""
    def read(self: PackedRecord) -> Any:
        return self._packing.fields(self._at)[name]
    return property(read, doc=f"The record's {name}, decoded from its packed line.")


class PackedRecord(Record):
    """A record read from a build whose `PACKED_FIELDS` its `Packing` decodes when read.
    Read only, as every record of an opened build is."""

    _packing: Packing
    _at: int

    def __init__(self, data: dict, line: bytes, packing: Packing):
        """`data` is the record's JSON `line` read: the fields not packed are kept from it, the
        line packed (the dataclass's own `__init__`, which would set every field, is not called)."""
        for name in _KEPT:
            self.__dict__[name] = data[name] if name in data else _default(name)
        self.__dict__["references"] = [Reference.from_dict(r) for r in self.__dict__["references"]]
        self._packing = packing
        self._at = packing.add(line)

    text = _packed("text")
    rulings = _packed("rulings")
    examples = _packed("examples")
    abilities = _packed("abilities")
    attrs = _packed("attrs")


# The fields a packed record holds as objects.
_KEPT = tuple(f.name for f in fields(Record) if f.name not in PACKED_FIELDS)
_FIELDS = {f.name: f for f in fields(Record)}


def _default(name: str) -> Any:
    """A field's default, for a line without it (every field has one but the record's place)."""
    field = _FIELDS[name]
    return field.default_factory() if field.default_factory is not MISSING else field.default

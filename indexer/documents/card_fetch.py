"""Every card from Scryfall: `mtgrules fetch cards` downloads its bulk data into a folder of its own.

Scryfall lists its bulk files at /bulk-data (https://scryfall.com/docs/api/bulk-data); this
reads the list, then downloads Oracle Cards and Rulings whole and streams All Cards (several
GB), keeping only its Simplified and Traditional Chinese printings, and only what a card record
reads of them. Requests name this program in User-Agent and send the Accept header Scryfall
asks of API clients; a gzip body is decoded as it arrives.

Nothing partial is ever kept: every file is written into a new folder beside the old one, each
body checked against its Content-Length and the size the list gives, and read through again as
the build reads it; only when all three are whole does the new folder take the old one's
place. A 404, an HTML error page, a body cut short, a server that stops sending (the idle
timeout) or trickles (the total deadline) ends the fetch with an error naming the file and what
went wrong, and the folder as it was.
"""
from __future__ import annotations

import contextlib
import http.client
import json
import os
import shutil
import urllib.error
import urllib.request
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import ijson  # type: ignore[import-untyped]

from . import scryfall
from .fetch import Deadline, FetchError, deadline_opener

BULK_DATA_URL = "https://api.scryfall.com/bulk-data"
USER_AGENT = "mtgrules/1.0 (bilingual Magic rules knowledge base)"
ACCEPT = "application/json;q=0.9,*/*;q=0.8"
# The files kept, by their bulk-data type, and the name each is written under.
FILES = {"oracle_cards": "oracle-cards.json", "rulings": "rulings.json", "all_cards": "chinese-printings.json"}
# The whole fetch, from the list to the last byte of All Cards; a read that waits longer than
# IDLE_SECONDS for a byte ends it sooner.
TOTAL_SECONDS = 3600
IDLE_SECONDS = 60
READ_BYTES = 1 << 20
LIST_BYTES = 1 << 20
# What a Chinese printing keeps of All Cards' objects (`scryfall.CardData` reads these).
PRINTING_FIELDS = ("object", "id", "oracle_id", "name", "lang", "layout", "released_at", "set", "collector_number",
                   "printed_name", "printed_type_line", "printed_text", "scryfall_uri")
FACE_FIELDS = ("object", "oracle_id", "name", "printed_name", "printed_type_line", "printed_text")


@dataclass
class FetchedCards:
    folder: Path
    cards: int
    rulings: int
    chinese: int


class _Body:
    """A response body as a file: decoded when gzip, counted as sent and as decoded, and
    checked whole when it ends (as long as Content-Length says)."""

    def __init__(self, response, url: str):
        self._response, self._url = response, url
        declared = response.headers.get("Content-Length")
        self.declared = int(declared) if declared and declared.strip().isdigit() else None
        encoding = (response.headers.get("Content-Encoding") or "").lower()
        self._gunzip = zlib.decompressobj(16 + zlib.MAX_WBITS) if encoding in ("gzip", "x-gzip") else None
        self.sent = self.decoded = 0
        self._buffer, self._ended = b"", False

    def read(self, size: int = -1) -> bytes:
        """At most `size` decoded bytes (any number when negative); b"" only at the end."""
        while not self._buffer and not self._ended:
            self._buffer = self._next()
        if size < 0 or size >= len(self._buffer):
            out, self._buffer = self._buffer, b""
        else:
            out, self._buffer = self._buffer[:size], self._buffer[size:]
        return out

    def _next(self) -> bytes:
        """The next decoded bytes (maybe none, while gzip waits for more), checked whole at the end."""
        chunk = self._response.read1(READ_BYTES)
        self.sent += len(chunk)
        if not chunk:
            self._ended = True
            if self.declared is not None and self.sent != self.declared:
                raise FetchError(f"{self._url}: cut short ({self.sent} bytes of the {self.declared} "
                                 "its Content-Length says)")
            if self._gunzip and not self._gunzip.eof:
                raise FetchError(f"{self._url}: cut short (its gzip stream does not end)")
            return b""
        if self._gunzip:
            try:
                chunk = self._gunzip.decompress(chunk)
            except zlib.error as exc:
                raise FetchError(f"{self._url}: damaged gzip ({exc})") from None
        self.decoded += len(chunk)
        return chunk


class _Fetch:
    def __init__(self, deadline: Deadline):
        self._deadline = deadline
        self._opener = deadline_opener(deadline)

    @contextlib.contextmanager
    def open(self, url: str) -> Iterator[_Body]:
        request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept": ACCEPT,
                                                       "Accept-Encoding": "gzip"})
        try:
            with self._opener.open(request, timeout=IDLE_SECONDS) as response:
                yield _Body(response, url)
        except urllib.error.HTTPError as exc:
            raise FetchError(f"{url}: the server answered {exc.code} {exc.reason}") from None
        except (FetchError, urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as exc:
            # (A body the deadline shut ends early: that is the deadline, not the server.)
            if self._deadline.expired:
                raise FetchError(f"{url}: not downloaded within {self._deadline.seconds:g} s") from None
            if isinstance(exc, FetchError):
                raise
            raise FetchError(f"{url}: cannot be downloaded ({getattr(exc, 'reason', exc)})") from None
        if self._deadline.expired:
            raise FetchError(f"{url}: not downloaded within {self._deadline.seconds:g} s")

    def bulk_list(self, url: str) -> dict[str, dict]:
        """The bulk-data objects by type."""
        with self.open(url) as body:
            data = bytearray()
            while chunk := body.read():
                data += chunk
                if len(data) > LIST_BYTES:
                    raise FetchError(f"{url}: a bulk-data list larger than {LIST_BYTES} bytes")
        try:
            listed = json.loads(bytes(data))
            entries = {item["type"]: item for item in listed["data"] if isinstance(item, dict) and "type" in item}
        except (ValueError, KeyError, TypeError) as exc:
            raise FetchError(f"{url}: not Scryfall's bulk-data list ({exc})") from None
        missing = [kind for kind in FILES if not isinstance(entries.get(kind, {}).get("download_uri"), str)]
        if missing:
            raise FetchError(f"{url}: the bulk-data list has no {', '.join(missing)} to download")
        return entries

    def whole(self, entry: dict, target: Path) -> None:
        """A bulk file written as it comes, then checked against the size the list gives."""
        url, head = entry["download_uri"], b""
        with self.open(url) as body, open(target, "wb") as out:
            while chunk := body.read():
                head += chunk[: scryfall.HEAD_BYTES - len(head)]
                out.write(chunk)
            if not scryfall.is_scryfall_file(head):
                start = head[:40].decode("utf-8", "replace")
                raise FetchError(f"{url}: not a Scryfall bulk file (it starts {start!r})")
            _check_size(entry, body.decoded, url)

    def chinese_printings(self, entry: dict, target: Path) -> int:
        """All Cards streamed: its Chinese printings written as a JSON array of what they keep."""
        url, count = entry["download_uri"], 0
        with self.open(url) as body, open(target, "w", encoding="utf-8") as out:
            out.write("[")
            try:
                for card in ijson.items(body, "item", use_float=True):
                    if isinstance(card, dict) and card.get("object") == "card" and card.get("lang") in scryfall.CHINESE:
                        out.write(("," if count else "") + "\n" + json.dumps(_printing(card), ensure_ascii=False))
                        count += 1
            except ijson.JSONError as exc:
                raise FetchError(f"{url}: not a whole JSON array of cards ({exc})") from None
            out.write("\n]\n")
            _check_size(entry, body.decoded, url)
        return count


def _check_size(entry: dict, decoded: int, url: str) -> None:
    size = entry.get("size")
    if isinstance(size, int) and size > 0 and decoded != size:
        raise FetchError(f"{url}: {decoded} bytes where the bulk-data list says {size}")


def _printing(card: dict) -> dict:
    kept = {key: card[key] for key in PRINTING_FIELDS if key in card}
    if card.get("card_faces"):
        kept["card_faces"] = [{key: face[key] for key in FACE_FIELDS if key in face} for face in card["card_faces"]]
    return kept


def fetch_cards(folder: Path, bulk_data_url: str = BULK_DATA_URL, seconds: float = TOTAL_SECONDS) -> FetchedCards:
    """Scryfall's cards, rulings and Chinese printings into `folder`, all of them or none."""
    folder = folder.resolve()
    folder.parent.mkdir(parents=True, exist_ok=True)
    fresh = folder.with_name(f".{folder.name}.new-{os.getpid()}")
    shutil.rmtree(fresh, ignore_errors=True)
    fresh.mkdir()
    try:
        with Deadline(seconds) as deadline:
            fetch = _Fetch(deadline)
            entries = fetch.bulk_list(bulk_data_url)
            fetch.whole(entries["oracle_cards"], fresh / FILES["oracle_cards"])
            fetch.whole(entries["rulings"], fresh / FILES["rulings"])
            fetch.chinese_printings(entries["all_cards"], fresh / FILES["all_cards"])
        try:
            data = scryfall.read_files([fresh / name for name in FILES.values()])
        except scryfall.ScryfallError as exc:
            raise FetchError(str(exc).replace(str(fresh), str(folder))) from None
        if not data.english:
            raise FetchError(f"{entries['oracle_cards']['download_uri']}: no English card in Oracle Cards")
        _replace(folder, fresh)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    return FetchedCards(folder, len(data.english), sum(len(r) for r in data.rulings.values()), len(data.chinese))


def _replace(folder: Path, fresh: Path) -> None:
    """The new folder in the old one's place: the old is moved aside first, then removed."""
    old = folder.with_name(f".{folder.name}.old-{os.getpid()}")
    if folder.exists():
        os.rename(folder, old)
    os.rename(fresh, folder)
    shutil.rmtree(old, ignore_errors=True)

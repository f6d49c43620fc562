"""Adding a newly published edition of the Comprehensive Rules to a corpus.

`python -m indexer fetch URL|FILE` downloads (or copies) one rules file, reads it as
ingestion would, and only when it parses stores it byte for byte in the corpus's `rules/`
folder with a `[[source]]` entry in `sources.toml`. The file is named by what it is (its
effective date and language), not by what the download was called, and a file the corpus
already holds, under any name, is left alone. Nothing is written for a file that is not a
rules file or does not parse, so a failed fetch never damages the corpus.

Whatever it is given, it ends: a download is cut at a total deadline (not a time per read,
which a server sending a byte at a time never reaches), a body larger than a document may be
or shorter than its `Content-Length` is refused, and a local path must name a regular file
(`/dev/zero` never ends, a FIFO waits for a writer). The entry is written by a TOML library,
so any URL round-trips, and the whole metadata file is parsed again before it is replaced.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import http.client
import os
import socket
import ssl
import stat
import tempfile
import threading
import tomllib
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import tomli_w

from . import comprules
from .corpus import METADATA, CorpusError, load_sources
from .ingest import MAX_DOCUMENT_BYTES
from .records import rules_file_source

RULES_FOLDER = "rules"
# The whole download, from connecting to the body's last byte.
TIMEOUT_SECONDS = 60
READ_BYTES = 64 * 1024
PUBLISHER = "Wizards of the Coast"


class FetchError(Exception):
    """The file was not added; the message says why. The corpus is unchanged."""


@dataclass
class Fetched:
    path: Path          # where the file is in the corpus
    edition: str
    lang: str
    added: bool         # False when the corpus already held these bytes


class Deadline:
    """Shuts down every connection of one download when its total time is up: a read blocked
    on a trickling server returns at once, in the headers as in the body."""

    def __init__(self, seconds: float):
        self.seconds, self.expired = seconds, False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._timer.cancel()

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


class _WatchedHTTP(http.client.HTTPConnection):
    def __init__(self, *args, deadline: Deadline, **kwargs):
        super().__init__(*args, **kwargs)
        self.deadline = deadline

    def connect(self) -> None:
        super().connect()
        self.deadline.watch(self.sock)


class _WatchedHTTPS(_WatchedHTTP, http.client.HTTPSConnection):
    """The same watch on the socket HTTPS connects (the TLS one: `connect` above runs after
    HTTPSConnection's in this order of classes)."""


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: Deadline):
        super().__init__()
        self.deadline = deadline

    def http_open(self, req):
        return self.do_open(functools.partial(_WatchedHTTP, deadline=self.deadline), req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: Deadline):
        self.context = ssl.create_default_context()
        super().__init__(context=self.context)
        self.deadline = deadline

    def https_open(self, req):
        return self.do_open(functools.partial(_WatchedHTTPS, deadline=self.deadline), req, context=self.context)


def deadline_opener(deadline: Deadline) -> urllib.request.OpenerDirector:
    """An opener whose every connection `deadline` shuts down when its time is up."""
    return urllib.request.build_opener(_HTTPHandler(deadline), _HTTPSHandler(deadline))


def _download(url: str, seconds: float = TIMEOUT_SECONDS) -> bytes:
    """The body at `url`, whole: at most MAX_DOCUMENT_BYTES, as long as its Content-Length
    says, within `seconds` in all."""
    with Deadline(seconds) as deadline:
        opener = deadline_opener(deadline)
        try:
            with opener.open(url, timeout=seconds) as response:
                declared = response.headers.get("Content-Length")
                length = int(declared) if declared and declared.strip().isdigit() else None
                if length is not None and length > MAX_DOCUMENT_BYTES:
                    raise FetchError(f"{url}: larger than {MAX_DOCUMENT_BYTES} bytes ({length})")
                data = bytearray()
                while chunk := response.read1(READ_BYTES):
                    data += chunk
                    if len(data) > MAX_DOCUMENT_BYTES:
                        raise FetchError(f"{url}: larger than {MAX_DOCUMENT_BYTES} bytes")
        except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as exc:
            if deadline.expired:
                raise FetchError(f"{url}: not downloaded within {seconds:g} s") from None
            raise FetchError(f"{url}: cannot be downloaded ({getattr(exc, 'reason', exc)})") from None
        if deadline.expired:
            raise FetchError(f"{url}: not downloaded within {seconds:g} s")
    if length is not None and len(data) != length:
        raise FetchError(f"{url}: cut short ({len(data)} bytes of the {length} its Content-Length says)")
    return bytes(data)


def _read_file(path: Path) -> bytes:
    """A regular file's bytes. Opened without waiting (a FIFO would wait for a writer) and
    checked on the opened file itself, so that nothing swapped in meanwhile is read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise FetchError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    with open(fd, "rb") as fh:
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise FetchError(f"{path}: not a regular file")
            if info.st_size > MAX_DOCUMENT_BYTES:
                raise FetchError(f"{path}: larger than {MAX_DOCUMENT_BYTES} bytes")
            data = fh.read(MAX_DOCUMENT_BYTES + 1)
        except OSError as exc:
            raise FetchError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_DOCUMENT_BYTES:
        raise FetchError(f"{path}: larger than {MAX_DOCUMENT_BYTES} bytes")
    return data


def _read(location: str) -> bytes:
    if location.startswith(("http://", "https://")):
        return _download(location, TIMEOUT_SECONDS)
    return _read_file(Path(location))


def _parse(data: bytes, location: str) -> comprules.RulesFile:
    """The file read as ingestion reads it (from a temporary copy: the reader takes a path)."""
    if not comprules.is_rules_file(data):
        raise FetchError(f"{location}: not a Comprehensive Rules file (its first line names no rules document)")
    fd, tmp = tempfile.mkstemp(suffix=".txt")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        return comprules.read_rules_file(Path(tmp))
    except comprules.RulesError as exc:
        where = f"{location}:{exc.line}" if exc.line else location
        raise FetchError(f"{where}: {str(exc).split(': ', 1)[-1]}") from None
    finally:
        os.unlink(tmp)


def _entry(source_id: str, name: str, parsed: comprules.RulesFile, url: str | None) -> str:
    """The `[[source]]` entry of a fetched file, as TOML."""
    language = comprules.LANGUAGE_NAMES[parsed.lang]
    entry = {"id": source_id, "file": f"{RULES_FOLDER}/{name}",
             "title": f"Magic: The Gathering Comprehensive Rules, {language} ({parsed.edition})",
             "family": comprules.FAMILY, "languages": [parsed.lang], "publisher": PUBLISHER,
             "date": parsed.edition, "edition": parsed.edition, "urls": [url] if url else []}
    return "\n" + tomli_w.dumps({"source": [entry]})


def _declare(corpus: Path, entry: str, location: str) -> None:
    """Append `entry` to the metadata, which must still parse with it, in one rename (the
    file's header and entries are kept byte for byte)."""
    path = corpus / METADATA
    text = path.read_text(encoding="utf-8")
    text += ("" if not text or text.endswith("\n") else "\n") + entry
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FetchError(f"{location}: its entry would not parse in {METADATA} ({exc})") from None
    tmp = path.with_name(f".{METADATA}.{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def fetch(location: str, corpus: Path) -> Fetched:
    """Add the rules file at `location` (a URL or a file) to the corpus folder `corpus`."""
    data = _read(location)
    parsed = _parse(data, location)
    try:
        sources = load_sources(corpus)
    except CorpusError as exc:
        raise FetchError(str(exc)) from None
    digest = hashlib.sha256(data).digest()
    rules = [s for s in sources if s.family == comprules.FAMILY]
    for source in rules:
        if hashlib.sha256(source.path.read_bytes()).digest() == digest:
            return Fetched(source.path, parsed.edition, parsed.lang, added=False)
    suffix = "" if parsed.lang == "en" else "-" + parsed.lang.replace("_", "-")
    source_id = rules_file_source(parsed.edition) + suffix
    if any(s.id == source_id for s in sources):
        raise FetchError(f"{location}: the corpus already has a different file for edition {parsed.edition} "
                         f"({comprules.LANGUAGE_NAMES[parsed.lang]}), {source_id} in {METADATA}; remove it first")
    name = f"MagicCompRules-{parsed.edition}{suffix}.txt"
    target = corpus / RULES_FOLDER / name
    url = location if location.startswith(("http://", "https://")) else None
    entry = _entry(source_id, name, parsed, url)
    target.parent.mkdir(exist_ok=True)
    target.write_bytes(data)
    try:
        _declare(corpus, entry, location)
    except BaseException:
        target.unlink()
        raise
    return Fetched(target, parsed.edition, parsed.lang, added=True)

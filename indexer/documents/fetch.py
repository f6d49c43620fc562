"""Adding a newly published edition of the Comprehensive Rules to a corpus.

`python -m indexer fetch URL|FILE` downloads (or copies) one rules file, reads it as
ingestion would, and only when it parses stores it byte for byte in the corpus's `rules/`
folder with a `[[source]]` entry in `sources.toml`. The file is named by what it is (its
effective date and language), not by what the download was called, and a file the corpus
already holds, under any name, is left alone. Nothing is written for a file that is not a
rules file or does not parse, so a failed fetch never damages the corpus.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from . import comprules
from .corpus import METADATA, CorpusError, load_sources
from .ingest import MAX_DOCUMENT_BYTES
from .records import rules_file_source

RULES_FOLDER = "rules"
TIMEOUT_SECONDS = 60
PUBLISHER = "Wizards of the Coast"


class FetchError(Exception):
    """The file was not added; the message says why. The corpus is unchanged."""


@dataclass
class Fetched:
    path: Path          # where the file is in the corpus
    edition: str
    lang: str
    added: bool         # False when the corpus already held these bytes


def _download(url: str) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_SECONDS) as response:
            data = response.read(MAX_DOCUMENT_BYTES + 1)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise FetchError(f"{url}: cannot be downloaded ({getattr(exc, 'reason', exc)})") from None
    if len(data) > MAX_DOCUMENT_BYTES:
        raise FetchError(f"{url}: larger than {MAX_DOCUMENT_BYTES} bytes")
    return data


def _read(location: str) -> bytes:
    if location.startswith(("http://", "https://")):
        return _download(location)
    path = Path(location)
    try:
        if path.stat().st_size > MAX_DOCUMENT_BYTES:
            raise FetchError(f"{path}: larger than {MAX_DOCUMENT_BYTES} bytes")
        return path.read_bytes()
    except OSError as exc:
        raise FetchError(f"{path}: cannot be read ({exc.strerror or exc})") from None


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
        raise FetchError(f"{location}: {str(exc).split(': ', 1)[-1]}") from None
    finally:
        os.unlink(tmp)


def _entry(source_id: str, name: str, parsed: comprules.RulesFile, url: str | None) -> str:
    language = comprules.LANGUAGE_NAMES[parsed.lang]
    urls = f'["{url}"]' if url else "[]"
    return (f'\n[[source]]\nid = "{source_id}"\nfile = "{RULES_FOLDER}/{name}"\n'
            f'title = "Magic: The Gathering Comprehensive Rules, {language} ({parsed.edition})"\n'
            f'family = "{comprules.FAMILY}"\nlanguages = ["{parsed.lang}"]\npublisher = "{PUBLISHER}"\n'
            f'date = "{parsed.edition}"\nedition = "{parsed.edition}"\nurls = {urls}\n')


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
    target.parent.mkdir(exist_ok=True)
    target.write_bytes(data)
    url = location if location.startswith(("http://", "https://")) else None
    with open(corpus / METADATA, "a", encoding="utf-8") as fh:
        fh.write(_entry(source_id, name, parsed, url))
    return Fetched(target, parsed.edition, parsed.lang, added=True)

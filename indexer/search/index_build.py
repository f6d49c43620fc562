"""One index build opened: everything its answers depend on, owned by one object.

A build folder holds the records and sources, the folded texts and the texts' marking forms
(`lines.MappedLines`), the user words it was segmented with, the glossary it was built with
and the engine's files. Opening it reads and checks every one of them before anything is in
use: a missing or damaged part raises `IndexUnavailable` (and nothing else), so whoever
serves the previous build keeps serving it. Nothing here changes process state: the
segmenter and glossary are this build's, so two builds open in one process never change
each other's answers.

The build writes a manifest of every file's size and SHA-256 last. Opening checks every file
against it first: the line files and the engine's segments are read through memory maps,
where a file cut short is not an error but a SIGBUS that kills the process at the first read
past its end. A served build's sizes are checked again (`damage`, a stat per file) before use.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from indexer.documents.glossary import Glossary, GlossaryError
from indexer.documents.ingest import read_records

from . import analysis, folding, marking
from .engine import IndexUnavailable, SearchBackend
from .lines import MappedLines
from .whoosh_engine import CACHE_BYTES, WhooshBackend

ENGINE = WhooshBackend
USER_WORDS_FILE = "userdict.txt"
GLOSSARY_FILE = "glossary.tsv"
FILES = ("records.jsonl", "sources.json", USER_WORDS_FILE, GLOSSARY_FILE, folding.FILE, marking.FILE)
MANIFEST = "manifest.json"


def _sha256(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def write_manifest(folder: Path) -> None:
    """Records the size and SHA-256 of every file of a finished build folder."""
    files = {p.name: [p.stat().st_size, _sha256(p)]
             for p in sorted(folder.iterdir()) if p.is_file() and p.name != MANIFEST}
    (folder / MANIFEST).write_text(json.dumps(files, indent=1), encoding="utf-8")


def verify(folder: Path) -> dict[str, int]:
    """The size of each file the manifest of `folder` lists, once every file it lists has its size and checksum; raises
    IndexUnavailable naming the first that does not."""
    try:
        files = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        listed = [(name, int(size), str(digest)) for name, (size, digest) in files.items()]
    except (OSError, ValueError, TypeError, AttributeError) as exc:
        raise IndexUnavailable(f"{folder}: incomplete index (no readable {MANIFEST}: {exc})") from None
    for name, size, digest in listed:
        path = folder / Path(name).name
        if not path.exists():
            raise IndexUnavailable(f"{folder}: incomplete index ({name} missing)")
        try:
            if path.stat().st_size != size:
                raise IndexUnavailable(f"{folder}: {name} is {path.stat().st_size} bytes, not {size}")
            if _sha256(path) != digest:
                raise IndexUnavailable(f"{folder}: {name} does not match its checksum")
        except OSError as exc:
            raise IndexUnavailable(f"{folder}: {name} unreadable ({exc.strerror or exc})") from None
    return {name: size for name, size, _ in listed}


class IndexBuild:
    def __init__(self, folder: Path, cache_bytes: int = CACHE_BYTES):
        self.folder = folder
        for name in FILES:
            if not (folder / name).exists():
                raise IndexUnavailable(f"{folder}: incomplete index ({name} missing)")
        self.sizes = verify(folder)
        try:
            words = analysis.read_user_dictionary(folder / USER_WORDS_FILE)
        except analysis.UserDictionaryError as exc:
            raise IndexUnavailable(f"{folder}: {exc}") from None
        self.segmenter = analysis.segmenter_for(frozenset(words))
        try:
            self.glossary = Glossary.load(folder / GLOSSARY_FILE)
        except (GlossaryError, OSError, UnicodeDecodeError) as exc:
            raise IndexUnavailable(f"{folder}: glossary unreadable ({exc})") from None
        try:
            self.records, self.sources = read_records(folder)
        except (OSError, ValueError, TypeError, KeyError) as exc:
            raise IndexUnavailable(f"{folder}: records unreadable ({exc})") from None
        self.folded_texts = self._lines(folding.FILE, "folded texts")
        try:
            self.marking_lines = self._lines(marking.FILE, "marking forms")
        except IndexUnavailable:
            self.folded_texts.close()
            raise
        try:
            self.engine: SearchBackend = ENGINE.open(folder, self.segmenter, cache_bytes,
                                                     [r.id for r in self.records])
        except IndexUnavailable:
            self.folded_texts.close()
            self.marking_lines.close()
            raise

    def _lines(self, name: str, what: str) -> MappedLines:
        try:
            return MappedLines(self.folder / name, len(self.records))
        except (OSError, ValueError) as exc:
            raise IndexUnavailable(f"{self.folder}: {what} unreadable ({exc})") from None

    def damage(self) -> str | None:
        """What changed in the folder since it was opened and checked (a file cut short,
        replaced or removed), or None."""
        for name, size in self.sizes.items():
            try:
                actual = (self.folder / name).stat().st_size
            except OSError as exc:
                return f"{self.folder}: {name} unreadable ({exc.strerror or exc})"
            if actual != size:
                return f"{self.folder}: {name} is now {actual} bytes, not {size}"
        return None

    def close(self) -> None:
        self.engine.close()
        self.folded_texts.close()
        self.marking_lines.close()


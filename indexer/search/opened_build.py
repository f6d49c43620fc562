"""One index build opened: everything its answers depend on, owned by one object.

A build folder holds the records and sources, the folded texts and the texts' marking forms
(`record_lines.RecordLines`), the lineage of the rules across editions (`lineage`), the user words
it was segmented with, the glossary it was built with and the engine's files. Opening it
reads and checks every one of them before anything is in use: a missing or damaged part
raises `IndexUnavailable` (and nothing else), so whoever serves the previous build keeps
serving it. Nothing here changes process state: the segmenter and glossary are this
build's, so two builds open in one process never change each other's answers.

The build writes a manifest of every file's size and checksum last (xxHash's XXH3, 128 bits:
a check against damage, not against an adversary who can write the folder, ten times as fast
as SHA-256 here, docs/benchmarks.md, Resilience). Opening checks every file against it first, and
the line files are checked in the very bytes that are kept. Nothing of a build is read through
a memory map (the line files and the scored postings are read into memory, Whoosh reads its
segment with file reads), so a file damaged under a running server is at worst an error in
a request, never a SIGBUS that kills the worker. A served build's files are looked at again
(`damage`: a stat per file) and checked again whenever one of them changed.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import xxhash

from indexer.documents.glossary import Glossary, GlossaryError
from indexer.documents.ingest import read_records

from . import analysis, folding, highlighting, lineage
from .engine import IndexUnavailable, SearchBackend
from .record_lines import RecordLines
from .whoosh_engine import CACHE_BYTES, WhooshBackend

ENGINE = WhooshBackend
USER_WORDS_FILE = "userdict.txt"
GLOSSARY_FILE = "glossary.tsv"
FILES = ("records.jsonl", "sources.json", USER_WORDS_FILE, GLOSSARY_FILE, folding.FILE, highlighting.FILE,
         lineage.FILE)
MANIFEST = "manifest.json"
_READ_BYTES = 1024 * 1024
RECHECK_SECONDS = 10.0
# The records a served build keeps packed (`packed_records`): cards, tens of thousands with every
# card, of which a request reads a few.
PACKED_KINDS = ("card",)


def _checksum(path: Path) -> str:
    digest = xxhash.xxh3_128()
    with open(path, "rb") as fh:
        while block := fh.read(_READ_BYTES):
            digest.update(block)
    return digest.hexdigest()


def write_manifest(folder: Path) -> None:
    """Records the size and checksum of every file of a finished build folder."""
    files = {p.name: [p.stat().st_size, _checksum(p)]
             for p in sorted(folder.iterdir()) if p.is_file() and p.name != MANIFEST}
    (folder / MANIFEST).write_text(json.dumps(files, indent=1), encoding="utf-8")


def read_manifest(folder: Path) -> dict[str, tuple[int, str]]:
    """The manifest of `folder`: each file's size and checksum. Raises IndexUnavailable."""
    try:
        files = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        return {Path(name).name: (int(size), str(digest)) for name, (size, digest) in files.items()}
    except (OSError, ValueError, TypeError, AttributeError) as exc:
        raise IndexUnavailable(f"{folder}: incomplete index (no readable {MANIFEST}: {exc})") from None


def verify(folder: Path) -> dict[str, tuple[int, str]]:
    """The manifest of `folder` once every file it lists has its size and checksum; raises
    IndexUnavailable naming the first that does not."""
    listed = read_manifest(folder)
    for name, (size, digest) in listed.items():
        path = folder / name
        if not path.exists():
            raise IndexUnavailable(f"{folder}: incomplete index ({name} missing)")
        try:
            if path.stat().st_size != size:
                raise IndexUnavailable(f"{folder}: {name} is {path.stat().st_size} bytes, not {size}")
            if _checksum(path) != digest:
                raise IndexUnavailable(f"{folder}: {name} does not match its checksum")
        except OSError as exc:
            raise IndexUnavailable(f"{folder}: {name} unreadable ({exc.strerror or exc})") from None
    return listed


def signature(folder: Path) -> tuple:
    """What a stat of each file of `folder` says (name, size, modification time, inode): when
    it changes, a file was written, replaced, cut or restored, and must be checked again."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return ()
    found = []
    for name in names:
        try:
            st = os.stat(folder / name)
        except OSError:
            continue
        found.append((name, st.st_size, st.st_mtime_ns, st.st_ino))
    return tuple(found)


class IndexBuild:
    def __init__(self, folder: Path, cache_bytes: int = CACHE_BYTES):
        self.folder = folder
        for name in FILES:
            if not (folder / name).exists():
                raise IndexUnavailable(f"{folder}: incomplete index ({name} missing)")
        self.signature = signature(folder)  # before the check: a change during it shows later
        self.manifest = verify(folder)
        self.checked = time.monotonic()
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
            self.records, self.sources = read_records(folder, PACKED_KINDS)
        except (OSError, ValueError, TypeError, KeyError) as exc:
            raise IndexUnavailable(f"{folder}: records unreadable ({exc})") from None
        try:
            self.lineage = lineage.read(folder / lineage.FILE)
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            raise IndexUnavailable(f"{folder}: lineage unreadable ({exc})") from None
        self.folded_texts = self._lines(folding.FILE, "folded texts")
        try:
            self.marking_lines = self._lines(highlighting.FILE, "marking forms")
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

    def _lines(self, name: str, what: str) -> RecordLines:
        """A line file, checked against the manifest in the bytes that are kept."""
        path = self.folder / name
        try:
            data = path.read_bytes()
            if name in self.manifest and (len(data), xxhash.xxh3_128_hexdigest(data)) != self.manifest[name]:
                raise ValueError("changed since the build was checked")
            return RecordLines(path, len(self.records), data)
        except (OSError, ValueError) as exc:
            raise IndexUnavailable(f"{self.folder}: {what} unreadable ({exc})") from None

    def damage(self) -> str | None:
        """What is wrong with the folder's files now (a file cut short, scribbled, replaced or
        removed since the build was opened), or None. A stat of each file when none changed;
        every file's checksum again when one did."""
        now = signature(self.folder)
        if now == self.signature:
            return None
        try:
            verify(self.folder)
        except IndexUnavailable as exc:
            return str(exc)
        # Changed, and whole again (touched, or restored as it was).
        self.signature, self.checked = now, time.monotonic()
        return None

    def check(self) -> str | None:
        """What is wrong with the folder's files, every checksum checked again (after a search
        on this build failed), or None. At most once in RECHECK_SECONDS while no file changed:
        a request that fails for another reason must not cost a check of the whole build
        every time."""
        if time.monotonic() - self.checked < RECHECK_SECONDS:
            return self.damage()
        self.signature = ()
        return self.damage()

    def close(self) -> None:
        self.engine.close()
        self.folded_texts.close()
        self.marking_lines.close()


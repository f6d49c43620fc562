"""One index build opened: everything its answers depend on, owned by one object.

A build folder holds the records and sources, the folded texts, the user words it was
segmented with, the glossary it was built with and the engine's files. Opening it reads and
checks every one of them before anything is in use: a missing or damaged part raises
`IndexUnavailable` (and nothing else), so whoever serves the previous build keeps serving it.
Nothing here changes process state: the segmenter and glossary are this build's, so two
builds open in one process never change each other's answers.
"""
from __future__ import annotations

from pathlib import Path

from indexer.documents.glossary import Glossary, GlossaryError
from indexer.documents.ingest import read_records

from . import analysis, folding
from .engine import IndexUnavailable, SearchBackend
from .whoosh_engine import WhooshBackend

ENGINE = WhooshBackend
USER_WORDS_FILE = "userdict.txt"
GLOSSARY_FILE = "glossary.tsv"
FILES = ("records.jsonl", "sources.json", USER_WORDS_FILE, GLOSSARY_FILE, folding.FILE)


class IndexBuild:
    def __init__(self, folder: Path):
        self.folder = folder
        for name in FILES:
            if not (folder / name).exists():
                raise IndexUnavailable(f"{folder}: incomplete index ({name} missing)")
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
        try:
            self.folded_texts = folding.FoldedTexts(folder / folding.FILE, len(self.records))
        except (OSError, ValueError) as exc:
            raise IndexUnavailable(f"{folder}: folded texts unreadable ({exc})") from None
        try:
            self.engine: SearchBackend = ENGINE.open(folder, self.segmenter)
        except IndexUnavailable:
            self.folded_texts.close()
            raise

    def close(self) -> None:
        self.engine.close()
        self.folded_texts.close()


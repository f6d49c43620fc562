"""The folded form texts are compared in, and the file of every record's folded text that an
index keeps.

Folding (`fold_key`) removes case, script, width, spacing and punctuation: `Murderous Redcap`
and `murderousredcap` are one key, as are 奪魂紅帽客 and 夺魂红帽客. A search looks for the
query's key inside its candidates' folded texts (the literal-match bonus, phrase filters).
Folding the new candidates of a first search on a large index was most of that search
(docs/decisions/0002-first-asking-on-a-hundred-times-the-corpus.md); so the build folds
every record once and writes `folded.txt`, one line per record in the order of
records.jsonl, and the library reads that file's bytes once (`record_lines.RecordLines`) and finds
a record's line by its position, parsing nothing: the server's workers share the master's copy.
"""
from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from indexer.documents.chinese import to_hans
from indexer.documents.records import Record

from .schema import NAMED_ONLY_SOURCE, searched_blocks

FILE = "folded.txt"
_PUNCT = re.compile(r"[\W_]+")


def fold_key(text: str) -> str:
    """`text` with case, script, width, spacing and punctuation folded away."""
    return _PUNCT.sub("", to_hans(unicodedata.normalize("NFKC", text)).casefold())


def fold_name(name: str) -> str:
    """`fold_key` of a name that tables keep (the names index, the suggestions): one string
    for them all, not one each (a hundred thousand names with every card)."""
    return sys.intern(fold_key(name))


def fold_record(record: Record) -> str:
    """All of a record's texts in all its languages, folded: of a card of Scryfall's, what a
    query searches (`schema.searched_blocks`: its English Oracle text) after its names."""
    if record.source == NAMED_ONLY_SOURCE:
        return fold_key(" ".join([*record.names.values(), *record.aliases, *(b for _, b in searched_blocks(record))]))
    return fold_key(" ".join(t for lang in record.languages() for t in record.texts(lang)))


def write(records: Iterable[Record], folder: Path) -> None:
    """`folded.txt` in `folder`: the folded text of each record, a line each, in order (a
    folded text has no line breaks)."""
    with open(folder / FILE, "w", encoding="utf-8") as fh:
        for record in records:
            fh.write(fold_record(record) + "\n")

"""One parser per document family; the corpus metadata names each document's family.

A parser is a module with `parse(source: Source, text: str) -> Parsed`. `text` is the
document decoded as UTF-8 exactly as it is on disk (no normalisation), so the `line` and
`offset` a parser records point into the original file; the parser cleans the texts it
extracts with `indexer.documents.textclean`. A parser that cannot make sense of its input raises
`ParseError` with the line or offset where it gave up; the caller names the file.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from ..records import Record

FAMILIES = {
    "ptt-faq-export": "shadowmoor_faq",      # a set FAQ exported from a PTT digest as one line
    "set-faq": "set_faq",                    # a set FAQ in paragraphs (Worldwake)
    "ptt-keyword-digest": "keyword_digest",  # rules interleaved zh/en, hard-wrapped at 80 columns
    "planechase-guide": "planechase_guide",  # instructions and plane cards, en paragraphs then zh
    "article": "article",                    # plain paragraphs in one language (the Bulgarian article)
}


class ParseError(Exception):
    def __init__(self, message: str, line: int | None = None, offset: int | None = None):
        self.message, self.line, self.offset = message, line, offset
        where = f"line {line}" if line is not None else f"offset {offset}" if offset is not None else ""
        super().__init__(f"{where}: {message}" if where else message)


@dataclass
class Parsed:
    records: list[Record]
    warnings: list[str] = field(default_factory=list)


def parser_for(family: str):
    """The parse function of a family, or None when no parser knows it."""
    module = FAMILIES.get(family)
    if module is None:
        return None
    return importlib.import_module(f"{__name__}.{module}").parse


def position(text: str, offset: int) -> tuple[int, int]:
    """(1-based line, offset) of a character offset in the original text."""
    return text.count("\n", 0, offset) + 1, offset

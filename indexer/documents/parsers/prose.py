"""Running prose, as every document family has it: source lines with their positions,
paragraphs, headings, and section records with their references.

A line is a paragraph unless a parser groups lines; a short line without sentence punctuation
is a heading and titles the paragraph under it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .. import textclean
from ..corpus import Source
from ..records import Record, Reference
from ..references import find_references

# A heading is one short line with no sentence punctuation in it or at its end.
HEADING_MAX_CHARS = 40
_SENTENCE_PUNCT = re.compile(r"[。，,；;！？!?]|[.:：︰]$")
BULLET = re.compile(r"^[-–•·] ")
_WORD = re.compile(r"[^\W\d_]{2,}")


@dataclass(frozen=True)
class Line:
    """One line of a document: where it is in the original file, and its clean text."""

    number: int  # 1-based
    offset: int  # 0-based character offset of its first character
    text: str


@dataclass
class Paragraph:
    """A paragraph of prose: where it starts and its parts (a paragraph's own text, then any
    list items or lines that belong to it), each already clean."""

    start: Line
    parts: list[str] = field(default_factory=list)

    def text(self) -> str:
        return textclean.join_paragraphs(self.parts)


def source_lines(text: str) -> list[Line]:
    """Every line of the original text with its position and clean text (blank when the line
    holds only spaces or invisible characters)."""
    lines, offset = [], 0
    for number, raw in enumerate(text.split("\n"), 1):
        lines.append(Line(number, offset, textclean.clean(raw)))
        offset += len(raw) + 1
    return lines


def is_heading(text: str) -> bool:
    return 0 < len(text) <= HEADING_MAX_CHARS and not _SENTENCE_PUNCT.search(text) and not BULLET.match(text)


def has_words(text: str) -> bool:
    """Whether a text holds at least one word of letters: binary junk and lines of symbols do not."""
    return bool(_WORD.search(text))


def merge_after_colon(paragraphs: list[Paragraph]) -> list[Paragraph]:
    """A paragraph ending in a colon announces what follows (a list, a quoted line): the next
    paragraph joins it as a part."""
    merged: list[Paragraph] = []
    for para in paragraphs:
        if merged and merged[-1].parts[-1].endswith((":", "：", "︰")):
            merged[-1].parts.extend(para.parts)
        else:
            merged.append(para)
    return merged


def with_references(record: Record) -> Record:
    """The record with every rule reference found in its title, text and abilities."""
    refs: list[Reference] = []
    for where, part in [("title", record.title), ("text", record.text)] + [
        (f"abilities[{i}]", ability) for i, ability in enumerate(record.abilities)
    ]:
        for lang, value in part.items():
            refs.extend(find_references(value, lang, where))
    record.references = refs
    return record


def section_records(
    source: Source, paragraphs: list[Paragraph], lang: str, first_ordinal: int, warnings: list[str]
) -> list[Record]:
    """One `section` record per paragraph of one language, numbered from `first_ordinal`.

    A heading paragraph titles the paragraph after it; the first paragraph of the list, when
    it is a heading, is the document's title (level 1), later headings are level 2. A heading
    with no paragraph under it (another heading follows, or the end) is skipped with a warning.
    """
    def skip(heading: Paragraph) -> None:
        warnings.append(f"line {heading.start.number}: heading {heading.text()!r} has no text under it; skipped")

    records: list[Record] = []
    heading: Paragraph | None = None
    for index, para in enumerate(paragraphs):
        text = para.text()
        if len(para.parts) == 1 and is_heading(text):
            if heading is not None:
                skip(heading)
            heading, heading_index = para, index
            continue
        first = heading or para
        record = Record(
            id=f"{source.id}:section:{first_ordinal + len(records)}",
            kind="section", source=source.id, edition=source.edition,
            line=first.start.number, offset=first.start.offset, text={lang: text},
        )
        if heading is not None:
            record.title = {lang: heading.text()}
            record.attrs = {"level": "1" if heading_index == 0 else "2"}
        records.append(with_references(record))
        heading = None
    if heading is not None:
        skip(heading)
    return records

"""The article family: plain paragraphs in one language (the Bulgarian Planechase article).

Each line of the file is a paragraph; a line starting with `- ` is a bullet of the paragraph
before it (the article introduces its lists with a sentence ending in a colon). A short line
without sentence punctuation is a heading and titles the paragraph under it; the first line
is the article's title. Words the text glued together are split again (`textclean.split_glued_words`).
"""
from __future__ import annotations

from .. import textclean
from ..corpus import Source
from . import Parsed, ParseError
from .prose import BULLET, Line, Paragraph, has_words, section_records, source_lines


def parse(source: Source, text: str) -> Parsed:
    lines = [line for line in source_lines(text) if line.text]
    # The article lost spaces between some words (можетеза, DimensionalMagic): put them back.
    words = textclean.vocabulary([line.text for line in lines])
    lines = [Line(line.number, line.offset, textclean.split_glued_words(line.text, words)) for line in lines]
    if not lines or not any(has_words(line.text) for line in lines):
        raise ParseError("no text: an article needs a title and paragraphs", line=1, offset=0)
    paragraphs: list[Paragraph] = []
    for line in lines:
        if BULLET.match(line.text) and paragraphs:
            paragraphs[-1].parts.append(line.text)
        else:
            paragraphs.append(Paragraph(line, [line.text]))
    warnings: list[str] = []
    records = section_records(source, paragraphs, source.languages[0], 1, warnings)
    if not records:
        last = lines[-1]
        raise ParseError(
            "headings but no paragraph of text", line=last.number, offset=last.offset
        )
    return Parsed(records, warnings)

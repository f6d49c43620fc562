"""The PTT keyword digest: keyword rules in Chinese then English, hard-wrapped at 80 columns.

The post opens with preamble paragraphs (sections), then `=====`-separated rules: a keyword
heading `702.79. 吞噬 Devour` and its subrules `702.79a <Chinese text><English text>`, every
line wrapped by the BBS at a fixed display width whatever the language. A rule is unwrapped
first (textclean.join_wrapped) and then split where the Chinese ends: the English text is
everything after the last Chinese character (`…指示物。」Devour is…`, `…規則506.5。A creature…`).
The PTT signature after the `--` line (※ 發信站, ◆ From, ※ 編輯) is not content.

Preamble paragraphs are not separated by blank lines: a line ends its paragraph when the next
line's first word would have fitted on it, which is the only reason the BBS would have
broken it there.
"""
from __future__ import annotations

import re

from .. import textclean
from ..corpus import Source
from ..records import Record, rule_parent
from ..references import SUBRULE_LETTER
from . import Parsed, ParseError
from .prose import Line, Paragraph, has_words, merge_after_colon, section_records, source_lines, with_references

_RULE = re.compile(rf"^(?P<number>[1-9]\d\d\.\d{{1,3}}{SUBRULE_LETTER}?)\.?\s+(?P<body>\S.*)$")
_SEPARATOR = re.compile(r"^={3,}$")
_SIGNATURE_START = "--"
# A next line's first word: a run of printable ASCII (an English word, a URL) or one character.
_FIRST_TOKEN = re.compile(r"[!-~]+|.")


def split_languages(text: str) -> tuple[str, str]:
    """(Chinese, English) of one unwrapped rule text: the English starts after the last
    Chinese character (punctuation included), the Chinese is everything before it."""
    last = max((i for i, ch in enumerate(text) if textclean.is_cjk(ch)), default=-1)
    return text[: last + 1].strip(), text[last + 1 :].strip()


def _preamble_paragraphs(blocks: list[list[Line]]) -> list[Paragraph]:
    """Unwrap the preamble's `=====`-separated blocks into paragraphs: a line ends its paragraph
    when the next line's first word would have fitted on it (the wrap width is the widest line)."""
    width = max((textclean.display_width(line.text) for block in blocks for line in block), default=0)
    paragraphs: list[Paragraph] = []
    for block in blocks:
        wrapped: list[Line] = []
        for i, line in enumerate(block):
            wrapped.append(line)
            following = block[i + 1].text if i + 1 < len(block) else ""
            room = width - textclean.display_width(line.text) - 1
            first_token = _FIRST_TOKEN.match(following)
            if first_token is None or textclean.display_width(first_token.group()) <= room:
                paragraphs.append(Paragraph(wrapped[0], [textclean.join_wrapped([w.text for w in wrapped])]))
                wrapped = []
    return merge_after_colon(paragraphs)


def _rule_records(source: Source, rules: list[tuple[Line, list[Line]]], warnings: list[str]) -> list[Record]:
    records: list[Record] = []
    heading: str | None = None
    title: dict[str, str] = {}
    keyword: str | None = None
    for first, lines in rules:
        m = _RULE.match(first.text)
        assert m is not None, "the digest's rules are the lines _RULE matched"
        number = m.group("number")
        zh, en = split_languages(textclean.join_wrapped([m.group("body")] + [line.text for line in lines]))
        if not number[-1].isalpha():  # a keyword heading: its texts are the keyword's names
            heading, title, keyword = number, {"zh_hant": zh, "en": en}, en.lower() or None
        elif rule_parent(number) != heading:  # no keyword heading of its own: no title to inherit
            warnings.append(f"line {first.number}: rule {number} has no keyword heading {rule_parent(number)}")
            heading, title, keyword = None, {}, None
        if not zh or not en:
            warnings.append(f"line {first.number}: rule {number} has no {'Chinese' if not zh else 'English'} text")
        record = Record(
            id=f"{source.id}:rule:{number}", kind="rule", source=source.id, edition=source.edition,
            line=first.number, offset=first.offset, number=number, parent=rule_parent(number),
            keyword=keyword, title=dict(title), text={k: v for k, v in (("zh_hant", zh), ("en", en)) if v},
        )
        records.append(with_references(record))
    return records


def parse(source: Source, text: str) -> Parsed:
    lines = [line for line in source_lines(text) if line.text]
    if not lines or not any(has_words(line.text) for line in lines):
        raise ParseError("no text: a keyword digest needs keyword rules", line=1, offset=0)
    warnings: list[str] = []
    preamble: list[list[Line]] = [[]]
    rules: list[tuple[Line, list[Line]]] = []
    for line in lines:
        if line.text == _SIGNATURE_START:
            warnings.append(f"lines {line.number}-{lines[-1].number}: PTT signature skipped")
            break
        if _SEPARATOR.match(line.text):
            preamble.append([])
        elif _RULE.match(line.text):
            rules.append((line, []))
        elif rules:
            rules[-1][1].append(line)
        else:
            preamble[-1].append(line)
    if not rules:
        raise ParseError(
            "no keyword rule (a line like '702.79. 吞噬 Devour'): not a keyword digest",
            line=lines[0].number, offset=lines[0].offset,
        )
    sections = section_records(source, _preamble_paragraphs(preamble), "zh_hant", 1, warnings)
    return Parsed(sections + _rule_records(source, rules, warnings), warnings)

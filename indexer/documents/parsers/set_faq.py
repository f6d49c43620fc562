"""A set FAQ in paragraphs (family "set-faq"), as the Worldwake FAQ was reposted.

The layout is the FAQ's own, one piece per line with blank lines between paragraphs:

- `***heading***` opens a topic section, `-----` closes it;
- a card entry is a paragraph of lines: name, mana cost (lands have none), type line,
  power/toughness for a creature, then one line per ability;
- a quoted rule is a line starting with its number (`702.30.增幅`, `702.30a 增幅屬於…`);
- `* ` starts a ruling bullet, `-- ` lines under it are its sub-items;
- any other paragraph is the section's prose.

The lines before the first heading name the board, the source addresses and a note on the
translation; the addresses are in the corpus metadata, so they are reported and skipped.
"""
from __future__ import annotations

import re

from ..corpus import Source
from ..script_ranges import HAN
from . import Parsed, ParseError
from .faq_entries import MANA_COST, POWER_TOUGHNESS, RULE_START, TYPE_LINE, FaqBuilder

_HEADING = re.compile(r"\*\*\*(?P<title>[^*]+)\*\*\*")
_SEPARATOR = re.compile(r"-{5,}")
_BULLET = re.compile(r"\*\s")
_SUB_ITEM = re.compile(r"-{1,2}\s")
_CARD_NAME = re.compile(rf"[{HAN}]{{1,12}}")


def parse(source: Source, text: str) -> Parsed:
    if not text.strip():
        raise ParseError("empty document, expected a set FAQ in paragraphs", line=1)
    lines = _lines(text)
    first = next((n for n, (_, line) in enumerate(lines) if _HEADING.fullmatch(line)), None)
    if first is None:
        raise ParseError("no `***heading***` line: not a set FAQ", line=1)
    b = FaqBuilder(source, text)
    skipped = " / ".join(line for _, line in lines[:first] if line)
    if skipped:
        b.warn(0, f"skipped the lines before the first heading: {skipped[:200]!r}")
    for paragraph in _paragraphs(lines[first:]):
        _read(b, paragraph)
    records = b.records()
    if not any(r.kind in ("card", "rule") for r in records):
        raise ParseError("no card entry or quoted rule under the headings", line=first + 1)
    return Parsed(records, b.warnings)


def _lines(text: str) -> list[tuple[int, str]]:
    """(offset, stripped line) for every line of the original text."""
    out, offset = [], 0
    for raw in text.splitlines(keepends=True):
        out.append((offset, raw.strip()))
        offset += len(raw)
    return out


def _paragraphs(lines: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    paragraphs, current = [], []
    for item in lines:
        if item[1]:
            current.append(item)
        elif current:
            paragraphs.append(current)
            current = []
    if current:
        paragraphs.append(current)
    return paragraphs


def _read(b: FaqBuilder, paragraph: list[tuple[int, str]]) -> None:
    if _card(b, paragraph):
        return
    n = 0
    while n < len(paragraph):
        offset, line = paragraph[n]
        n += 1
        if _SEPARATOR.fullmatch(line):
            continue
        if heading := _HEADING.fullmatch(line):
            b.section(offset, heading.group("title"))
        elif rule := RULE_START.match(line):
            b.rule(offset, rule.group("number") + (rule.group("letter") or ""), line[rule.end():])
        elif _BULLET.match(line):
            raw = [line[1:]]
            while n < len(paragraph) and _SUB_ITEM.match(paragraph[n][1]):
                raw.append(paragraph[n][1])
                n += 1
            b.ruling(offset, "\n".join(raw))
        else:
            b.prose(offset, line)


def _card(b: FaqBuilder, paragraph: list[tuple[int, str]]) -> bool:
    """Read a card entry paragraph: name, [cost], type line, [P/T], ability lines."""
    lines = [line for _, line in paragraph]
    if len(lines) < 3 or not _CARD_NAME.fullmatch(lines[0]):
        return False
    n, cost = 1, None
    if MANA_COST.fullmatch(lines[1]):
        n, cost = 2, lines[1]
    if not TYPE_LINE.fullmatch(lines[n]):
        return False
    type_line, n = lines[n], n + 1
    pt = None
    if n < len(lines) and "生物" in type_line and POWER_TOUGHNESS.fullmatch(lines[n]):
        pt, n = lines[n], n + 1
    if n == len(lines):
        return False
    b.card(paragraph[0][0], lines[0], None, cost, type_line, pt, lines[n:])
    return True

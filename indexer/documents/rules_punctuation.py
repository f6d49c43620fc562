"""Punctuation an export lost, put back: one published rules file (2008) had every curly
quote, apostrophe and dash turned into '?'. Where the form says which it was, the character
is restored (`can?t` is `can’t`, `?Persist?` is `“Persist”`); where no form tells, the
restorations recorded for the edition (restorations.tsv) are made."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .rules_dates import EFFECTIVE_EN, MONTHS

# What an export that turned every curly quote, apostrophe and dash into '?' leaves, in the
# order the forms are restored (each pattern sees the text the ones before it made).
# can?t, player?s, you?re, who?ve, [this object]?s: '?' before a contraction. Many of these
# in a file with no curly quote are what marks the damage.
_LOST_APOSTROPHE = re.compile(r"(?<=[A-Za-z\]])\?(?=(?:s|t|re|ve|ll|d|m)\b)")
_LOST_PUNCTUATION = [
    (_LOST_APOSTROPHE, "’"),
    # D?Angelo: one capital, '?', a capitalised name
    (re.compile(r"(?<=\b[A-Z])\?(?=[A-Z][a-z])"), "’"),
    # section 6, ?Multiplayer Rules.?: '?' at a word's start opens a quote...
    (re.compile(r"(?:(?<=^)|(?<=[\s(\[/]))\?(?=[A-Za-z0-9{\[(])", re.M), "“"),
    # ...closed by the first '?' after it on the line that ends a word or a sentence
    (re.compile(r"(“[^“”\n]*?[^\s“])\?(?=[\s.,;:!?)\]-]|$)", re.M), "\\1”"),
    # the players? hands (outside quotes): 's?' before a word in lower case
    (re.compile(r"(?<=[a-z]s)\?(?=\s+[a-z])"), "’"),
    # 409.1a?h, 418.5b?418.5g, 306?311, 1993?2008: a range
    (re.compile(r"(?<=\d[a-z])\?(?=[a-z]\b|\d)|(?<=\d)\?(?=\d)"), "–"),
    # cards?even, upkeep?Sacrifice, Suspend N?[cost], permanent”?a: a dash between words
    # (not the query of a web address: default.asp?x=)
    (re.compile(r"(?<!\.asp)(?<=[A-Za-z”.)])\?(?=[A-Za-z\[])"), "—"),
    # Creature ? Goblin, Choose one ?,: a spaced dash
    (re.compile(r"(?<=[A-Za-z] )\?(?=[ ,.”)])"), "—"),
]
# How many lost apostrophes mark a file with that damage.
LOST_QUOTES_AT_LEAST = 20


def restore_lost_punctuation(text: str, restorations: list[Restoration] | None = None) -> str:
    """Curly quotes, apostrophes and dashes back where an export turned them into '?' (the
    2008 rules file: `you can?t`, `section 6, ?Multiplayer Rules.?`, `Creature ? Goblin`),
    character for character, so every line and offset stays where it was.

    Only a file with the damage is touched: one with no curly quote or dash at all and many
    words like `can?t`. First the restorations recorded for its edition (`restore_recorded`:
    trademark signs, subtractions, quotations inside quotations, which no form tells apart),
    then the forms above; any other '?' is left as it is, a real question mark
    (`default.asp?x=`)."""
    if any(mark in text for mark in "’“—–") or len(_LOST_APOSTROPHE.findall(text)) < LOST_QUOTES_AT_LEAST:
        return text
    text, _ = restore_recorded(text, load_restorations() if restorations is None else restorations)
    for pattern, replacement in _LOST_PUNCTUATION:
        text = pattern.sub(replacement, text)
    return text


# The restorations recorded for files whose lost characters no form tells (see its header).
RESTORATIONS = Path(__file__).with_name("restorations.tsv")


@dataclass(frozen=True)
class Restoration:
    """One recorded restoration: in rule (or section, or glossary term) `where` of `edition`,
    the text `written` (its lost characters each a '?') is `restored`, for the reason `why`."""

    edition: str
    where: str
    written: str
    restored: str
    why: str


def load_restorations(path: Path = RESTORATIONS) -> list[Restoration]:
    """The recorded restorations. Raises ValueError for a row that is not one: five fields,
    the restored text the written one with only its '?' changed."""
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 5:
            raise ValueError(f"{path.name}:{n}: want 5 tab-separated fields, got {len(fields)}")
        row = Restoration(*fields)
        if len(row.written) != len(row.restored) or row.written == row.restored or any(
                a != b and a != "?" for a, b in zip(row.written, row.restored, strict=True)):
            raise ValueError(f"{path.name}:{n}: the restored text must be the written one with its '?' changed")
        rows.append(row)
    return rows


def _entry_span(text: str, where: str) -> tuple[int, int] | None:
    """Where a rule, section or glossary entry is written in a rules file's text: from its
    last heading line (the Contents list sections first) to the next rule or section heading
    for a number, to the next blank line for a glossary term; None when the file has none."""
    line = r"(?<![^\r\n])[ \t]*"  # at a line's start, whatever ends lines
    if re.fullmatch(r"\d{3}(?:\.\d+[a-z]?)?", where):
        heading, end = re.compile(rf"{line}{re.escape(where)}\.?[ \t]"), re.compile(rf"{line}\d{{3}}\.")
    else:
        heading = re.compile(rf"{line}{re.escape(where)}[ \t]*(?=[\r\n]|$)")
        end = re.compile(r"(?:\r\n|\r(?!\n)|\n)[ \t]*(?:\r|\n)")
    starts = [m.end() for m in heading.finditer(text)]
    if not starts:
        return None
    stop = end.search(text, starts[-1])
    return starts[-1], stop.start() if stop else len(text)


def restore_recorded(text: str, restorations: list[Restoration]) -> tuple[str, list[Restoration]]:
    """`text` with the restorations recorded for its edition made (each where its rule, section
    or term has its written text once), and those of its edition that found nothing to restore."""
    edition = next((f"{int(m.group(3)):04d}-{MONTHS[m.group(1)]:02d}-{int(m.group(2)):02d}"
                    for m in [EFFECTIVE_EN.search(text, 0, 8192)] if m and m.group(1) in MONTHS), None)
    missed = []
    for row in (r for r in restorations if r.edition == edition):
        span = _entry_span(text, row.where)
        at = text.find(row.written, *span) if span else -1
        if span is None or at < 0 or text.find(row.written, at + 1, span[1]) >= 0:
            missed.append(row)
            continue
        text = text[:at] + row.restored + text[at + len(row.written):]
    return text, missed

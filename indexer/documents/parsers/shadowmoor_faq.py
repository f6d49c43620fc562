"""A set FAQ exported from a PTT digest: the whole FAQ on one line (family "ptt-faq-export").

The export kept the FAQ's words but lost its line breaks: paragraphs, card entries, quoted
rules and `*` bullets follow each other on one line, separated at best by a space. What is
left to go by:

- `-----` separates the header, the topic sections, the errata and each card entry of the
  card-by-card part (單卡解惑);
- `***heading***` opens a topic section; 通則釋疑 and 單卡解惑 name the two parts;
- a card entry is `中文名/ English Name {cost} type P/T rules text`;
- a quoted rule starts with its number (`502.78. 協力`, `502.78a 協力這個…`);
- ` * ` starts a ruling bullet.

Two kinds of words were glued to a neighbour and are taken apart here: the sentence that
introduces the next card or the quoted rules (`…可以累加。某些牌上面則有…`, `…留存的正式規則
解析如下：`) ends the previous bullet or card text, and the card-by-card part's colour
headings (白色 … 地) start the first card name of their colour (`地映景明湖` is 映景明湖).
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from ..corpus import Source
from ..script_ranges import HAN
from . import Parsed, ParseError, position
from .faq_entries import MANA_COST, POWER_TOUGHNESS, RULE_START, TYPES, FaqBuilder, clean

_SEPARATOR = re.compile(r"-{5,}")
_HEADING = re.compile(r"\*\*\*(?P<title>[^*]+?)\*\*\*")
_BULLET = re.compile(r"(?:(?<=\s)|^)\*\s")
_CARD = re.compile(
    rf"(?P<zh>[{HAN}]+)/ (?P<en>[A-Za-z][A-Za-z',\-]*(?:,? [A-Za-z][A-Za-z',\-]*)*)\s+"
)
_PLAIN_HEADING = re.compile(rf"[{HAN}]+(?=\s)")
GENERAL_PART, CARD_PART = "通則釋疑", "單卡解惑"
# The card-by-card part's colour headings, in the order the FAQ lists them.
COLOUR_HEADINGS = ("白色", "藍色", "黑色", "紅色", "綠色", "多色", "神器", "地")
# Subtypes a non-creature card can have; what follows them on the glued line is rules text
# (`結界～靈氣生物結界…`: the type line is 結界～靈氣, the text starts with 生物結界).
_NONCREATURE_SUBTYPE = "靈氣|武具|平原|海島|沼澤|山脈|樹林|神殿|陷阱"
_NONCREATURE_SUBTYPES = re.compile(rf"～(?:{_NONCREATURE_SUBTYPE})(?:／(?:{_NONCREATURE_SUBTYPE}))*")
# Abilities printed on a line of their own at the start of a card's text, now glued to the
# next ability (`飛行乾枯（…）`, `閃現飛行當…`, `生物結界受此結界的…`).
_KEYWORDS = "飛行|閃現|帷幕|踐踏|敏捷|系命|恐懼|先攻|連擊|警戒|死觸|保護|乾枯|留存|協力|生物結界|牌手結界"
_KEYWORD_LINE = re.compile(rf"(?:{_KEYWORDS})(?:，(?:{_KEYWORDS}))*(?=[^\s，、（(])")
# A line break the export turned into a space before an activated ability's cost, or lost
# after a reminder text (`…指示物。）由對手操控…`) or before a keyword with its reminder
# (`…抓一張牌。留存（…）`).
_ABILITY_BREAK = re.compile(
    rf"\s+(?=\{{)|(?<=。）)(?=[{HAN}（])|(?<=。)(?=(?:{_KEYWORDS})（)"
)
_SENTENCE_END = re.compile(r"。）|[。！？]")
# The header's fields, each a line of its own in the FAQ (`此檔最近更新日期：2008年4月4日`).
_HEADER_FIELD = re.compile(r"(?<!_)(?=(?:_[^_]+_)?(?:此檔最近更新日期|售前現開賽日期|正式發售日期)：)"
                           r"|(?<=\d日)(?=\S)")
_FAQ_TITLE = re.compile(r"\s*((?:_[^_]+_)?[^\s：]{0,20}?常見問題集)")
# Errata items `1. 河流凱爾比規則誤植：…`, a name table in them, and a card text they quote.
_ITEM = re.compile(rf"(?:(?<=\s)|^)[1-9]\.\s?(?=[{HAN}])")
_TABLE_HEADER = "英文名稱中文名稱系列"
_TABLE_ROW = re.compile(rf"\s*(?P<en>[A-Z][A-Za-z' \-]*?)\s+(?P<zh>[{HAN}，]+)")
_QUOTED_NAME = re.compile(rf"「([{HAN}]+)」|([{HAN}]+?)(?:名稱|規則)誤植")
_CORRECT_TEXT = re.compile(rf"正確的規則敘述：(?P<zh>.+?[。）])\s*(?P<en>[A-Z][^{HAN}]+?)\s*(?=[{HAN}])")


@dataclass
class _Unit:
    kind: str  # "heading", "card", "rule", "bullet"
    start: int
    end: int  # where the unit's own words start: after its marker, number or names
    match: re.Match


def parse(source: Source, text: str) -> Parsed:
    if not text.strip():
        raise ParseError("empty document, expected a FAQ exported from a PTT digest", line=1)
    seps = list(_SEPARATOR.finditer(text))
    if not seps or not _HEADING.search(text) or not _CARD.search(text):
        raise ParseError("no `-----` separators, `***heading***` or "
                         "`中文名/ English Name` card entries: not a PTT FAQ export", line=1)
    b = FaqBuilder(source, text)
    bounds = [0] + [m.end() for m in seps]
    ends = [m.start() for m in seps] + [len(text)]
    if first := text[:ends[0]].strip():
        b.warn(0, f"skipped the page title and source addresses before the first separator: {first[:40]!r}")
    _header(b, text, bounds[1], ends[1])
    reader = _Reader(b, text)
    for n in range(2, len(bounds)):
        reader.block(bounds[n], ends[n])
    for offset, zh, en in reader.translations:  # the cards they belong to come later
        b.card_translation(offset, zh, en)
    records = b.records()
    if not any(r.kind == "card" for r in records):
        raise ParseError("no card entry could be read", line=1)
    return Parsed(records, b.warnings)


def _header(b: FaqBuilder, text: str, start: int, end: int) -> None:
    """The FAQ's title, credits, dates and introduction, before the first part."""
    m = _FAQ_TITLE.match(text, start, end)
    if m is None:
        raise ParseError("no FAQ title (…常見問題集) after the first separator",
                         *position(text, start))
    b.section(m.start(1), m.group(1), level=1)
    for line in _HEADER_FIELD.split(text[m.end():end]):
        b.prose(m.end(), line)


class _Reader:
    """Reads the blocks after the header, in order, tracking which part it is in."""

    def __init__(self, b: FaqBuilder, text: str):
        self.b, self.text = b, text
        self.part: str | None = None
        self.colours = list(COLOUR_HEADINGS)
        self.translations: list[tuple[int, str, str]] = []  # (offset, zh text, en text) of a card

    def block(self, start: int, end: int) -> None:
        text = self.text
        pos = _skip_space(text, start, end)
        for part in (GENERAL_PART, CARD_PART):
            if text.startswith(part, pos):
                self.part, pos = part, _skip_space(text, pos + len(part), end)
        if self.part == CARD_PART:
            pos = self._colour_heading(pos, end)
        units = self._units(pos, end)
        first = units[0].start if units else end
        if text[pos:first].strip():
            head = _PLAIN_HEADING.match(text, pos, first)
            if self.part == CARD_PART:
                self.b.warn(pos, f"skipped text that is not a card entry: {text[pos:first].strip()[:40]!r}")
            elif head:
                self.b.section(pos, head.group())
                self.prose(head.end(), first)
            else:
                self.prose(pos, first)
        for n, unit in enumerate(units):
            following = units[n + 1] if n + 1 < len(units) else None
            self.unit(unit, following.start if following else end, following.kind if following else None)

    def _colour_heading(self, pos: int, end: int) -> int:
        """Skip a colour heading glued to the first card name of its colour (`地映景明湖/`)."""
        card = _CARD.match(self.text, pos, end)
        if card is None:
            return pos
        for n, colour in enumerate(self.colours):
            if card.group("zh").startswith(colour) and len(card.group("zh")) > len(colour):
                del self.colours[:n + 1]
                return pos + len(colour)
        return pos

    def _units(self, pos: int, end: int) -> list[_Unit]:
        text, units = self.text, []
        for kind, pattern in (("heading", _HEADING), ("card", _CARD), ("rule", RULE_START), ("bullet", _BULLET)):
            units += [_Unit(kind, m.start(), m.end(), m) for m in pattern.finditer(text, pos, end)]
        units.sort(key=lambda u: u.start)
        # A card name found inside a heading or another unit's marker is not a unit.
        out: list[_Unit] = []
        for unit in units:
            if out and unit.start < out[-1].end:
                continue
            out.append(unit)
        return out

    def unit(self, unit: _Unit, stop: int, next_kind: str | None) -> None:
        b = self.b
        if unit.kind == "heading":
            b.section(unit.start, unit.match.group("title"))
            self.prose(unit.end, stop)
            return
        entry, words = self._card_entry(unit, stop) if unit.kind == "card" else (None, unit.end)
        raw, intro = self._split_intro(unit.kind, self.text[words:stop], next_kind)
        if entry is not None:
            b.card(unit.start, unit.match.group("zh"), unit.match.group("en"), *entry, _ability_lines(raw))
        elif unit.kind == "rule":
            b.rule(unit.start, unit.match.group("number") + (unit.match.group("letter") or ""), raw)
        else:
            b.ruling(unit.start, raw)
        if intro:
            b.prose(stop - len(intro), intro)

    def prose(self, start: int, stop: int) -> None:
        """A section's own prose; numbered notes (the errata) each a paragraph, and a card
        text they quote in both languages set on lines of its own."""
        raw = self.text[start:stop]
        if not raw.strip():
            return
        items = [m.start() for m in _ITEM.finditer(raw)]
        for a, z in itertools.pairwise([0, *items, len(raw)]):
            quote = _CORRECT_TEXT.search(raw, a, z)
            if quote is None:
                self._paragraph(start + a, raw[a:z])
                continue
            self.translations.append((start + quote.start("zh"), quote.group("zh"), quote.group("en")))
            cuts = [a, quote.start("zh"), quote.start("en"), quote.end("en"), z]
            for x, y in itertools.pairwise(cuts):
                self._paragraph(start + x, raw[x:y])

    def _paragraph(self, offset: int, raw: str) -> None:
        if _TABLE_HEADER not in raw:
            self.b.prose(offset, raw)
            return
        before, table = raw.split(_TABLE_HEADER, 1)
        self.b.prose(offset, before)
        names = {a or b for a, b in _QUOTED_NAME.findall(before)}
        rows = ["英文名稱｜中文名稱｜系列"]
        for row in _TABLE_ROW.finditer(table):
            zh = row.group("zh")
            name = max((n for n in names if zh.startswith(n) and len(zh) > len(n)), key=len, default=None)
            if name is None:
                self.b.warn(offset, f"table row without a known Chinese name kept whole: {row.group()!r}")
                rows.append(f"{clean(row.group('en'))}｜{zh}")
            else:
                rows.append(f"{clean(row.group('en'))}｜{name}｜{zh[len(name):]}")
        self.b.paragraph(offset, "\n".join(rows))

    def _split_intro(self, kind: str, raw: str, next_kind: str | None) -> tuple[str, str]:
        """Take the sentence that introduces what comes next off the end of a bullet, card
        text or rule, in the general part: `…的正式規則解析如下：` before quoted rules, a sentence
        before an example card, `其他關於顏色的注意事項：` before general bullets."""
        if self.part == CARD_PART or next_kind is None or next_kind == "heading":
            return raw, ""
        body = raw.rstrip()
        wanted = (
            (next_kind == "rule" and body.endswith("："))
            or (next_kind == "card" and kind in ("bullet", "card"))
            or (next_kind == "bullet" and kind == "bullet" and body.endswith("："))
        )
        if not wanted:
            return raw, ""
        ends = [m.end() for m in _SENTENCE_END.finditer(body) if m.end() < len(body)]
        if not ends:
            return raw, ""
        return body[:ends[-1]], raw[ends[-1]:]

    def _card_entry(self, unit: _Unit, stop: int) -> tuple[tuple[str | None, str | None, str | None], int]:
        """A card entry's (cost, type line, P/T) and where its rules text starts."""
        text, pos, name = self.text, unit.end, unit.match.group("zh")
        cost = MANA_COST.match(text, pos, stop)
        if cost:
            pos = _skip_space(text, cost.end(), stop)
        types = TYPES.match(text, pos, stop)
        if types is None:
            self.b.warn(pos, f"card {name} has no type line after its name and cost: all it has is its text")
            return (cost.group() if cost else None, None, None), pos
        type_end, creature = types.end(), "生物" in types.group()
        if text.startswith("～", type_end):
            sub = None if creature else _NONCREATURE_SUBTYPES.match(text, type_end, stop)
            if sub is None and not creature:
                self.b.warn(type_end, f"unknown subtype of card {name}: took the words up to the next space")
            type_end = sub.end() if sub else _next_space(text, type_end, stop)
        pt = POWER_TOUGHNESS.match(text, _skip_space(text, type_end, stop), stop) if creature else None
        if creature and pt is None:
            self.b.warn(type_end, f"creature card {name} has no power/toughness")
        entry = (cost.group() if cost else None, text[types.start():type_end], pt.group() if pt else None)
        return entry, _skip_space(text, pt.end() if pt else type_end, stop)


def _ability_lines(raw: str) -> list[str]:
    """A card's rules text as the lines it was printed on, as far as the export lets us tell."""
    lines = []
    for piece in _ABILITY_BREAK.split(raw.strip()):
        while (keyword := _KEYWORD_LINE.match(piece)) is not None:
            lines.append(keyword.group())
            piece = piece[keyword.end():]
        lines.append(piece)
    return lines


def _skip_space(text: str, pos: int, end: int) -> int:
    while pos < end and text[pos].isspace():
        pos += 1
    return pos


def _next_space(text: str, pos: int, end: int) -> int:
    while pos < end and not text[pos].isspace():
        pos += 1
    return pos

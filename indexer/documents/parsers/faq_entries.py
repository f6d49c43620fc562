"""What the two set-FAQ families share: topic sections, card entries, quoted rules, ruling
bullets, and the records they become.

A set FAQ is a run of topic sections, each with some prose, example card entries, quoted
Comprehensive Rules and `*` ruling bullets; a card-by-card part lists card entries, each
followed by its bullets. The families differ only in layout (one exported line, or
paragraphs), so each parser finds the pieces, in reading order, and hands them to a
`FaqBuilder`. The builder owns what must not differ between them: cleaning, which record a
bullet belongs to, one record for a card described twice, rule titles, references, ids and
positions.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .. import textclean
from ..corpus import Source
from ..records import Record, Reference, rule_heading, rule_parent, slug
from ..references import SUBRULE_LETTER, find_references
from ..script_ranges import HAN
from ..textclean import join_wrapped, normalize
from . import position

# A quoted rule starts with its number: `502.78. 協力`, `702.30.增幅`, `502.78a 協力這個…`.
# A reference inside a sentence (`規則 212.3f。`, `規則 409.1b與`) is followed by neither.
RULE_START = re.compile(
    r"(?:(?<=\s)|^)(?P<number>[1-9]\d\d\.\d{1,3})"
    rf"(?:\.(?=\s|[{HAN}])|(?P<letter>{SUBRULE_LETTER})(?=\s))",
    re.MULTILINE,
)
# A card's type line: supertypes, card types, then `～` and subtypes (生物～仙靈／士兵).
SUPERTYPES = "傳奇|基本|雪境|世界"
CARD_TYPES = "神器|生物|結界|瞬間|法術|地|旅法師|部族"
TYPES = re.compile(rf"(?:{SUPERTYPES})*(?:{CARD_TYPES})+")
TYPE_LINE = re.compile(rf"{TYPES.pattern}(?:～\S+)?")
MANA_COST = re.compile(r"(?:\{[^{}\s]+\})+")
POWER_TOUGHNESS = re.compile(r"[\dX*+\-]+/[\dX*+\-]+")
# A quoted rule that only names its keyword (`502.79. 留存`): the keyword is the title.
_KEYWORD = re.compile(rf"[{HAN}]{{1,8}}")
# Italic (`_暗影荒原_`) and emphasis (`*並非*`) markers of the FAQ's word-processor origin.
_ITALIC = re.compile(r"_([^_\s][^_]*?)_")
_EMPHASIS = re.compile(r"\*([^*\s][^*]*?)\*")
# An indented sub-item inside a bullet: ` - 霧牧地…`, ` --在敬畏…`, `-- 如果…` (not `-1/-1`).
_SUB_ITEM = re.compile(rf"(?:^|\s)-{{1,2}}\s*(?=[{HAN}])")


def clean(raw: str) -> str:
    """Display text of one paragraph: markup gone, wrap spaces collapsed (none inside Chinese,
    one between Latin words), then every repair every document gets (`textclean.clean`: the
    conversion mistakes 每位元, 一部分隻 and 數位記號 among them)."""
    text = _EMPHASIS.sub(r"\1", _ITALIC.sub(r"\1", normalize(raw)))
    return textclean.clean(join_wrapped(text.split()))


def clean_lines(lines: list[str]) -> str:
    return "\n".join(line for line in (clean(raw) for raw in lines) if line)


def ruling_text(raw: str) -> str:
    """A bullet's display text: its sub-items each on a line of their own, without markers."""
    return clean_lines(_SUB_ITEM.split(raw))


def heading_keyword(heading: str, zh: str) -> str | None:
    """The English a heading gives for a Chinese keyword: `新關鍵字異能：協力(Conspire)` -> Conspire."""
    m = re.search(re.escape(zh) + r"\s*[(（]\s*([A-Za-z][A-Za-z \-']*?)\s*[)）]", heading)
    return m.group(1) if m else None


@dataclass
class _Section:
    offset: int
    title: str
    level: int
    paragraphs: list[str] = field(default_factory=list)


@dataclass
class _Card:
    offset: int
    names: dict[str, str]
    attrs: dict[str, str]
    text: dict[str, str]
    rulings: list[str] = field(default_factory=list)


@dataclass
class _Rule:
    offset: int
    number: str
    text: str
    heading: str  # title of the section that quotes it: may give the keyword in English
    rulings: list[str] = field(default_factory=list)


class FaqBuilder:
    """Collects a FAQ's pieces in reading order and turns them into records.

    A ruling bullet belongs to the last thing before it: a card entry, a block of quoted
    rules (its head rule, so the bullets after 702.30g that explain kicker as a whole are
    702.30's), or the section's own prose. A theme section may show several example cards,
    its prose between them, before its bullets (the Worldwake FAQ's lands that become
    creatures: a land, a creature and an aura); the bullets are about each of them. A section
    that introduces a mechanic shows an example card and then quotes the rules; the bullets
    after those rules are rulings of the example card too (Murderous Redcap's persist
    rulings), so its page has them all."""

    def __init__(self, source: Source, text: str):
        self.source, self.text = source, text
        self.warnings: list[str] = []
        self._sections: list[_Section] = []
        self._cards: dict[str, _Card] = {}
        self._rules: dict[str, _Rule] = {}
        self._owner: _Section | _Card | _Rule | None = None
        self._section_card: _Card | None = None      # the last card entry of the current section
        # The current section's example cards shown one after another with its prose between
        # them and no bullet yet: the bullets after the last are about all of them.
        self._examples: list[_Card] = []
        self._prose_since_card = self._ruled_since_card = False
        self._example_card: dict[str, _Card] = {}    # head rule number -> its section's example card

    def where(self, offset: int) -> str:
        return f"{self.source.path.name}:{position(self.text, offset)[0]} (offset {offset})"

    def warn(self, offset: int, message: str) -> None:
        self.warnings.append(f"{self.where(offset)}: {message}")

    def section(self, offset: int, title: str, level: int = 2) -> None:
        self._sections.append(_Section(offset, clean(title), level))
        self._owner = self._sections[-1]
        self._section_card = None
        self._examples = []

    def prose(self, offset: int, raw: str) -> None:
        """A paragraph of the current section's own text; bullets after it are the section's."""
        self.paragraph(offset, clean(raw))

    def paragraph(self, offset: int, text: str) -> None:
        """Clean text of the current section (prose, or a table the parser laid out)."""
        if not self._sections:
            self.warn(offset, f"text before any section skipped: {text[:30]!r}")
            return
        if text:
            self._sections[-1].paragraphs.append(text)
        self._owner = self._sections[-1]
        self._prose_since_card = True

    def card(self, offset: int, zh: str, en: str | None, cost: str | None, type_line: str | None,
             power_toughness: str | None, text_lines: list[str]) -> None:
        names = {"zh_hant": clean(zh)} | ({"en": clean(en)} if en else {})
        attrs = {"mana_cost": cost, "type_line": clean(type_line or ""),
                 "power_toughness": power_toughness, "set": self.source.product}
        given = {k: v for k, v in attrs.items() if v}
        text = clean_lines(text_lines)
        key = slug(names["en"]) if en else names["zh_hant"]
        known = self._cards.get(key)
        if known is None:
            known = self._cards[key] = _Card(offset, names, given, {"zh_hant": text} if text else {})
        elif (known.names, known.attrs, known.text.get("zh_hant", "")) != (names, given, text):
            self.warn(offset, f"card {names['zh_hant']} is described again with a different entry: kept the first")
        self._owner = self._section_card = known
        if self._examples and self._prose_since_card and not self._ruled_since_card:
            self._examples.append(known)
        else:
            self._examples = [known]
        self._prose_since_card = self._ruled_since_card = False

    def card_translation(self, offset: int, zh: str, en: str) -> None:
        """A card's rules text in English, quoted with the card's names in front
        (`河流凱爾比每當…` / `River Kelpie Whenever…`): added to the card's record."""
        zh, en = clean(zh), clean(en)
        for card in self._cards.values():
            name_zh, name_en = card.names["zh_hant"], card.names.get("en")
            if name_en and zh.startswith(name_zh) and en.startswith(name_en + " "):
                card.text["en"] = en[len(name_en):].strip()
                return
        self.warn(offset, f"English text of a card that has no entry skipped: {en[:30]!r}")

    def rule(self, offset: int, number: str, raw: str) -> None:
        if number in self._rules:
            self.warn(offset, f"rule {number} quoted twice: kept the first")
            return
        heading = self._sections[-1].title if self._sections else ""
        self._rules[number] = _Rule(offset, number, clean(raw), heading)
        head = number
        while (parent := rule_parent(head)) in self._rules:
            head = parent
        if head == number and self._section_card is not None:
            self._example_card[number] = self._section_card
        self._owner = self._rules[head]

    def ruling(self, offset: int, raw: str) -> None:
        text = ruling_text(raw)
        if not text:
            return
        if self._owner is None:
            self.warn(offset, f"bullet before any section skipped: {text[:30]!r}")
        elif isinstance(self._owner, _Section):
            self._owner.paragraphs.append(text)
        elif any(card is self._owner for card in self._examples):
            for card in self._examples:
                card.rulings.append(text)
            self._ruled_since_card = True
        else:
            self._owner.rulings.append(text)
            if isinstance(self._owner, _Rule) and self._owner.number in self._example_card:
                self._example_card[self._owner.number].rulings.append(text)

    def records(self) -> list[Record]:
        """Every record, in the order of its position in the document."""
        out = [self._section_record(n, s) for n, s in enumerate(self._sections, 1)]
        out += [self._card_record(key, card) for key, card in self._cards.items()]
        out += [self._rule_record(rule) for rule in self._rules.values()]
        return sorted(out, key=lambda r: r.offset)

    def _record(self, kind: str, key: str, offset: int, **fields) -> Record:
        line, offset = position(self.text, offset)
        references: list[Reference] = []
        for lang, value in fields.get("text", {}).items():
            references += find_references(value, lang, "text")
        for n, ruling in enumerate(fields.get("rulings", [])):
            for lang, value in ruling.items():
                references += find_references(value, lang, f"rulings[{n}]")
        return Record(id=f"{self.source.id}:{kind}:{key}", kind=kind, source=self.source.id,
                      edition=self.source.edition, line=line, offset=offset,
                      references=references, **fields)

    def _section_record(self, ordinal: int, s: _Section) -> Record:
        text = "\n".join(s.paragraphs)
        return self._record("section", str(ordinal), s.offset, title={"zh_hant": s.title},
                            text={"zh_hant": text} if text else {}, attrs={"level": str(s.level)})

    def _card_record(self, key: str, card: _Card) -> Record:
        return self._record("card", key, card.offset, names=card.names, attrs=card.attrs,
                            text=card.text, rulings=[{"zh_hant": r} for r in card.rulings])

    def _rule_record(self, rule: _Rule) -> Record:
        title, keyword = self._title(rule.number)
        return self._record("rule", rule.number, rule.offset, number=rule.number,
                            parent=rule_parent(rule.number), title=title, keyword=keyword,
                            text={"zh_hant": rule.text},
                            rulings=[{"zh_hant": r} for r in rule.rulings])

    def _title(self, number: str) -> tuple[dict[str, str], str | None]:
        """A keyword rule's title is its keyword (`502.79. 留存`, English from its section's
        heading `留存(Persist)`); its subrules share it. Other rules have no title."""
        rule = self._rules.get(number)
        if rule is None:
            return {}, None
        if rule.number[-1].isalpha():
            return self._title(rule_heading(rule.number))
        has_subrules = any(rule_parent(n) == number for n in self._rules)
        if not (has_subrules and _KEYWORD.fullmatch(rule.text)):
            return {}, None
        en = heading_keyword(rule.heading, rule.text)
        title = {"zh_hant": rule.text} | ({"en": en} if en else {})
        return title, en.lower() if en else None

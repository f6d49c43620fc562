"""The one record schema every parser produces and every reader consumes.

A record carries everything a rule page, a card page or a search result needs, so nothing
downstream goes back to the source text. Texts are stored per language as written in the
source (`en`, `zh_hant`, `zh_hans`, `bg`); Simplified display of Traditional text is derived
at read time, never stored twice.

Records are serialised as JSON Lines; `Record.from_dict(record.to_dict()) == record`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, fields

KINDS = ("rule", "card", "planar_card", "section", "term")
LANGS = ("en", "zh_hant", "zh_hans", "bg")
# The order a one-line title names its languages in (規則 702.79 留存 / Persist): Chinese first.
TITLE_LANGS = ("zh_hant", "zh_hans", "en", "bg")
# The records read from a Comprehensive Rules file have a source id of this prefix and the
# file's effective date ("cr-2026-04-17"); a document of the corpus with an id so begun is
# refused (`ingest`). The offline copy passes it on to the browser's search.
RULES_FILE_PREFIX = "cr-"


@dataclass(frozen=True)
class Reference:
    """A rule reference found inside a text: `請參見規則601.2c`, `See rule 506.5`, `601.2f至h`.

    `number` is the first rule named; `end` is the last one when a range is written
    (601.2f至h gives number 601.2f, end 601.2h). `lang`, `start` and `stop` locate the
    written reference in `record.text[lang]` (or in a ruling/example text: `where`).
    `edition` is the edition the number belongs to when it is not the record's own (a
    glossary entry names defining rules of several editions).
    """

    number: str
    end: str | None = None
    lang: str = ""
    start: int = 0
    stop: int = 0
    where: str = "text"  # "text", "rulings[3]", "examples[0]", "abilities[1]", "title", "attrs"
    edition: str | None = None

    @classmethod
    def from_dict(cls, d: dict) -> Reference:
        return cls(**d)


@dataclass
class Record:
    """One unit of knowledge: a rule, a card, a planar card, a document section or a term.

    id        stable across runs: "<source>:<kind>:<key>" (key: rule number, name slug, ordinal)
    source    the source id of the document it came from (corpus metadata, or a rules file's:
              `rules_file_source`)
    edition   the Comprehensive Rules edition its rule numbers belong to ("2008-05-01", "2009-07-08")
    line      1-based line in the source file where the record starts
    offset    0-based character offset in the decoded source file where the record starts
    text      main clean text per language (a rule's text, a card's rules text, a section's body)
    title     heading per language (a rule's keyword heading: {"en": "Cascade", "zh_hant": "傾曳"})
    names     a card's, plane's or term's names per language
    aliases   other written forms a reader may search for (era, regional and fan variants)
    number    rule number ("702.30c") for rules; None otherwise
    parent    parent rule number ("702.30" for "702.30c"; "702" for "702.30")
    keyword   English keyword identity, lower case ("persist"): links one rule across editions
    rulings   ruling bullets, each {lang: text}
    examples  "Example:" paragraphs of a rule, each {lang: text}
    abilities a planar card's abilities, each {lang: text} with the languages paired
    attrs     small typed facts by kind: card mana_cost, type_line, power_toughness, set;
              planar_card type_line, world; section heading level; term era/source notes
    references every rule reference inside any of the texts above
    """

    id: str
    kind: str
    source: str
    edition: str | None
    line: int
    offset: int
    text: dict[str, str] = field(default_factory=dict)
    title: dict[str, str] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    aliases: list[str] = field(default_factory=list)
    number: str | None = None
    parent: str | None = None
    keyword: str | None = None
    rulings: list[dict[str, str]] = field(default_factory=list)
    examples: list[dict[str, str]] = field(default_factory=list)
    abilities: list[dict[str, str]] = field(default_factory=list)
    attrs: dict[str, str] = field(default_factory=dict)
    references: list[Reference] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown record kind {self.kind!r}")
        for part in [self.text, self.title, self.names, *self.rulings, *self.examples, *self.abilities]:
            for lang in part:
                if lang not in LANGS:
                    raise ValueError(f"record {self.id}: unknown language {lang!r}")

    def languages(self) -> list[str]:
        """Languages present in any text of the record, in the canonical order."""
        present: set[str] = set()
        for part in [self.text, self.title, self.names, *self.rulings, *self.examples, *self.abilities]:
            present.update(lang for lang, value in part.items() if value)
        return [lang for lang in LANGS if lang in present]

    def texts(self, lang: str) -> list[str]:
        """Every text of one language in reading order: title, names, text, abilities, rulings, examples."""
        parts = [self.title.get(lang), self.names.get(lang), self.text.get(lang)]
        for group in (self.abilities, self.rulings, self.examples):
            parts.extend(item.get(lang) for item in group)
        return [p for p in parts if p]

    def blocks(self) -> list[tuple[str, str]]:
        """(language, text) for each language of the record: its text, then its abilities,
        rulings and examples in that language, a line each (what a snippet is taken from)."""
        out = []
        for lang in self.languages():
            parts = [self.text.get(lang, "")]
            for group in (self.abilities, self.rulings, self.examples):
                parts.extend(item.get(lang, "") for item in group)
            out.append((lang, "\n".join(p for p in parts if p)))
        return out

    def to_dict(self) -> dict:
        """The record as data to serialise: its own lists and dicts, not copies (`asdict` copied
        every one, most of the time a build with every card took to write its records)."""
        data = {name: getattr(self, name) for name in _RECORD_FIELDS}
        data["references"] = [{name: getattr(ref, name) for name in _REFERENCE_FIELDS} for ref in self.references]
        return data

    @classmethod
    def from_dict(cls, d: dict) -> Record:
        known = {f.name for f in fields(cls)}
        data = {k: v for k, v in d.items() if k in known}
        data["references"] = [Reference.from_dict(r) for r in data.get("references", [])]
        return cls(**data)


_RECORD_FIELDS = tuple(f.name for f in fields(Record))
_REFERENCE_FIELDS = tuple(f.name for f in fields(Reference))


def rules_file_source(edition: str) -> str:
    """The source id of the records of the rules file of one edition ("cr-2026-04-17")."""
    return RULES_FILE_PREFIX + edition


def from_rules_file(record: Record) -> bool:
    """Whether a record was read from a Comprehensive Rules file, rather than from a document
    that quotes the rules (whose edition is the one it quotes)."""
    return record.source.startswith(RULES_FILE_PREFIX)


def rule_parent(number: str) -> str | None:
    """The parent of a rule number: 702.30c -> 702.30, 702.30 -> 702, 702 -> 7 is not a rule: None."""
    if number[-1].isalpha():  # a number ends in one subrule letter at most
        return number[:-1]
    if "." in number:
        return number.split(".")[0]
    return None


def rule_heading(number: str) -> str:
    """The rule a subrule belongs to (702.79a -> 702.79); a rule is its own heading."""
    return number[:-1] if number[-1].isalpha() else number


def slug(text: str) -> str:
    """A readable, stable id key: lower-case words joined by hyphens (`Murderous Redcap` ->
    `murderous-redcap`); Chinese text is kept as it is (`映景明湖`)."""
    return re.sub(r"[^\w]+", "-", text.strip().lower()).strip("-") or "x"

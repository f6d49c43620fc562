"""The project's glossary (corpus/glossary.tsv): every written form of a Magic term.

The documents name one thing in many ways: by era (旅法師 became 鵬洛客 in October 2008;
移出對戰 became 放逐 and 場上 became 戰場 with Magic 2010), by region (魔法力 in Traditional
print, 法术力 in Simplified), by fan translation (the Planechase guide's 地域, 奇跡, 時空旅行)
and by language (persist, 留存, the Bulgarian article's измерение). The glossary ties these
forms together so that

* a query for one form can be expanded with the others (`expand`), ranked below the literal
  form by the caller;
* Chinese-titled rules get their English keyword identity (`english_for("留存") == "persist"`),
  linking one rule across editions and languages;
* the Chinese segmenter keeps every form whole (`all_forms()` is the user dictionary).

Forms are matched case-insensitively and script-insensitively: 乾枯, 干枯 and WITHER name the
same entry. The file format is described in its own header; `Glossary.load` rejects a bad
line with `GlossaryError` naming the file and line.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from .chinese import HAN_RUN, to_hans
from .references import is_rule_number

COLUMNS = ("english", "zh_hant", "zh_hans", "variants", "kind", "rules", "source")
TERM_KINDS = (
    "keyword", "ability word", "keyword action", "symbol", "term", "zone", "step", "card type",
    "creature type", "game", "document", "set", "world", "plane", "phenomenon", "card",
)
# The researched terminology reference (shared/reference/terminology.tsv) as a source.
REFERENCE_SOURCE = "terminology"

_VARIANT = re.compile(r"(?P<form>[^()]+?)(?:\s+\((?P<note>[^()]*)\))?")
_RULE = re.compile(r"(?P<number>[^@\s]+)@(?P<edition>\d{4}-\d{2}(?:-\d{2})?)")
_LETTER = re.compile(r"[^\W\d_]")


WRONG_FORM = "wrong form"


class GlossaryError(ValueError):
    """A bad glossary file; the message starts with `path:line:`."""

    def __init__(self, path: Path | str, line: int | None, message: str):
        self.path, self.line = str(path), line
        super().__init__(f"{path}:{line}: {message}" if line else f"{path}: {message}")


@dataclass(frozen=True)
class Variant:
    """Another written form of an entry, with its note (era, region, who writes it)."""

    form: str
    note: str = ""

    @property
    def wrong(self) -> bool:
        """A form readers type but no document uses for this term (不死 for persist: its note
        starts "wrong form"). A query in it finds the term; the term's forms never include it,
        so a search for 留存 is not widened to 不死."""
        return self.note.startswith(WRONG_FORM)


@dataclass(frozen=True)
class RuleRef:
    """A defining rule number in one Comprehensive Rules edition."""

    number: str
    edition: str


@dataclass(frozen=True)
class Entry:
    english: str          # unique identity as written: "persist", "counter (marker)"
    zh_hant: str
    zh_hans: str
    variants: tuple[Variant, ...]
    kind: str
    rules: tuple[RuleRef, ...]
    sources: tuple[str, ...]
    line: int             # line in the glossary file

    @property
    def name(self) -> str:
        """The English term without its disambiguating note: "counter (marker)" -> "counter"."""
        return re.sub(r"\s+\([^()]*\)$", "", self.english)

    def forms(self) -> list[str]:
        """Every written form: English, Traditional, Simplified, then the variants; each once."""
        out, seen = [], set()
        for form in (self.name, self.zh_hant, self.zh_hans, *(v.form for v in self.variants if not v.wrong)):
            key = form_key(form)
            if key not in seen:
                seen.add(key)
                out.append(form)
        return out


def form_key(form: str) -> str:
    """The matching key of a form: whitespace collapsed, case folded, Chinese in Simplified."""
    return to_hans(" ".join(form.split())).casefold()


class Glossary:
    def __init__(self, entries: Iterable[Entry]):
        self.entries: list[Entry] = list(entries)
        # key -> entries having it as a primary form (English, zh_hant, zh_hans), then as a variant
        self._primary: dict[str, list[Entry]] = {}
        self._variant: dict[str, list[Entry]] = {}
        for entry in self.entries:
            for form in (entry.name, entry.zh_hant, entry.zh_hans):
                self._add(self._primary, form, entry)
            for v in entry.variants:
                self._add(self._variant, v.form, entry)

    @staticmethod
    def _add(index: dict[str, list[Entry]], form: str, entry: Entry) -> None:
        bucket = index.setdefault(form_key(form), [])
        if entry not in bucket:
            bucket.append(entry)

    @classmethod
    def load(cls, path: Path | str, source_ids: Iterable[str] | None = None) -> Glossary:
        """Read and validate a glossary file. With `source_ids` (the corpus's source ids),
        every source named must be one of them or "terminology"."""
        return cls(_read(Path(path), None if source_ids is None else set(source_ids) | {REFERENCE_SOURCE}))

    def lookup(self, form: str) -> Entry | None:
        """The entry `form` names, in any script or case. A form that is an entry's English,
        Traditional or Simplified term wins over one that is only another entry's variant;
        among equals the earlier line wins ("counter" is the marker, not the spell)."""
        key = form_key(form)
        found = self._primary.get(key) or self._variant.get(key)
        return found[0] if found else None

    def expand(self, form: str) -> list[str]:
        """The entry's other forms, for query expansion: every form except `form` itself and
        forms the analyzer already treats as the same (its other script): 移出對戰 ->
        [exile, 放逐, 移出遊戲, ...]. Empty when `form` is not in the glossary."""
        entry = self.lookup(form)
        if entry is None:
            return []
        key = form_key(form)
        return [f for f in entry.forms() if form_key(f) != key]

    def english_for(self, form: str) -> str | None:
        """The English term of the entry `form` names, without its note: 留存 -> "persist",
        競逐時空 -> "Planechase" (lower-case it for a record's keyword); None if unknown."""
        entry = self.lookup(form)
        return entry.name if entry else None

    def all_forms(self) -> list[str]:
        """Every form of every entry, in file order, each once: the segmenter's user words."""
        out, seen = [], set()
        for entry in self.entries:
            for form in entry.forms():
                if form not in seen:
                    seen.add(form)
                    out.append(form)
        return out


def _read(path: Path, known_sources: set[str] | None) -> list[Entry]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise GlossaryError(path, None, f"cannot read glossary: {exc}") from None
    entries: list[Entry] = []
    header_seen = False
    first_line: dict[str, int] = {}
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if not header_seen:
            if tuple(c.strip() for c in cells) != COLUMNS:
                raise GlossaryError(path, n, f"expected the header {' | '.join(COLUMNS)}, found {line!r}")
            header_seen = True
            continue
        if len(cells) != len(COLUMNS):
            raise GlossaryError(path, n, f"expected {len(COLUMNS)} tab-separated columns, found {len(cells)}")
        entry = _entry(path, n, dict(zip(COLUMNS, (c.strip() for c in cells), strict=True)), known_sources)
        key = entry.english.casefold()
        if key in first_line:
            raise GlossaryError(path, n, f"duplicate english {entry.english!r} (first on line {first_line[key]})")
        first_line[key] = n
        entries.append(entry)
    if not header_seen:
        raise GlossaryError(path, None, "no header line: the file has no entries")
    return entries


def _entry(path: Path, n: int, row: dict[str, str], known_sources: set[str] | None) -> Entry:
    def fail(message: str) -> NoReturn:
        raise GlossaryError(path, n, message)

    if not row["english"] or not _LETTER.search(row["english"]):
        fail("english is empty")
    for column in ("zh_hant", "zh_hans"):
        if not HAN_RUN.search(row[column]):
            fail(f"{column} {row[column]!r} has no Chinese character")
    if row["kind"] not in TERM_KINDS:
        fail(f"unknown kind {row['kind']!r}; one of: {', '.join(TERM_KINDS)}")
    variants = []
    for item in _split(row["variants"]):
        m = _VARIANT.fullmatch(item)
        if not m or not (_LETTER.search(m.group("form")) or HAN_RUN.search(m.group("form"))):
            fail(f"variant {item!r} is not 'form' or 'form (note)'")
        variants.append(Variant(m.group("form").strip(), (m.group("note") or "").strip()))
    rules = []
    for item in _split(row["rules"]):
        m = _RULE.fullmatch(item)
        if not m or not is_rule_number(m.group("number")):
            fail(f"rule {item!r} is not 'number@edition' (702.79@2026-04-17)")
        rules.append(RuleRef(m.group("number"), m.group("edition")))
    sources = tuple(_split(row["source"]))
    if not sources:
        fail("source is empty: name the document or the reference the entry comes from")
    if known_sources is not None:
        for source in sources:
            if source not in known_sources:
                fail(f"unknown source {source!r}; one of: {', '.join(sorted(known_sources))}")
    return Entry(row["english"], row["zh_hant"], row["zh_hans"], tuple(variants), row["kind"],
                 tuple(rules), sources, n)


def _split(cell: str) -> list[str]:
    return [item.strip() for item in cell.split(";") if item.strip()]

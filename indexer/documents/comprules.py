"""The Comprehensive Rules files, every edition, read into typed records.

Wizards has published the rules as plain text in whatever encoding each year's tools
produced (ASCII, Windows-1252, UTF-16 of either byte order, UTF-8 with or without BOM) and
with any line end (CRLF, bare CR, LF), and users rename the files they download. So a file
is recognised by its first line, not by its name; a BOM decides the encoding, and only
without one does charset-normalizer choose, limited to the encodings these files have been
published in. Decoding is strict: a byte that does not decode is an error naming its line,
never a U+FFFD in the index.

One published file (2008) was exported with every curly quote, apostrophe and dash turned
into '?'; those are put back where the form says which it was (`restore_lost_punctuation`),
so a judge reads `can’t` and `“Persist”`, not `can?t` and `?Persist?`.

Each effective date is one edition with its own source id (`cr-2026-04-17`), so numbers
that moved between editions never mix. The line-aligned English and Simplified Chinese
files of one date become one edition whose records carry both languages.

`line` and `offset` of a record point into the decoded text of the edition's English file
(the Chinese file when an edition has no English one): the BOM is not part of the decoded
text, and CRLF, CR and LF each end one line.
"""
from __future__ import annotations

import codecs
import datetime
import re
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

import charset_normalizer
from tqdm import tqdm

from .corpus import CorpusError
from .obsolete_terms import link_obsolete_terms
from .records import Record, Reference, rule_parent, rules_file_source, slug
from .references import find_references, rule_sort_key
from .rules_dates import EFFECTIVE_EN, EFFECTIVE_ZH, MONTHS
from .rules_punctuation import restore_lost_punctuation
from .textclean import normalize

FAMILY = "comprehensive-rules"
# The first line of a rules file names the document, and so its language.
TITLES = {"Magic: The Gathering Comprehensive Rules": "en", "万智牌完整规则": "zh_hans"}
LANGUAGE_NAMES = {"en": "English", "zh_hans": "Simplified Chinese"}

# A BOM is decisive; strict decoding after it, with the BOM not part of the text.
_BOMS = ((codecs.BOM_UTF8, "utf-8", "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16-le", "utf-16-le"),
         (codecs.BOM_UTF16_BE, "utf-16-be", "utf-16-be"))
# Without a BOM: the encodings rules files have been published in (charset-normalizer's names),
# with the name reported for each. GB18030 covers a Chinese file saved by a legacy editor.
_LEGACY = {"ascii": "ascii", "utf_8": "utf-8", "cp1252": "cp1252", "gb18030": "gb18030"}

_EOL = re.compile(r"\r\n|\r|\n")
_PART = re.compile(r"(\d)\.\s+(\S.*)")                      # 7. Additional Rules
_SECTION = re.compile(r"(\d{3})\.\s+(\S.*)")                # 702. Keyword Abilities
# 702.79. Persist / 702.79a Persist is ... / 609.6 In the ... / 901.4.All plane ... / 702. 37a Storm ...
_RULE = re.compile(r"(\d{3})\. ?(\d{1,3})([a-z]?)(?:\.?\s+|\.)(.*)$")
_EXAMPLE = re.compile(r"(?:Example|例如)\s*[:：，,]\s*")
# Italics were written _Magic_ in the 2009-2010 text files; the records are plain text and
# leave the marks out (corpus/rules/README.md), also where a trademark sign follows at once
# (_Odyssey_TM) or the file left out the opening mark (Oracle_(TM)).
_ITALIC = re.compile(r"(?<!\w)_([^_\n]+?)_(?=TM\b|(?!\w))|(?<=\w)_(?=\((?:TM|R)\))")
# A rule heading ("Persist", "Card Types", "For Mirrodin!") is short and not a sentence.
_SENTENCE_END = re.compile(r"[.:;,。：；，][\"'”’?)）]*$")
# Lines: a translated glossary reorders its terms only among near neighbours.
_TERM_WINDOW = 8


class RulesError(CorpusError):
    """A rules file that cannot be read: the message names the file and, where known, the line."""


@dataclass
class RulesEntry:
    """A section, rule, subrule or glossary entry as written in one file: its key (the rule
    number or the glossary term), its paragraphs and its examples' paragraphs."""

    key: str
    paragraphs: list[str]
    examples: list[list[str]]
    line: int
    offset: int

    def text(self) -> str:
        return "\n".join(self.paragraphs)


@dataclass
class RulesFile:
    """One rules file, decoded and parsed, not yet paired with its translation."""

    path: Path
    lang: str
    edition: str
    encoding: str
    units: list[RulesEntry]  # sections, rules and subrules in file order
    terms: list[RulesEntry]  # glossary entries in file order
    seconds: float = 0.0
    # The book's parts as the file heads them ("7" -> "Additional Rules"): a table of
    # contents names each section's chapter by them.
    chapters: dict[str, str] = field(default_factory=dict)

    def summary(self) -> FileSummary:
        return FileSummary(
            file=str(self.path), lang=self.lang, edition=self.edition, encoding=self.encoding,
            sections=sum(1 for u in self.units if "." not in u.key),
            rules=sum(1 for u in self.units if "." in u.key),
            examples=sum(len(u.examples) for u in self.units) + sum(len(t.examples) for t in self.terms),
            terms=len(self.terms), seconds=round(self.seconds, 3),
        )


@dataclass
class FileSummary:
    """What one file contributed: shown by the ingestion command and checked by tests.

    `rules` counts numbered rules and subrules (100.1, 100.1a), not section headings (100);
    `examples` counts the example paragraphs of rules and glossary entries."""

    file: str
    lang: str
    edition: str
    encoding: str
    sections: int
    rules: int
    examples: int
    terms: int
    seconds: float

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class RulesResult:
    """Everything read from a set of rules files; a file that failed is in `errors` only."""

    records: list[Record] = field(default_factory=list)
    summaries: list[FileSummary] = field(default_factory=list)
    errors: list[RulesError] = field(default_factory=list)
    sources: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- recognising and decoding

def _family(first_line: str) -> str | None:
    """The language of a rules file from its first non-blank line, or None for any other file."""
    line = first_line.replace("_", "").strip()
    return next((lang for title, lang in TITLES.items() if title in line), None)


def _first_line(text: str) -> str:
    return next((line for line in _EOL.split(text) if line.strip()), "")


def is_rules_file(data: bytes) -> bool:
    """Whether bytes look like a Comprehensive Rules file (English or Chinese), whatever their
    encoding: cheap enough to route every unknown file of an ingestion run through it."""
    head = data[:4096]
    for bom, codec, _ in _BOMS:
        if head.startswith(bom):
            candidates = [(head[len(bom):], codec)]
            break
    else:
        candidates = [(head, "utf-8"), (head, "gb18030")]
    for chunk, codec in candidates:
        if codec.startswith("utf-16"):
            chunk = chunk[: len(chunk) // 2 * 2]
        if _family(_first_line(chunk.decode(codec, errors="ignore"))):
            return True
    return False


def _line_at(text: str, offset: int) -> int:
    return len(_EOL.findall(text, 0, offset)) + 1


def decode(data: bytes, path: Path | str) -> tuple[str, str]:
    """(text, encoding name) of a rules file's bytes. Raises RulesError naming the line of the
    first byte that cannot be decoded, or the file when no candidate encoding fits."""
    for bom, codec, name in _BOMS:
        if data.startswith(bom):
            body = data[len(bom):]
            try:
                return body.decode(codec), name
            except UnicodeDecodeError as exc:
                good = body[: exc.start].decode(codec)
                raise RulesError(path, f"not valid {name} after its byte order mark: byte "
                                       f"0x{body[exc.start]:02x} cannot be decoded",
                                 _line_at(good, len(good))) from None
    best = charset_normalizer.from_bytes(data, cp_isolation=list(_LEGACY)).best()
    if best is None or best.encoding not in _LEGACY:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            good = data[: exc.start].decode("utf-8")
            raise RulesError(path, f"cannot be decoded as UTF-8, Windows-1252 or GB18030: byte "
                                   f"0x{data[exc.start]:02x} at offset {exc.start}",
                             _line_at(good, len(good))) from None
        raise RulesError(path, "cannot be decoded: it does not read as text in UTF-8, Windows-1252 or GB18030")
    name = _LEGACY[best.encoding]
    return data.decode(name), name


# ---------------------------------------------------------------- parsing one file

def _split_lines(text: str) -> tuple[list[str], list[int]]:
    """Lines without their ends, and the offset where each starts in `text`."""
    lines, starts, pos = [], [], 0
    for m in _EOL.finditer(text):
        lines.append(text[pos:m.start()])
        starts.append(pos)
        pos = m.end()
    lines.append(text[pos:])
    starts.append(pos)
    return lines, starts


def _clean(text: str) -> str:
    return _ITALIC.sub(r"\1", normalize(text)).strip()


def _effective_date(lines: list[str], stop: int, path: Path) -> str:
    """The effective date the file states, as YYYY-MM-DD: a day that does not exist
    ("February 31") is an error naming its line, never an edition."""
    for number, line in enumerate(lines[:stop], 1):
        if m := EFFECTIVE_EN.search(line):
            month = MONTHS.get(m.group(1))
            if month:
                return _checked_date(int(m.group(3)), month, int(m.group(2)), path, number)
        if m := EFFECTIVE_ZH.search(line):
            return _checked_date(int(m.group(1)), int(m.group(2)), int(m.group(3)), path, number)
    raise RulesError(path, "no effective date before the rules "
                           "('These rules are effective as of …' or '此规则于…起生效')", 1)


def _checked_date(year: int, month: int, day: int, path: Path, line: int) -> str:
    try:
        return datetime.date(year, month, day).isoformat()
    except ValueError:
        raise RulesError(path, f"the effective date {year:04d}-{month:02d}-{day:02d} is not a day of the calendar",
                         line) from None


def _body_start(lines: list[str], path: Path) -> int:
    """Index of the first line of the rules proper: the part and section headings just above
    the first numbered rule. The Contents lists only sections, never a numbered rule."""
    first = next((i for i, line in enumerate(lines) if _RULE.match(line.strip())), None)
    if first is None:
        raise RulesError(path, "no numbered rule (such as '100.1.') anywhere: not a complete rules file", len(lines))
    start = first
    while start > 0 and (not lines[start - 1].strip() or _SECTION.match(lines[start - 1].strip())
                         or _PART.match(lines[start - 1].strip())):
        start -= 1
    while not lines[start].strip():
        start += 1
    return start


def _closing_headings(lines: list[str], body: int, path: Path) -> tuple[str, str]:
    """The Glossary and Credits headings, in the file's own language, read from the end of its
    Contents (`Glossary`, `Credits` / `词汇表`, `版权信息`)."""
    names, i = [], body - 1
    while i >= 0 and not _SECTION.match(lines[i].strip()) and not _PART.match(lines[i].strip()):
        if lines[i].strip():
            names.append(lines[i].strip())
        i -= 1
    names.reverse()
    if i < 0 or len(names) < 2:
        raise RulesError(path, "the Contents do not end with the Glossary and Credits headings", body + 1)
    return names[0], names[1]


class _Parser:
    """Reads one decoded file line by line; every structural surprise is a RulesError."""

    def __init__(self, text: str, path: Path):
        self.path = path
        self.lines, self.starts = _split_lines(text)

    def error(self, index: int, message: str) -> RulesError:
        return RulesError(self.path, message, index + 1)

    def parse(self, encoding: str) -> RulesFile:
        lines = self.lines
        first = next((i for i, line in enumerate(lines) if line.strip()), 0)
        lang = _family(lines[first])
        if lang is None:
            raise self.error(first, "not a Comprehensive Rules file: its first line is not "
                                    + " or ".join(repr(t) for t in TITLES))
        body = _body_start(lines, self.path)
        edition = _effective_date(lines, body, self.path)
        glossary_heading, credits_heading = _closing_headings(lines, body, self.path)
        glossary = self._find(glossary_heading, body, "the rules, before the Glossary")
        credits = self._find(credits_heading, glossary + 1, "the Glossary, before the Credits")
        chapters: dict[str, str] = {}
        units = self._rules(body, glossary, chapters)
        terms = self._glossary(glossary + 1, credits)
        return RulesFile(self.path, lang, edition, encoding, units, terms, chapters=chapters)

    def _find(self, heading: str, start: int, inside: str) -> int:
        for i in range(start, len(self.lines)):
            if self.lines[i].strip() == heading:
                return i
        raise self.error(len(self.lines) - 1,
                         f"the file ends inside {inside} ({heading!r} never comes): it is truncated")

    def _rules(self, start: int, stop: int, chapters: dict[str, str]) -> list[RulesEntry]:
        """The sections, rules and subrules between the Contents and the Glossary; the part
        headings between them are put in `chapters`."""
        units: list[RulesEntry] = []
        seen: set[str] = set()
        section = rule = None          # the current section and (sub)rule's main rule number
        unit: RulesEntry | None = None       # the unit continuation lines belong to
        target: list[str] | None = None  # the paragraph list continuation lines extend
        for i in range(start, stop):
            raw = self.lines[i]
            line = raw.strip()
            if not line:
                target = None
                continue
            offset = self.starts[i] + len(raw) - len(raw.lstrip())
            if m := _RULE.match(line):
                main, letter, text = f"{m.group(1)}.{m.group(2)}", m.group(3), m.group(4).strip()
                number = main + letter
                if letter in ("l", "o"):
                    raise self.error(i, f"rule {number}: subrule letters skip l and o")
                if not text:
                    raise self.error(i, f"rule {number} has no text")
                if m.group(1) != section:
                    raise self.error(i, f"rule {number} is outside its section (current section: {section})")
                if letter and main != rule:
                    raise self.error(i, f"subrule {number} does not follow rule {main}")
                if number in seen or rule_sort_key(number) < rule_sort_key(units[-1].key):
                    raise self.error(i, f"rule {number} is repeated or out of order (after {units[-1].key})")
                rule = main
                unit = RulesEntry(number, [text], [], i + 1, offset)
            elif m := _SECTION.match(line):
                number = m.group(1)
                if number in seen or (section and int(number) < int(section)):
                    raise self.error(i, f"section {number} is repeated or out of order (after {section})")
                section, rule = number, None
                unit = RulesEntry(number, [m.group(2)], [], i + 1, offset)
            elif m := _PART.match(line):
                chapters.setdefault(m.group(1), _clean(m.group(2)))
                unit = target = None
                continue
            elif m := _EXAMPLE.match(line):
                if unit is None or "." not in unit.key:
                    raise self.error(i, "an example outside any rule")
                unit.examples.append([line[m.end():]])
                target = unit.examples[-1]
                continue
            else:
                if target is None:
                    raise self.error(i, f"text outside any rule: {line[:60]!r}")
                target.append(line)
                continue
            seen.add(number)
            units.append(unit)
            target = unit.paragraphs if "." in number else None  # a section heading is one line
        if not units:
            raise self.error(start, "no rules between the Contents and the Glossary")
        return units

    def _glossary(self, start: int, stop: int) -> list[RulesEntry]:
        terms: list[RulesEntry] = []
        block: list[int] = []
        for i in range(start, stop + 1):
            if i < stop and self.lines[i].strip():
                block.append(i)
            elif block:
                terms.append(self._term(block))
                block = []
        if not terms:
            raise self.error(start, "the Glossary is empty")
        return terms

    def _term(self, block: list[int]) -> RulesEntry:
        head = block[0]
        raw = self.lines[head]
        term = RulesEntry(raw.strip(), [], [], head + 1, self.starts[head] + len(raw) - len(raw.lstrip()))
        target = term.paragraphs
        for i in block[1:]:
            line = self.lines[i].strip()
            if m := _EXAMPLE.match(line):
                term.examples.append([line[m.end():]])
                target = term.examples[-1]
            else:
                target.append(line)
        if not term.paragraphs:
            raise self.error(head, f"glossary term {term.key[:60]!r} has no definition")
        return term


def read_rules_file(path: Path) -> RulesFile:
    """Decode and parse one rules file. Raises RulesError naming the file and line."""
    started = time.perf_counter()
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RulesError(path, f"cannot be read: {exc.strerror or exc}") from None
    text, encoding = decode(data, path)
    parsed = _Parser(restore_lost_punctuation(text), path).parse(encoding)
    parsed.seconds = time.perf_counter() - started
    return parsed


# ---------------------------------------------------------------- one edition's records

def _is_heading(text: str) -> bool:
    """A rule whose text is a title (`Persist`, `Card Types`, `For Mirrodin!`), not a sentence."""
    return len(text) <= 60 and not _SENTENCE_END.search(text) and not text[:1].islower()


def _references(text: dict[str, str], examples: list[dict[str, str]]) -> list[Reference]:
    refs = [ref for lang, value in text.items() for ref in find_references(value, lang, "text")]
    for n, example in enumerate(examples):
        refs.extend(ref for lang, value in example.items() for ref in find_references(value, lang, f"examples[{n}]"))
    return refs


def _texts(items: dict[str, RulesEntry]) -> tuple[dict[str, str], list[dict[str, str]]]:
    """The cleaned text and examples of one rule or term, per language, examples paired in order."""
    text = {lang: _clean(item.text()) for lang, item in items.items()}
    count = max(len(item.examples) for item in items.values())
    examples = [{lang: _clean("\n".join(item.examples[n])) for lang, item in items.items() if n < len(item.examples)}
                for n in range(count)]
    return text, examples


def _rule_records(source: str, edition: str, files: dict[str, RulesFile], warnings: list[str]) -> list[Record]:
    by_lang = {lang: {u.key: u for u in f.units} for lang, f in files.items()}
    numbers = sorted({n for units in by_lang.values() for n in units}, key=rule_sort_key)
    primary = "en" if "en" in files else next(iter(files))
    for lang, units in by_lang.items():
        missing = [n for n in numbers if n not in units]
        if missing and len(files) > 1:
            warnings.append(f"{files[lang].path}: lacks {len(missing)} rules that the other language of "
                            f"edition {edition} has (first: {missing[0]})")
    headings: dict[str, dict[str, str]] = {}
    records = []
    for number in numbers:
        units = {lang: by_lang[lang][number] for lang in files if number in by_lang[lang]}
        text, examples = _texts(units)
        judge = text.get(primary) or next(iter(text.values()))
        if "." not in number or (not number[-1].isalpha() and _is_heading(judge)):
            headings[number] = text
        title: dict[str, str] = {}
        keyword: str | None = None
        up: str | None = number
        while up and not title:
            title = headings.get(up, {})
            up = rule_parent(up)
        up = number
        while up and "." in up and keyword is None:
            if up in headings and headings[up].get("en"):
                keyword = headings[up]["en"].lower()
            up = rule_parent(up)
        where = units.get(primary) or next(iter(units.values()))
        records.append(Record(
            id=f"{source}:rule:{number}", kind="rule", source=source, edition=edition,
            line=where.line, offset=where.offset, text=text, title=dict(title), number=number,
            parent=rule_parent(number), keyword=keyword, examples=examples,
            references=_references(text, examples),
        ))
    return records


def _signature(term: RulesEntry) -> tuple[str, ...]:
    return tuple(ref.number for ref in find_references(term.text()))


def _pair_terms(en: list[RulesEntry], other: list[RulesEntry]) -> list[tuple[RulesEntry | None, RulesEntry | None]]:
    """Pair the glossary entries of the two languages. The files are line-aligned, but a
    translated glossary sorts its terms in its own order among near neighbours, and a
    translation may cite other rule numbers. So an entry pairs, in this order of trust, with
    the entry on its own line when both cite the same rules; with the only entry left that
    cites the same rules; with the nearest entry left a few lines away. One left over after
    that stays in its own language."""
    sig_en, sig_other = [_signature(t) for t in en], [_signature(t) for t in other]
    pairs: dict[int, int] = {}
    line_other = {t.line: i for i, t in enumerate(other)}
    for n, term in enumerate(en):
        i = line_other.get(term.line)
        if i is not None and sig_other[i] == sig_en[n]:
            pairs[n] = i
    taken = set(pairs.values())
    left_en = Counter(sig for n, sig in enumerate(sig_en) if n not in pairs)
    left_other: dict[tuple, list[int]] = defaultdict(list)
    for i, sig in enumerate(sig_other):
        if i not in taken:
            left_other[sig].append(i)
    for n, sig in enumerate(sig_en):
        if n not in pairs and sig and left_en[sig] == 1 and len(left_other[sig]) == 1:
            pairs[n] = left_other[sig][0]
    taken = set(pairs.values())
    near = sorted((abs(d), n, line_other[en[n].line + d]) for n in range(len(en)) if n not in pairs
                  for d in range(-_TERM_WINDOW, _TERM_WINDOW + 1)
                  if line_other.get(en[n].line + d) is not None and line_other[en[n].line + d] not in taken)
    for _, n, i in near:
        if n not in pairs and i not in taken:
            pairs[n] = i
            taken.add(i)
    return ([(term, other[pairs[n]] if n in pairs else None) for n, term in enumerate(en)]
            + [(None, term) for i, term in enumerate(other) if i not in taken])


def _term_records(source: str, edition: str, files: dict[str, RulesFile], warnings: list[str]) -> list[Record]:
    langs = list(files)
    if "en" in files and len(files) == 2:
        other = next(lang for lang in langs if lang != "en")
        groups = [{lang: t for lang, t in zip(("en", other), pair, strict=True) if t is not None}
                  for pair in _pair_terms(files["en"].terms, files[other].terms)]
        alone = sum(1 for g in groups if len(g) == 1)
        if alone:
            warnings.append(f"edition {edition}: {alone} glossary entries could not be paired between "
                            f"{files['en'].path.name} and {files[other].path.name}; each is kept in its own language")
    else:
        groups = [{lang: t} for lang in langs for t in files[lang].terms]
    records: list[Record] = []
    spellings: Counter[str] = Counter()
    for group in groups:
        primary = "en" if "en" in group else next(iter(group))
        base = slug(group[primary].key)
        spellings[base] += 1  # two entries spelt alike keep apart ids: player, player-2
        key = base if spellings[base] == 1 else f"{base}-{spellings[base]}"
        text, examples = _texts(group)
        records.append(Record(
            id=f"{source}:term:{key}", kind="term", source=source, edition=edition,
            line=group[primary].line, offset=group[primary].offset,
            text=text, names={lang: _clean(t.key) for lang, t in group.items()}, examples=examples,
            references=_references(text, examples),
        ))
    return records


def edition_source(edition: str, files: dict[str, RulesFile]) -> dict:
    """The metadata of one edition, shaped like corpus Source.to_dict() so pages describe both alike."""
    langs = sorted(files, key=lambda lang: ("en", "zh_hans").index(lang))
    primary = files[langs[0]]
    titles = [next(t for t, lang in TITLES.items() if lang == code) for code in langs]
    return {
        "id": rules_file_source(edition), "file": primary.path.name, "files": [files[lang].path.name for lang in langs],
        "title": " / ".join(titles) + f" ({edition})", "family": FAMILY, "languages": langs,
        "product": "", "date": edition, "edition": edition, "urls": [],
        "encoding": {files[lang].path.name: files[lang].encoding for lang in langs},
        # Each part of the book ("1": {"en": "Game Concepts", "zh_hans": "游戏概念"}).
        "chapters": {number: {lang: files[lang].chapters[number] for lang in langs if number in files[lang].chapters}
                     for number in sorted({n for lang in langs for n in files[lang].chapters})},
        # The Chinese glossary's terms by their reading, which its A-Z order follows.
        "readings": readings([_clean(t.key) for t in files["zh_hans"].terms]) if "zh_hans" in files else {},
    }


def readings(names: list[str]) -> dict[str, str]:
    """Each Chinese name's reading in Hanyu Pinyin, syllables with their tone numbers
    (`重生`: `chong2 sheng1`), from pypinyin with the words of CC-CEDICT (pypinyin-dict): a
    word's reading decides a character that has several (重 is chong in 重置, zhong in 重量;
    长 is chang in 长效), which no order of code points or strokes knows, and which
    pypinyin's own phrase list gets wrong for 长效 and 重置. Letters and digits in a name
    stay as they are. Imported here: the dictionaries take seconds and 50 MB to load, which
    only a build that reads a Chinese glossary needs."""
    from pypinyin import Style, pinyin
    from pypinyin_dict.phrase_pinyin_data import cc_cedict  # type: ignore[import-untyped]

    cc_cedict.load()
    return {name: " ".join(" ".join(s[0] for s in pinyin(name, style=Style.TONE3, errors="default")).split())
            for name in names}


def edition_records(edition: str, files: dict[str, RulesFile]) -> tuple[list[Record], list[str]]:
    """Records of one edition from its files (one per language), and warnings about pairing."""
    source, warnings = rules_file_source(edition), list[str]()
    records = _rule_records(source, edition, files, warnings) + _term_records(source, edition, files, warnings)
    return records, warnings


# ---------------------------------------------------------------- many files

def _expand(paths: list[Path], errors: list[RulesError]) -> list[Path]:
    files = []
    for path in map(Path, paths):
        if path.is_dir():
            files.extend(sorted(p for p in path.glob("*.txt") if p.is_file()))
        elif path.is_file():
            files.append(path)
        else:
            errors.append(RulesError(path, "no such file or folder"))
    return files


def read_rules_files(paths: list[Path], progress: bool = False) -> RulesResult:
    """Read every rules file given (a folder stands for its *.txt files) into records, one
    edition per effective date, pairing an English and a Chinese file of the same date.

    A file that fails is reported in `errors` and never stops the others."""
    result = RulesResult()
    editions: dict[str, dict[str, RulesFile]] = {}
    for path in tqdm(_expand(paths, result.errors), desc="rules files", unit="file", disable=not progress):
        try:
            parsed = read_rules_file(path)
        except RulesError as exc:
            result.errors.append(exc)
            continue
        langs = editions.setdefault(parsed.edition, {})
        if parsed.lang in langs:
            result.errors.append(RulesError(path, f"edition {parsed.edition} ({LANGUAGE_NAMES[parsed.lang]}) "
                                                  f"was already read from {langs[parsed.lang].path}"))
            continue
        langs[parsed.lang] = parsed
        result.summaries.append(parsed.summary())
    for edition in sorted(editions):
        records, warnings = edition_records(edition, editions[edition])
        result.records.extend(records)
        result.warnings.extend(warnings)
        result.sources.append(edition_source(edition, editions[edition]))
    link_obsolete_terms(result.records)
    return result


def main(argv: list[str]) -> int:
    """`python -m indexer.documents.comprules PATH...`: read rules files and print what each gave and how
    long it took, without building an index (the ingestion command does that)."""
    started = time.perf_counter()
    result = read_rules_files([Path(a) for a in argv], progress=True)
    elapsed = time.perf_counter() - started
    print(f"{'file':<36} {'edition':<10} {'lang':<7} {'encoding':<9} {'sect':>5} {'rules':>6} "
          f"{'examp':>6} {'terms':>6} {'secs':>6}")
    for s in result.summaries:
        print(f"{Path(s.file).name:<36} {s.edition:<10} {s.lang:<7} {s.encoding:<9} {s.sections:>5} "
              f"{s.rules:>6} {s.examples:>6} {s.terms:>6} {s.seconds:>6.2f}")
    for message in [*map(str, result.errors), *result.warnings]:
        print(message)
    print(f"{len(result.records)} records from {len(result.sources)} editions in {elapsed:.2f} s")
    return 1 if result.errors else 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))

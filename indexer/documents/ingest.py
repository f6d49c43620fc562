"""The ingestion pipeline: paths in, records out.

A path is a corpus folder (it has `sources.toml`), a folder of Comprehensive Rules files and
Scryfall card files, or one such file (a Scryfall file is known by its content: `scryfall`).
Every document is read on its own: one that fails is reported with its file and position and
the others still ingest. A corpus folder or rules file given twice (the bundled corpus ships
every edition, and `serve ../shared/cr` names the same files again) is read once: rules files
are compared by content, not name. Records are written as JSON Lines by replacing the output
file whole, so a reader never sees half a file.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from . import comprules, scryfall
from .corpus import METADATA, CorpusError, Source, load_sources
from .glossary import Entry, Glossary, form_key
from .packed_records import PackedRecord, Packing
from .parsers import ParseError, parser_for
from .records import RULES_FILE_PREFIX, Record, Reference, rules_file_source, slug
from .timeline import resolve_editions

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CORPUS = ROOT / "corpus"
GLOSSARY = DEFAULT_CORPUS / "glossary.tsv"
GLOSSARY_SOURCE = "glossary"
# A document larger than this is refused before parsing: no seed comes near it, and it keeps
# a hostile file from costing unbounded time and memory.
MAX_DOCUMENT_BYTES = 32 * 1024 * 1024


@dataclass
class Summary:
    """What one input file gave: shown to the person running ingestion."""

    path: str
    source: str
    counts: dict[str, int]
    warnings: list[str] = field(default_factory=list)
    detail: str = ""

    def line(self) -> str:
        counts = ", ".join(f"{n} {kind}" for kind, n in sorted(self.counts.items()))
        return f"{self.path} [{self.source}] {counts}{' — ' + self.detail if self.detail else ''}"


@dataclass
class IngestResult:
    records: list[Record] = field(default_factory=list)
    sources: dict[str, dict] = field(default_factory=dict)
    summaries: list[Summary] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    inputs: list[Path] = field(default_factory=list)
    seconds: float = 0.0


def decode_document(path: Path, data: bytes) -> str:
    """A corpus document as text: UTF-8 (a BOM is dropped). Anything else is an error naming the
    line and byte offset where decoding failed, so the owner can find the damage."""
    if not data.strip():
        raise CorpusError(path, "empty document")
    nul = data.find(b"\0", 0, 8192)
    if nul != -1:
        raise CorpusError(path, f"binary data (NUL byte at offset {nul}), not a text document")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise CorpusError(path, f"not valid UTF-8 at byte offset {exc.start}: {exc.reason}", line) from None


def _parse_source(source: Source) -> tuple[list[Record], list[str]]:
    if source.id.startswith(RULES_FILE_PREFIX):
        raise CorpusError(source.path, f"source id {source.id!r}: an id beginning {RULES_FILE_PREFIX!r} names "
                                       f"a rules file's records; give the document another")
    parse = parser_for(source.family)
    if parse is None:
        raise CorpusError(source.path, f"unknown document family {source.family!r}")
    data = source.path.read_bytes()
    if len(data) > MAX_DOCUMENT_BYTES:
        raise CorpusError(source.path, f"{len(data)} bytes: larger than {MAX_DOCUMENT_BYTES} bytes")
    text = decode_document(source.path, data)
    try:
        parsed = parse(source, text)
    except ParseError as exc:
        where = f" (offset {exc.offset})" if exc.line is None and exc.offset is not None else ""
        raise CorpusError(source.path, exc.message + where, exc.line) from None
    except RecursionError:
        raise CorpusError(source.path, "structure too deeply nested to parse") from None
    return parsed.records, parsed.warnings


def titled_by_section(record: Record, by_key: dict[tuple, Record]) -> bool:
    """Whether a rule's title is the heading of its section (500.1 under "500. General"),
    found by going up its parents to the one whose text is the title: a section is where
    rules sit, not one rule whose number moves between editions."""
    title = set(record.title.values())
    at: Record | None = record
    while at is not None and not title & set(at.text.values()):
        at = by_key.get((record.source, at.parent)) if at.parent else None
    return at is not None and "." not in (at.number or "")


def assign_keywords(records: list[Record], glossary: Glossary) -> None:
    """Give titled rules their English keyword identity (留存 -> persist), so one rule links
    across editions and documents; subrules take their parent's. A section's title is none:
    as the keyword "general", every rule of a section titled General was the first General
    (100) of each edition in its history."""
    by_key = {(r.source, r.number): r for r in records if r.kind == "rule"}
    for record in records:
        if record.kind != "rule" or record.keyword or titled_by_section(record, by_key):
            continue
        english = record.title.get("en")
        if not english:
            for lang in ("zh_hant", "zh_hans"):
                if record.title.get(lang):
                    english = glossary.english_for(record.title[lang])
                    if english:
                        break
        if not english and record.parent:
            parent = by_key.get((record.source, record.parent))
            english = parent.keyword if parent else None
        if english:
            record.keyword = english.lower()


def name_cards(records: list[Record], glossary: Glossary) -> set[str]:
    """Give each card every name and form the glossary knows of it (the Worldwake FAQ names
    Gnarlid Pack only as 咆哮獸群; a misprinted Chinese name is a form too), so it is found and
    shown by each. Returns the English terms of the glossary's cards so named: a card's entry
    is its record's names, no term record of its own."""
    named = set()
    for record in records:
        entry = _card_entry(record, glossary) if record.kind == "card" else None
        if entry is not None:
            _give_forms(record, entry)
            named.add(entry.english)
    return named


def _card_entry(record: Record, glossary: Glossary) -> Entry | None:
    """The glossary's card a card record is, in any script or case: by its English name when
    it has one (cards share Chinese names: the Simplified Torture was printed 折磨, Afflict's
    name), else by its others."""
    names = [record.names["en"]] if "en" in record.names else list(record.names.values())
    entries = (glossary.lookup(name) for name in names)
    return next((entry for entry in entries if entry is not None and entry.kind == "card"), None)


def _give_forms(record: Record, entry: Entry) -> None:
    """The entry's forms a card does not have yet: a language it has no name in takes the
    entry's name for it, any other form is an alias."""
    known = {form_key(name) for name in [*record.names.values(), *record.aliases]}
    languages = {entry.name: "en", entry.zh_hant: "zh_hant", entry.zh_hans: "zh_hans"}
    for form in entry.forms():
        if form_key(form) in known:
            continue
        known.add(form_key(form))
        lang = languages.get(form)
        if lang and lang not in record.names:
            record.names[lang] = form
        else:
            record.aliases.append(form)


def glossary_records(glossary: Glossary, named_cards: set[str], sources: dict[str, dict]) -> list[Record]:
    """Glossary entries as `term` records, so a term is itself a search result with a page;
    not a card whose record took its forms (`name_cards`): that would be the card again,
    without its text."""
    records = []
    for entry in glossary.entries:
        if entry.english in named_cards:
            continue
        notes = [f"{v.form} ({v.note})" if v.note else v.form for v in entry.variants]
        what = _card_text(entry, sources) if entry.kind == "card" else f"{entry.kind}."
        text = what + (f" Other forms: {'; '.join(notes)}." if notes else "")
        names = {"en": entry.name, "zh_hant": entry.zh_hant, "zh_hans": entry.zh_hans}
        records.append(Record(
            id=f"{GLOSSARY_SOURCE}:term:{slug(entry.english)}", kind="term", source=GLOSSARY_SOURCE,
            edition=None, line=entry.line, offset=0, text={"en": text},
            names={lang: value for lang, value in names.items() if value},
            aliases=[v.form for v in entry.variants if not v.wrong], keyword=entry.name.lower(),
            attrs={"kind": entry.kind, "sources": ", ".join(entry.sources),
                   "rules": ", ".join(f"{r.number}@{r.edition}" for r in entry.rules)},
            references=[Reference(r.number, where="attrs", edition=r.edition) for r in entry.rules],
        ))
    return records


def _card_text(entry: Entry, sources: dict[str, dict]) -> str:
    """What a card the index has no record of is, for its term page: the documents naming it."""
    titles = [sources[source]["title"] for source in entry.sources if source in sources]
    return f"A card named in: {'; '.join(titles)}." if titles else "A card named in the glossary."


def folder_files(folder: Path) -> tuple[list[Path], list[Path]]:
    """The files read from a folder that is not a corpus (no sources.toml): its rules files
    (`.txt`) and its Scryfall card files (known by their content)."""
    return (sorted(p for p in folder.iterdir() if p.suffix.lower() == ".txt"),
            sorted(p for p in folder.iterdir() if p.is_file() and _is_scryfall(p)))


def ingest(paths: list[Path], progress: bool = False) -> IngestResult:
    started = time.perf_counter()
    result = IngestResult()
    glossary = Glossary.load(GLOSSARY)
    rules_paths: list[Path] = []
    card_paths: list[Path] = []
    declared: dict[Path, Source] = {}
    corpora: set[Path] = set()
    for path in paths:
        if path.is_dir() and (path / METADATA).exists():
            if path.resolve() not in corpora:
                corpora.add(path.resolve())
                for source in _ingest_corpus(path, result):
                    rules_paths.append(source.path)
                    declared[source.path] = source
        elif path.is_dir():
            rules, cards = folder_files(path)
            rules_paths.extend(rules)
            card_paths.extend(cards)
        elif path.is_file():
            if comprules.is_rules_file(_head(path)):
                rules_paths.append(path)
            elif _is_scryfall(path):
                card_paths.append(path)
            else:
                result.errors.append(str(CorpusError(
                    path, "not a Comprehensive Rules file, not a Scryfall card file and not in a corpus folder "
                          "with sources.toml")))
        else:
            result.errors.append(str(CorpusError(path, "no such file or folder")))
    rules_paths = _read_once(rules_paths, result)
    if rules_paths:
        _ingest_rules(rules_paths, declared, result, progress)
    if card_paths:
        _ingest_cards(card_paths, result)
    named_cards = name_cards(result.records, glossary)
    result.records.extend(glossary_records(glossary, named_cards, result.sources))
    result.sources[GLOSSARY_SOURCE] = {
        "id": GLOSSARY_SOURCE, "file": GLOSSARY.name, "title": "Glossary / 詞彙表",
        "family": "glossary", "languages": ["en", "zh_hant", "zh_hans"], "edition": None,
        "date": None, "urls": [],
    }
    result.inputs.append(GLOSSARY)
    resolved = resolve_editions(result.records)
    for described in result.sources.values():
        if described.get("edition") in resolved:
            described["rules_edition"] = resolved[described["edition"]]
    assign_keywords(result.records, glossary)
    _check_unique_ids(result)
    result.seconds = time.perf_counter() - started
    return result


def _ingest_corpus(folder: Path, result: IngestResult) -> list[Source]:
    """Parse the documents of a corpus folder; its rules files are returned, to be read with
    every other rules file (files of one date make one edition)."""
    try:
        sources = load_sources(folder)
    except CorpusError as exc:
        result.errors.append(str(exc))
        return []
    rules = [source for source in sources if source.family == comprules.FAMILY]
    for source in sources:
        if source.family == comprules.FAMILY:
            continue
        try:
            records, warnings = _parse_source(source)
        except CorpusError as exc:
            result.errors.append(str(exc))
            continue
        result.records.extend(records)
        result.sources[source.id] = source.to_dict()
        result.inputs.append(source.path)
        counts: dict[str, int] = {}
        for record in records:
            counts[record.kind] = counts.get(record.kind, 0) + 1
        result.summaries.append(Summary(str(source.path), source.id, counts, warnings))
    return rules


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(scryfall.HEAD_BYTES)
    except OSError:
        return b""


def _is_scryfall(path: Path) -> bool:
    return scryfall.is_scryfall_file(_head(path))


def _ingest_cards(paths: list[Path], result: IngestResult) -> None:
    """Scryfall's card and ruling files as one card record per Oracle id. A file that is cut
    short or damaged is an error that fails the build (the cards of a build are all of them,
    or the build before them keeps serving)."""
    try:
        # (A file named twice is read once; not compared by content, as `_read_once` does: a
        # file of All Cards is several GB.)
        data = scryfall.read_files(dict.fromkeys(p.resolve() for p in paths))
    except scryfall.ScryfallError as exc:
        result.errors.append(str(exc))
        return
    cards = scryfall.records(data)
    result.records.extend(cards)
    result.sources[scryfall.SOURCE] = {
        "id": scryfall.SOURCE, "file": ", ".join(p.name for p in data.files), "title": "Scryfall card data",
        "family": "scryfall", "languages": ["en", "zh_hans", "zh_hant"], "edition": None, "date": None,
        "urls": ["https://scryfall.com/docs/api/bulk-data"],
    }
    result.inputs.extend(data.files)
    rulings = sum(len(card.rulings) for card in cards)
    chinese = sum(1 for card in cards if "zh_hans" in card.names)
    result.summaries.append(Summary(", ".join(str(p) for p in data.files), scryfall.SOURCE, {"card": len(cards)}, [],
                                    f"{rulings} rulings, {chinese} with Chinese names"))


def _read_once(paths: list[Path], result: IngestResult) -> list[Path]:
    """The rules files with repeats left out: a file whose bytes were already given (under
    any name) is reported and skipped."""
    first: dict[str, Path] = {}
    kept = []
    for path in paths:
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            kept.append(path)  # read_rules_files reports it
            continue
        if digest in first:
            result.summaries.append(Summary(str(path), "-", {}, [], f"the same file as {first[digest]}: read once"))
            continue
        first[digest] = path
        kept.append(path)
    return kept


def _ingest_rules(paths: list[Path], declared: dict[Path, Source], result: IngestResult, progress: bool) -> None:
    """Read rules files into editions. A file declared in a corpus's sources.toml gives its
    edition the declared provenance (publisher, notes, addresses), and its declared edition
    must be the effective date the file states."""
    rules = comprules.read_rules_files(paths, progress=progress)
    result.records.extend(rules.records)
    by_name = {source.path.name: source for source in declared.values()}
    for source in rules.sources:
        provenance = [by_name[name] for name in source["files"] if name in by_name]
        for entry in provenance:
            if entry.edition != source["edition"]:
                result.errors.append(str(CorpusError(
                    entry.path, f"declared edition {entry.edition} in {METADATA}, "
                                f"but the file is the edition of {source['edition']}")))
        if provenance:
            source["publisher"] = "; ".join(dict.fromkeys(entry.publisher for entry in provenance if entry.publisher))
            source["notes"] = " ".join(entry.notes for entry in provenance if entry.notes)
            source["urls"] = list(dict.fromkeys(url for entry in provenance for url in entry.urls))
        result.sources[source["id"]] = source
    for s in rules.summaries:
        counts = {"sections": s.sections, "rules": s.rules, "examples": s.examples, "glossary terms": s.terms}
        detail = f"edition {s.edition}, {s.lang}, {s.encoding}, {s.seconds:.2f} s"
        result.summaries.append(Summary(s.file, rules_file_source(s.edition), counts, [], detail))
        result.inputs.append(Path(s.file))
    if rules.warnings:
        result.summaries[-1].warnings.extend(rules.warnings)
    result.errors.extend(str(error) for error in rules.errors)


def _check_unique_ids(result: IngestResult) -> None:
    seen: dict[str, Record] = {}
    for record in result.records:
        if record.id in seen:
            result.errors.append(f"{record.source}: duplicate record id {record.id!r} (line {record.line})")
        seen[record.id] = record


def write_records(result: IngestResult, out_dir: Path) -> None:
    """records.jsonl and sources.json in `out_dir`, each replaced whole (write, fsync, rename)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    _replace(out_dir / "records.jsonl", b"".join(orjson.dumps(r.to_dict()) + b"\n" for r in result.records))
    _replace(out_dir / "sources.json", json.dumps(result.sources, ensure_ascii=False, indent=1).encode("utf-8"))


# A record's fields whose values many records repeat (a kind, a source, an edition), and an
# attribute value at most this long (a layout, a set, a type line, a date): tens of thousands
# of cards hold one copy of each, not one each (docs/benchmarks.md, Every card).
SHARED_FIELDS = ("kind", "source", "edition")
SHARED_VALUE_CHARS = 64


def _shared(data: dict) -> dict:
    for name in SHARED_FIELDS:
        if isinstance(data.get(name), str):
            data[name] = sys.intern(data[name])
    attrs = data.get("attrs")
    if attrs:
        data["attrs"] = {key: sys.intern(value) if isinstance(value, str) and len(value) <= SHARED_VALUE_CHARS
                         else value for key, value in attrs.items()}
    return data


def read_records(folder: Path, packed_kinds: tuple[str, ...] = ()) -> tuple[list[Record], dict[str, dict]]:
    """A build's records and sources, those of `packed_kinds` packed (`packed_records`: a served
    build's cards). orjson shares the dict keys of the records it reads (`text`'s languages,
    `attrs`' names); `_shared` the values they repeat."""
    packing = Packing()
    records: list[Record] = []
    with open(folder / "records.jsonl", "rb") as fh:
        for line in fh:
            if line.strip():
                data = _shared(orjson.loads(line))
                packed = data.get("kind") in packed_kinds
                records.append(PackedRecord(data, line, packing) if packed else Record.from_dict(data))
    packing.close()
    sources = json.loads((folder / "sources.json").read_text(encoding="utf-8"))
    return records, sources


def _replace(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


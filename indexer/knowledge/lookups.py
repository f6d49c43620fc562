"""The look-up tables of one build's records by what names them, made once when the build opens.

Rules by number and by parent, references to each rule (single and ranges), names, keyword
headings and titles in their folded form, and each rule's editions (`EditionTables`): every
look-up the service makes, a rule page's included, is a dict access here instead of a scan of
the records.
"""
from __future__ import annotations

import bisect
import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import overload

from indexer.documents.ingest import GLOSSARY_SOURCE
from indexer.documents.obsolete_terms import OBSOLETE_MARK, obsolete_names
from indexer.documents.records import Record, from_rules_file
from indexer.documents.references import rule_sort_key
from indexer.documents.timeline import current_edition
from indexer.search.folding import fold_key, fold_name
from indexer.search.highlighting import marking_forms
from indexer.search.lineage import Edge
from indexer.search.record_lines import RecordLines

from .editions import EditionTables

NAMED_KINDS = ("card", "planar_card", "term")


def is_titled_rule(rule: Record) -> bool:
    """Whether a rule is a titled rule (702.79 "Persist", its text its title) rather than a
    numbered paragraph of one (405.1 "When a spell is cast, ...")."""
    return any(rule.text.get(lang) == title for lang, title in rule.title.items() if title)


def _heading_key(rule: Record) -> str | None:
    """What a query names a heading rule by: its keyword (702.79 persist), or the English title
    of a section (405 Stack, 111 Tokens), which heads its rules in search although it is no
    keyword (its rules are not one rule whose number moves between editions)."""
    if rule.keyword:
        return rule.keyword
    section = rule.number is not None and "." not in rule.number
    return rule.title["en"].lower() if section and rule.title.get("en") and is_titled_rule(rule) else None


def card_key(record: Record) -> str | None:
    """What makes records one card: its English name, folded (a set FAQ's entry and the same
    card of Scryfall's data); None for a record that is no card or has no English name."""
    name = record.names.get("en") if record.kind == "card" else None
    return fold_key(name) if name else None


def _title_search(titles: dict[str, list[str]]) -> tuple[list[str], str, list[int]]:
    """The folded titles, and the same as one string, a title per line, with where each
    starts in it: `titles_containing` searches them all with one `find`."""
    keys = list(titles)
    return keys, "\n".join(keys), list(itertools.accumulate((len(k) + 1 for k in keys[:-1]), initial=0))


class RuleLookups:
    """Records by id, position, number, parent, source, name and title, and the editions of each rule."""

    def __init__(self, records: list[Record], folded_texts: RecordLines, marking_lines: RecordLines,
                 edition_labels: dict[str, str] | None = None, lineage: Iterable[Edge] = ()):
        """The tables by number, name and title, in the order each needs the ones before it."""
        # A document's own edition label (2016-01) and the rules edition it quotes (2016-09-30).
        self.edition_labels = dict(edition_labels or {})
        self.records = {r.id: r for r in records}
        self._folded_texts = folded_texts
        self._marking_lines = marking_lines
        # Records by their position in the build (the engine's `positions` name them so).
        self.by_position = list(records)
        self.positions = {r.id: i for i, r in enumerate(records)}
        # Today's rules: a bare number or word means them, and every page dates by them.
        self.current_edition = current_edition(records)
        # Every edition a record names, newest first (the rules', and the documents' own dates).
        self.all_editions = sorted({r.edition for r in records if r.edition}, reverse=True)
        self.editions = EditionTables(records, lineage)
        self._index(records)
        self._title_keys, self._title_text, self._title_starts = _title_search(self.titles)
        self.keyword_rules = self._single_keyword_rules()

    def _index(self, records: list[Record]) -> None:
        """The look-up tables, filled in one pass over the records so that every list holds
        its records in build order (the order ties are ranked in)."""
        self.by_number: dict[str, list[Record]] = defaultdict(list)
        # Each edition's rule numbers (put in rule order when a rule page of it is first asked).
        self._numbers_of: dict[str | None, set[str]] = defaultdict(set)
        # Rule numbers of each edition in rule order, made when a rule page of it is first asked.
        self._rule_order: dict[str | None, list[str]] = {}
        # Subrules by (edition, parent number) and by (edition, parent number, source).
        self._children_of: dict[tuple, list[Record]] = defaultdict(list)
        self._referrers: dict[tuple, list[Record]] = defaultdict(list)
        self._range_referrers: dict[str | None, list[tuple]] = defaultdict(list)
        named: dict[str, list[str]] = defaultdict(list)
        self.keyword_heads: dict[str, list[str]] = defaultdict(list)
        self.titles: dict[str, list[str]] = defaultdict(list)
        # Obsolete glossary terms by their name without the mark.
        self.obsolete: dict[str, list[str]] = defaultdict(list)
        self._by_source: dict[str, list[Record]] = defaultdict(list)
        # Each document's section headings as (offset, id), in document order.
        self._sections: dict[str, list[tuple[int, str]]] = defaultdict(list)
        keyed = {(r.source, r.number): r for r in records if r.kind == "rule"}
        for r in records:
            self._by_source[r.source].append(r)
            self._index_references(r)
            if r.kind == "rule" and r.number:
                self._index_rule(r, r.number, keyed.get((r.source, r.parent)))
            elif r.kind == "section":
                for title in r.title.values():
                    self.titles[fold_key(title)].append(r.id)
                self._sections[r.source].append((r.offset, r.id))
            if r.kind in NAMED_KINDS:
                self._index_names(r, named)
        # Each name's records as a tuple, not a growing list: 40 bytes less a name, of about a
        # hundred thousand with every card.
        self.names: dict[str, tuple[str, ...]] = {key: tuple(ids) for key, ids in named.items()}
        for children in self._children_of.values():
            children.sort(key=lambda c: (rule_sort_key(c.number), c.source))
        for members in self._by_source.values():
            members.sort(key=lambda r: (r.offset, r.id))
        for sections in self._sections.values():
            sections.sort()

    def _index_references(self, r: Record) -> None:
        """The rules a record refers to (a glossary entry's defining rules, in `attrs`, are not
        quotations), one by one and by range."""
        for ref in {(ref.number, ref.end) for ref in r.references if ref.where != "attrs"}:
            if ref[1]:
                self._range_referrers[r.edition].append((rule_sort_key(ref[0]), rule_sort_key(ref[1]), r))
            else:
                self._referrers[(r.edition, ref[0])].append(r)

    def _index_rule(self, r: Record, number: str, parent: Record | None) -> None:
        """A rule by its number and its parent's, and as its keyword's heading (or its section's:
        `_heading_key`) when its parent (in the same document) is not under the same."""
        self.by_number[number].append(r)
        self._numbers_of[r.edition].add(number)
        if r.parent:
            self._children_of[(r.edition, r.parent)].append(r)
            self._children_of[(r.edition, r.parent, r.source)].append(r)
        head = _heading_key(r)
        if head and not (parent and _heading_key(parent) == head):
            self.keyword_heads[head].append(r.id)
            for title in r.title.values():
                self.titles[fold_key(title)].append(r.id)

    def _index_names(self, r: Record, named: dict[str, list[str]]) -> None:
        """A card's, plane's or term's names and aliases in their folded form; an obsolete
        term also by its name without the mark, which today's name is, and by each of the
        names it lists."""
        for name in [*r.names.values(), *r.aliases]:
            if name:
                named[fold_name(name)].append(r.id)
                if r.kind == "term" and OBSOLETE_MARK.search(name):
                    # by each of its names too: "Remove from the Game, Removed, ..."
                    for plain in dict.fromkeys([OBSOLETE_MARK.sub("", name), *obsolete_names(name)]):
                        self.obsolete[fold_key(plain)].append(r.id)

    def _single_keyword_rules(self) -> dict[tuple[str, str], str]:
        """(source, number) of a rule that is its keyword's only rule in its document (702.79
        Persist): its subrules, editions and quotations are one result, across numbers."""
        heads = [self.records[i] for ids in self.keyword_heads.values() for i in ids]
        per_source = Counter((r.source, r.keyword) for r in heads)
        return {(r.source, r.number): r.keyword for r in heads
                if r.number and r.keyword and "." in r.number and per_source[(r.source, r.keyword)] == 1}

    def descendants(self, record: Record) -> list[Record]:
        """A rule's subrules in its document, theirs after each, in rule order."""
        found = []
        for child in self.children(record.number, record.edition, record.source):
            found += [child, *self.descendants(child)]
        return found

    def get(self, record_id: str) -> Record | None:
        return self.records.get(record_id)

    def holding(self, positions: Iterable[int], needle: bytes) -> list[int]:
        """The records among those at `positions` whose texts, all of them in the form queries
        are compared in (`indexer.search.folding`), hold a folded string, given as UTF-8."""
        return self._folded_texts.holding(positions, needle)

    def holding_each(self, positions: list[int], needles: list[bytes]) -> list[list[int]]:
        """`holding` for each of `needles`, the texts read once for all of them."""
        return self._folded_texts.holding_each(positions, needles)

    def folded_text(self, position: int) -> str:
        """The record's texts in the form queries are compared in, as `holding` searches them."""
        return self._folded_texts[position]

    def marking_forms(self, record: Record) -> list[str]:
        """The marking form (`indexer.search.highlighting`) of each of the record's blocks, as the build wrote them."""
        return marking_forms(self._marking_lines[self.positions[record.id]])

    def by_name(self, name: str, kinds: tuple[str, ...] = NAMED_KINDS) -> Record | None:
        """The record a name names in any language, script or case: a card before a plane
        before a term."""
        found = [self.records[i] for i in self.names.get(fold_key(name), [])]
        found = [r for r in found if r.kind in kinds]
        # A term is the project glossary's (every form and script), else today's rules' entry.
        return min(found, key=lambda r: (kinds.index(r.kind), r.source != GLOSSARY_SOURCE,
                                         r.edition != self.current_edition, r.id)) if found else None

    def same_card(self, record: Record) -> list[Record]:
        """The other records of a card (a set FAQ's and Scryfall's: `card_key`)."""
        key = card_key(record)
        if key is None:
            return []
        return [self.records[i] for i in self.names.get(key, ())
                if i != record.id and card_key(self.records[i]) == key]

    @overload
    def edition_named(self, value: str) -> str: ...
    @overload
    def edition_named(self, value: None) -> None: ...

    def edition_named(self, value: str | None) -> str | None:
        """An edition as a reader names it: a document's own label means the rules edition it
        quotes (`?edition=2016-01` is the Planechase guide's, the rules of 2016-09-30)."""
        return self.edition_labels.get(value, value) if value else value

    def edition_filter(self, value: str) -> str:
        """The edition an `edition:` filter means: a document's label resolved, or the newest
        edition whose date starts as written (`edition:2008` is 2008-05-01), which the
        engine's filter then matches exactly."""
        value = self.edition_named(value)
        return next((e for e in self.all_editions if e.startswith(value)), value)

    def editions_of(self, number: str) -> list[str]:
        return sorted({r.edition for r in self.by_number.get(number, []) if r.edition}, reverse=True)

    def rule_records(self, number: str, edition: str | None = None) -> list[Record]:
        """Records of one rule number in one edition (the newest holding it when not given, or
        the newest whose date starts with `edition`: 2008, 2026-04): the official rules file
        first, then documents that quote it."""
        found = self.by_number.get(number, [])
        if not found:
            return []
        edition = self.edition_named(edition) or ""
        edition = next((e for e in self.editions_of(number) if e.startswith(edition)), None)
        same = [r for r in found if r.edition == edition]
        return sorted(same, key=lambda r: (not from_rules_file(r), r.source))

    def children(self, number: str | None, edition: str | None, source: str | None = None) -> list[Record]:
        """Subrules of a rule in one edition (and one source when given), in rule order (none
        for no number: a top-level rule's parent)."""
        return self._children_of.get((edition, number) if source is None else (edition, number, source), [])

    def numbers_of(self, edition: str | None) -> set[str]:
        """The rule numbers an edition has (in its rules file or a document quoting it)."""
        return self._numbers_of.get(edition, set())

    def neighbours(self, number: str, edition: str | None) -> tuple[Record | None, Record | None]:
        """The rules just before and after `number` in its edition, in rule order: a judge
        reads on from 702.30g to 702.31 without going back up."""
        order = self._rule_order.get(edition)
        if order is None:
            order = self._rule_order[edition] = sorted(self._numbers_of.get(edition, ()), key=rule_sort_key)
        at = bisect.bisect_left(order, rule_sort_key(number), key=rule_sort_key)
        before = self.rule_records(order[at - 1], edition)[:1] if at > 0 else []
        after = self.rule_records(order[at + 1], edition)[:1] if at + 1 < len(order) else []
        return (before[0] if before else None), (after[0] if after else None)

    def section_of(self, record: Record) -> Record | None:
        """The section of its document a record belongs to: the last section heading at or
        before it (None for a section, or in a document without headings)."""
        if record.kind == "section":
            return None
        sections = self._sections.get(record.source, [])
        at = bisect.bisect_right(sections, (record.offset, "\uffff"))
        return self.records[sections[at - 1][1]] if at else None

    def records_of_source(self, source_id: str) -> Sequence[Record]:
        """A document's records in its order, shared: read only (a copy of a rules file's
        thousands, made for each result's or ruling's page of its document, took a section's
        page 20 ms)."""
        return self._by_source.get(source_id, ())

    def referencing(self, number: str, edition: str | None) -> list[Record]:
        """Records of one edition with a reference to this rule number or a range that covers
        it: a reference means the rule of its own document's edition."""
        key = rule_sort_key(number)
        found = {r.id: r for r in self._referrers.get((edition, number), [])}
        for start, end, r in self._range_referrers.get(edition, []):
            if start <= key <= end:
                found.setdefault(r.id, r)
        return sorted(found.values(), key=lambda r: (r.source, r.offset, r.id))

    def titles_containing(self, key: str) -> list[str]:
        """The folded titles that contain `key`, found by searching all of them at once
        (one string, a title per line: a key has no line breaks, so a match is inside one)."""
        found = []
        at = self._title_text.find(key)
        while at >= 0:
            n = bisect.bisect_right(self._title_starts, at) - 1
            found.append(self._title_keys[n])
            at = self._title_text.find(key, self._title_starts[n] + len(self._title_keys[n]) + 1)
        return found

    def superseded(self, record: Record) -> bool:
        """A rule or glossary entry of a rules edition older than today's."""
        return from_rules_file(record) and record.edition != self.current_edition

    def of_todays_rules(self, record: Record) -> bool:
        """A rule or glossary entry of today's rules file."""
        return from_rules_file(record) and record.edition == self.current_edition

    def official(self, number: str, edition: str | None) -> Record | None:
        return next((r for r in self.by_number.get(number, ()) if from_rules_file(r) and r.edition == edition), None)

    def keyword_head_today(self, keyword: str) -> Record | None:
        """Today's heading rule of a keyword (702.82 for devour, 702.79 in 2009), or None."""
        heads = (self.records[i] for i in self.keyword_heads.get(keyword, ()))
        return next((h for h in heads if self.of_todays_rules(h)), None)

    def is_keyword_head(self, record: Record) -> bool:
        """Whether the record is the heading rule of the keyword it defines (or a section's
        heading: `heading_key`)."""
        key = self.heading_key(record)
        return key is not None and record.id in self.keyword_heads.get(key, ())

    @staticmethod
    def heading_key(record: Record) -> str | None:
        """The key of `keyword_heads` a heading rule is under (`_heading_key`)."""
        return _heading_key(record) if record.kind == "rule" else None


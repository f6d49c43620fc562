"""The look-up tables of one build's records, made once when the build opens.

Rules by number and by parent, references to each rule (single and ranges), names, keyword
headings and titles in their folded form, and each rule's editions (`EditionTables`): every
look-up the service makes, a rule page's included, is a dict access here instead of a scan of
the records.
"""
from __future__ import annotations

import bisect
import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import overload

import numpy as np

from indexer.documents.ingest import GLOSSARY_SOURCE
from indexer.documents.obsolete_terms import OBSOLETE_MARK, obsolete_names
from indexer.documents.records import Record, from_rules_file, rule_heading, rule_parent
from indexer.documents.references import rule_sort_key
from indexer.documents.timeline import current_edition
from indexer.search.analysis import english_stem
from indexer.search.folding import fold_key
from indexer.search.highlighting import marking_forms
from indexer.search.lineage import Edge, record_key
from indexer.search.record_lines import RecordLines

from .editions import EditionTables

NAMED_KINDS = ("card", "planar_card", "term")
# The section of keyword abilities (702 in every edition held): what a list of them names.
KEYWORD_ABILITIES = "702"
# The fewest keyword abilities a rule names in its English text to be a list of them
# (`Catalogue.listing_at`): 122.1b, the keywords a keyword counter can be, names 12 (2022) to
# 15 (2026); a rule that says something of several (601.2b, the costs announced in casting a
# spell) names at most 6.
LIST_NAMES = 10
# A glossary entry's reference to a section of the rules ("See section 5, “Turn Structure.”"):
# the section's rules begin with its general rule, N00 (500 General), whose subrules say what
# the section's terms are (500.1: "A turn consists of five phases").
SECTION_REFERENCE = re.compile(r"\bsection ([1-9])\b")
# A section's general rule's number (400, 500, 800).
SECTION_GENERAL_RULE = re.compile(r"[1-9]00")


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


def _newness(record: Record) -> tuple[str, bool]:
    """What makes a record its group's leader: the newest edition, then the rules file's own."""
    return record.edition or "", from_rules_file(record)


def _title_search(titles: dict[str, list[str]]) -> tuple[list[str], str, list[int]]:
    """The folded titles, and the same as one string, a title per line, with where each
    starts in it: `titles_containing` searches them all with one `find`."""
    keys = list(titles)
    return keys, "\n".join(keys), list(itertools.accumulate((len(k) + 1 for k in keys[:-1]), initial=0))


def _numbered(keys: list[tuple]) -> np.ndarray:
    """Group keys as numbers, one a key, in the order they first come: what collapsing the
    ranked records into results compares (`grouping`)."""
    numbers: dict[tuple, int] = {}
    return np.array([numbers.setdefault(key, len(numbers)) for key in keys], np.int64)


def only_heading(record: Record) -> bool:
    """Whether a rule is only its heading (502 Untap Step, 702.79 Persist): no language's text
    says more than its title, and it has no rulings or examples of its own."""
    titles = {t.strip() for t in record.title.values()}
    return (record.kind == "rule" and not (record.rulings or record.examples or record.abilities)
            and all(not t.strip() or t.strip() in titles for t in record.text.values()))


def _stems(text: str) -> frozenset[str]:
    """The Snowball stems of a text's English words (Keyword Abilities: keyword, abil)."""
    return frozenset(english_stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()))


class Catalogue:
    def __init__(self, records: list[Record], folded_texts: RecordLines, marking_lines: RecordLines,
                 edition_labels: dict[str, str] | None = None, lineage: Iterable[Edge] = ()):
        """Every table is made here, in the order each needs the ones before it: the look-ups
        by number, name and title first; then what groups records into one result and what
        today's twin of an older record is, which read those look-ups."""
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
        self._all_editions = sorted({r.edition for r in records if r.edition}, reverse=True)
        self.editions = EditionTables(records, lineage)
        self._index(records)
        self._title_keys, self._title_text, self._title_starts = _title_search(self.titles)
        self._keyword_rules = self._single_keyword_rules()
        # The same entries' rules by the entry's position: what a question's words finding the
        # entry (its name and definition) lead to (filled with the concepts).
        self.cited_at: dict[int, list[int]] = {}
        # The English stems of each term's name (none for a Chinese one), by its key.
        self._concept_stems: dict[str, frozenset[str]] = {}
        self.concepts = self._todays_concepts(records)
        self._place_in_results(records)
        self.definitions = self._term_definitions()
        self._find_lists(records)
        self._quoted = self._quotations_by_rule(records)

    def _quotations_by_rule(self, records: list[Record]) -> dict[tuple, list[Record]]:
        """The documents' rules (a FAQ's quotation, its rulings), by (edition, number): they
        follow their rule's lineage to every edition (`quotations`)."""
        quoted: dict[tuple, list[Record]] = defaultdict(list)
        for r in records:
            if r.kind == "rule" and r.edition and not from_rules_file(r):
                quoted[(r.edition, r.number)].append(r)
        return quoted

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
        self.names: dict[str, list[str]] = defaultdict(list)
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
                self._index_names(r)
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

    def _index_names(self, r: Record) -> None:
        """A card's, plane's or term's names and aliases in their folded form; an obsolete
        term also by its name without the mark, which today's name is, and by each of the
        names it lists."""
        for name in [*r.names.values(), *r.aliases]:
            if name:
                self.names[fold_key(name)].append(r.id)
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

    def _todays_concepts(self, records: list[Record]) -> dict[str, list[str]]:
        """Today's glossary terms by each of their English names ("Life, Life Total" is two)
        and their Chinese name (传奇规则), with the rules their entry cites ("See rule 704.5j"),
        or, citing none, the general rules of the sections it cites (Zone: "See section 4"):
        what a query naming the term asks about."""
        concepts: dict[str, list[str]] = defaultdict(list)
        for r in records:
            if r.kind == "term" and self.of_todays_rules(r) and r.names.get("en"):
                # (An obsolete term's link to the last rule that had it names an older edition.)
                numbers = ([ref.number for ref in r.references if ref.where != "attrs"]
                           or [f"{m.group(1)}00" for m in SECTION_REFERENCE.finditer(r.text.get("en", ""))])
                cited = [f"{r.source}:rule:{n}" for n in dict.fromkeys(numbers)]
                cited = [i for i in cited if i in self.records]
                names = [*OBSOLETE_MARK.sub("", r.names["en"]).split(","), r.names.get("zh_hans", "")]
                for name in names:
                    if cited and name.strip():
                        concepts[fold_key(name.strip())].extend(cited)
                        self._concept_stems[fold_key(name.strip())] = _stems(name)
                if cited:
                    self.cited_at[self.positions[r.id]] = [self.positions[i] for i in cited]
        return concepts

    def _place_in_results(self, records: list[Record]) -> None:
        """Each record's group, today's twin of a superseded record and place in rule order,
        worked out once when the build opens: every query's candidates ask for all three,
        and worked out on first use they made a new candidate's first query slower. The
        ranking reads them by position, as arrays (`*_at`)."""
        self.group_keys = {r.id: self._group_key(r) for r in records}
        self.superseded_at = np.array([self.superseded(r) for r in records], bool)
        self.twin_at = np.full(len(records), -1, np.int64)  # -1: none
        for n in np.flatnonzero(self.superseded_at).tolist():
            twin = self._twin_today(records[n])
            if twin is not None:
                self.twin_at[n] = self.positions[twin.id]
        # A record's place among all records by rule number (an unnumbered record first),
        # then id: the order of equal scores.
        self.rule_order_at = np.zeros(len(records), np.int64)
        for n, position in enumerate(sorted(range(len(records)),
                                            key=lambda p: (rule_sort_key(records[p].number or ""), records[p].id))):
            self.rule_order_at[position] = n
        # Each record's group as a number (`group_key`), and how new it is as a rank, where
        # the rules file's own record is newer than a quotation of the same edition: what
        # collapsing the ranked records into results reads (`grouping`).
        self.group_at = _numbered([self.group_keys[r.id] for r in records])
        # A numbered paragraph (117.3 with 117.3a-d) as a group: a subrule's siblings.
        self.paragraph_group_at = _numbered([self._group_key(r, lift=False) for r in records])
        # A question's grouping: each of today's subrules (903.9a) is its own result, with its
        # other editions and quotations, as a question asks about one subrule, where a look-up
        # wants the titled rule.
        self.subrule_group_at = _numbered([self._subrule_key(r, n) for n, r in enumerate(records)])
        newness = {key: n for n, key in enumerate(sorted({_newness(r) for r in records}))}
        self.newness_at = np.array([newness[_newness(r)] for r in records], np.int64)
        # A rule that is only its heading (502 Untap Step, 702.79 Persist: `only_heading`): it
        # names what a question is about but answers nothing, and a keyword's is shown by its
        # definition.
        self.heading_at = np.array([only_heading(r) for r in records], bool)
        # A numbered heading rule's definition (702.79a of 702.79 Persist: its first subrule in
        # its document), by position; -1: none.
        self.definition_at = np.full(len(records), -1, np.int64)
        for n in np.flatnonzero(self.heading_at).tolist():
            r = records[n]
            children = self.children(r.number, r.edition, r.source) if r.number and "." in r.number else []
            if children:
                self.definition_at[n] = self.positions[children[0].id]

    def _term_definitions(self) -> dict[str, list[str]]:
        """What a query that is a term of today's glossary asks for (`concepts`: "X ... See rule
        107.3"): the rules its entry cites, but where one is only a heading that does not name
        the term (104 Ending the Game, for Concede), the subrules below it that use the term
        (104.3a: "A player can concede the game at any time"), which say what it is, and of a
        section's general rule (400 General, for Zone's "See section 4"), the first of them
        (400.1: "A zone is a place..."); such a heading itself only when no rule the entry
        cites says more (no subrule of 806 Free-for-All names a Supervillain Rumble, and 904.12
        of 904 Archenemy does). A heading naming the term (302 Creatures, 117 Timing and
        Priority) is its own rule. A name an obsolete term has (传奇, of Legend (Obsolete) as of
        Legendary; Transforming Double-Faced Cards) is answered by that term's entry, which says
        what it is now (`obsolete`): none."""
        definitions: dict[str, list[str]] = {}
        for key, cited in self.concepts.items():
            if key in self.obsolete:
                continue
            needle, said, headings = key.encode(), [], []
            stems = self._concept_stems.get(key, frozenset())
            for record_id in dict.fromkeys(cited):
                at, rule = self.positions[record_id], self.records[record_id]
                if (not self.heading_at[at] or self.holding([at], needle)
                        or (stems and stems <= _stems(rule.text.get("en", "")))):
                    said.append(record_id)
                    continue
                headings.append(record_id)
                below = [self.positions[r.id] for r in self._descendants(rule)]
                using = [self.by_position[p].id for p in self.holding(below, needle)]
                # A section's general rule (400 General) covers the whole section: its first
                # statement of the term defines it, the rest use it (400.10: the command zone).
                said += using[:1] if SECTION_GENERAL_RULE.fullmatch(rule.number or "") else using
            definitions[key] = said or headings
        return definitions

    def _descendants(self, record: Record) -> list[Record]:
        """A rule's subrules in its document, theirs after each, in rule order."""
        found = []
        for child in self.children(record.number, record.edition, record.source):
            found += [child, *self._descendants(child)]
        return found

    def _find_lists(self, records: list[Record]) -> None:
        """The rules that list keyword abilities (`LIST_NAMES` of them or more, as whole words
        of the English text), by position, and the abilities they list, by their English name
        and their heading rules' titles (践踏, 踐踏): a question names these as a list item only
        (`QuestionRanking._share`). Only a text with a comma between each two names is read."""
        names = {keyword for keyword, heads in self.keyword_heads.items() for head in heads
                 if self.records[head].keyword == keyword
                 and (self.records[head].number or "").split(".")[0] == KEYWORD_ABILITIES}
        self.listing_at = np.zeros(len(records), bool)
        self.listed_keywords: list[str] = []
        if not names:
            return
        found: set[str] = set()
        ordered = sorted(names, key=lambda n: (-len(n), n))
        pattern = re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, ordered)) + r")(?![\w-])")
        for n, r in enumerate(records):
            text = r.text.get("en", "") if r.kind == "rule" else ""
            if text.count(",") >= LIST_NAMES - 1:
                listed = set(pattern.findall(text.lower()))
                if len(listed) >= LIST_NAMES:
                    self.listing_at[n] = True
                    found |= listed
        titles = {title for keyword in found for head in self.keyword_heads.get(keyword, ())
                  for title in self.records[head].title.values() if title.lower() not in found}
        self.listed_keywords = sorted(found | titles)

    def get(self, record_id: str) -> Record | None:
        return self.records.get(record_id)

    def holding(self, positions: Iterable[int], needle: bytes) -> list[int]:
        """The records among those at `positions` whose texts, all of them in the form queries
        are compared in (`indexer.search.folding`), hold a folded string, given as UTF-8."""
        return self._folded_texts.holding(positions, needle)

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
        return next((e for e in self._all_editions if e.startswith(value)), value)

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

    def group_key(self, record: Record) -> tuple:
        """What makes records one result: a rule with its subrules, in every edition and
        quotation (a keyword's rule by its keyword, as its number moved; another rule by its
        number and heading, as the rules file of its edition has them); a glossary entry in
        every edition of the rules and in the project glossary, by its English name; any
        other record alone."""
        return self.group_keys[record.id]

    def _group_key(self, record: Record, lift: bool = True) -> tuple:
        """`group_key`; with `lift` False a numbered paragraph (405.1) keeps its own group
        instead of its titled rule's (405 Stack): what a question's results are grouped by."""
        if record.kind == "rule" and record.number:
            heading = rule_heading(record.number)
            official = self._official(heading, record.edition)
            basis = official or next((r for r in self.by_number.get(heading, ())
                                      if (r.source, r.edition) == (record.source, record.edition)), None)
            if lift and "." in heading and basis is not None and not is_titled_rule(basis):
                # A numbered paragraph (405.1 under 405 Stack), not a titled rule (702.79 Persist).
                heading = rule_parent(heading) or heading
                official = self._official(heading, record.edition)
            for basis in (record, official):
                keyword = basis and self._keyword_rules.get((basis.source, heading))
                if keyword:
                    return ("keyword-rule", keyword)
            basis = official or record
            return ("rule", heading, basis.keyword or fold_key(next(iter(basis.title.values()), "")))
        if record.kind == "term" and (from_rules_file(record) or record.source == GLOSSARY_SOURCE):
            # Mana Burn of 2008 is today's Mana Burn (Obsolete), and the project glossary's
            # persist (its forms in every script) is the rules glossary's Persist: one entry.
            return ("term", fold_key(OBSOLETE_MARK.sub("", record.names.get("en", record.id))))
        return ("record", record.id)

    def _subrule_key(self, record: Record, position: int) -> tuple:
        """A question's grouping by subrule: a rule of today's edition, the rules file's or a
        quotation's, by its number; an older edition's by its twin's today; anything else as
        its numbered paragraph groups it."""
        if record.kind == "rule" and record.number:
            if record.edition == self.current_edition:
                return ("subrule", record.number)
            twin = int(self.twin_at[position])
            if twin >= 0 and self.by_position[twin].number:
                return ("subrule", self.by_position[twin].number)
        return ("paragraph", int(self.paragraph_group_at[position]))

    def _official(self, number: str, edition: str | None) -> Record | None:
        return next((r for r in self.by_number.get(number, ()) if from_rules_file(r) and r.edition == edition), None)

    def current_twin(self, record: Record) -> Record | None:
        """Today's record of the same rule or glossary entry as a superseded one (702.79 for
        2008's 502.79 Persist), or None (as worked out when the build opened)."""
        at = self.twin_at[self.positions[record.id]]
        return self.by_position[at] if at >= 0 else None

    def _twin_today(self, record: Record) -> Record | None:
        """`current_twin`, worked out: where the lineage takes the record's rule or entry in
        today's edition, when that is the same result (its group)."""
        found = self.today_of(record)
        twin = self.records[found["id"]] if found and "id" in found else None
        return twin if twin is not None and self.group_key(twin) == self.group_key(record) else None

    def today_of(self, record: Record) -> dict | None:
        """Where the lineage takes an older edition's rule or glossary entry in today's
        edition ({"edition", "number", "id"}: 2008's 104.3f is 107.4e), or where it ended
        ({"edition", "ended": {"last", "last_number", "gone_in"}}: 2008's 300.3); None for
        today's records and records no lineage holds."""
        key, today = record_key(record), self.current_edition
        if not key or not record.edition or not today or record.edition == today:
            return None
        now = self.editions.follow(record.edition, key, today)
        twin = self.editions.record(today, now) if now else None
        if twin is not None:
            return {"edition": today, "number": twin.number, "id": twin.id}
        ending = self.editions.ending(record.edition, key)
        return {"edition": today, "ended": ending} if ending else None

    def keyword_head_today(self, keyword: str) -> Record | None:
        """Today's heading rule of a keyword (702.82 for devour, 702.79 in 2009), or None."""
        heads = (self.records[i] for i in self.keyword_heads.get(keyword, ()))
        return next((h for h in heads if self.of_todays_rules(h)), None)

    def quotations(self, record: Record) -> list[Record]:
        """The documents' records of the same rule in any edition (the keyword digest's 702.79
        of 2009 for today's 702.82 Devour): the rule's own (edition, number) and every one
        its lineage reaches, oldest edition first."""
        if not record.edition or not record.number:
            return []
        return [r for e, n, _ in self.editions.lineage_of(record.edition, record.number)
                for r in self._quoted.get((e, n), [])]

    def ruled_records(self, record: Record) -> list[Record]:
        """`quotations` that carry rulings (the Shadowmoor FAQ's 502.79 for today's 702.79
        Persist)."""
        return [r for r in self.quotations(record) if r.rulings]

    def is_keyword_head(self, record: Record) -> bool:
        """Whether the record is the heading rule of the keyword it defines (or a section's
        heading: `heading_key`)."""
        key = self.heading_key(record)
        return key is not None and record.id in self.keyword_heads.get(key, ())

    @staticmethod
    def heading_key(record: Record) -> str | None:
        """The key of `keyword_heads` a heading rule is under (`_heading_key`)."""
        return _heading_key(record) if record.kind == "rule" else None

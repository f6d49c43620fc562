"""One rule across editions of the Comprehensive Rules: what a number names in each edition,
what a rule was and became, and how its text changed.

A rule number means something only within its edition: 702.79 is devour in 2009 and persist
in 2026. So every function here keys rules by (edition, number), and follows one rule from
edition to edition along the build's lineage table (`indexer.search.lineage`: each
edition's rules and glossary entries aligned with the next edition's, by text and title, not
by number), never by a number or keyword of its own. The records may come from any source:
the rules files themselves, or a FAQ quoting the rules of its day (the Shadowmoor FAQ's
502.79 titled 留存). Where both speak for one (edition, number), the rules file's record
does: a quotation may be partial.
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from indexer.documents.records import Record, from_rules_file
from indexer.documents.references import rule_sort_key
from indexer.documents.script_ranges import HAN
from indexer.search.lineage import Edge, record_key

# A diff token: one CJK character, one Latin word (with inner apostrophes), a run of spaces,
# or any other single character. Chinese is compared by characters, English by words.
_DIFF_UNIT = re.compile(rf"[{HAN}]|(?:(?![{HAN}])[^\W_])+(?:['’](?:(?![{HAN}])[^\W_])+)*|\s+|.", re.S)
# What changed between two editions, in the order a list of changes shows it.
CHANGE_KINDS = ("added", "removed", "renumbered", "renamed", "changed")


@dataclass(frozen=True)
class Version:
    """One rule (or glossary entry) as one edition has it, and how it came from the edition
    before (`relation`: the lineage's, "" for the first edition that has it)."""

    edition: str
    number: str
    record: Record
    relation: str = ""

    @property
    def name(self) -> str:
        """What the number names in this edition: its English title, else its keyword, else
        any title it has (`Persist`, `Devour`, `留存`)."""
        title = self.record.title
        return title.get("en") or self.record.keyword or next(iter(title.values()), "")

    @property
    def text(self) -> dict[str, str]:
        return self.record.text


@dataclass(frozen=True)
class Change:
    """One entry of a list of what changed between two editions: `old` and `new` are its keys
    (a rule number, or `term:` and a glossary entry's slug) in each, "" where it has none."""

    kind: str           # one of CHANGE_KINDS (a glossary entry is renamed, a rule renumbered)
    old: str
    new: str


def by_edition(records: list[Record]) -> dict[tuple[str, str], Record]:
    """(edition, number) -> the record that speaks for that rule, for every numbered record
    that belongs to an edition: the rules file's own record over a quotation of it."""
    index: dict[tuple[str, str], Record] = {}
    for record in records:
        if not record.number or not record.edition:
            continue
        key = (record.edition, record.number)
        if key not in index or (from_rules_file(record) and not from_rules_file(index[key])):
            index[key] = record
    return index


def _best(edges: list[Edge], own: str) -> Edge | None:
    """The edge a rule follows where it has several (a split, a merge): the most similar
    text, then the one that kept its key."""
    found = [e for e in edges if e.from_key and e.to_key]
    return max(found, key=lambda e: (e.score, own in (e.from_key, e.to_key))) if found else None


class EditionTables:
    """The records' rules by edition and the lineage between editions, made once (when a
    build opens), so that every question below is a few dict look-ups however many editions
    and rules there are."""

    def __init__(self, records: list[Record], lineage: Iterable[Edge] = ()):
        self.index = by_edition(records)
        self._terms = {(r.edition, record_key(r)): r for r in records
                       if r.kind == "term" and r.edition and from_rules_file(r)}
        # number -> the editions that have it, oldest first
        self._holders: dict[str, list[str]] = defaultdict(list)
        for edition, number in sorted(self.index):
            self._holders[number].append(edition)
        self._forward: dict[tuple[str, str], list[Edge]] = defaultdict(list)
        self._back: dict[tuple[str, str], list[Edge]] = defaultdict(list)
        self._pairs: dict[tuple[str, str], list[Edge]] = defaultdict(list)
        for edge in lineage:
            if edge.from_key:
                self._forward[(edge.from_edition, edge.from_key)].append(edge)
            if edge.to_key:
                self._back[(edge.to_edition, edge.to_key)].append(edge)
            self._pairs[(edge.from_edition, edge.to_edition)].append(edge)
        # The edge each entry follows each way (`step`), chosen once.
        self._next = {at: _best(edges, at[1]) for at, edges in self._forward.items()}
        self._previous = {at: _best(edges, at[1]) for at, edges in self._back.items()}
        # The editions the lineage aligns, oldest first.
        self.lineage_editions = sorted({e for pair in self._pairs for e in pair})
        # What changed between two editions, worked out when first asked: at most one list
        # per pair of editions held, so bounded by the editions, not by the requests.
        self._changes: dict[tuple[str, str], list[Change]] = {}
        # Each edition's keys in the lineage, in its own order (rules, then glossary).
        self._keys: dict[str, list[str]] = defaultdict(list)
        for (old, new), edges in self._pairs.items():
            if not self._keys[old]:
                self._keys[old] = list(dict.fromkeys(e.from_key for e in edges if e.from_key))
            self._keys[new] = list(dict.fromkeys(e.to_key for e in edges if e.to_key))

    def record(self, edition: str, key: str) -> Record | None:
        """The record of a lineage key (a rule number, a `term:` key) in an edition."""
        return self._terms.get((edition, key)) if key.startswith("term:") else self.index.get((edition, key))

    def editions_of(self, number: str) -> list[Version]:
        """Every edition that has rule `number`, oldest first, each with what the number names there."""
        number = number.lower()
        return [Version(edition, number, self.index[(edition, number)]) for edition in self._holders.get(number, [])]

    def step(self, edition: str, key: str, forward: bool = True) -> Edge | None:
        """The lineage edge a rule or entry follows into the next (or previous) edition: None
        where its lineage ends (removed; added) or the edition is not aligned."""
        return (self._next if forward else self._previous).get((edition, key))

    def ending(self, edition: str, key: str) -> dict | None:
        """Where the lineage of a rule of `edition` ends before the newest edition: the last
        edition that had it, its number there, and the first edition without it
        ({"last": ..., "last_number": ..., "gone_in": ...}); None when it reaches the newest."""
        while (edition, key) in self._forward:
            edge = self.step(edition, key)
            if edge is None:
                gone = self._forward[(edition, key)][0].to_edition
                return {"last": edition, "last_number": key, "gone_in": gone}
            edition, key = edge.to_edition, edge.to_key
        return None

    def follow(self, edition: str, key: str, target: str) -> str | None:
        """The key a rule or entry of `edition` has in `target` (older or newer), along the
        lineage, or None where its lineage does not reach it."""
        return self._walk(edition, key, target)[0]

    def follow_all(self, edition: str, key: str, target: str) -> list[str]:
        """Every key a rule or entry of `edition` has become in a newer `target`, in rule
        order: the one `follow` gives, and the others it was split into on the way (2016's
        702.50a convoke is 2022's 702.51a and 702.51b), each followed on."""
        reached, pending = [], [(edition, key)]
        while pending:
            at = pending.pop()
            if at[0] == target:
                reached.append(at[1])
                continue
            parts: list[Edge | None] = [e for e in self._forward.get(at, []) if e.relation == "split" and e.to_key]
            pending += [(e.to_edition, e.to_key) for e in (parts or [self.step(*at)]) if e is not None]
        return sorted(set(reached), key=rule_sort_key)

    def _walk(self, edition: str, key: str, target: str) -> tuple[str | None, bool]:
        """`follow`, and whether every step on the way kept the text (typography aside: a
        score of 100)."""
        forward, kept = target > edition, True
        while edition != target:
            edge = self.step(edition, key, forward)
            if edge is None:
                return None, False
            kept = kept and edge.score == 100
            edition, key = (edge.to_edition, edge.to_key) if forward else (edge.from_edition, edge.from_key)
        return key, kept

    def lineage_of(self, edition: str, key: str) -> list[tuple[str, str, str]]:
        """(edition, key, relation from the edition before) of a rule or entry in every
        edition its lineage reaches, oldest first; [(edition, key, "")] where no lineage
        holds it (an edition only a document quotes)."""
        chain = [(edition, key, "")]
        while (edge := self.step(chain[0][0], chain[0][1], forward=False)) is not None:
            chain[0] = (chain[0][0], chain[0][1], edge.relation)
            chain.insert(0, (edge.from_edition, edge.from_key, ""))
        while (edge := self.step(chain[-1][0], chain[-1][1])) is not None:
            chain.append((edge.to_edition, edge.to_key, edge.relation))
        return chain

    def history(self, edition: str, key: str) -> list[Version]:
        """`lineage_of` as the records of each edition."""
        found = []
        for e, k, relation in self.lineage_of(edition, key):
            record = self.record(e, k)
            if record is not None:
                found.append(Version(e, k, record, relation))
        return found

    def keyword_numbers(self, record: Record) -> dict[str, str]:
        """edition -> the number of a keyword's rule in that edition, oldest first (persist:
        2008-05-01 502.79, 2009-07-11 702.76, ..., 2026-04-17 702.79): its titled rule's
        lineage. Empty for a rule without a keyword."""
        if not record.keyword or not record.number or not record.edition:
            return {}
        heading, number = record, record.number
        while heading.parent and (parent := self.index.get((record.edition, heading.parent))) is not None \
                and (parent.keyword or "").lower() == record.keyword.lower():
            heading, number = parent, heading.parent or number
        return {v.edition: v.number for v in self.history(record.edition, number)}

    def changes(self, old: str, new: str) -> list[Change]:
        """What changed from edition `old` to the newer `new` along the lineage: every entry
        added, renumbered (its key moved), changed (its text) or removed, in `new`'s order
        and then `old`'s for the removed. An entry of the editions between that came and
        went is no change between these two."""
        if not (old in self.lineage_editions and new in self.lineage_editions and old < new):
            return []
        if (old, new) not in self._changes:
            self._changes[(old, new)] = self._changes_between(old, new)
        return self._changes[(old, new)]

    def _text_changed(self, old: str, new: str, key: str) -> bool:
        """Whether the text of an entry that changed on the way between two editions still
        differs between them, in a language both have (a text may change and change back)."""
        before, after = self.record(old, key), self.record(new, key)
        if before is None or after is None:
            return False
        return any(before.text[lang] != after.text[lang] for lang in before.text if lang in after.text)

    def _changes_between(self, old: str, new: str) -> list[Change]:
        reached: dict[str, tuple[str, bool]] = {}    # new key -> old key, text kept all the way
        removed = []
        for key in self._keys[old]:
            now, kept = self._walk(old, key, new)
            if now is None:
                removed.append(Change("removed", key, ""))
            else:
                reached.setdefault(now, (key, kept))
        found = []
        for key in self._keys[new]:
            if key not in reached:
                found.append(Change("added", "", key))
                continue
            was, kept = reached[key]
            if was != key:
                found.append(Change("renamed" if key.startswith("term:") else "renumbered", was, key))
            elif not kept and self._text_changed(old, new, key):
                found.append(Change("changed", was, key))
        return found + removed


def tokens(text: str) -> list[str]:
    """The units a diff compares: English words, single Chinese characters, spaces, punctuation."""
    return _DIFF_UNIT.findall(text)

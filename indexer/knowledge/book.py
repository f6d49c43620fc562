"""The rules as a book: the chapters, sections and rules of one edition in the order its rules
file has them, each rule's place in it, the steps from one rule to the next, and the
edition's glossary.

A judge browses the rules the way the printed book and every judge app lay them out: part
(chapter) › section › rule › subrule. Everything here is read from one edition's rules file:
its records (`cr-<edition>`) and the part headings and glossary readings its source
metadata carries (`indexer.documents.comprules.edition_source`). A document quoting a rule
is not part of the book.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass

from indexer.documents.comprules import FAMILY as RULES_FAMILY
from indexer.documents.records import Record, rule_parent, rules_file_source
from indexer.documents.references import rule_sort_key

from .catalogue import Catalogue
from .lookups import is_titled_rule


@dataclass(frozen=True)
class Section:
    """A section (`510`) and its rules (`510.1`, `510.2`: not their subrules)."""

    record: Record
    rules: tuple[Record, ...]


@dataclass(frozen=True)
class Chapter:
    """A part of the book (`5`, "Turn Structure"), its title per language, its sections."""

    number: str
    title: dict[str, str]
    sections: tuple[Section, ...]


def level(number: str) -> int:
    """0 for a section (510), 1 for a rule (510.1), 2 for a subrule (510.1a)."""
    if "." not in number:
        return 0
    return 2 if number[-1].isalpha() else 1


class Book:
    """The book of each edition the index has a rules file of. Its orders are made when first
    asked, one list per edition and level: a few thousand numbers each."""

    def __init__(self, catalogue: Catalogue, sources: dict[str, dict]):
        self.catalogue = catalogue
        self._sources = {s["edition"]: s for s in sources.values()
                         if s.get("family") == RULES_FAMILY and s.get("edition")}
        # edition -> level -> its numbers in rule order
        self._orders: dict[tuple[str, int], list[str]] = {}

    @property
    def editions(self) -> list[str]:
        """The editions with a rules file, newest first."""
        return sorted(self._sources, reverse=True)

    def edition(self, value: str | None) -> str | None:
        """The edition a reader names (`2016`, `2016-09-30`, a document's label), today's
        when none is named; None when no rules file of it is in the index."""
        if not value:
            return self.catalogue.current_edition if self.catalogue.current_edition in self._sources else None
        named = self.catalogue.edition_named(value)
        return next((e for e in self.editions if e.startswith(named)), None)

    def contents(self, edition: str) -> list[Chapter]:
        """The edition's chapters with their sections and rules, in the book's order."""
        source = rules_file_source(edition)
        titles = self._sources[edition].get("chapters", {})
        chapters: dict[str, list[Section]] = {}
        for record in self.catalogue.records_of_source(source):
            number = record.number or ""
            if record.kind == "rule" and number and level(number) == 0:
                rules = tuple(self.catalogue.children(number, edition, source))
                chapters.setdefault(number[0], []).append(Section(record, rules))
        return [Chapter(number, dict(titles.get(number, {})), tuple(sections)) for number, sections in chapters.items()]

    def chapter(self, number: str, edition: str) -> tuple[str, dict[str, str]] | None:
        """The chapter a rule is in (`7`, its title per language), None in an edition
        without a rules file."""
        if edition not in self._sources:
            return None
        first = number[0]
        return first, dict(self._sources[edition].get("chapters", {}).get(first, {}))

    def section(self, number: str, edition: str) -> Record | None:
        """The section record a rule belongs to (`510` for 510.1a), from the rules file."""
        found = self.catalogue.rule_records(number.split(".")[0], edition)
        return found[0] if found and found[0].edition == edition else None

    def steps(self, number: str, edition: str) -> tuple[Record | None, Record | None]:
        """The rules before and after one, as the book is read: a section steps to the next
        section, a rule to the next rule (across sections: 509's last rule to 510.1; its own
        subrules are on its page), a subrule to whatever follows it (702.30g to 702.31)."""
        if level(number) == 2:
            return self.catalogue.neighbours(number, edition)
        before, after = self._around(number, edition)
        return self._first(before, edition), self._first(after, edition)

    def nearest(self, number: str, edition: str) -> list[Record]:
        """The rules nearest to a number the edition does not have (702.999): the closest
        section or rule above it that exists (702), and the rules of its level just before
        and after it (702.190, 703.1)."""
        up = rule_parent(number)
        while up and not self.catalogue.rule_records(up, edition):
            up = rule_parent(up)
        found = [self._first(up, edition), *(self._first(n, edition) for n in self._around(number, edition))]
        return list({r.id: r for r in found if r is not None and r.edition == edition}.values())

    def _around(self, number: str, edition: str) -> tuple[str | None, str | None]:
        """The numbers of the same level just before and after `number` in `edition`."""
        depth = level(number)
        order = self._orders.get((edition, depth))
        if order is None:
            numbers = [n for n in self.catalogue.numbers_of(edition) if level(n) == depth]
            order = self._orders[(edition, depth)] = sorted(numbers, key=rule_sort_key)
        at = bisect.bisect_left(order, rule_sort_key(number), key=rule_sort_key)
        following = at + 1 if at < len(order) and order[at] == number else at
        return (order[at - 1] if at > 0 else None), (order[following] if following < len(order) else None)

    def _first(self, number: str | None, edition: str) -> Record | None:
        found = self.catalogue.rule_records(number, edition) if number else []
        return found[0] if found else None

    def descendants(self, number: str, edition: str) -> list[Record]:
        """A section's or rule's rules and subrules in the book's order (one record per
        number: the rules file's, else the first document's that quotes it)."""
        out: list[Record] = []
        for child in self._children(number, edition):
            out.append(child)
            if child.number and level(child.number) == 1:
                out.extend(self._children(child.number, edition))
        return out

    def _children(self, number: str, edition: str) -> list[Record]:
        children: list[Record] = []
        for child in self.catalogue.children(number, edition):  # the rules file's record first per number
            if not children or children[-1].number != child.number:
                children.append(child)
        return children

    def glossary(self, edition: str) -> list[Record]:
        """The edition's glossary entries, as its rules file lists them."""
        return [r for r in self.catalogue.records_of_source(rules_file_source(edition)) if r.kind == "term"]

    def readings(self, edition: str) -> dict[str, str]:
        """The Chinese glossary names of an edition by their reading (`chong2 sheng1`)."""
        return self._sources.get(edition, {}).get("readings", {})


def own_title(record: Record) -> dict[str, str]:
    """A rule's own title (702.79 "Persist"), empty for a numbered paragraph (510.1), which
    carries its section's title only to be found by it."""
    return dict(record.title) if is_titled_rule(record) or level(record.number or "") == 0 else {}

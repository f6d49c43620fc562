"""One rule across editions of the Comprehensive Rules: what a number names in each edition,
where a keyword's rule moved, and how its text changed.

A rule number means something only within its edition: 702.79 is devour in 2009 and persist
in 2026. So every function here keys rules by (edition, number), and follows one rule from
edition to edition by its keyword identity (`persist`: 502.79, 702.76, 702.78, 702.79), not
by its number. The records may come from any source: the rules files themselves, or a FAQ
quoting the rules of its day (the Shadowmoor FAQ's 502.79 titled 留存, keyword `persist`).
Where both speak for one (edition, number), the rules file's record does: a quotation may be
partial.
"""
from __future__ import annotations

import difflib
import re
from collections import defaultdict
from dataclasses import dataclass

from indexer.documents.records import Record, from_rules_file, rule_heading
from indexer.documents.script_ranges import HAN

# A diff token: one CJK character, one Latin word (with inner apostrophes), a run of spaces,
# or any other single character. Chinese is compared by characters, English by words.
_DIFF_UNIT = re.compile(rf"[{HAN}]|(?:(?![{HAN}])[^\W_])+(?:['’](?:(?![{HAN}])[^\W_])+)*|\s+|.", re.S)


@dataclass(frozen=True)
class Version:
    """One rule as one edition has it."""

    edition: str
    number: str
    record: Record

    @property
    def name(self) -> str:
        """What the number names in this edition: its English title, else its keyword, else
        any title it has (`Persist`, `Devour`, `留存`)."""
        title = self.record.title
        return title.get("en") or self.record.keyword or next(iter(title.values()), "")

    @property
    def text(self) -> dict[str, str]:
        return self.record.text


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


class EditionTables:
    """The records' rules by edition, made once (when a build opens), so that every question
    below is a few dict look-ups however many editions and rules there are."""

    def __init__(self, records: list[Record]):
        self.index = by_edition(records)
        # number -> the editions that have it, oldest first
        self._holders: dict[str, list[str]] = defaultdict(list)
        for edition, number in sorted(self.index):
            self._holders[number].append(edition)
        # keyword -> edition -> (not from the rules file, heading number): the best per edition
        found: dict[str, dict[str, tuple[bool, str]]] = defaultdict(dict)
        for record in records:
            if not record.number or not record.edition or not record.keyword:
                continue
            per_edition = found[record.keyword.lower()]
            candidate = (not from_rules_file(record), rule_heading(record.number))
            if record.edition not in per_edition or candidate < per_edition[record.edition]:
                per_edition[record.edition] = candidate
        self._keyword_numbers = {keyword: {edition: per_edition[edition][1] for edition in sorted(per_edition)}
                                 for keyword, per_edition in found.items()}

    def editions_of(self, number: str) -> list[Version]:
        """Every edition that has rule `number`, oldest first, each with what the number names there."""
        number = number.lower()
        return [Version(edition, number, self.index[(edition, number)]) for edition in self._holders.get(number, [])]

    def keyword_numbers(self, keyword: str) -> dict[str, str]:
        """edition -> the number of the keyword's rule in that edition, oldest edition first
        (`persist`: 2008-05-01 502.79, 2009-07-11 702.76, ..., 2026-04-17 702.79)."""
        return dict(self._keyword_numbers.get(keyword.lower(), {}))

    def rule_history(self, number: str, edition: str | None = None) -> list[Version]:
        """Rule `number` of `edition` (default: the latest edition that has it) in every edition
        where it exists, oldest first. A rule with a keyword is followed by its keyword, a subrule
        by its keyword and letter (persist's 702.79a is 702.76a in 2009); any other rule by its
        number. Empty when no edition has the rule."""
        number = number.lower()
        holders = self._holders.get(number, [])
        if edition is None and holders:
            edition = holders[-1]
        record = self.index.get((edition, number)) if edition is not None else None
        if record is None:
            return []
        if not record.keyword:
            return self.editions_of(number)
        suffix = number[len(rule_heading(number)):]
        versions = []
        for e, heading in self.keyword_numbers(record.keyword).items():
            found = self.index.get((e, heading + suffix))
            if found is not None and (found.keyword or "").lower() == record.keyword.lower():
                versions.append(Version(e, heading + suffix, found))
        return versions


def editions_of(records: list[Record], number: str) -> list[Version]:
    """`EditionTables.editions_of` over `records`."""
    return EditionTables(records).editions_of(number)


def keyword_numbers(records: list[Record], keyword: str) -> dict[str, str]:
    """`EditionTables.keyword_numbers` over `records`."""
    return EditionTables(records).keyword_numbers(keyword)


def rule_history(records: list[Record], number: str, edition: str | None = None) -> list[Version]:
    """`EditionTables.rule_history` over `records`."""
    return EditionTables(records).rule_history(number, edition)


def tokens(text: str) -> list[str]:
    """The units a diff compares: English words, single Chinese characters, spaces, punctuation."""
    return _DIFF_UNIT.findall(text)


def word_diff(old: str, new: str) -> list[tuple[str, str]]:
    """How `new` differs from `old`, as (op, text) pieces with op "equal", "delete" or
    "insert"; joining the equal and delete pieces gives `old`, the equal and insert ones `new`."""
    a, b = tokens(old), tokens(new)
    pieces: list[tuple[str, str]] = []

    def emit(op: str, words: list[str]) -> None:
        if not words:
            return
        if pieces and pieces[-1][0] == op:
            pieces[-1] = (op, pieces[-1][1] + "".join(words))
        else:
            pieces.append((op, "".join(words)))

    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            emit("equal", a[i1:i2])
        else:
            emit("delete", a[i1:i2])
            emit("insert", b[j1:j2])
    return pieces

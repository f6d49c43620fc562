"""Where each record goes among results, worked out once when the build opens.

Its group (a rule with its subrules, editions and quotations is one result), today's twin of
an older edition's record, its place in rule order and how new it is: every query's
candidates ask for these, so the ranking reads them by position, as arrays (`*_at`).
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np

from indexer.documents.ingest import GLOSSARY_SOURCE
from indexer.documents.obsolete_terms import OBSOLETE_MARK
from indexer.documents.records import Record, from_rules_file, rule_heading, rule_parent
from indexer.documents.references import rule_sort_key
from indexer.search.folding import fold_key
from indexer.search.lineage import record_key

from .lookups import RuleLookups, card_key, is_titled_rule


def _newness(record: Record) -> tuple[str, bool]:
    """What makes a record its group's leader: the newest edition, then the rules file's own."""
    return record.edition or "", from_rules_file(record)


def _numbered(keys: list[tuple]) -> np.ndarray:
    """Group keys as numbers, one a key, in the order they first come: what collapsing the
    ranked records into results compares (`grouping`)."""
    numbers: dict[tuple, int] = {}
    return np.array([numbers.setdefault(key, len(numbers)) for key in keys], np.int64)


def only_heading(record: Record) -> bool:
    """Whether a rule is only its heading (502 Untap Step, 702.79 Persist): no language's text
    says more than its title, and it has no rulings or examples of its own."""
    if record.kind != "rule":
        return False
    titles = {t.strip() for t in record.title.values()}
    return (not (record.rulings or record.examples or record.abilities)
            and all(not t.strip() or t.strip() in titles for t in record.text.values()))


def _quotations_by_rule(records: list[Record]) -> dict[tuple, list[Record]]:
    """The documents' rules (a FAQ's quotation, its rulings), by (edition, number): they
    follow their rule's lineage to every edition (`quotations`)."""
    quoted: dict[tuple, list[Record]] = defaultdict(list)
    for r in records:
        if r.kind == "rule" and r.edition and not from_rules_file(r):
            quoted[(r.edition, r.number)].append(r)
    return quoted


class Placement:
    """Each record's group, today's twin and order among results, by its position in the build."""

    def __init__(self, lookups: RuleLookups, records: list[Record]):
        self.lookups = lookups
        self._quoted = _quotations_by_rule(records)
        self._place_in_results(records)

    def _place_in_results(self, records: list[Record]) -> None:
        """Each record's group, today's twin of a superseded record and place in rule order,
        worked out once when the build opens: every query's candidates ask for all three,
        and worked out on first use they made a new candidate's first query slower. The
        ranking reads them by position, as arrays (`*_at`)."""
        self.group_keys = {r.id: self._group_key(r) for r in records}
        self.superseded_at = np.array([self.lookups.superseded(r) for r in records], bool)
        self.twin_at = np.full(len(records), -1, np.int64)  # -1: none
        for n in np.flatnonzero(self.superseded_at).tolist():
            twin = self._twin_today(records[n])
            if twin is not None:
                self.twin_at[n] = self.lookups.positions[twin.id]
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
            children = self.lookups.children(r.number, r.edition, r.source) if r.number and "." in r.number else []
            if children:
                self.definition_at[n] = self.lookups.positions[children[0].id]

    def group_key(self, record: Record) -> tuple:
        """What makes records one result: a rule with its subrules, in every edition and
        quotation (a keyword's rule by its keyword, as its number moved; another rule by its
        number and heading, as the rules file of its edition has them); a glossary entry in
        every edition of the rules and in the project glossary, by its English name; a card
        in every document that has it, by its English name; any other record alone."""
        return self.group_keys[record.id]

    def _group_key(self, record: Record, lift: bool = True) -> tuple:
        """`group_key`; with `lift` False a numbered paragraph (405.1) keeps its own group
        instead of its titled rule's (405 Stack): what a question's results are grouped by."""
        if record.kind == "rule" and record.number:
            heading = rule_heading(record.number)
            official = self.lookups.official(heading, record.edition)
            basis = official or next((r for r in self.lookups.by_number.get(heading, ())
                                      if (r.source, r.edition) == (record.source, record.edition)), None)
            if lift and "." in heading and basis is not None and not is_titled_rule(basis):
                # A numbered paragraph (405.1 under 405 Stack), not a titled rule (702.79 Persist).
                heading = rule_parent(heading) or heading
                official = self.lookups.official(heading, record.edition)
            for basis in (record, official):
                keyword = basis and self.lookups.keyword_rules.get((basis.source, heading))
                if keyword:
                    return ("keyword-rule", keyword)
            basis = official or record
            return ("rule", heading, basis.keyword or fold_key(next(iter(basis.title.values()), "")))
        if (card := card_key(record)) is not None:
            # A set FAQ's card and the same card of Scryfall's data are one card, one result.
            return ("card", card)
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
            if record.edition == self.lookups.current_edition:
                return ("subrule", record.number)
            twin = int(self.twin_at[position])
            if twin >= 0 and self.lookups.by_position[twin].number:
                return ("subrule", self.lookups.by_position[twin].number)
        return ("paragraph", int(self.paragraph_group_at[position]))

    def current_twin(self, record: Record) -> Record | None:
        """Today's record of the same rule or glossary entry as a superseded one (702.79 for
        2008's 502.79 Persist), or None (as worked out when the build opened)."""
        at = self.twin_at[self.lookups.positions[record.id]]
        return self.lookups.by_position[at] if at >= 0 else None

    def _twin_today(self, record: Record) -> Record | None:
        """`current_twin`, worked out: where the lineage takes the record's rule or entry in
        today's edition, when that is the same result (its group)."""
        found = self.today_of(record)
        twin = self.lookups.records[found["id"]] if found and "id" in found else None
        return twin if twin is not None and self.group_key(twin) == self.group_key(record) else None

    def today_of(self, record: Record) -> dict | None:
        """Where the lineage takes an older edition's rule or glossary entry in today's
        edition ({"edition", "number", "id"}: 2008's 104.3f is 107.4e; with "also", the
        others it was split into: [{"number", "id"}]), or where it ended ({"edition", "ended":
        {"last", "last_number", "gone_in"}}: 2008's 300.3); None for today's records and
        records no lineage holds."""
        key, today = record_key(record), self.lookups.current_edition
        if not key or not record.edition or not today or record.edition == today:
            return None
        editions = self.lookups.editions
        twins = [twin for now in editions.follow_all(record.edition, key, today)
                 if (twin := editions.record(today, now)) is not None]
        if twins:
            found: dict = {"edition": today, "number": twins[0].number, "id": twins[0].id}
            if len(twins) > 1:
                found["also"] = [{"number": twin.number, "id": twin.id} for twin in twins[1:]]
            return found
        ending = editions.ending(record.edition, key)
        return {"edition": today, "ended": ending} if ending else None

    def quotations(self, record: Record) -> list[Record]:
        """The documents' records of the same rule in any edition (the keyword digest's 702.79
        of 2009 for today's 702.82 Devour): the rule's own (edition, number) and every one
        its lineage reaches, oldest edition first."""
        if not record.edition or not record.number:
            return []
        return [r for e, n, _ in self.lookups.editions.lineage_of(record.edition, record.number)
                for r in self._quoted.get((e, n), [])]

    def ruled_records(self, record: Record) -> list[Record]:
        """`quotations` that carry rulings (the Shadowmoor FAQ's 502.79 for today's 702.79
        Persist)."""
        return [r for r in self.quotations(record) if r.rulings]

"""Rule numbers: a number (or several typed together, or a range) lists its rules, their
subrules and what quotes them; rules named among other words come before what the words find
(stages jump, named_rules)."""
from __future__ import annotations

from typing import Any

import numpy as np

from indexer.documents.records import Record
from indexer.documents.references import rule_sort_key
from indexer.search.query import ParsedQuery

from ..catalogue import Catalogue
from ..display import record_title
from ..stages import Stages
from .scoring import Ranked, passes


class RuleJumps:
    def __init__(self, catalogue: Catalogue, stages: Stages):
        self.catalogue, self.stages = catalogue, stages

    def rule_jump(self, parsed: ParsedQuery) -> tuple[Ranked, dict | None]:
        """A rule number: that rule first (then the rest of a range: 702.30a-c), then its
        subrules, then what quotes it; with the answer's `rule_jump` (None when no edition has
        the number under the filters), which names a range's `end`. Rule numbers typed
        together (702.19b 702.2c): each rule and range in turn, then their subrules, then what
        quotes them, with no jump, as the reader asked for more than one rule's page."""
        named = [(parsed.rule_number, parsed.rule_end)] if parsed.rule_number else parsed.rule_list
        heads, ranked = self._rules_named(named, parsed.filters)
        if not heads:
            return np.zeros(0, np.int64), None
        for number, head in heads:
            ranked += [c for c in self.catalogue.children(number, head.edition) if passes(c, parsed.filters)]
        for number, head in heads:
            ranked += [r for r in self.catalogue.referencing(number, head.edition) if passes(r, parsed.filters)]
        return self._positions(ranked), self._jump(heads[0][1], parsed) if parsed.rule_number else None

    def named_first(self, parsed: ParsedQuery, ranked: Ranked) -> tuple[Ranked, frozenset[int]]:
        """The rules a query names among its words (what is 702.19b, 規則 613.4c 的意思) before
        what its words find, and their positions: a rule's text does not hold its own number,
        so the words alone find only the rules that quote it."""
        if not self.stages.on("named_rules"):
            return ranked, frozenset()
        named = self._positions(self._rules_named(parsed.named_rules, parsed.filters)[1])
        if not len(named):
            return ranked, frozenset()
        return np.concatenate([named, ranked[~np.isin(ranked, named)]]), frozenset(named.tolist())

    def _rules_named(self, named: list[tuple[str, str | None]],
                     filters: dict[str, str]) -> tuple[list[tuple[str, Record]], list[Record]]:
        """Each named rule's records under the filters, newest edition first, then the rest of
        its range: the numbers found, each with its first record, and the records in turn."""
        heads: list[tuple[str, Record]] = []
        ranked: list[Record] = []
        for number, end in named:
            records = [r for r in self.catalogue.rule_records(number, filters.get("edition")) if passes(r, filters)]
            if not records:
                continue
            head = records[0]
            heads.append((number, head))
            ranked += records
            if end:
                first, last = rule_sort_key(number), rule_sort_key(end)
                ranked += [r for r in self.catalogue.children(head.parent, head.edition)
                           if first < rule_sort_key(r.number) <= last and passes(r, filters)]
        return heads, ranked

    def _positions(self, records: list[Record]) -> Ranked:
        """Records as their catalogue positions, each once, in order."""
        return np.array(list(dict.fromkeys(self.catalogue.positions[r.id] for r in records)), np.int64)

    def _jump(self, head: Record, parsed: ParsedQuery) -> dict:
        """The answer's `rule_jump` to the rule a query names: the rule opened by Enter."""
        jump: dict[str, Any] = {"number": parsed.rule_number, "edition": head.edition, "id": head.id,
                                "title": record_title(head)}
        today = self.catalogue.placement.today_of(head)
        if today:  # an older edition's number: what the lineage says it is today
            jump["today"] = today
        if parsed.rule_end:
            jump["end"] = parsed.rule_end
        return jump

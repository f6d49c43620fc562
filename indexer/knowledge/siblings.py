"""Siblings: in which order the subrules of one rule come for a question.

A question's results are subrules, each its own result (`Placement.subrule_group_at`); their
siblings are the records of one numbered paragraph or of one keyword's rule
(`Placement.paragraph_group_at`). The
subrules of one rule often hold the same words of a question (every subrule of hexproof holds
"hexproof", three of them "opponents" and "target"), and then what ranks one above another is
the engine's count of those words, which rewards a text repeating them: the variant or the
exception ("hexproof from [quality]"), not the rule that says what the thing is. The rules
are written in an order: a rule's first subrules define it, the later ones add its variants,
exceptions and interactions. So within a group, each candidate's score loses a weight times
its place among its siblings (0 for the first of today's rules of the group, towards 1 for
the last), and the group's scores go to its members in that order: the group keeps the places
its scores earned among the results, and only which of its members comes first changes. A later subrule still
leads when its score is higher by more than the difference of places times the weight.

Measured and not kept (docs/decisions/0038-siblings-order.md): weighing a question's words by how rare
they are among the siblings (a local IDF), and a group's score from its subrules together.
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np

from .catalogue import Catalogue


class Siblings:
    """Each of today's rules' place among its result group's, and a question's candidates
    ordered again within their groups."""

    def __init__(self, catalogue: Catalogue, group_at: np.ndarray):
        members: dict[int, list[int]] = defaultdict(list)
        for at, record in enumerate(catalogue.by_position):
            if record.kind == "rule" and catalogue.of_todays_rules(record):
                members[int(group_at[at])].append(at)
        self._group_at = group_at
        # A rule's place among its group's in rule order, as a share of their number: 0 for the
        # first (and for a record of no group of today's rules).
        self.place = np.zeros(len(catalogue.by_position))
        for found in members.values():
            group = np.array(found, np.int64)
            self.place[group] = np.argsort(np.argsort(catalogue.placement.rule_order_at[group])) / len(group)

    def reorder(self, positions: np.ndarray, scores: np.ndarray, weight: float) -> np.ndarray:
        """The candidates' scores (positions) with each group's members ordered again by their
        score less `weight` times their place: the group's scores, best first, go to its
        members in that order."""
        out = scores.copy()
        groups = self._group_at[positions]
        shared, counts = np.unique(groups, return_counts=True)
        for group in shared[counts > 1].tolist():
            mine = np.flatnonzero(groups == group)
            order = mine[np.argsort(-(scores[mine] - weight * self.place[positions[mine]]), kind="stable")]
            out[order] = np.sort(scores[mine])[::-1]
        return out

"""One result per rule: a rule with its subrules, its other editions and the documents
quoting it, led by the best-ranked record of the newest edition.

A keyword's rule is the same rule in every edition even when its number moved (persist is
502.79 in 2008 and 702.79 in 2026), so it groups by keyword; another rule groups by its number
without subrule letters and its heading (`Placement.group_key`). A numbered paragraph (117.3)
is part of its titled rule's result (117 Timing and Priority), except for a question, which
asks about one subrule: then each subrule is its own result, or the answer hides in the group
of a better-ranked subrule of the same rule.

A search limited to an edition is that edition's records, each its own result (`apart`):
the edition is read whole, and its count is what its text holds.

Records are named by their positions, and groups by numbers (`Placement.group_at`): a loop
over a few hundred ints, where numpy's sorts cost more for the few candidates of most
queries on the documents alone.
"""
from __future__ import annotations

import numpy as np

from .catalogue import Catalogue


def representative(members: list[int], newness: list[int]) -> int:
    """The record a result shows for its group (positions in ranked order): the best-ranked
    one of the newest edition, the rules file's own before a quotation (`newness`, by
    position: `Placement.newness_at`)."""
    return max(members, key=newness.__getitem__)


class EditionGrouping:
    def __init__(self, catalogue: Catalogue):
        self.catalogue = catalogue
        self._newness = catalogue.placement.newness_at.tolist()

    def collapse(self, ranked: np.ndarray, group_at: np.ndarray | None = None) -> list[list[int]]:
        """Ranked records (positions, best first) as groups in rank order, each a list of
        positions led by its representative. `group_at`: each record's group, by default
        `Placement.group_at`; a question's is finer (`Placement.subrule_group_at`)."""
        if group_at is None:
            group_at = self.catalogue.placement.group_at
        groups: dict[int, list[int]] = {}
        for at, key in zip(ranked.tolist(), group_at[ranked].tolist(), strict=True):
            members = groups.get(key)
            if members is None:
                groups[key] = [at]
            else:
                members.append(at)
        out = []
        for members in groups.values():
            if len(members) > 1:
                best = representative(members, self._newness)
                if best != members[0]:
                    members = [best] + [m for m in members if m != best]
            out.append(members)
        return out

    @staticmethod
    def apart(ranked: np.ndarray) -> list[list[int]]:
        """Ranked records (positions, best first), each its own group: what a search limited
        to one edition shows, every rule and subrule of it that matched."""
        return [[at] for at in ranked.tolist()]

"""One result per rule: a rule with its subrules, its other editions and the documents
quoting it, led by the best-ranked record of the newest edition.

A keyword's rule is the same rule in every edition even when its number moved (persist is
502.79 in 2008 and 702.79 in 2026), so it groups by keyword; another rule groups by its number
without subrule letters and its heading (`Catalogue.group_key`).

The ranked records are positions in an array, and so are the groups: an answer counts all
of them and shows ten, so only the groups shown are made into lists of records.
"""
from __future__ import annotations

import numpy as np

from indexer.documents.records import Record

from .catalogue import Catalogue


class Groups:
    """Ranked records collapsed into groups, in the order of their best-ranked member."""

    def __init__(self, catalogue: Catalogue, leaders: np.ndarray, members: np.ndarray, starts: np.ndarray,
                 chosen: np.ndarray):
        self._catalogue = catalogue
        self._leaders = leaders  # each group's representative, by position
        self._members = members  # every group's members in rank order, one group after another
        self._starts = starts  # where each group's members start in `_members`, and the end
        self._chosen = chosen  # the groups these are, in order
        self.leaders = leaders[chosen]

    def __len__(self) -> int:
        return len(self._chosen)

    def members(self, i: int) -> list[Record]:
        """The i-th group's records: its leader, then the others in rank order."""
        group = self._chosen[i]
        lead = int(self._leaders[group])
        by_position = self._catalogue.by_position
        rest = self._members[self._starts[group]:self._starts[group + 1]].tolist()
        return [by_position[lead]] + [by_position[at] for at in rest if at != lead]

    def only(self, keep: np.ndarray) -> Groups:
        """The groups where `keep` (one flag a group) is true, in the same order."""
        return Groups(self._catalogue, self._leaders, self._members, self._starts, self._chosen[keep])


class EditionGrouping:
    def __init__(self, catalogue: Catalogue):
        self.catalogue = catalogue

    def collapse(self, ranked: np.ndarray) -> Groups:
        """Ranked records (positions, best first) as groups in rank order, each led by its
        representative: the best-ranked member of the newest edition, the rules file's own
        before a quotation (`Catalogue.newness_at`)."""
        catalogue = self.catalogue
        group = catalogue.group_at[ranked]
        _, first, of_entry = np.unique(group, return_index=True, return_inverse=True)
        # Groups numbered in the order their first member is ranked.
        number = np.empty(len(first), np.int64)
        number[np.argsort(first)] = np.arange(len(first))
        group = number[of_entry.reshape(-1)]
        in_rank_order = np.argsort(group, kind="stable")
        starts = np.searchsorted(group[in_rank_order], np.arange(len(first) + 1))
        newest_first = np.lexsort((np.arange(len(ranked)), -catalogue.newness_at[ranked], group))
        return Groups(catalogue, ranked[newest_first[starts[:-1]]], ranked[in_rank_order], starts,
                      np.arange(len(first)))

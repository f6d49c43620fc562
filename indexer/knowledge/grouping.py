"""One result per rule: a rule with its subrules, its other editions and the documents
quoting it, led by the best-ranked record of the newest edition.

A keyword's rule is the same rule in every edition even when its number moved (persist is
502.79 in 2008 and 702.79 in 2026), so it groups by keyword; another rule groups by its number
without subrule letters and its heading (`Catalogue.group_key`).
"""
from __future__ import annotations

from indexer.documents.records import Record

from .catalogue import Catalogue


def representative(members: list[Record]) -> Record:
    """The record a result shows for its group (members in ranked order): the best-ranked one
    of the newest edition, the rules file's own before a quotation."""
    return max(members, key=lambda r: (r.edition or "", r.source.startswith("cr-")))


class EditionGrouping:
    def __init__(self, catalogue: Catalogue):
        self.catalogue = catalogue

    def collapse(self, ranked: list[tuple[Record, float]]) -> list[list[Record]]:
        """Ranked records as groups in rank order, each led by its representative."""
        groups: dict[tuple, list[Record]] = {}
        keys = self.catalogue.group_keys
        for record, _ in ranked:
            key = keys[record.id]
            members = groups.get(key)
            if members is None:
                groups[key] = [record]
            else:
                members.append(record)
        out = []
        for members in groups.values():
            if len(members) > 1:
                best = representative(members)
                if best is not members[0]:
                    members = [best] + [m for m in members if m is not best]
            out.append(members)
        return out

"""One result per rule across editions: the newest edition first, the others beside it.

A keyword's rule is the same rule in every edition even when its number moved (persist is
502.79 in 2008 and 702.79 in 2026), so rules group by keyword and position in the keyword's
tree; a rule without a keyword groups by number.
"""
from __future__ import annotations

import re

from indexer.documents.records import Record
from indexer.search.folding import fold_key

_LEADING_NUMBER = re.compile(r"^\d+(\.\d+)?")


def edition_group(record: Record) -> tuple:
    """What a record shares with its other editions (the record itself when it has none)."""
    if record.kind == "rule" and record.keyword:
        suffix = _LEADING_NUMBER.sub("", record.number or "")
        depth = (record.number or "").count(".")
        return ("rule", record.keyword, depth, suffix)
    if record.kind == "rule":
        return ("rule-number", record.number)
    if record.kind == "term" and record.source.startswith("cr-"):
        return ("cr-term", fold_key(record.names.get("en", record.id)))
    return ("record", record.id)


class EditionGrouping:
    def __init__(self):
        # Each record's group, remembered: at most one entry per record of the build.
        self._groups: dict[str, tuple] = {}

    def collapse(self, ranked: list[tuple[Record, float]]) -> list[list[Record]]:
        """Ranked records as groups in rank order, each led by its newest edition (the rules
        file's record before a document quoting it)."""
        groups: dict[tuple, list[Record]] = {}
        for record, _ in ranked:
            key = self._groups.get(record.id)
            if key is None:
                key = self._groups[record.id] = edition_group(record)
            groups.setdefault(key, []).append(record)
        out = []
        for members in groups.values():
            if len(members) > 1:
                best = max(members, key=lambda r: (r.edition or "", r.source.startswith("cr-")))
                members = [best] + [m for m in members if m is not best]
            out.append(members)
        return out

"""One build's records and every table the service reads them by, made once when the build opens.

The look-ups by number, name and title (`RuleLookups`), where each record goes among results
(`Placement`: its group, today's twin, its place in rule order) and today's glossary terms as
queries name them (`ConceptTables`), in the order each needs the ones before it.
"""
from __future__ import annotations

from collections.abc import Iterable

from indexer.documents.records import Record
from indexer.search.lineage import Edge
from indexer.search.record_lines import RecordLines

from .concepts import ConceptTables
from .lookups import RuleLookups
from .placement import Placement


class Catalogue(RuleLookups):
    def __init__(self, records: list[Record], folded_texts: RecordLines, marking_lines: RecordLines,
                 edition_labels: dict[str, str] | None = None, lineage: Iterable[Edge] = ()):
        super().__init__(records, folded_texts, marking_lines, edition_labels, lineage)
        self.placement = Placement(self, records)
        self.concepts = ConceptTables(self, self.placement, records)

"""A search result as the API returns it: the record's fields in the reader's script, its
snippet, its address and the same rule in other editions."""
from __future__ import annotations

from indexer.documents.memo import bounded_cache
from indexer.documents.records import Record, from_rules_file
from indexer.documents.references import rule_sort_key
from indexer.search.engine import EngineQuery

from .catalogue import Catalogue
from .display import display, display_title, names_in_all_scripts, plain_text
from .snippets import Snippets


class Results:
    def __init__(self, catalogue: Catalogue, sources: dict[str, dict], snippets: Snippets, cache_bytes: int):
        self.catalogue = catalogue
        self.sources = sources
        self.snippets = snippets
        # The fields that depend on the record and the script only, remembered: the same
        # records answer many queries (answers are shared: read only).
        self._fields = bounded_cache(cache_bytes)(self._describe)

    def result(self, group: list[Record], engine_query: EngineQuery, script: str | None) -> dict:
        """A result: the group's first record, whether it is of today's rules (`current`; None
        for a document's record), the other subrules of its rule that matched (`subrules`, in
        rule order) and the rule in other editions or documents (`other_editions`, one each)."""
        record = group[0]
        snippet, snippet_lang = self.snippets.snippet(record, engine_query, script)
        fields, source = self._fields(record.id, script)
        own = (record.edition, record.source)
        same: list[Record] = []
        others: dict[tuple, Record] = {}
        for r in group[1:]:
            key = (r.edition, r.source)
            if key == own:
                same.append(r)
            elif key not in others:
                others[key] = r
        if len(same) > 1:
            same.sort(key=lambda r: rule_sort_key(r.number or ""))
        return {
            **fields,
            "current": record.edition == self.catalogue.current_edition if from_rules_file(record) else None,
            "snippet": snippet,
            "snippet_lang": snippet_lang,
            "source": source,
            "subrules": [{"id": r.id, "rule": r.number} for r in same],
            "other_editions": [
                {"id": r.id, "edition": r.edition, "rule": r.number, "source": r.source}
                for r in others.values()
            ],
        }

    def _describe(self, record_id: str, script: str | None) -> tuple[dict, dict]:
        """The record's fields as a result starts with them, and its source."""
        record = self.catalogue.records[record_id]
        source = self.sources.get(record.source, {})
        return ({
            "id": record.id,
            "kind": record.kind,
            "rule": record.number,
            "edition": record.edition,
            "title": display_title(record, script),
            "names": names_in_all_scripts(record.names if record.kind != "rule" else record.title),
            "text": plain_text(record, script),
        }, {"id": record.source, "title": display(source.get("title", record.source), "zh_hant", script)})

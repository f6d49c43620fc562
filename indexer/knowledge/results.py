"""A search result as the API returns it: the record's fields in the reader's script, its
snippet, its address and the same rule in other editions."""
from __future__ import annotations

from indexer.documents.bounded_cache import bounded_cache
from indexer.documents.records import Record, from_rules_file
from indexer.documents.references import rule_sort_key
from indexer.search.engine import EngineQuery

from .catalogue import Catalogue
from .display import display_title, in_script, names_in_all_scripts, plain_text
from .snippets import SnippetPlan, Snippets


class Results:
    def __init__(self, catalogue: Catalogue, sources: dict[str, dict], snippets: Snippets, cache_bytes: int):
        self.catalogue = catalogue
        self.sources = sources
        self.snippets = snippets
        # What depends on the record and the script only, remembered: the same records
        # answer many queries (answers are shared: read only).
        self._fields = bounded_cache(cache_bytes)(self._describe)

    def plan(self, engine_query: EngineQuery) -> SnippetPlan:
        """What the snippets of a page of results for `engine_query` look for and mark,
        worked out once for the page (`Snippets.plan`)."""
        return self.snippets.plan(engine_query)

    def result(self, group: list[Record], plan: SnippetPlan, script: str | None) -> dict:
        """A result: the group's first record, whether it is of today's rules (`current`; None
        for a document's record), the other subrules of its rule that matched (`subrules`, in
        rule order) and the rule in other editions or documents (`other_editions`, one each)."""
        record = group[0]
        fields, source, shown, current, definition = self._fields(record.id, script)
        snippet, snippet_lang = self.snippets.snippet(shown, plan, script, fields["text"])
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
            "current": current,
            "snippet": snippet,
            "snippet_lang": snippet_lang,
            "definition": definition,
            "source": source,
            "subrules": [{"id": r.id, "rule": r.number} for r in same],
            "other_editions": [
                {"id": r.id, "edition": r.edition, "rule": r.number, "source": r.source}
                for r in others.values()
            ],
        }

    def answering(self, group: list[Record]) -> list[Record]:
        """A group as it answers a query asking about its rule (what is ward, 重生是怎么回事):
        a heading rule shown by its definition (701.19 Regenerate, shown by 701.19a's text)
        is that subrule, as a question's result is the subrule that answers it; the heading,
        which says nothing more, is left out, and another edition is shown by its subrules
        before its heading. Any other group as it is."""
        definition = self._definition(group[0])
        if definition is None:
            return group
        rest = [r for r in group[1:] if r.id != definition.id]
        heading_at, positions = self.catalogue.placement.heading_at, self.catalogue.positions
        return [definition, *sorted(rest, key=lambda r: bool(heading_at[positions[r.id]]))]

    def _definition(self, record: Record) -> Record | None:
        """The subrule a heading rule is defined by (702.79a of 702.79 Persist): its first
        subrule, for a rule whose text is only its title (`Placement.definition_at`); else None."""
        at = int(self.catalogue.placement.definition_at[self.catalogue.positions[record.id]])
        return self.catalogue.by_position[at] if at >= 0 else None

    def _describe(self, record_id: str, script: str | None) -> tuple[dict, dict, Record, bool | None, str | None]:
        """What a result shows of its record whatever the query: the fields it starts with
        (an older edition's rule with what it is in today's rules, `today`: 2008's 502.79 is
        702.79, as its page says), its source, the record its snippet is taken from, whether
        it is of today's rules and the number of its definition. A keyword's heading (702.79 Persist) is shown
        with what it means: its first subrule's text (702.79a), not only its name, and its
        snippet is taken from that subrule."""
        record = self.catalogue.records[record_id]
        source = self.sources.get(record.source, {})
        definition = self._definition(record)
        shown = definition if definition is not None else record
        return ({
            "id": record.id,
            "kind": record.kind,
            "rule": record.number,
            "edition": record.edition,
            "title": display_title(record, script),
            "names": names_in_all_scripts(record.names if record.kind != "rule" else record.title),
            "text": plain_text(shown, script),
            "today": self.catalogue.placement.today_of(record) if record.kind == "rule" else None,
        }, {"id": record.source, "title": in_script(source.get("title", record.source), script)}, shown,
            record.edition == self.catalogue.current_edition if from_rules_file(record) else None,
            definition.number if definition is not None else None)

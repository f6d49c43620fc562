"""Where a record lives on the site: the one place a record's address is made.

The knowledge base answers with record ids; pages, the JSON API, the forum linker, the embed
script's previews and the offline copy take each record's address from here, so a route that
moves changes in one place.
"""
from __future__ import annotations

import bisect

from indexer.documents.records import Record
from indexer.knowledge.library import Library

# A result's lists of other records, after its own fields.
_LISTS = ("subrules", "other_editions")
# Records on one page of a document (webapp.source_pages): a page of the longest records (a
# rules file's keyword abilities, in Chinese and English) stays within a request's CPU budget.
PAGE_RECORDS = 40


def record_url(record: Record) -> str:
    """A rule of a named edition keeps it in the address (a bare number is today's rule)."""
    if record.kind == "rule":
        return f"/rules/{record.number}?edition={record.edition}" if record.edition else f"/rules/{record.number}"
    if record.kind == "card":
        return f"/cards/{record.id}"
    if record.kind == "planar_card":
        return f"/planes/{record.id}"
    if record.kind == "term":
        return f"/terms/{record.id}"
    return f"/sources/{record.source}#{record.id}"


def _document_order(record: Record) -> tuple[int, str]:
    return record.offset, record.id


def page_of(library: Library, record: Record) -> int | None:
    """The page of its document a record is on (from 1), or None when the document is one
    page; found by bisection, as the catalogue keeps a document's records in this order."""
    records = library.records_of_source(record.source)
    if len(records) <= PAGE_RECORDS:
        return None
    return bisect.bisect_left(records, _document_order(record), key=_document_order) // PAGE_RECORDS + 1


def page_url(source_id: str, page: int | None) -> str:
    return f"/sources/{source_id}?page={page}" if page else f"/sources/{source_id}"


def source_url(library: Library, record: Record) -> str:
    """Where a record is shown in its document: its page, at its anchor. (A section's own
    address, `record_url`, is its anchor in the document's contents, which link its page.)"""
    return f"{page_url(record.source, page_of(library, record))}#{record.id}"


def with_url(library: Library, item: dict) -> dict:
    """A copy of an answer's item (anything naming a record by `id`) with that record's `url`:
    answers are shared by the library's caches, so they are never changed in place."""
    return {**item, "url": record_url(library.records[item["id"]])}


def addressed(library: Library, answer: dict) -> dict:
    """A search answer with the address of every record it names: each result (its `url`
    after its own fields), its subrules and other editions, the rule jump, the cards the
    query named and the suggestions."""
    out = dict(answer)
    out["results"] = [_addressed_result(library, r) for r in answer["results"]]
    if answer.get("cards"):
        out["cards"] = [with_url(library, card) for card in answer["cards"]]
    if answer.get("rule_jump"):
        out["rule_jump"] = _with_today(library, with_url(library, answer["rule_jump"]))
    if answer.get("suggestions"):
        out["suggestions"] = [with_url(library, s) for s in answer["suggestions"]]
    return out


def _addressed_result(library: Library, result: dict) -> dict:
    out = dict(result)  # a copy (answers are shared) with the lists moved after the url
    lists = [(key, out.pop(key)) for key in _LISTS]
    out["url"] = record_url(library.records[result["id"]])
    out = _with_today(library, out)
    for key, items in lists:
        out[key] = [with_url(library, item) for item in items]
    return out


def _with_today(library: Library, item: dict) -> dict:
    """An item (a copy) whose `today` names today's rule by `id` gets that rule's `url`, and
    the other rules a split one became theirs."""
    if "id" in (item.get("today") or {}):
        item["today"] = with_url(library, item["today"])
        if item["today"].get("also"):
            item["today"]["also"] = [with_url(library, part) for part in item["today"]["also"]]
    return item

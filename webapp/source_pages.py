"""A document's page, in pages of PAGE_RECORDS records with a table of contents.

A rules file is thousands of records: shown whole, one page cost over a second of CPU to
render and weighed megabytes, more than any request may take. So a document longer than one
page is read as its contents (`/sources/<id>`: each page with its first and last records and
the sections that start on it) and numbered pages (`/sources/<id>?page=N`), the JSON twin
likewise. A record's place is found by bisection in its document's records (the catalogue
keeps them in order of offset and id: `webapp.urls.source_url`), so a link to it costs no
pass over the document.

A section's own address (`webapp.urls.record_url`, made without the library) stays
`/sources/<id>#<section id>`: the contents give each section that anchor, linked to its page.
"""
from __future__ import annotations

from collections.abc import Sequence

from flask import abort

from indexer.documents.records import Record, rules_file_source
from indexer.knowledge.display import display_title, in_script
from indexer.knowledge.library import Library

from .present import record_view
from .urls import PAGE_RECORDS, page_url


def _is_head(record: Record, previous: Record | None) -> bool:
    """A section heading: a document's section, a top-level rule (702), or the first entry
    of a rules file's glossary."""
    return (record.kind == "section" or (record.kind == "rule" and record.parent is None)
            or (record.kind == "term" and (previous is None or previous.kind != "term")))


def contents(library: Library, source_id: str, records: Sequence[Record], script: str | None) -> list[dict]:
    """Each page: its address, its first and last records' titles, the sections starting on it."""
    pages = []
    for start in range(0, len(records), PAGE_RECORDS):
        number = start // PAGE_RECORDS + 1
        shown = records[start:start + PAGE_RECORDS]
        url = page_url(source_id, number)
        sections = [{"id": r.id, "title": display_title(r, script), "url": f"{url}#{r.id}"}
                    for i, r in enumerate(shown, start) if _is_head(r, records[i - 1] if i else None)]
        pages.append({"page": number, "url": url, "first": display_title(shown[0], script),
                      "last": display_title(shown[-1], script), "sections": sections})
    return pages


def source_view(library: Library, source_id: str, page: int, script: str | None) -> dict | None:
    """A document's metadata with its records (one page), or with its contents (`page` 0),
    or with one of its pages; None when there is no such document."""
    meta = library.sources.get(source_id)
    if meta is None:
        return None
    records = library.records_of_source(source_id)
    count = max(1, -(-len(records) // PAGE_RECORDS))
    if not 0 <= page <= count:
        abort(404, f"{source_id} has pages 1 to {count}, not {page}.")
    view = {**meta, "title": in_script(meta.get("title", source_id), script), "page": page or None,
            "pages": count}
    if meta.get("rules_edition"):  # the rules file a document's edition label resolved to
        view["rules_source"] = rules_file_source(meta["rules_edition"])
    if count == 1:
        shown = records
    elif page == 0:
        view["contents"] = contents(library, source_id, records, script)
        shown = []
    else:
        shown = records[(page - 1) * PAGE_RECORDS:page * PAGE_RECORDS]
        view["contents_url"] = page_url(source_id, None)
        view["previous"] = page_url(source_id, page - 1) if page > 1 else None
        view["next"] = page_url(source_id, page + 1) if page < count else None
    view["records"] = [record_view(library, r, script) for r in shown]
    return view

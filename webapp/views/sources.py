"""Source pages: `/sources/<id>` and `/api/sources/<id>`: a document's metadata and its clean
text, record by record, each with its record id as anchor; a long document as its contents
and numbered pages (`?page=N`: webapp.source_pages)."""
from __future__ import annotations

from flask import Blueprint, abort

from ..respond import int_arg, library, respond, view_script, without_json_suffix
from ..source_pages import source_view

bp = Blueprint("sources", __name__)


@bp.get("/api/sources/<source_id>")
@bp.get("/sources/<source_id>")
def source(source_id: str):
    key = without_json_suffix(source_id)
    view = source_view(library(), key, int_arg("page", 0), view_script())
    if view is None:
        abort(404, f"No source document {key[:80]!r}.")
    return respond("source.html", view)

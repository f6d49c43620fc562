"""Term pages: `/terms/<id>` and `/api/terms/<id>`: every form, defining rules, occurrences."""
from __future__ import annotations

from flask import Blueprint

from ..present import term_view
from ..respond import library, record_in_path, respond, view_script

bp = Blueprint("terms", __name__)


@bp.get("/api/terms/<record_id>")
@bp.get("/terms/<record_id>")
def term(record_id: str):
    record = record_in_path(record_id, "term", "term")
    return respond("term.html", term_view(library(), record, view_script()))

"""Card and planar card pages: `/cards/<id>`, `/planes/<id>` and their `/api/` twins.

A card's name in any language or script works in place of its id (`/cards/奪魂紅帽客`)."""
from __future__ import annotations

from flask import Blueprint

from ..present import record_view
from ..respond import library, record_in_path, respond, view_script

bp = Blueprint("cards", __name__)


@bp.get("/api/cards/<record_id>")
@bp.get("/cards/<record_id>")
def card(record_id: str):
    record = record_in_path(record_id, "card", "card")
    return respond("record.html", record_view(library(), record, view_script()))


@bp.get("/api/planes/<record_id>")
@bp.get("/planes/<record_id>")
def plane(record_id: str):
    record = record_in_path(record_id, "planar_card", "planar card")
    return respond("record.html", record_view(library(), record, view_script()))

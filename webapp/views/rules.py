"""Rule pages: `/rules/<number>` (and `.json`) and `/api/rules/<number>`, one view."""
from __future__ import annotations

from flask import Blueprint, abort, request

from indexer.documents.references import parse_rule_number

from ..present import rule_view
from ..respond import library, respond, view_script, without_json_suffix

bp = Blueprint("rules", __name__)


@bp.get("/api/rules/<number>")
@bp.get("/rules/<number>")
def rule(number: str):
    """One rule in one edition (the newest that has it unless `?edition=`)."""
    written = without_json_suffix(number)
    parsed = parse_rule_number(written)
    if parsed is None:
        abort(404, f"{written[:40]!r} is not a rule number (rule numbers look like 702.30a)")
    edition = request.args.get("edition") or None
    lib = library()
    view = rule_view(lib, parsed, edition, view_script())
    if view is None:
        held = lib.editions_of(parsed)
        if not held:
            abort(404, f"No edition of the rules has {parsed}.")
        abort(404, f"Edition {edition[:20]} has no rule {parsed}; it is in: {', '.join(held)}.")
    return respond("rule.html", view)

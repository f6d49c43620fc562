"""Rule pages: `/rules/<number>` (and `.json`) and `/api/rules/<number>`, one view; a range of
numbers (`/rules/702.30a-c`) opens at its first rule."""
from __future__ import annotations

from flask import Blueprint, abort, jsonify, redirect, request

from indexer.documents.references import parse_rule_number, parse_rule_range
from indexer.knowledge.book import level

from ..present import rule_missing, rule_preview, rule_view, rules_under
from ..respond import library, respond, view_script, wants_json, without_json_suffix

bp = Blueprint("rules", __name__)
# Rule numbers one batch may ask for: a long thread's worth; the embed script sends at most this.
MAX_BATCH = 60


@bp.get("/api/rules")
def rules_batch():
    """Previews of many rules in one request (`?numbers=702.30a,901.9`), so a forum page full
    of rule numbers costs one request: {"rules": {number: preview or null}}, each preview
    as `present.rule_preview` gives it, null for a number no edition has. A GET, so the
    answer is cached like any other page of the service."""
    lib, script = library(), view_script()
    written = [n.strip() for n in request.args.get("numbers", "").split(",") if n.strip()]
    if not written:
        abort(400, "numbers is required: rule numbers separated by commas, such as 702.30a,901.9")
    if len(written) > MAX_BATCH:
        abort(400, f"at most {MAX_BATCH} rule numbers at once, not {len(written)}")
    answer = {}
    for value in written:
        number = parse_rule_number(value[:20])
        answer[value[:20]] = rule_preview(lib, number, script) if number else None
    return jsonify({"rules": answer})


@bp.get("/api/rules/<number>")
@bp.get("/rules/<number>")
def rule(number: str):
    """One rule in one edition (the newest that has it unless `?edition=`)."""
    written = without_json_suffix(number)
    parsed = parse_rule_number(written)
    if parsed is None and (span := parse_rule_range(written)):
        # A range (702.30a-c, 901.9a至c) opens at its first rule, as the search's Enter does.
        query = request.query_string.decode("ascii", "replace")
        opened = request.path[: len(request.path) - len(number)] + span[0] + number[len(written):]
        return redirect(opened + ("?" + query if query else ""))
    if parsed is None:
        abort(404, f"{written[:40]!r} is not a rule number (rule numbers look like 702.30a)")
    edition = request.args.get("edition") or None
    lib, script, page = library(), view_script(), not wants_json()
    # A page shows what is under the rule as the build rendered it (`templating.remembered`), not
    # from the payload's `contents`, which only the JSON twin is given.
    view = rule_view(lib, parsed, edition, script, contents=not page)
    if view is None:
        abort(404, rule_missing(lib, parsed, edition))
    under = page and level(parsed) < 2 and lib.book.descendants(parsed, view["edition"])
    return respond("rule.html", view, part=(rules_under, parsed, view["edition"], script) if under else None,
                   contents_label="rules_under" if level(parsed) == 0 else "subrules")

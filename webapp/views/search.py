"""The search page and its API: `/` and `/api/search` are one view; `/api/suggest`."""
from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from indexer.search.query import MAX_LIMIT

from ..present import group_results
from ..respond import int_arg, library, respond, view_script

bp = Blueprint("search", __name__)


@bp.get("/api/search")
@bp.get("/")
def search():
    """The library's search answer, unchanged, as JSON or as the results page."""
    q = request.args.get("q", "")
    limit = int_arg("limit", current_app.config["SEARCH_LIMIT"])
    answer = library().search(q, limit=limit, script=view_script()) if q.strip() else {
        "query": q, "total": 0, "took_ms": 0.0, "did_you_mean": None, "rule_jump": None, "results": []}
    more = min(limit * 2, MAX_LIMIT) if answer["total"] > limit and limit < MAX_LIMIT else None
    return respond("search.html", answer, groups=group_results(answer["results"]), more_limit=more)


@bp.get("/api/suggest")
def suggest():
    """Names, keyword titles and rule numbers starting with what was typed."""
    q = request.args.get("q", "")
    limit = int_arg("limit", current_app.config["SEARCH_LIMIT"])
    return jsonify({"query": q, "suggestions": library().suggest(q, limit=limit, script=view_script())})

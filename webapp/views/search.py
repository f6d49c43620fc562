"""The search page and its API: `/` and `/api/search` are one view; `/api/suggest`, also in
the OpenSearch suggestions format browsers ask for as the reader types in their address bar."""
from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from indexer.search.query import MAX_LIMIT

from ..hints import add_hints
from ..respond import flag_arg, int_arg, library, respond, view_script
from ..urls import addressed, with_url

bp = Blueprint("search", __name__)


@bp.get("/api/search")
@bp.get("/")
def search():
    """The library's search answer with the page's hints (`hints.add_hints`) and the address of
    every record it names, as JSON or as the results page; `?explain=1` gives each result what
    each ranking stage added to its score (docs/api.md)."""
    q = request.args.get("q", "")
    limit = int_arg("limit", current_app.config["SEARCH_LIMIT"])
    offset = int_arg("offset", 0)
    edition = request.args.get("edition") or None
    explain = flag_arg("explain")
    lib, script = library(), view_script()
    if q.strip():
        found = lib.search(q, limit=limit, script=script, edition=edition, offset=offset, explain=explain)
        answer = addressed(lib, add_hints(lib, found, limit, script))
    else:
        answer = {"query": q, "total": 0, "took_ms": 0.0, "did_you_mean": None, "rule_jump": None, "results": [],
                  "left_out": [], "cards": [], "unknown_cards": [], "official": None, "suggestions": []}
    shown = offset + len(answer["results"])
    more = min(limit * 2, MAX_LIMIT) if answer["total"] > shown and limit < MAX_LIMIT else None
    # Past the most one page may hold, the next page of results.
    following = shown if answer["total"] > shown and answer["results"] and limit == MAX_LIMIT else None
    return respond("search.html", answer, more_limit=more, next_offset=following, offset=offset, edition=edition,
                   current_edition=lib.catalogue.current_edition)


def _suggestions() -> tuple[str, list[dict]]:
    q = request.args.get("q", "")
    limit = int_arg("limit", current_app.config["SEARCH_LIMIT"])
    lib = library()
    return q, [with_url(lib, s) for s in lib.suggest(q, limit=limit, script=view_script())]


@bp.get("/api/suggest")
def suggest():
    """Names, keyword titles and rule numbers starting with what was typed."""
    q, found = _suggestions()
    return jsonify({"query": q, "suggestions": found})


@bp.get("/api/suggest/opensearch")
def suggest_opensearch():
    """The same suggestions as OpenSearch's `[query, [completions], [descriptions]]`: what a
    browser's address bar offers once the site is its search engine."""
    q, found = _suggestions()
    texts = dict.fromkeys(s["text"] for s in found)  # a card and its glossary entry share a name
    response = jsonify([q, list(texts), ["" for _ in texts]])
    response.mimetype = "application/x-suggestions+json"
    return response

"""What changed between two editions of the rules: `/changes?from=2022-11-18&to=2026-04-17`
and `/api/changes?...`, one view. The list comes from the build's lineage; a page holds
`CHANGES_PER_PAGE` entries with their diffs (`?page=`), and `?kind=` and `?rule=` narrow it
to one kind of change or one rule's entry (what a rule's history links to)."""
from __future__ import annotations

from flask import Blueprint, abort, request

from indexer.knowledge.editions import CHANGE_KINDS

from ..present import changes_view
from ..respond import int_arg, library, respond, view_script

bp = Blueprint("changes", __name__)


@bp.get("/api/changes")
@bp.get("/changes")
def changes():
    lib = library()
    held = lib.catalogue.editions.lineage_editions
    if len(held) < 2:
        abort(404, "The index holds fewer than two editions of the rules: there are no changes to list.")
    # By default: today's edition (the one definition, Catalogue.current_edition) and the one before it.
    today = lib.catalogue.current_edition or held[-1]
    old = _edition(lib, "from", held[held.index(today) - 1], held)
    new = _edition(lib, "to", today, held)
    if old >= new:
        abort(400, f"from ({old}) must be an older edition than to ({new})")
    kind = request.args.get("kind") or None
    if kind is not None and kind not in CHANGE_KINDS:
        abort(400, f"kind must be one of {', '.join(CHANGE_KINDS)}, not {kind[:20]!r}")
    rule = (request.args.get("rule") or "")[:40] or None
    page = int_arg("page", 1)
    view = changes_view(lib, old, new, kind, rule, page, view_script())
    if view is None:
        abort(404, f"There is no page {page} of these changes.")
    return respond("changes.html", view)


def _edition(lib, name: str, default: str, held: list[str]) -> str:
    """An edition argument as a reader writes it (2022, 2026-04), resolved to one held."""
    value = request.args.get(name) or default
    found = lib.catalogue.edition_filter(value[:20])
    if found not in held:
        abort(404, f"No edition of the rules {value[:20]!r}; the editions are: {', '.join(held)}.")
    return found

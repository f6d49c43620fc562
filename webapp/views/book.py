"""The book's pages: `/rules`, the table of contents of an edition (today's unless
`?edition=`), and `/glossary`, its glossary A to Z and by Chinese reading; `/api/toc` and
`/api/glossary` are their JSON twins. (`/api/rules` is the embed script's batch of
previews, so the contents have an address of their own.)"""
from __future__ import annotations

from flask import Blueprint, abort, request

from ..book import contents_view, glossary_view
from ..respond import library, respond, view_script

bp = Blueprint("book", __name__)


def _edition() -> str:
    """The edition asked for (`?edition=`, any prefix of its date or a document's label),
    else today's; a 404 naming the editions there are when no rules file of it is held."""
    lib = library()
    asked = request.args.get("edition") or None
    edition = lib.book.edition(asked)
    if edition is None:
        held = ", ".join(lib.book.editions) or "none"
        if asked:
            abort(404, f"No rules file of edition {asked[:20]} is in the index; the editions are: {held}.")
        abort(404, "The index holds no rules file.")
    return edition


@bp.get("/api/toc")
@bp.get("/rules")
def contents():
    """The table of contents: chapters, sections and their rules, each linked."""
    part = (contents_view, _edition(), view_script())
    return respond("contents.html", library().page(*part), part=part)


@bp.get("/api/glossary")
@bp.get("/glossary")
def glossary():
    """The glossary of an edition, A to Z and (where it has one in Chinese) by reading."""
    part = (glossary_view, _edition(), view_script())
    return respond("glossary.html", library().page(*part), part=part)

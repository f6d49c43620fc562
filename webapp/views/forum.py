"""Rule references in other sites' text: the linker API, the embed script and a sample page.

`POST /api/linkify` links the rule references and [[names]] of a post (HTML, Markdown or
BBCode). `/embed.js` does the same in a reader's browser on any forum page that includes it,
with a preview of each rule; `/forum-sample` shows it on a few posts.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request

from indexer.documents.references import REFERENCE_PATTERN as REFERENCE

from ..linkify import FORMATS, URL_PATTERN, LibraryResolver, linkify
from ..respond import library

bp = Blueprint("linkify", __name__)
EMBED_SOURCE = Path(__file__).resolve().parents[1] / "static" / "embed.js"
PLACEHOLDERS = ('"__RULE_REFERENCE_PATTERN__"', '"__URL_PATTERN__"')
DEFAULT_FORMAT = "markdown"


@bp.post("/api/linkify")
def linkify_text():
    """{"text", "format"} as JSON or form fields -> {"text", "links", "unknown", "unknown_names"}."""
    if request.is_json:
        try:
            body = request.get_json()
        except RecursionError:  # json.loads recurses once per level of nesting
            abort(400, "The JSON body is nested too deeply.")
        if not isinstance(body, dict):
            abort(400, 'The JSON body must be an object: {"text": "...", "format": "markdown"}.')
    else:
        body = request.form
    text, fmt = body.get("text"), body.get("format") or DEFAULT_FORMAT
    if not isinstance(text, str):
        abort(400, "text is required: the post to link, as a string.")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # JSON may escape a lone surrogate (\ud800): not text
        abort(400, f"text is not valid Unicode: a lone surrogate at offset {exc.start}.")
    if fmt not in FORMATS:
        abort(400, f"format must be one of {', '.join(FORMATS)}, not {str(fmt)[:20]!r}.")
    result = linkify(text, fmt, LibraryResolver(library(), base=current_app.config["PUBLIC_URL"]))
    return jsonify(result.to_dict())


@lru_cache(maxsize=1)
def embed_script() -> str:
    """The embed script with the rule-reference grammar of `indexer.documents.references` and the
    linker's address pattern written in, so the browser recognises exactly what the server
    does (JavaScript writes a named group `(?<name>` where Python writes `(?P<name>`)."""
    source = EMBED_SOURCE.read_text(encoding="utf-8")
    for placeholder, pattern in zip(PLACEHOLDERS, (REFERENCE.pattern, URL_PATTERN)):
        source = source.replace(placeholder, json.dumps(pattern.replace("(?P<", "(?<")))
    return source


@bp.get("/embed.js")
def embed_js():
    response = Response(embed_script(), mimetype="text/javascript")
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response


@bp.get("/forum-sample")
def forum_sample():
    return render_template("forum_sample.html")

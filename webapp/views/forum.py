"""Rule references in other sites' text: the linker API, the embed script and a sample page.

`POST /api/linkify` links the rule references and [[names]] of a post (HTML, Markdown or
BBCode). `/embed.js` does the same in a reader's browser on any forum page that includes it,
with a preview of each rule and name (`/api/rules` and `/api/names` give them in batches);
`/forum-sample` shows it on a few posts. `/forum` links a writer's post on the server and
shows the same previews of what its links open beside the markup to copy.
"""
from __future__ import annotations

import html
import json
from functools import lru_cache
from pathlib import Path

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request, url_for

from indexer.documents.references import REFERENCE_PATTERN as REFERENCE

from ..linkify import FORMATS, NAME_PATTERN, URL_PATTERN, LibraryResolver, linkify
from ..present import name_preview, rule_preview
from ..respond import library, view_script

bp = Blueprint("linkify", __name__)
EMBED_SOURCE = Path(__file__).resolve().parents[1] / "static" / "embed.js"
PLACEHOLDERS = ('"__RULE_REFERENCE_PATTERN__"', '"__NAME_PATTERN__"', '"__URL_PATTERN__"', '"__ROUTES__"')
DEFAULT_FORMAT = "markdown"
# [[names]] one batch may ask for: a long thread's worth; the embed script sends at most this.
MAX_NAMES = 30
# The links a post's answer previews, the first ones: a post of hundreds of rules is linked
# whole, its previews are a check, not a second copy (each costs a rule's look-up).
MAX_PREVIEWS = 30


@bp.post("/api/linkify")
def linkify_text():
    """{"text", "format"} as JSON or form fields -> {"text", "links", "unknown", "unknown_names"}."""
    text, fmt = _post()
    result = linkify(text, fmt, LibraryResolver(library(), base=current_app.config["PUBLIC_URL"]))
    return jsonify(result.to_dict())


@bp.get("/api/names")
def names_batch():
    """Previews of what many `[[names]]` name in one request (`?name=Murderous Redcap&name=留存`),
    so a forum page full of card names costs one request: {"names": {name: preview or null}},
    each preview as `present.name_preview` gives it, null for a name nothing is called. A
    GET, so the answer is cached like any other page of the service."""
    lib, script = library(), view_script()
    written = list(dict.fromkeys(n.strip()[:100] for n in request.args.getlist("name") if n.strip()))
    if not written:
        abort(400, "name is required: one name= for each [[name]], such as name=Murderous Redcap")
    if len(written) > MAX_NAMES:
        abort(400, f"at most {MAX_NAMES} names at once, not {len(written)}")
    return jsonify({"names": {name: name_preview(lib, name, script) for name in written}})


def _post() -> tuple[str, str]:
    """The post and its format from a JSON body or form fields; a clear 400 otherwise."""
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
    return text, fmt


@lru_cache(maxsize=1)
def embed_script() -> str:
    """The embed script with the rule-reference grammar of `indexer.documents.references`, the
    linker's address pattern and the routes it links to written in, so the browser
    recognises exactly what the server does (JavaScript writes a named group `(?<name>`
    where Python writes `(?P<name>`) and its addresses are the app's own routes, resolved
    against the script's address."""
    source = EMBED_SOURCE.read_text(encoding="utf-8")
    routes = {"rule": url_for("rules.rule", number="NUMBER"), "batch": url_for("rules.rules_batch"),
              "names": url_for("linkify.names_batch")}
    values = [json.dumps(p.replace("(?P<", "(?<")) for p in (REFERENCE.pattern, NAME_PATTERN, URL_PATTERN)]
    values.append(json.dumps(routes))
    for placeholder, value in zip(PLACEHOLDERS, values, strict=True):
        source = source.replace(placeholder, value)
    return source


@bp.get("/embed.js")
def embed_js():
    response = Response(embed_script(), mimetype="text/javascript")
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response


@bp.get("/forum-sample")
def forum_sample():
    return render_template("forum_sample.html")


@bp.route("/forum", methods=["GET", "POST"])
def forum_tools():
    """For forum owners, the script tag to paste (with the reader's choice of script and of
    where to look); for writers, a post linked by the server (the same as /api/linkify), the
    answer opening at what it linked (the form posts to `#linked-result`)."""
    script = request.values.get("embed_script", "")
    selector = request.values.get("selector", "").strip()[:200]
    linked = _linked_post() if request.method == "POST" else None
    script = script if script in ("hant", "hans") else ""
    options = "".join(f' data-{name}="{html.escape(value)}"'
                      for name, value in (("script", script), ("selector", selector)) if value)
    snippet = f'<script src="{current_app.config["PUBLIC_URL"]}/embed.js" defer{options}></script>'
    return render_template("forum_tools.html", embed_script=script, selector=selector, snippet=snippet,
                           formats=FORMATS, linked=linked)


def _linked_post() -> dict:
    """The writer's post as typed (`post`: the form shows it again, to be edited and linked
    anew), linked as /api/linkify links it, with a preview of what each link opens."""
    text, fmt = _post()
    result = linkify(text, fmt, LibraryResolver(library(), base=current_app.config["PUBLIC_URL"]))
    previews, left = link_previews(result.links)
    return {"post": text, "format": fmt, **result.to_dict(), "previews": previews, "previews_left": left}


def link_previews(links: list[dict]) -> tuple[list[dict], int]:
    """What each rule and name a post links to says, once each in the order first linked, as
    the embed script's previews show it (`/api/rules`, `/api/names`): the writer sees that
    every number reached the rule they meant. The first `MAX_PREVIEWS` of them, and how many
    more there are."""
    lib, script = library(), view_script()
    targets: dict[tuple[str, str], str] = {}
    for link in links:
        targets.setdefault((link["kind"], link["target"]), link["text"])
    previews = [rule_preview(lib, target, script) if kind == "rule" else name_preview(lib, text, script)
                for (kind, target), text in list(targets.items())[:MAX_PREVIEWS]]
    return [preview for preview in previews if preview], max(0, len(targets) - MAX_PREVIEWS)

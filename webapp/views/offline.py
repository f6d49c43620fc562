"""The installable, offline-capable app: manifest, service worker, the offline copy.

`/sw.js` is the service worker (webapp/templates/sw.js with Workbox from
webapp/static/workbox-*): pages are fetched from the network first and kept, so a page seen
before opens as it was; with no network, /api/search and /api/rules/<number> are answered
from the offline copy (`webapp.offline_copy`, served here as `/api/offline/data`) by
the parts of webapp/static/offline-search/ (`ENGINE`), and a page never seen opens `/offline`, the search page,
whose script shows the search or rule asked for. webapp/static/offline.js registers the
worker, keeps the copy (on the reader's word, or by itself when it is small enough) and
updates it when the server's index changes, and says when the page is offline. After the
copy it keeps the words' meaning vectors (`/api/offline/meanings`), with which the copy
ranks a question as the server does.
"""
from __future__ import annotations

import hashlib
import json

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request, url_for

from indexer.knowledge.display import SCRIPTS

from ..compression import accepted
from ..offline_copy import ENCODED, FILE as OFFLINE_COPY, MEANINGS_ENCODED, MEANINGS_FILE
from ..respond import library

bp = Blueprint("offline", __name__)

WORKBOX = "workbox-7.4.1"
THEME = "#1d3557"
# What the worker stores at install: the shell and everything it needs to run offline.
PRECACHE_STATIC = ("style.css", "search.js", "offline.js", "offline.css", "reading.js",
                   "icons/icon-192.png", "icons/icon-512.png", "icons/icon.svg")
# The worker's own code: imported under an address naming the hash of its bytes, and precached
# under that address. A worker imports through the HTTP cache, where the file's unrevisioned
# address may still hold the release before for STATIC_SECONDS: a returning browser's new
# worker then ran the old offline search beside a precache of the new one.
# The offline search's parts, in the order the worker imports them (the first defines
# `OfflineIndex`, the others add to it).
ENGINE = tuple(f"offline-search/{part}.js"
               for part in ("index", "ranking", "questions", "meanings", "answers", "pages"))
WORKER_SCRIPTS = ENGINE


@bp.get("/manifest.webmanifest")
def manifest():
    icons = [{"src": url_for("static", filename=f"icons/icon-{size}.png"), "sizes": f"{size}x{size}",
              "type": "image/png", "purpose": "any maskable"} for size in (192, 512)]
    icons.append({"src": url_for("static", filename="icons/icon.svg"), "sizes": "any", "type": "image/svg+xml"})
    body = {
        "name": "萬智牌規則查詢 MTG rules search",
        "short_name": "萬智牌規則",
        "description": "Magic: The Gathering rules, cards and rulings in English, 繁體 and 简体; works offline.",
        "lang": "zh-Hant",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#ffffff",
        "theme_color": THEME,
        "icons": icons,
    }
    response = Response(json.dumps(body, ensure_ascii=False), mimetype="application/manifest+json")
    response.headers["Cache-Control"] = "no-cache"
    return response


def _revision(name: str) -> str:
    with open(f"{current_app.static_folder}/{name}", "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()[:16]


def _worker_script(name: str) -> str:
    """A script of the worker's, at its revisioned address."""
    return url_for("static", filename=name, v=_revision(name))


def _precache() -> list[dict]:
    """The worker's precache list: each file with a hash of its bytes as its revision, so a
    changed file (and only that) is fetched again when the worker updates; the worker's own
    scripts under their revisioned addresses."""
    entries: list[dict[str, str | None]] = [{"url": url_for("static", filename=name), "revision": _revision(name)}
                                            for name in PRECACHE_STATIC]
    entries += [{"url": _worker_script(name), "revision": None} for name in WORKER_SCRIPTS]
    for script in SCRIPTS:
        address = url_for("offline.shell", script=script)
        with current_app.test_request_context(address):  # the shell as that address renders it
            shell = _shell_html().encode("utf-8")
        entries.append({"url": address, "revision": hashlib.sha256(shell).hexdigest()[:16]})
    return entries


def _shell_html() -> str:
    answer = {"query": "", "total": 0, "took_ms": 0.0, "did_you_mean": None, "rule_jump": None, "results": []}
    return render_template("offline.html", data=answer, groups=[], more_limit=None)


@bp.get("/sw.js")
def service_worker():
    body = render_template("sw.js", precache=_precache(), workbox=url_for("static", filename=WORKBOX),
                           engine=[_worker_script(name) for name in ENGINE])
    response = Response(body, mimetype="text/javascript")
    # The browser checks for a new worker on every visit; it must never keep an old one.
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/offline")
def shell():
    """The page a navigation gets offline when it was never seen: the search page, which
    offline.js turns into the search or rule asked for."""
    return _shell_html()


def _summary() -> dict:
    lib = library()
    try:
        meta = json.loads((lib.folder / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        meta = {}
    summary = meta.get("offline")
    if not summary or not all((lib.folder / name).exists() for name in (OFFLINE_COPY, *ENCODED.values())):
        abort(404, "This index has no offline copy; rebuild it (python -m indexer build --force).")
    return summary


@bp.get("/api/offline")
def meta():
    """The offline copy's build, edition and size: a page compares it with the copy it keeps."""
    response = jsonify(_summary())
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/api/offline/data")
def data():
    """The offline copy as the build wrote it, in the coding the client accepts most (brotli,
    gzip, else none): compressing the copy per request costs many times what a request may. Its
    validator names the build (webapp.caching; weak, as it is the same copy in any coding),
    so an unchanged copy is a 304."""
    _summary()
    return _encoded(OFFLINE_COPY, ENCODED)


@bp.get("/api/offline/meanings")
def meanings():
    """The words' meaning vectors the offline copy ranks a question with
    (`offline_copy.meanings`), written by the build beside the copy and served as it is.
    `index` names the build the page kept the copy of: the vectors of another build are not
    sent (404), so a page never keeps a copy's and another build's vectors together."""
    summary = _summary()
    asked = request.args.get("index")
    if asked is not None and asked != summary.get("index"):
        abort(404, "The server's index is another build than the one asked for; keep its offline copy first.")
    if not all((library().folder / name).exists() for name in (MEANINGS_FILE, *MEANINGS_ENCODED.values())):
        abort(404, "This index has no meaning vectors for its offline copy; "
                   "rebuild it (python -m indexer build --force).")
    return _encoded(MEANINGS_FILE, MEANINGS_ENCODED)


def _encoded(plain: str, encoded: dict[str, str]) -> Response:
    """A file the build wrote, in the coding the client accepts most, with its plain form as
    the fallback."""
    coding = accepted(request.environ.get("HTTP_ACCEPT_ENCODING"), encoded)
    path = library().folder / (encoded[coding] if coding else plain)
    response = Response(path.read_bytes(), mimetype="application/json")
    if coding:
        response.headers["Content-Encoding"] = coding
    response.vary.add("Accept-Encoding")
    response.headers["Cache-Control"] = "no-cache"
    return response

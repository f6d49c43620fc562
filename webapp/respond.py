"""How every view answers: one payload, shown as a page or returned as JSON.

A page and its JSON twin come from the same view function (Datasette style): the view builds
a payload and `respond` renders it with a template, or returns it as JSON when the request
asks for JSON (`/api/...`, a `.json` suffix, `?format=json`, or `Accept: application/json`).
This module also holds what every request shares: the open library, the reader's script,
argument parsing, and the response headers (security policy, CORS, the script cookie).
"""
from __future__ import annotations

import re
from urllib.parse import urlencode, urlsplit

from flask import Flask, abort, current_app, g, jsonify, make_response, redirect, render_template, request
from werkzeug.datastructures import MultiDict

from indexer.knowledge.display import SCRIPTS
from indexer.knowledge.library import Library

ANSWER_FORMATS = ("html", "json")
SCRIPT_COOKIE = "script"
SCRIPT_COOKIE_SECONDS = 365 * 24 * 3600
DEFAULT_PAGE_SCRIPT = "hant"
# No inline script or style anywhere: every script and style sheet is a static file.
CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:",
    "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'",
    "frame-ancestors 'none'",
])


WHOLE_NUMBER = re.compile(r"-?[0-9]{1,9}")
# gunicorn's own limit for a whole request line is 4094 bytes; scripts/serve raises it to 8190.
MAX_ADDRESS_BYTES = 4096
# Addresses that only ever answer JSON, errors included.
JSON_ONLY = ("/api/", "/healthz")


def wants_json() -> bool:
    if request.path.startswith(JSON_ONLY) or request.path.endswith(".json"):
        return True
    if request.method == "GET" and request.args.get("format") in ANSWER_FORMATS:
        return request.args["format"] == "json"
    _varies_by("Accept")
    return request.accept_mimetypes.best_match(["text/html", "application/json"]) == "application/json"


def _varies_by(header: str) -> None:
    """Notes that this answer depends on a request header, for its `Vary` (see `add_vary`)."""
    g.setdefault("vary", set()).add(header)


def add_vary(response) -> None:
    """Names in `Vary` exactly the request headers this answer was chosen by."""
    response.vary.update(g.get("vary", ()))


def without_json_suffix(value: str) -> str:
    """A path value with the `.json` that asked for the JSON twin removed."""
    return value[: -len(".json")] if value.endswith(".json") else value


def respond(template: str, payload: dict, **page):
    """The payload as JSON, or rendered with `template` (which sees it as `data`)."""
    if wants_json():
        return jsonify(payload)
    return make_response(render_template(template, data=payload, **page))


def library() -> Library:
    """The library this request uses, fixed for the whole request (a rebuild that switches
    the index mid-request is seen by the next request). Raises IndexUnavailable."""
    if "library" not in g:
        with current_app.extensions["kb.library.lock"]:
            g.library = current_app.extensions["kb.library"].get()
    return g.library


def reader_script(default: str | None = DEFAULT_PAGE_SCRIPT) -> str | None:
    """The Chinese script the reader asked for: `?script=`, else the cookie, else `default`.
    JSON answers default to the text as written; pages to Traditional."""
    value = request.args.get("script")
    if not value:
        _varies_by("Cookie")
        value = request.cookies.get(SCRIPT_COOKIE)
    return value if value in SCRIPTS else default


def view_script() -> str | None:
    return reader_script(None if wants_json() else DEFAULT_PAGE_SCRIPT)


def int_arg(name: str, default: int) -> int:
    """A whole number in ASCII digits (int() would also take `٥`, `1_0` and ` 5 `)."""
    value = request.args.get(name)
    if value is None or value == "":
        return default
    if WHOLE_NUMBER.fullmatch(value) is None:
        abort(400, f"{name} must be a whole number, not {value[:20]!r}")
    return int(value)


def _check_common_args() -> None:
    """`format` and `script` mean the same on every GET; a bad value is a clear 400. An
    address longer than MAX_ADDRESS_BYTES is a 414 in the error shape (scripts/serve lets
    gunicorn pass request lines up to twice as long, so its own page is seldom what answers)."""
    address = request.environ.get("RAW_URI") or request.full_path
    if len(address) > MAX_ADDRESS_BYTES:
        abort(414, f"The address is too long: {len(address)} bytes (at most {MAX_ADDRESS_BYTES}).")
    if request.method != "GET":
        return
    fmt = request.args.get("format")
    if fmt is not None and fmt not in ANSWER_FORMATS:
        abort(400, f"format must be one of {', '.join(ANSWER_FORMATS)}, not {fmt[:20]!r}")
    script = request.args.get("script")
    if script is not None and script not in SCRIPTS:
        abort(400, f"script must be one of {', '.join(SCRIPTS)}, not {script[:20]!r}")


def _finish(response):
    headers = response.headers
    headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Referrer-Policy"] = "strict-origin-when-cross-origin"
    headers["X-Frame-Options"] = "DENY"
    if request.path.startswith("/api/"):
        headers["Access-Control-Allow-Origin"] = "*"
        if request.method == "OPTIONS":
            headers["Access-Control-Allow-Methods"] = "GET, POST, OPTIONS"
            headers["Access-Control-Allow-Headers"] = "Content-Type"
            headers["Access-Control-Max-Age"] = "86400"
    add_vary(response)
    if "Location" in headers:
        headers["Location"] = local_address(headers["Location"])
    script = request.args.get("script") if request.method == "GET" else None
    if script in SCRIPTS and request.cookies.get(SCRIPT_COOKIE) != script:
        response.set_cookie(SCRIPT_COOKIE, script, max_age=SCRIPT_COOKIE_SECONDS, samesite="Lax",
                            httponly=True, secure=request.is_secure)
    return response


def same_view_url(args: dict, **view_args) -> str:
    """The address of this request's view with other arguments, built from its route (never
    from the path as sent, which may hold `/\\evil.example`); a request no route matched (an
    error page) gets a query-only address, which keeps the browser on the same path."""
    if request.url_rule is None:
        return "?" + urlencode(args, doseq=True)
    # The matched rule itself, not url_for: an endpoint may have several (/cards/, /api/cards/).
    _, path = request.url_rule.build(MultiDict({**request.view_args, **view_args, **args}))
    return request.script_root + path


def local_address(url: str) -> str:
    """The path and query of `url`, on this site whatever host it names: Werkzeug's redirect to
    a route's canonical address (`/rules//702.30a` to `/rules/702.30a`) names the host of the
    request's Host header, which a client chooses."""
    parts = urlsplit(url)
    path = "/" + parts.path.lstrip("/\\")
    return f"{path}?{parts.query}" if parts.query else path


def install(app: Flask) -> None:
    app.before_request(_check_common_args)
    app.after_request(_finish)


def record_in_path(value: str, kind: str, noun: str):
    """The record of `kind` a path names: by its id, or by any of its names (any language,
    script or case), which redirects to the id's address so a typed name works as a URL."""
    lib = library()
    key = without_json_suffix(value)
    record = lib.get(key)
    if record is not None and record.kind == kind:
        return record
    named = lib.by_name(key, (kind,))
    if named is not None:
        suffix = ".json" if value.endswith(".json") else ""
        names = {arg: named.id + suffix if given == value else given for arg, given in request.view_args.items()}
        abort(redirect(same_view_url(request.args.to_dict(flat=False), **names)))
    abort(404, f"No {noun} {key[:80]!r}.")

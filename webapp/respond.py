"""How every view answers: one payload, shown as a page or returned as JSON.

A page and its JSON twin come from the same view function (Datasette style): the view builds
a payload and `respond` renders it with a template, or returns it as JSON when the request
asks for JSON (`/api/...`, a `.json` suffix, `?format=json`, or `Accept: application/json`).
This module also holds what every request shares: the open library, the reader's script,
argument parsing, and the response headers (security policy, CORS, the script cookie).
"""
from __future__ import annotations

import io
import re
from functools import cached_property
from typing import cast
from urllib.parse import unquote, urlencode, urlsplit

from flask import Request, abort, current_app, jsonify, make_response, redirect, render_template, request
from werkzeug.datastructures import ImmutableMultiDict, MultiDict
from werkzeug.local import LocalProxy

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
SECURITY_HEADERS = (("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "strict-origin-when-cross-origin"),
                    ("X-Frame-Options", "DENY"))
POLICY_AND_SECURITY_HEADERS = (("Content-Security-Policy", CONTENT_SECURITY_POLICY), *SECURITY_HEADERS)
CORS_HEADERS = (("Access-Control-Allow-Origin", "*"),)
PREFLIGHT_HEADERS = (*CORS_HEADERS, ("Access-Control-Allow-Methods", "GET, POST, OPTIONS"),
                     ("Access-Control-Allow-Headers", "Content-Type"), ("Access-Control-Max-Age", "86400"))


WHOLE_NUMBER = re.compile(r"-?[0-9]{1,9}")
# The longest address answered, in characters once decoded: a question of 500 characters in
# any script fits (percent-encoded, 500 Chinese characters are 4,500 bytes; gunicorn's own
# limit for a whole request line is 4094 bytes, and scripts/serve raises it to 8190).
MAX_ADDRESS_CHARS = 4096
# Addresses that only ever answer JSON, errors included.
JSON_ONLY = ("/api/", "/healthz", "/mcp")
# Pages the service worker fetches for itself (the offline shell, in each script): their
# `?script=` is not the reader's choice, so it is never remembered.
WORKER_PAGES = ("/offline",)


class Arguments(ImmutableMultiDict):
    """A request's arguments and cookies, whose `get` answers an absent name's default
    without raising: Werkzeug's raises and catches BadRequestKeyError, an HTTP exception
    costly to make, and every request asks for names it seldom has (format, script, limit)."""

    def get(self, key, default=None, type=None):  # type: ignore[override]  # Werkzeug's overloads, one body
        if key not in self:
            return default
        return super().get(key, default, type)


class AnswerRequest(Request):
    """Flask's request, with what its answer is chosen by worked out once: views, templates,
    the validator (webapp.caching) and the response hooks each ask, several times a request.
    The standard library's `cached_property`, not Werkzeug's: Werkzeug's is a data descriptor
    whose Python `__get__` runs on every read, where the standard library's value, once
    worked out, is a plain attribute of the request."""

    parameter_storage_class = Arguments
    dict_storage_class = Arguments

    @cached_property
    def cookies(self) -> Arguments:
        """Werkzeug's, which finds the Cookie header by walking every header of the request:
        most requests (the API's) have none, which the WSGI environment tells at once."""
        if "HTTP_COOKIE" not in self.environ:
            return Arguments()
        return cast(Arguments, super().cookies)  # dict_storage_class made it one

    @cached_property
    def vary(self) -> list[str]:
        """The request headers this answer was chosen by, in the order they were read: its
        `Vary` (see `finish`)."""
        return []

    def varies_by(self, header: str) -> None:
        if header not in self.vary:
            self.vary.append(header)

    @cached_property
    def wants_json(self) -> bool:
        """`/api/...` and `.json` addresses, `?format=json`, or an Accept header preferring
        JSON (the answer then varies by it)."""
        path = self.path
        if path.startswith(JSON_ONLY) or path.endswith(".json"):
            return True
        if self.method == "GET":
            fmt = self.args.get("format")
            if fmt in ANSWER_FORMATS:
                return fmt == "json"
        self.varies_by("Accept")
        return self.accept_mimetypes.best_match(["text/html", "application/json"]) == "application/json"

    @cached_property
    def asked_script(self) -> str | None:
        """The Chinese script the reader asked for: `?script=`, else the cookie; None when
        neither names one."""
        value = self.args.get("script")
        if not value:
            self.varies_by("Cookie")
            value = self.cookies.get(SCRIPT_COOKIE)
        return value if value in SCRIPTS else None

    @cached_property
    def view_script(self) -> str | None:
        """The script of this request's answer: JSON defaults to the text as written, pages
        to Traditional."""
        return self.asked_script or (None if self.wants_json else DEFAULT_PAGE_SCRIPT)

    @cached_property
    def library(self) -> Library:
        """The library this request uses, fixed for the whole request (a rebuild that switches
        the index mid-request is seen by the next request). Raises IndexUnavailable."""
        extensions = current_app.extensions
        with extensions["kb.library.lock"]:
            return extensions["kb.library"].get()

    @cached_property
    def new_script(self) -> str | None:
        """The script this answer sets in the reader's cookie: a page's `?script=` naming another
        than the cookie holds (None: no cookie set). An API answer sets none: its caller names
        the script in the address (the embed script's batches do), so the answer is the same for
        everyone and a shared cache may keep it; nor does a page the service worker fetches."""
        chosen = self.method == "GET" and not self.path.startswith(JSON_ONLY) and self.path not in WORKER_PAGES
        script = self.args.get("script") if chosen else None
        return script if script in SCRIPTS and self.cookies.get(SCRIPT_COOKIE) != script else None


# The request being answered, as what `hooks.install` makes every request (Flask types its
# proxy as a plain Request).
current_request = cast("LocalProxy[AnswerRequest]", request)._get_current_object


def wants_json() -> bool:
    return current_request().wants_json


def without_json_suffix(value: str) -> str:
    """A path value with the `.json` that asked for the JSON twin removed."""
    return value[: -len(".json")] if value.endswith(".json") else value


def respond(template: str, payload: dict, **page):
    """The payload as JSON, or rendered with `template` (which sees it as `data`)."""
    if wants_json():
        return jsonify(payload)
    return make_response(render_template(template, data=payload, **page))


def library() -> Library:
    """This request's library (`AnswerRequest.library`). Raises IndexUnavailable."""
    return current_request().library


def reader_script(default: str | None = DEFAULT_PAGE_SCRIPT) -> str | None:
    """The Chinese script the reader asked for (`AnswerRequest.asked_script`), else `default`."""
    return current_request().asked_script or default


def view_script() -> str | None:
    return current_request().view_script


def int_arg(name: str, default: int) -> int:
    """A whole number in ASCII digits (int() would also take `٥`, `1_0` and ` 5 `)."""
    value = request.args.get(name)
    if value is None or value == "":
        return default
    if WHOLE_NUMBER.fullmatch(value) is None:
        abort(400, f"{name} must be a whole number, not {value[:20]!r}")
    return int(value)


def flag_arg(name: str) -> bool:
    """A yes or no: `1` or `true` is yes, `0`, `false` or nothing is no; anything else a 400."""
    value = request.args.get(name)
    if value in (None, "", "0", "false"):
        return False
    if value in ("1", "true"):
        return True
    abort(400, f"{name} must be 1 or 0, not {value[:20]!r}")


def check_common_args(req: AnswerRequest) -> None:
    """`format` and `script` mean the same on every GET; a bad value is a clear 400. An
    address longer than MAX_ADDRESS_CHARS, decoded, is a 414 in the error shape (scripts/serve
    lets gunicorn pass request lines of up to 8190 bytes, so its own page is seldom what
    answers)."""
    address = unquote(req.environ.get("RAW_URI") or req.full_path)
    if len(address) > MAX_ADDRESS_CHARS:
        abort(414, f"The address is too long: {len(address)} characters (at most {MAX_ADDRESS_CHARS}).")
    if req.method != "GET":
        return
    args = req.args
    fmt = args.get("format")
    if fmt is not None and fmt not in ANSWER_FORMATS:
        abort(400, f"format must be one of {', '.join(ANSWER_FORMATS)}, not {fmt[:20]!r}")
    script = args.get("script")
    if script is not None and script not in SCRIPTS:
        abort(400, f"script must be one of {', '.join(SCRIPTS)}, not {script[:20]!r}")


def read_chunked_body(req: AnswerRequest) -> None:
    """A body sent in chunks (no Content-Length) is read here, up to one byte more than the
    app takes (MAX_CONTENT_LENGTH): one over it is a 413, as for a body whose length says
    so; a body within it is handed on with its length. Werkzeug reads such a body only up to
    the limit and gave the view a truncated one, a 400 for broken JSON."""
    environ = req.environ
    if environ.get("CONTENT_LENGTH") or "chunked" not in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
        return
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    data = environ["wsgi.input"].read(limit + 1)
    if len(data) > limit:
        abort(413)
    environ["wsgi.input"], environ["CONTENT_LENGTH"] = io.BytesIO(data), str(len(data))


def finish(req: AnswerRequest, response):
    """What every answer carries: its `Vary`, the security policy and headers, CORS for the
    API and the pages' JSON twins, a local `Location`, and the script cookie when `?script=`
    chose another one."""
    headers = response.headers
    present = header_names(response)
    if "vary" in present:  # the view's own
        response.vary.update(req.vary)
    elif req.vary:
        headers.add("Vary", ", ".join(req.vary))
    # Added, not set: no view gives these but the policy (which it keeps), and setting a
    # header searches every header of the answer first.
    added: tuple[tuple[str, str], ...] = (SECURITY_HEADERS if "content-security-policy" in present
                                          else POLICY_AND_SECURITY_HEADERS)
    if req.path.startswith("/api/"):
        added += PREFLIGHT_HEADERS if req.method == "OPTIONS" else CORS_HEADERS
    elif response.mimetype == "application/json":  # a page's JSON twin (.json, ?format=json)
        added += CORS_HEADERS
    for name, value in added:
        headers.add(name, value)
    if "location" in present:
        headers["Location"] = local_address(headers["Location"])
    script = req.new_script
    if script is not None:
        response.set_cookie(SCRIPT_COOKIE, script, max_age=SCRIPT_COOKIE_SECONDS, samesite="Lax",
                            httponly=True, secure=req.is_secure)
    return response


def header_names(response) -> set[str]:
    """The names of an answer's headers, lower-cased, in one pass over its few headers:
    `name in response.headers` raises and catches an HTTP exception for a name it lacks."""
    return {name.lower() for name, _ in response.headers}


def same_view_url(args: dict, **view_args) -> str:
    """The address of this request's view with other arguments, built from its route (never
    from the path as sent, which may hold `/\\evil.example`); a request no route matched (an
    error page), or whose route cannot be built with these values, gets a query-only
    address, which keeps the browser on the same path."""
    # The matched rule itself, not url_for: an endpoint may have several (/cards/, /api/cards/).
    rule = request.url_rule
    built = rule and rule.build(MultiDict({**(request.view_args or {}), **view_args, **args}))
    if not built:
        return "?" + urlencode(args, doseq=True)
    return request.script_root + built[1]


def local_address(url: str) -> str:
    """The path and query of `url`, on this site whatever host it names: Werkzeug's redirect to
    a route's canonical address (`/rules//702.30a` to `/rules/702.30a`) names the host of the
    request's Host header, which a client chooses."""
    parts = urlsplit(url)
    path = "/" + parts.path.lstrip("/\\")
    return f"{path}?{parts.query}" if parts.query else path


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
        names = {arg: named.id + suffix if given == value else given
                 for arg, given in (request.view_args or {}).items()}
        abort(redirect(same_view_url(request.args.to_dict(flat=False), **names)))
    abort(404, f"No {noun} {key[:80]!r}.")

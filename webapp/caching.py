"""HTTP caching: every GET answer names what it was made from, and a client that has it
already costs a 304 instead of a search.

An answer is fully determined by its address, the index build it came from, the reader's
script (which the cookie may choose), whether it is a page or JSON, and the web code that
presented it. The validator (a weak ETag, as compression changes the bytes, not the meaning)
is those five things, computed without running the view: a request whose If-None-Match
holds it gets its 304 before any searching, rendering or compression. Only a successful
answer carries a validator, and a validator names its address, so a 304 always stands for a
2xx: a validator copied from another address, or `*`, never turns a 404 or a 400 into a 304. The build's name is
the index artifact's id, so a replica serving the same artifact gives the same validator,
and a switch to a new index changes every validator at once.

Static files keep Flask's own validator (from the file) and lifetime (STATIC_SECONDS).
Answers are compressed (zstd, brotli or gzip, as the client accepts) by webapp.compression.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from urllib.parse import urlencode

from flask import Flask, Response, current_app

from indexer.search.engine import IndexUnavailable

from .compression import compress as compressed
from .respond import AnswerRequest, header_names

# How long a client or a shared cache may reuse an answer without asking again: short,
# because a new index may be switched in at any time; asking again costs a 304.
ANSWER_SECONDS = 60
STATIC_SECONDS = 300
# Addresses answered without a validator: the load balancer's probe must always reach a
# worker, and its own Cache-Control says so.
UNCACHED = ("/healthz",)
PRESENTATION_FILES = ("*.py", "templates/*", "static/*")


def code_version(package: Path = Path(__file__).parent) -> str:
    """A short hash of the files that present an answer (views, templates, static files): a
    new release of them changes every validator even when the index did not change."""
    digest = hashlib.sha256()
    for pattern in PRESENTATION_FILES:
        for path in sorted(package.rglob(pattern)):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:10]


def _cacheable(req: AnswerRequest) -> bool:
    return (req.method in ("GET", "HEAD") and req.endpoint not in (None, "static")
            and not req.path.startswith(UNCACHED))


def validator(req: AnswerRequest) -> str:
    """The ETag value of this request's answer. Without an open index only answers that do
    not need one succeed (the embed script, the forum sample), and they name no build."""
    try:
        build = req.library.folder.name
    except IndexUnavailable:
        build = "none"
    fmt = "json" if req.wants_json else "html"
    return f"{build}.{req.view_script or 'asis'}.{fmt}.{current_app.config['CODE_VERSION']}.{_address(req)}"


def _address(req: AnswerRequest) -> str:
    """A short hash of the path and query, but for `script`, which the validator names
    apart (the cookie may choose it instead)."""
    query = urlencode([(key, value) for key, value in req.args.items(multi=True) if key != "script"])
    return hashlib.sha256(f"{req.path}?{query}".encode()).hexdigest()[:8]


def not_modified(req: AnswerRequest) -> Response | None:
    """Before the view: a client that holds this answer's validator gets a 304 at once (its
    `Vary` is added after, as every answer's: webapp.respond.finish)."""
    # Werkzeug parses the header into an object even when the request has none.
    if not req.environ.get("HTTP_IF_NONE_MATCH") or not _cacheable(req):
        return None
    etag = validator(req)
    if req.if_none_match.star_tag or not req.if_none_match.contains_weak(etag):
        return None  # (`*`: whether this address answers at all is the view's to say)
    response = Response(status=304)
    response.set_etag(etag, weak=True)
    _lifetime(req, response)
    return response


def _lifetime(req: AnswerRequest, response: Response) -> None:
    # An answer that sets the script cookie (webapp.respond.finish, which runs after this) is
    # this reader's alone: a shared cache must not hand the cookie to others.
    scope = "private" if req.new_script else "public"
    response.headers.add("Cache-Control", f"{scope}, max-age={ANSWER_SECONDS}")  # it has none yet


def validate(req: AnswerRequest, response: Response) -> None:
    """After the view: a successful answer gets its validator, and a lifetime unless its view
    gave one; errors are left as they are."""
    if response.status_code == 200 and _cacheable(req):
        if "cache-control" not in header_names(response):
            _lifetime(req, response)
        response.set_etag(validator(req), weak=True)


def compress(req: AnswerRequest, response: Response) -> Response:
    """The answer compressed as the client accepts (webapp.compression). Every answer varies
    by Accept-Encoding, compressed or not: its `Vary` names it (webapp.respond.finish writes
    it)."""
    req.varies_by("Accept-Encoding")
    return compressed(req, response)


def install(app: Flask) -> None:
    """The settings of validators and lifetimes; the hooks that apply them are webapp.hooks'."""
    app.config.setdefault("CODE_VERSION", code_version())
    if app.config.get("SEND_FILE_MAX_AGE_DEFAULT") is None:  # Flask's default: no lifetime
        app.config["SEND_FILE_MAX_AGE_DEFAULT"] = STATIC_SECONDS

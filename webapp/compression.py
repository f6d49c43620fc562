"""Compressed answers, in the encoding the client accepts most.

`Accept-Encoding` is read as RFC 9110 (section 12.5.3) says: each coding with its quality,
`q=0` meaning "not acceptable" (`gzip;q=0` refuses gzip, `*;q=0` every coding not named),
`*` standing for the codings not named, the server's order breaking ties. Flask-Compress,
which did this before, chose a coding of quality 0 when it was the only one named.

An answer made per request is compressed here, after its validator is set; a body the build
wrote compressed already (the offline copy) is chosen among its files by `accepted` and left
alone here, as is anything already carrying a Content-Encoding.
"""
from __future__ import annotations

import gzip
import sys
from collections.abc import Callable, Iterable

import brotli  # type: ignore[import-untyped]
from flask import Response

from .respond import AnswerRequest, header_names

if sys.version_info >= (3, 14):
    from compression import zstd
else:
    from backports import zstd

# The server's order of preference when a client accepts several equally: zstd and brotli
# make smaller bodies than gzip for the same CPU at these levels.
COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "zstd": lambda data: zstd.compress(data, 3),
    "br": lambda data: brotli.compress(data, quality=4),
    "gzip": lambda data: gzip.compress(data, compresslevel=6, mtime=0),
}
MIMETYPES = frozenset(("text/html", "text/css", "application/json", "application/javascript", "text/javascript",
                       "application/manifest+json", "image/svg+xml"))
# Smaller bodies are sent as they are: compressing them saves less than the coding costs.
MIN_BYTES = 500
# Larger ones too: no answer made per request is this large (big pages are split), and
# compressing one would cost more CPU than a request may take. A large file is compressed
# when it is built (the offline copy: webapp.offline_copy).
MAX_BYTES = 1024 * 1024
# Other names of the same coding (RFC 9110 section 8.4.1.3).
ALIASES = {"x-gzip": "gzip"}


def qualities(header: str) -> dict[str, float]:
    """Each coding the header names, lower-cased, with its quality (the first mention wins;
    a malformed quality makes the coding not acceptable rather than preferred)."""
    out: dict[str, float] = {}
    for part in header.split(","):
        name, _, params = part.partition(";")
        name = name.strip().lower()
        if not name:
            continue
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = min(max(float(value.strip()), 0.0), 1.0)
                except ValueError:
                    quality = 0.0
        out.setdefault(ALIASES.get(name, name), quality)
    return out


def accepted(header: str | None, offered: Iterable[str]) -> str | None:
    """The coding of `offered` (in the server's order of preference) the client accepts
    most, or None: send the body as it is."""
    if not header:
        return None
    named = qualities(header)
    anything = named.get("*", 0.0)
    best, best_quality = None, 0.0
    for coding in offered:
        quality = named.get(coding, anything)
        if quality > best_quality:
            best, best_quality = coding, quality
    return best


def compress(req: AnswerRequest, response: Response) -> Response:
    """The answer in the coding the client accepts most, when it is worth compressing. A
    static file's strong validator names the coding (its bytes differ with it), and a
    request holding that validator gets its 304 here."""
    coding = accepted(req.environ.get("HTTP_ACCEPT_ENCODING"), COMPRESSORS)
    if (coding is None or response.status_code != 200 or response.mimetype not in MIMETYPES
            or "content-encoding" in header_names(response)):
        return response
    length = response.content_length
    if length is not None and not MIN_BYTES <= length <= MAX_BYTES:
        return response
    response.direct_passthrough = False  # a static file is read here, to be compressed
    data = response.get_data()
    if not MIN_BYTES <= len(data) <= MAX_BYTES:
        return response
    response.set_data(COMPRESSORS[coding](data))
    response.headers["Content-Encoding"] = coding
    etag, weak = response.get_etag()
    if etag and not weak:
        response.set_etag(f"{etag}:{coding}")
        response.make_conditional(req)
    return response

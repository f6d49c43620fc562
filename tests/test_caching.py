"""HTTP caching: validators tied to the index build and the reader's script, 304 answers,
lifetimes, and compressed pages and JSON."""
from __future__ import annotations

import gzip
import json
import re

import brotli
import pytest

from indexer.search.build import current_folder
from webapp import caching, compression

URLS = ["/api/search?q=persist", "/?q=persist", "/api/rules/702.30a", "/rules/702.30a",
        "/api/suggest?q=per", "/api/cards/Murderous Redcap", "/embed.js", "/forum-sample"]


@pytest.mark.parametrize("url", URLS)
def test_every_get_answer_has_a_validator_and_a_lifetime(client, small_index, url):
    response = client.get(url, follow_redirects=True)
    assert response.status_code == 200
    assert response.headers["ETag"].startswith(f'W/"{current_folder(small_index).name}.')
    assert "max-age=" in response.headers["Cache-Control"]
    # Accept and Cookie are named exactly when the answer read them (tests/test_hostile_web.py).
    assert "Accept-Encoding" in response.vary.as_set(preserve_casing=True)


@pytest.mark.parametrize("url", URLS)
def test_the_validator_answers_304_without_a_body(client, url):
    first = client.get(url, follow_redirects=True)
    again = client.get(first.request.path + "?" + first.request.query_string.decode(),
                       headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304
    assert again.data == b""
    assert again.headers["ETag"] == first.headers["ETag"]
    assert "max-age=" in again.headers["Cache-Control"]


@pytest.mark.parametrize("url", ["/api/search?q=persist&script=hans", "/api/rules?numbers=702.30a,999.9&script=hans",
                                 "/api/rules/702.30a?script=hant"])
def test_an_api_answer_naming_its_script_sets_no_cookie_and_may_be_shared(client, url):
    """The embed script's batches name the script in the address: any shared cache may keep them."""
    response = client.get(url)
    assert response.status_code == 200 and "Set-Cookie" not in response.headers
    assert response.headers["Cache-Control"] == f"public, max-age={caching.ANSWER_SECONDS}"
    assert "cookie" not in response.vary.as_set()


def test_the_validator_differs_by_script_and_format(client):
    hant = client.get("/api/search?q=persist&script=hant").headers["ETag"]
    hans = client.get("/api/search?q=persist&script=hans").headers["ETag"]
    page = client.get("/?q=persist&script=hant").headers["ETag"]
    assert len({hant, hans, page}) == 3
    # The cookie chooses the script too: a Simplified reader's validator is not a Traditional one's.
    client.set_cookie("script", "hans")
    cookie_hans = client.get("/api/search?q=persist")
    assert cookie_hans.headers["ETag"] == hans
    assert client.get("/api/search?q=persist", headers={"If-None-Match": hant}).status_code == 200


@pytest.mark.parametrize("url", ["/rules/702.30a?script=hans", "/?q=persist&script=hans"])
def test_an_answer_that_sets_the_script_cookie_is_private(client, url):
    """A shared cache must not keep an answer with the reader's Set-Cookie (nor its 304)."""
    first = client.get(url)
    assert "script=hans" in first.headers["Set-Cookie"]
    assert first.headers["Cache-Control"].startswith("private")
    fresh = client.application.test_client()  # no cookie yet, holding the validator
    again = fresh.get(url, headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and "Set-Cookie" in again.headers
    assert again.headers["Cache-Control"].startswith("private")
    # Once the cookie holds the script, the same address sets nothing and may be shared.
    assert client.get(url).headers["Cache-Control"].startswith("public")


def test_a_stale_validator_gets_the_whole_answer(client):
    response = client.get("/api/search?q=persist",
                          headers={"If-None-Match": 'W/"20000101T000000-000000000000.asis.json.x"'})
    assert response.status_code == 200
    assert json.loads(response.data)["results"]


def test_a_new_index_changes_every_validator(tmp_path, small_index):
    import shutil

    from webapp import create_app

    root = tmp_path / "index"
    shutil.copytree(small_index, root)
    client = create_app({"TESTING": True, "INDEX_ROOT": root}).test_client()
    old = client.get("/api/rules/702.30a").headers["ETag"]
    renamed = "29991231T235959-" + current_folder(root).name[-12:]
    shutil.copytree(current_folder(root), root / renamed)
    (root / "CURRENT").write_text(renamed + "\n")
    client.application.extensions["kb.library"].CHECK_SECONDS = 0
    response = client.get("/api/rules/702.30a", headers={"If-None-Match": old})
    assert response.status_code == 200
    assert response.headers["ETag"] != old
    assert renamed in response.headers["ETag"]


def test_errors_and_the_health_probe_carry_no_validator(client):
    missing = client.get("/api/rules/999.9")
    assert missing.status_code == 404 and "ETag" not in missing.headers
    health = client.get("/healthz")
    assert "ETag" not in health.headers and health.headers["Cache-Control"] == "no-store"
    bad = client.get("/api/search?q=x&script=klingon", headers={"If-None-Match": "*"})
    assert bad.status_code == 400


def test_a_post_is_not_cached(client):
    response = client.post("/api/linkify", json={"text": "see 702.30a"})
    assert response.status_code == 200
    assert "ETag" not in response.headers


@pytest.mark.parametrize("encoding, decode", [("gzip", gzip.decompress), ("br", brotli.decompress)])
def test_pages_and_json_are_compressed_when_accepted(client, encoding, decode):
    for url in ("/api/search?q=persist&limit=20", "/?q=persist&limit=20"):
        plain = client.get(url)
        packed = client.get(url, headers={"Accept-Encoding": encoding})
        assert packed.headers["Content-Encoding"] == encoding
        assert len(packed.data) < len(plain.data) / 2
        assert _without_timing(decode(packed.data)) == _without_timing(plain.data)
        assert packed.headers["ETag"] == plain.headers["ETag"]
        assert client.get(url, headers={"Accept-Encoding": encoding,
                                        "If-None-Match": packed.headers["ETag"]}).status_code == 304


@pytest.mark.parametrize("url, headers", [
    ("/api/search?q=persist", {}), ("/?q=persist&script=hans", {}), ("/api/rules/999.9", {}),
    ("/rules/702.30a", {"Accept": "application/json"}), ("/healthz", {}),
])
def test_an_answer_has_the_same_headers_whatever_encoding_the_client_accepts(client, url, headers):
    """Compression is skipped for a client accepting no encoding, but not what the answer
    says of itself: the same headers but its encoding and length (and the date Flask-Compress
    adds), Accept-Encoding in `Vary`."""
    plain = client.get(url, headers=headers)
    # A client of its own: the first answer may have set the script cookie, which changes the
    # next answer's (Cache-Control: private only while it sets it).
    packed = client.application.test_client().get(url, headers={**headers, "Accept-Encoding": "gzip"})
    assert plain.vary.as_set() == packed.vary.as_set() and "accept-encoding" in plain.vary.as_set()

    def named(response):
        return {name: value for name, value in response.headers.items()
                if name not in ("Content-Encoding", "Content-Length", "Date", "Set-Cookie", "Vary")}

    assert named(plain) == named(packed)
    if "ETag" in plain.headers:
        again = client.get(url, headers={**headers, "If-None-Match": plain.headers["ETag"]})
        assert again.status_code == 304 and again.vary.as_set() == plain.vary.as_set()


def _without_timing(body: bytes) -> bytes:
    """An answer without the search time it reports, which differs from one asking to the next."""
    return re.sub(rb"\d+(\.\d+)? ?ms|\"took_ms\":[\d.]+", b"", body)


def test_static_files_have_a_validator_and_a_lifetime(client):
    response = client.get("/static/style.css")
    assert response.status_code == 200 and response.headers["ETag"]
    assert f"max-age={caching.STATIC_SECONDS}" in response.headers["Cache-Control"]
    assert client.get("/static/style.css", headers={"If-None-Match": response.headers["ETag"]}).status_code == 304


def test_the_code_version_follows_the_presentation_files(tmp_path):
    (tmp_path / "templates").mkdir()
    (tmp_path / "view.py").write_text("x = 1\n")
    (tmp_path / "templates" / "page.html").write_text("<p>one</p>")
    before = caching.code_version(tmp_path)
    (tmp_path / "templates" / "page.html").write_text("<p>two</p>")
    assert caching.code_version(tmp_path) != before


def test_without_an_index_only_the_answers_needing_none_have_a_validator(no_index_app):
    client = no_index_app.test_client()
    embed = client.get("/embed.js")
    assert embed.status_code == 200 and embed.headers["ETag"].startswith('W/"none.')
    search = client.get("/api/search?q=persist", headers={"If-None-Match": embed.headers["ETag"]})
    assert search.status_code == 503 and "ETag" not in search.headers


@pytest.mark.parametrize("header, coding", [
    ("gzip;q=0", None), ("gzip;q=0, br;q=0", None), ("*;q=0", None), ("identity", None), ("", None),
    ("gzip;q=0, *;q=0.5", "zstd"), ("gzip, br;q=0", "gzip"), ("br;q=0.5, gzip;q=0.9", "gzip"),
    ("GZIP; Q=1.0", "gzip"), ("x-gzip", "gzip"), ("gzip;q=oops", None), ("br, gzip", "br"),
    ("gzip, deflate, br, zstd", "zstd"), ("*", "zstd"), ("*;q=0.1, gzip;q=0", "zstd"),
])
def test_the_coding_is_the_one_the_client_accepts_most(header, coding):
    """RFC 9110's Accept-Encoding: q=0 is "not acceptable", `*` stands for codings not named,
    the server's order breaks ties."""
    assert compression.accepted(header, compression.COMPRESSORS) == coding


@pytest.mark.parametrize("header", ["gzip;q=0", "gzip;q=0, br;q=0, zstd;q=0", "*;q=0", "identity;q=1, *;q=0"])
@pytest.mark.parametrize("url", ["/api/search?q=persist&limit=20", "/?q=persist&limit=20", "/static/style.css"])
def test_a_coding_of_quality_zero_is_never_sent(client, url, header):
    plain = client.get(url)
    refused = client.get(url, headers={"Accept-Encoding": header})
    assert refused.status_code == 200 and "Content-Encoding" not in refused.headers
    assert _without_timing(refused.data) == _without_timing(plain.data)
    assert "accept-encoding" in refused.vary.as_set()


def test_a_static_file_s_validator_names_its_coding(client):
    plain = client.get("/static/offline-search/index.js")
    packed = client.get("/static/offline-search/index.js", headers={"Accept-Encoding": "br"})
    assert packed.headers["Content-Encoding"] == "br" and brotli.decompress(packed.data) == plain.data
    assert packed.headers["ETag"] == plain.headers["ETag"][:-1] + ':br"'
    again = client.get("/static/offline-search/index.js", headers={"Accept-Encoding": "br",
                                                            "If-None-Match": packed.headers["ETag"]})
    assert again.status_code == 304 and not again.data


@pytest.mark.parametrize("url", ["/api/rules/999.999", "/api/search?q=persist&limit=0", "/rules/999.999",
                                 "/api/cards/no-such-card"])
def test_a_conditional_request_for_an_error_gets_the_error(client, url):
    """A 304 stands for a 2xx only: neither `*` nor a validator of another address (the same
    build, script and format) turns a 404 or a 400 into a 304."""
    other = client.get("/api/rules/702.30a" if url.startswith("/api/") else "/rules/702.30a").headers["ETag"]
    for held in ("*", other):
        response = client.get(url, headers={"If-None-Match": held})
        assert response.status_code in (400, 404), (held, response.status_code)


def test_a_conditional_request_with_a_star_is_answered(client):
    response = client.get("/api/rules/702.30a", headers={"If-None-Match": "*"})
    assert response.status_code == 200 and response.get_json()["number"] == "702.30a"

"""One error shape everywhere: every route of the app, walked from its URL map, answers a
missing record (404), a wrong method (405), a bad argument (400), a missing index (503)
and a crash (500) with {"error": {"status", "message"}} as JSON, and with the same status
and message on an HTML page where the address serves pages."""
import re

import pytest
from markupsafe import escape

from indexer.knowledge.library import Library
from webapp.respond import JSON_ONLY

JSON = {"Accept": "application/json"}
# Routes that need no index: they still answer when none is built.
NO_INDEX_NEEDED = {"/embed.js", "/forum", "/forum-sample", "/opensearch.xml", "/static/<path:filename>",
                   "/manifest.webmanifest", "/offline", "/sw.js", "/mcp"}
# MCP lists its tools without an index; a tool's call says it is not available (tests/test_mcp.py).
MCP_LISTING = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
MCP_ACCEPT = {"Accept": "application/json, text/event-stream"}


def routes(app):
    return sorted((rule for rule in app.url_map.iter_rules()), key=lambda r: r.rule)


def url_for_rule(rule, value="no-such-thing"):
    return re.sub(r"<[^>]+>", value, rule.rule)


def json_only(path):
    return path.startswith(JSON_ONLY)


def assert_error(response, status, message=None):
    assert response.status_code == status
    assert response.mimetype == "application/json", response.get_data(as_text=True)[:200]
    body = response.get_json()
    assert list(body) == ["error"] and list(body["error"]) == ["status", "message"]
    assert body["error"]["status"] == status
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    if message is not None:
        assert body["error"]["message"] == message
    return body["error"]["message"]


def assert_error_page(response, status, message):
    assert response.status_code == status
    assert response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    assert f'<span lang="en">Error</span> {status}</h1>' in html
    assert f'<p class="message" lang="en">{escape(message)}</p>' in html


def test_the_walk_covers_every_area(app):
    paths = {rule.rule for rule in routes(app)}
    assert {"/", "/api/search", "/api/suggest", "/rules/<number>", "/api/rules/<number>", "/cards/<record_id>",
            "/planes/<record_id>", "/api/cards/<record_id>", "/api/planes/<record_id>", "/terms/<record_id>",
            "/api/terms/<record_id>", "/sources/<source_id>", "/api/sources/<source_id>", "/api/linkify",
            "/embed.js", "/forum-sample", "/healthz", "/opensearch.xml"} <= paths


def test_every_route_with_an_argument_answers_404_in_the_shape(app, client):
    walked = 0
    for rule in routes(app):
        if not rule.arguments:
            continue
        url = url_for_rule(rule)
        message = assert_error(client.get(url, headers=JSON), 404)
        page = client.get(url)
        if json_only(url):
            assert_error(page, 404, message)
        else:
            assert_error_page(page, 404, message)
        walked += 1
    assert walked == 11  # rules, cards, planes, terms and sources (page and API each), static files


def test_every_route_answers_a_wrong_method_with_405_in_the_shape(app, client):
    for rule in routes(app):
        url = url_for_rule(rule, "702.30c")
        response = client.delete(url, headers=JSON)
        assert_error(response, 405, "This address does not accept that method.")
        assert set(response.headers["Allow"].split(", ")) == set(rule.methods), url
        if not json_only(url):
            assert_error_page(client.delete(url), 405, "This address does not accept that method.")


def test_every_get_route_refuses_a_bad_format_or_script_with_400(app, client):
    for rule in routes(app):
        if "GET" not in rule.methods:
            continue
        base = url_for_rule(rule, "702.30c")
        assert_error(client.get(base + "?format=yaml", headers=JSON), 400,
                     "format must be one of html, json, not 'yaml'")
        message = assert_error(client.get(base + "?script=cyrl", headers=JSON), 400,
                               "script must be one of hant, hans, not 'cyrl'")
        if not json_only(base):
            assert_error_page(client.get(base + "?script=cyrl"), 400, message)


def test_every_route_needing_the_index_answers_503_without_one(no_index_app):
    client = no_index_app.test_client()
    unavailable = "The search index is not available right now; please try again in a moment."
    needing = 0
    for rule in routes(no_index_app):
        url = url_for_rule(rule, "702.30c") + (
            "?q=persist" if rule.rule in ("/", "/api/search", "/api/suggest") else "")
        if rule.rule == "/api/linkify":
            response = client.post(url, json={"text": "702.30a"})
        elif rule.rule == "/mcp":
            response = client.post(url, json=MCP_LISTING, headers=MCP_ACCEPT)
        else:
            response = client.get(url, headers=JSON)
        if rule.rule in NO_INDEX_NEEDED:
            assert response.status_code in (200, 404), url  # a static file that is not there is a 404
            continue
        assert_error(response, 503, unavailable)
        assert response.headers["Retry-After"] == "30"
        if not json_only(url):
            assert_error_page(client.get(url), 503, unavailable)
        needing += 1
    assert needing == 27  # 21, the book (/rules, /glossary and their /api/ twins), /changes and its twin


def test_a_crash_is_a_500_in_the_shape_without_details(client, monkeypatch):
    def crash(self, *args, **kwargs):
        raise RuntimeError("secret internal detail")

    monkeypatch.setattr(Library, "search", crash)
    response = client.get("/api/search?q=persist")
    assert_error(response, 500, "Something went wrong on our side.")
    page = client.get("/?q=persist")
    assert_error_page(page, 500, "Something went wrong on our side.")
    assert "secret internal detail" not in page.get_data(as_text=True)


def test_error_messages_are_escaped_on_pages(client):
    response = client.get('/cards/<img src=x onerror="alert(1)">')
    html = response.get_data(as_text=True)
    assert response.status_code == 404
    assert "<img" not in html
    assert "No card &#39;&lt;img src=x onerror=&#34;alert(1)&#34;&gt;&#39;." in html


def test_unknown_addresses_are_404_in_both_forms(client):
    assert_error(client.get("/no/such/page", headers=JSON), 404, "No such page.")
    assert_error_page(client.get("/no/such/page"), 404, "No such page.")
    assert_error(client.get("/api/no-such-endpoint"), 404, "No such page.")


@pytest.mark.parametrize("path", ["/rules/999.9", "/api/rules/999.9"])
def test_error_answers_carry_the_security_headers(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"

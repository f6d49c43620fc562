"""Requests a hostile client or crawler sends: each answer is a clear 4xx or a correct page,
never a 500, a link to another site or an answer a shared cache could give the wrong reader."""
from __future__ import annotations

import io
import re
from urllib.parse import quote

import pytest

from webapp import create_app

ERROR_KEYS = {"error"}


def toggle_links(html: str) -> list[str]:
    return re.findall(r'<a href="([^"]*)" lang="zh-Han[st]"', html)


@pytest.mark.parametrize("path", ["/%5Cevil.example/phish", "/%5C%5Cevil.example/phish", "//evil.example/phish",
                                  "/%2F%2Fevil.example/phish"])
def test_the_script_toggle_of_an_error_page_stays_on_this_site(client, path):
    response = client.get(path)
    assert response.status_code == 404
    links = toggle_links(response.get_data(as_text=True))
    assert links == ["?script=hant", "?script=hans"]


def test_the_script_toggle_is_built_from_the_route(client):
    html = client.get("/rules/702.30a?edition=2010-02-01").get_data(as_text=True)
    assert toggle_links(html) == ["/rules/702.30a?edition=2010-02-01&amp;script=hant",
                                  "/rules/702.30a?edition=2010-02-01&amp;script=hans"]


@pytest.mark.parametrize("path, location", [
    ("/rules//702.30a", "/rules/702.30a"),
    ("/rules//702.30a?script=hans", "/rules/702.30a?script=hans"),
])
def test_canonical_redirects_never_name_the_requests_host(client, path, location):
    response = client.get(path, headers={"Host": "evil.example"})
    assert response.status_code == 308
    assert response.headers["Location"] == location


def test_a_name_redirect_is_built_from_the_route(client):
    response = client.get("/cards/Murderous%20Redcap?script=hans", headers={"Host": "evil.example"})
    assert response.headers["Location"] == "/cards/shadowmoor-faq:card:murderous-redcap?script=hans"


@pytest.mark.parametrize("path", ["/api/search?q=" + "a" * 5000, "/" + "x" * 5000, "/rules/" + "7" * 4500])
def test_a_too_long_address_is_a_414_in_the_error_shape(client, path):
    response = client.get(path, headers={"Accept": "application/json"})
    assert response.status_code == 414
    assert response.get_json()["error"]["message"].startswith("The address is too long: ")
    page = client.get(path)
    assert page.status_code == 414 and "The address is too long" in page.get_data(as_text=True)


# A question of 500 characters in a script of three bytes a character (percent-encoded, 4,500
# bytes), and one of characters of four bytes (6,000).
LONG_QUESTIONS = [("对手施放咒语时我用反击咒语回应，它会被反击吗？" * 25)[:500], "🂡" * 500]


@pytest.mark.parametrize("question", LONG_QUESTIONS, ids=["chinese", "four-byte"])
def test_a_question_of_500_characters_in_any_script_is_answered(client, question):
    """Its address is measured decoded: percent-encoded, it is longer than the 4,096 allowed."""
    path = "/api/search?q=" + quote(question)
    assert len(path) > 4096
    response = client.get(path)
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["left_out"] == []
    assert client.get("/?q=" + quote(question)).status_code == 200


def test_a_deeply_nested_json_body_is_a_clear_400(client):
    body = "[" * 50_000 + "]" * 50_000
    response = client.post("/api/linkify", data=body, content_type="application/json")
    assert response.status_code == 400
    assert response.get_json() == {"error": {"status": 400, "message": "The JSON body is nested too deeply."}}


@pytest.mark.parametrize("text", ["hi <![ 702.30a", "<!", "<a b=\"", "</", "<?x"])
def test_html_never_closed_is_linked_without_error(client, text):
    response = client.post("/api/linkify", json={"text": text, "format": "html"})
    assert response.status_code == 200
    assert "<" not in response.get_json()["text"]


@pytest.mark.parametrize("value", ["٥", "1_0", " 5", "5 ", "+5", "５", "0x5", "1" * 30])
def test_numbers_are_ascii_digits_only(client, value):
    response = client.get("/api/search", query_string={"q": "persist", "limit": value})
    assert response.status_code == 400
    assert set(response.get_json()) == ERROR_KEYS


def test_answers_that_read_the_script_cookie_vary_by_it(client):
    client.set_cookie("script", "hans")
    for url in ("/api/suggest?q=%E7%95%99", "/api/search?q=persist", "/rules/702.30a", "/no-such-page"):
        assert "Cookie" in client.get(url).headers.get("Vary", ""), url


def test_answers_chosen_by_accept_vary_by_it(client):
    for url in ("/no-such-page", "/rules/999.9", "/rules/702.30a"):
        page = client.get(url)
        twin = client.get(url, headers={"Accept": "application/json"})
        assert page.mimetype == "text/html" and twin.mimetype == "application/json"
        assert "Accept" in page.headers["Vary"] and "Accept" in twin.headers["Vary"]


def test_absolute_links_use_the_configured_address(small_index):
    app = create_app({"TESTING": True, "INDEX_ROOT": small_index, "PUBLIC_URL": "https://kb.example/"})
    client = app.test_client()
    sample = client.get("/forum-sample", headers={"Host": "evil.example"}).get_data(as_text=True)
    assert "https://kb.example/embed.js" in sample and "evil.example" not in sample
    xml = client.get("/opensearch.xml", headers={"Host": "evil.example"}).get_data(as_text=True)
    assert "evil.example" not in xml and "https://kb.example/api/search?q={searchTerms}" in xml


@pytest.mark.parametrize("path", ["/rules//702.30a", "/rules//702.30a?script=hans", "//rules//702.30a"])
def test_a_canonical_redirect_s_body_never_names_the_requests_host(client, path):
    response = client.get(path, headers={"Host": "evil.example"})
    assert response.status_code == 308
    body = response.get_data(as_text=True)
    assert "evil.example" not in body and "http" not in body
    assert f'href="{response.headers["Location"]}"' in body.replace("&amp;", "&")


def chunked_post(client, size: int):
    body = b'{"text": "' + b"a" * size + b' 702.30c"}'
    # As gunicorn hands on a chunked body: decoded, with no Content-Length.
    environ = {"wsgi.input": io.BytesIO(body), "wsgi.input_terminated": True, "CONTENT_LENGTH": "",
               "CONTENT_TYPE": "application/json", "HTTP_TRANSFER_ENCODING": "chunked"}
    return client.post("/api/linkify", environ_overrides=environ), body


@pytest.mark.parametrize("over", [1, 100_000])
def test_a_chunked_body_over_the_limit_is_a_413(client, over):
    limit = client.application.config["MAX_CONTENT_LENGTH"]
    response, body = chunked_post(client, limit + over)
    assert len(body) > limit
    assert response.status_code == 413
    assert response.get_json()["error"]["message"] == f"The request body is too large (at most {limit} bytes)."


def test_a_chunked_body_within_the_limit_is_read_whole(client):
    response, _body = chunked_post(client, 50_000)
    assert response.status_code == 200
    assert [link["target"] for link in response.get_json()["links"]] == ["702.30c"]  # at the body's end

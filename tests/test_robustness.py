"""Hostile and arbitrary input never breaks the service (hypothesis property tests).

Requests go through the Flask test client to the app over the small session index
(tests/conftest.py). Paths and query strings are given to the app as gunicorn hands them over:
PATH_INFO already percent-decoded into arbitrary bytes (invalid UTF-8, NUL, `..`), QUERY_STRING
as sent (percent-encoded surrogates and bytes, broken escapes; only ASCII, since gunicorn
itself refuses a request line with other bytes with a 400). Whatever
arrives, the answer is a 2xx, 3xx (to an address on this site) or 4xx, never a
5xx; JSON is valid, strict JSON, and an error is exactly {"error": {"status", "message"}};
HTML carries no script or attribute of the input's making. Library.search called directly
raises nothing but QueryError.

The examples of all tests add up to more than 10,000 requests; each test's count is set where
it is defined (a tenth of them in ./scripts/test --fast).
"""
from __future__ import annotations

import json
from html.parser import HTMLParser
from urllib.parse import quote_from_bytes, urlsplit

from hypothesis import HealthCheck, example, given, settings, strategies as st

from indexer.search.query import MAX_QUERY_CHARS, QueryError
from webapp.linkify import FORMATS

SETTINGS = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}


def examples(full: int) -> int:
    """A test's count of examples: `full` under Hypothesis' default profile (100 examples a
    test), proportionally fewer under a smaller one (`./scripts/test --fast` loads the profile
    "fast" of tests/conftest.py, a tenth)."""
    return max(1, full * settings.default.max_examples // 100)


# Markers an injection would turn into markup: a tag and an attribute no template uses.
PROBE_TAG = "b-probe"
PROBE_ATTR = "b-probe-attr"
HOSTILE = [
    f"<{PROBE_TAG}>", "<script>alert(1)</script>", f'"><{PROBE_TAG} onerror=alert(1)>',
    f'" {PROBE_ATTR}="1', f"' {PROBE_ATTR}='1", "javascript:alert(1)", "</textarea></title></script>",
    "{{7*7}}", "{% raw %}", "${7*7}", "%s%n", "../", "..\\", "/etc/passwd", "\x00", "\r\n", "\u202e",
    "\ufeff", "\u0345", "İ", "ﬃ", "\U0001f600", "\U0010ffff", "７０２．３０ａ", "702.30a", "規則901.3a",
    "奪魂紅帽客", "留存", "persist", "Мултивселената",
]
SYNTAX = ["AND", "OR", "NOT", "(", ")", '"', "“", "」", "*", "?", "~", "^", ":", "-", "+", "\\", "[", "]",
          "{", "}", "kind:", "kind:card", "kind:nope", "source:", "edition:2009-07-08", "lang:bg", "name:",
          "NEAR", "/", "&", "|", "!", "'"]
BROKEN_ESCAPES = ["%", "%G", "%4", "%%", "%zz", "%E4%B8", "%C0%AF", "%ED%A0%80", "%ED%BF%BF", "%FF", "%00",
                  "%F4%90%80%80", "+", "&", "=", ";"]

# Text: any code point (surrogates too), mixed with syntax and hostile pieces.
any_char = st.characters(codec=None, exclude_categories=())
pieces = st.one_of(st.text(any_char, max_size=12), st.sampled_from(HOSTILE), st.sampled_from(SYNTAX))
hostile_text = st.one_of(
    st.lists(pieces, max_size=8).map(" ".join),
    st.lists(pieces, max_size=8).map("".join),
    st.text(any_char, max_size=60),
    st.builds(lambda s, n: s * n, st.sampled_from(["a", "留", "702.30a ", "(", '"', "\x00", "é"]),
              st.integers(MAX_QUERY_CHARS - 2, 6000)),
)


def encoded(text: str) -> bytes:
    """UTF-8, with lone surrogates as the three bytes a careless client sends for them."""
    return text.encode("utf-8", "surrogatepass")


def percent(data: bytes) -> str:
    return quote_from_bytes(data, safe="")


# A query-string value as it arrives: percent-encoded text or bytes, broken escapes, ASCII as is.
raw_value = st.one_of(
    hostile_text.map(lambda t: percent(encoded(t))),
    st.binary(max_size=40).map(percent),
    st.lists(st.one_of(st.sampled_from(BROKEN_ESCAPES), hostile_text.map(lambda t: percent(encoded(t))),
                       st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7e), max_size=6)),
             max_size=6).map("".join),
)
# A path segment as the server hands it over: decoded bytes, shown as a latin-1 string.
path_segment = st.one_of(
    hostile_text.map(lambda t: encoded(t).decode("latin-1")),
    st.binary(max_size=40).map(lambda b: b.decode("latin-1")),
    st.sampled_from(["..", "../..", "../../etc/passwd", "..%2F..%2Fetc%2Fpasswd", "%2e%2e", ".", "",
                     "a.json", "702.30a.json", "..\\..\\windows", "\x00", "x" * 5000]),
)


def get(app, path: str, query: str = ""):
    """A GET with PATH_INFO and QUERY_STRING exactly as given."""
    client = app.test_client()
    return client.get("/", environ_overrides={"PATH_INFO": path, "QUERY_STRING": query})


class MarkupAudit(HTMLParser):
    """Every tag and attribute of a page, checked against what an injection would add."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []

    def handle_starttag(self, tag, attrs):
        self._check(tag, attrs)

    def handle_startendtag(self, tag, attrs):
        self._check(tag, attrs)

    def _check(self, tag, attrs):
        if tag == PROBE_TAG:
            self.problems.append(f"injected <{tag}>")
        if tag == "script" and not (dict(attrs).get("src") or "").startswith("/static/"):
            self.problems.append(f"script element not from /static/: {attrs}")
        for name, value in attrs:
            if name.startswith("on") or name == PROBE_ATTR:
                self.problems.append(f"attribute {name}={value!r} on <{tag}>")
            if name in ("href", "src", "action", "formaction") and (value or "").strip().lower().startswith(
                    ("javascript:", "vbscript:", "data:text")):
                self.problems.append(f"{name}={value!r} on <{tag}>")


def markup_problems(page: str) -> list[str]:
    audit = MarkupAudit()
    audit.feed(page)
    audit.close()
    return audit.problems


def strict_json(body: bytes):
    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")
    return json.loads(body.decode("utf-8"), parse_constant=refuse)


def json_twin(path: str) -> bool | None:
    """Whether the app must answer `path` with JSON (an /api/ address or a .json suffix) or
    with a page; None for static files, which have their own types."""
    if path.startswith("/static/"):
        return None
    return path.startswith("/api/") or path.endswith(".json")


def check(response, path: str, json_expected: bool | None = None) -> object:
    """The properties every answer has; returns the parsed JSON (or None for a page)."""
    status = response.status_code
    assert 200 <= status < 500, f"{status} for {path!r}: {response.get_data()[:300]!r}"
    body = response.get_data()
    if 300 <= status < 400:
        location = response.headers["Location"]
        target = urlsplit(location)
        assert (target.scheme, target.netloc) in (("", ""), ("http", "localhost")), location
        assert target.path.startswith("/") and not target.path.startswith("//"), location
        assert "\r" not in location and "\n" not in location
        return None
    is_json = response.mimetype == "application/json"
    if json_expected is not None:
        assert is_json == json_expected, f"{response.mimetype} for {path!r}"
    if is_json:
        data = strict_json(body)
        if status >= 400:
            assert data == {"error": {"status": status, "message": data["error"]["message"]}}, data
            assert isinstance(data["error"]["message"], str) and data["error"]["message"]
        return data
    page = body.decode("utf-8")
    assert not markup_problems(page), (path, markup_problems(page))
    assert "root:x:0:0" not in page
    return None


# --- /api/search and the search page ----------------------------------------------------

@settings(max_examples=examples(2500), **SETTINGS)
@given(q=raw_value, limit=st.one_of(st.none(), st.integers(-10, 80).map(str), raw_value),
       script=st.one_of(st.none(), st.sampled_from(["hant", "hans"]), raw_value))
@example(q="%ED%A0%80", limit="%FF", script="%")
def test_api_search_answers_any_query(app, q, limit, script):
    query = "q=" + q + ("" if limit is None else "&limit=" + limit) + ("" if script is None else "&script=" + script)
    response = get(app, "/api/search", query)
    data = check(response, "/api/search?" + query, json_expected=True)
    if response.status_code == 200:
        assert set(data) >= {"query", "total", "results", "did_you_mean", "rule_jump"}
        assert len(data["results"]) <= data["total"]
        assert all(isinstance(r["id"], str) and r["url"].startswith("/") for r in data["results"])


def test_over_long_query_is_a_400_naming_the_limit(app):
    response = get(app, "/api/search", "q=" + "a" * (MAX_QUERY_CHARS + 1))
    assert response.status_code == 400
    assert strict_json(response.get_data()) == {"error": {
        "status": 400, "message": f"query too long: {MAX_QUERY_CHARS + 1} characters (at most {MAX_QUERY_CHARS})"}}


@settings(max_examples=examples(1000), **SETTINGS)
@given(q=raw_value, fmt=st.one_of(st.none(), st.sampled_from(["html", "json"]), raw_value))
def test_search_page_answers_any_query(app, q, fmt):
    query = "q=" + q + ("" if fmt is None else "&format=" + fmt)
    check(get(app, "/", query), "/?" + query)


# --- record pages and their JSON twins ----------------------------------------------------

PAGE_PREFIXES = ["/rules/", "/api/rules/", "/cards/", "/api/cards/", "/planes/", "/api/planes/",
                 "/terms/", "/api/terms/", "/sources/", "/api/sources/", "/static/", "/"]


@settings(max_examples=examples(2000), **SETTINGS)
@given(prefix=st.sampled_from(PAGE_PREFIXES), segment=path_segment, suffix=st.sampled_from(["", ".json", "/", "/x"]),
       query=st.one_of(st.just(""), raw_value.map(lambda v: "edition=" + v), raw_value.map(lambda v: "script=" + v)))
def test_pages_answer_any_path(app, prefix, segment, suffix, query):
    path = prefix + segment + suffix
    check(get(app, path, query), path, json_expected=json_twin(path))


@settings(max_examples=examples(1500), **SETTINGS)
@given(segment=path_segment)
def test_rule_pages_answer_any_number(app, segment):
    for prefix in ("/rules/", "/api/rules/"):
        check(get(app, prefix + segment), prefix + segment, json_expected=json_twin(prefix + segment))


# --- /api/linkify --------------------------------------------------------------------------

json_value = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                                    st.text(max_size=20)),
                          lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                  st.dictionaries(st.text(max_size=5), inner, max_size=3)),
                          max_leaves=8)
# A post as a JSON body carries it (json.dumps writes a lone surrogate as \udXXXX).
post_text = st.one_of(
    st.lists(st.one_of(st.text(any_char, max_size=12), st.sampled_from(HOSTILE), st.sampled_from(
        ["[[奪魂紅帽客]]", "[[", "]]", "[[x]]", "702.30a", "601.2f至h", "```\n702.30a\n```", "<a href='javascript:x'>",
         "<code>", "[url=javascript:alert(1)]x[/url]", "http://example.invalid/702.30a", "<img src=x onerror=y>"])),
        max_size=12).map(" ".join),
    st.text(max_size=300),
)


@settings(max_examples=examples(2000), **SETTINGS)
@given(body=st.one_of(
    st.fixed_dictionaries({"text": st.one_of(post_text, json_value)},
                          optional={"format": st.one_of(st.sampled_from(FORMATS), json_value)}).map(
        lambda d: ("json", json.dumps(d).encode())),
    json_value.map(lambda v: ("json", json.dumps(v).encode())),
    st.binary(max_size=200).map(lambda b: ("json", b)),
    st.tuples(post_text, st.sampled_from([*FORMATS, "", "nope"])).map(
        lambda tf: ("form", {"text": tf[0].encode("utf-8", "replace").decode(), "format": tf[1]})),
    st.binary(max_size=200).map(lambda b: ("raw", b)),
    st.integers(100 * 1024, 120 * 1024).map(lambda n: ("json", b'{"text": "' + b"a" * n + b'"}')),
))
def test_linkify_answers_any_body(app, body):
    kind, payload = body
    client = app.test_client()
    if kind == "json":
        response = client.post("/api/linkify", data=payload, content_type="application/json")
    elif kind == "form":
        response = client.post("/api/linkify", data=payload)
    else:
        response = client.post("/api/linkify", data=payload, content_type="application/octet-stream")
    data = check(response, "/api/linkify", json_expected=True)
    if response.status_code == 200:
        assert set(data) == {"text", "links", "unknown", "unknown_names", "truncated"}
        request = json.loads(payload) if kind == "json" else payload
        if request.get("format") == "html":
            assert not markup_problems(data["text"]), markup_problems(data["text"])


def test_linkify_refuses_a_lone_surrogate_with_a_400(app):
    response = app.test_client().post("/api/linkify", data=b'{"text": "\\ud800 702.30a"}',
                                      content_type="application/json")
    assert strict_json(response.get_data()) == {"error": {
        "status": 400, "message": "text is not valid Unicode: a lone surrogate at offset 0."}}


# --- the library itself --------------------------------------------------------------------

@settings(max_examples=examples(1500), **SETTINGS)
@given(q=hostile_text, limit=st.integers(-3, 60),
       script=st.one_of(st.none(), st.sampled_from(["hant", "hans"]), st.text(max_size=4)))
def test_library_search_raises_only_query_error(library, q, limit, script):
    try:
        answer = library.search(q, limit=limit, script=script)
    except QueryError as exc:
        assert str(exc)
        return
    assert len(answer["results"]) <= min(limit, answer["total"])
    assert all(result["id"] in library.records for result in answer["results"])
    json.dumps(answer)

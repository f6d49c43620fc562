"""The forum linker: rule references and [[names]] in HTML, Markdown and BBCode, resolved
against real indexes (the small corpus, and the same with the 2010-02-01 rules file).

Numbers known in the small corpus: 702.30-702.30g (Worldwake FAQ, 2010-02-01), 502.78-502.80b
and 104.3 (Shadowmoor FAQ, 2008-05-01), 901-901.15c (Planechase guide, 2016-01). Not in it:
601.2f (only in the rules file), 999.9 (in no edition).
"""
import html
from html.parser import HTMLParser

import pytest

from indexer.documents.references import find_references, parse_rule_number
from webapp import create_app
from webapp.linkify import ALLOWED, MAX_MARKUP, MAX_REFERENCES, LibraryResolver, linkify, safe_href

BASE = "https://kb.example"
REDCAP = f"{BASE}/cards/shadowmoor-faq:card:murderous-redcap"


@pytest.fixture
def resolver(library):
    return LibraryResolver(library, base=BASE)


def rule(number: str) -> str:
    return f"{BASE}/rules/{number}"


# --- Markdown ---------------------------------------------------------------------------

def test_every_written_form_of_a_reference_is_linked(resolver):
    out = linkify("See 702.30a, 規則901.9, rule 702.30 and CR 502.79a.", "markdown", resolver)
    assert out.text == (f"See [702.30a]({rule('702.30a')}), 規則[901.9]({rule('901.9')}), "
                        f"rule [702.30]({rule('702.30')}) and CR [502.79a]({rule('502.79a')}).")
    assert out.links == [
        {"text": "702.30a", "kind": "rule", "target": "702.30a", "url": rule("702.30a")},
        {"text": "901.9", "kind": "rule", "target": "901.9", "url": rule("901.9")},
        {"text": "702.30", "kind": "rule", "target": "702.30", "url": rule("702.30")},
        {"text": "502.79a", "kind": "rule", "target": "502.79a", "url": rule("502.79a")},
    ]
    assert out.unknown == [] and out.unknown_names == []


def test_a_number_in_any_digits_or_with_zero_width_characters_is_linked_as_written(resolver):
    """Arabic-Indic and mathematical digits, full-width forms and a zero-width space inside a
    number: linked to the number they read as, the text as written; a ～ range whole."""
    written = "規則7\u0660\u0662.\u0663\u0660c, 𝟕𝟎𝟐.𝟑𝟎a, 702.\u200b30c and ９０１．９ａ～ｃ"
    out = linkify(written, "markdown", resolver)
    assert [(link["text"], link["target"]) for link in out.links] == [
        ("7\u0660\u0662.\u0663\u0660c", "702.30c"), ("𝟕𝟎𝟐.𝟑𝟎a", "702.30a"), ("702.\u200b30c", "702.30c"),
        ("９０１．９ａ～ｃ", "901.9a")]
    assert out.text.startswith(f"規則[7\u0660\u0662.\u0663\u0660c]({rule('702.30c')}), ")
    assert out.unknown == []


def test_numbers_inside_urls_are_not_linked(resolver):
    text = "Old FAQ: http://x/702.30a and www.example.com/rules/901.9?a=702.30b, but 702.30c is."
    out = linkify(text, "markdown", resolver)
    assert out.text == text.replace("but 702.30c", f"but [702.30c]({rule('702.30c')})")
    assert [link["target"] for link in out.links] == ["702.30c"]


def test_a_url_followed_directly_by_chinese_ends_before_it(resolver):
    out = linkify("見http://x.tw/a規則702.30a", "markdown", resolver)
    assert out.text == f"見http://x.tw/a規則[702.30a]({rule('702.30a')})"


def test_markdown_code_is_never_linked(resolver):
    text = ("```\n702.30a in a fence\n```\n"
            "Inline `901.9` and ``double 702.30b`` stay.\n\n"
            "    702.30d indented code\n\n"
            "~~~md\n502.79\n~~~\n"
            "Only 702.30c links.")
    out = linkify(text, "markdown", resolver)
    assert out.text == text.replace("Only 702.30c", f"Only [702.30c]({rule('702.30c')})")
    assert out.unknown == []


def test_an_unclosed_fence_protects_to_the_end(resolver):
    text = "702.30a before\n```\n702.30b never closed"
    out = linkify(text, "markdown", resolver)
    assert out.text == f"[702.30a]({rule('702.30a')}) before\n```\n702.30b never closed"


def test_existing_markdown_links_are_left_alone(resolver):
    text = ("[see 702.30a](http://x/y) and ![alt 901.9](http://x/i.png) and [702.30b][ref] "
            "and <http://x/702.30c>\n\n[ref]: http://x/702.30d\n\nthen 702.30e")
    out = linkify(text, "markdown", resolver)
    assert out.text == text.replace("then 702.30e", f"then [702.30e]({rule('702.30e')})")


def test_a_range_is_one_link_to_its_first_rule(resolver):
    out = linkify("擲骰見規則901.9a至c。", "markdown", resolver)
    assert out.text == f"擲骰見規則[901.9a至c]({rule('901.9a')})。"
    assert out.links == [{"text": "901.9a至c", "kind": "rule", "target": "901.9a", "url": rule("901.9a")}]


def test_unknown_numbers_stay_text_and_are_reported_once(resolver):
    text = "規則601.2f至h and 999.9, again 999.9, and 702.30a"
    out = linkify(text, "markdown", resolver)
    assert out.text == text.replace("and 702.30a", f"and [702.30a]({rule('702.30a')})")
    assert out.unknown == ["601.2f", "999.9"]


def test_a_range_links_where_the_rules_file_has_it(cr_library):
    out = linkify("支付額外費用見規則601.2b與規則601.2f至h。", "markdown", LibraryResolver(cr_library, base=BASE))
    assert out.text == f"支付額外費用見規則[601.2b]({rule('601.2b')})與規則[601.2f至h]({rule('601.2f')})。"
    assert out.unknown == []


@pytest.mark.parametrize("written", ["[[奪魂紅帽客]]", "[[夺魂红帽客]]", "[[Murderous Redcap]]",
                                     "[[ murderous  redcap ]]"])
def test_card_names_link_in_any_language_script_or_case(resolver, written):
    out = linkify(f"Play {written} now", "markdown", resolver)
    name = written[2:-2].strip()
    assert out.text == f"Play [{name}]({REDCAP}) now"
    assert out.links == [{"text": name, "kind": "card", "target": "shadowmoor-faq:card:murderous-redcap",
                          "url": REDCAP}]


def test_planes_and_terms_link_and_unknown_names_are_reported(resolver):
    out = linkify("[[Chaotic Aether]], [[混乱乙太]], [[留存]] and [[No Such Card]]", "markdown", resolver)
    plane = f"{BASE}/planes/planechase-guide:planar_card:chaotic-aether"
    assert out.text == (f"[Chaotic Aether]({plane}), [混乱乙太]({plane}), "
                        f"[留存]({BASE}/terms/glossary:term:persist) and [[No Such Card]]")
    assert [link["kind"] for link in out.links] == ["planar_card", "planar_card", "term"]
    assert out.unknown_names == ["No Such Card"]


# --- BBCode -----------------------------------------------------------------------------

def test_bbcode_code_urls_and_tag_values_are_left_alone(resolver):
    text = ("[code]702.30a[/code] [CODE=text]901.9[/CODE] [url=http://x/702.30b]702.30b[/url] "
            "[url]http://x/702.30c[/url] [quote=702.30d]702.30e and [[奪魂紅帽客]][/quote] [img]http://x/702.30f.png[/img]")
    out = linkify(text, "bbcode", resolver)
    assert out.text == text.replace("702.30e and [[奪魂紅帽客]]",
                                    f"[url={rule('702.30e')}]702.30e[/url] and [url={REDCAP}]奪魂紅帽客[/url]")
    assert [link["target"] for link in out.links] == ["702.30e", "shadowmoor-faq:card:murderous-redcap"]


def test_an_unclosed_bbcode_code_block_protects_to_the_end(resolver):
    out = linkify("702.30a [code]702.30b", "bbcode", resolver)
    assert out.text == f"[url={rule('702.30a')}]702.30a[/url] [code]702.30b"


def test_a_bbcode_bracketed_name_is_not_taken_for_a_tag(resolver):
    out = linkify("[b][[persist]][/b]", "bbcode", resolver)
    assert out.text == f"[b][url={BASE}/terms/glossary:term:persist]persist[/url][/b]"


# --- HTML -------------------------------------------------------------------------------

class Tags(HTMLParser):
    """Every element and attribute of an HTML string."""

    def __init__(self, text):
        super().__init__()
        self.tags, self.text = [], []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))

    def handle_data(self, data):
        self.text.append(data)


def test_html_links_text_but_not_code_pre_or_links(resolver):
    text = ('<p>See 702.30a &amp; 901.9.</p><p><a href="http://x/y">702.30b</a> <code>702.30c</code></p>'
            "<pre>702.30d</pre><blockquote>rule 502.79</blockquote>")
    out = linkify(text, "html", resolver)
    assert out.text == (f'<p>See <a href="{rule("702.30a")}">702.30a</a> &amp; <a href="{rule("901.9")}">901.9</a>.</p>'
                        '<p><a href="http://x/y">702.30b</a> <code>702.30c</code></p>'
                        f'<pre>702.30d</pre><blockquote>rule <a href="{rule("502.79")}">502.79</a></blockquote>')


def test_html_input_cannot_inject_script_or_attributes(resolver):
    text = ('<script>alert(1)</script><img src=x onerror=alert(1)>'
            '<a href="javascript:alert(1)" onclick="steal()">702.30a</a>'
            '<a href=" java\tscript:alert(2)">x</a>'
            '<p style="color:red" onmouseover="alert(3)">702.30b " onmouseover="alert(4)</p>'
            '<style>p{}</style><iframe src="http://evil"></iframe><!-- 702.30c -->'
            '<svg onload=alert(5)>[[x" onmouseover="y]]</svg><a href="data:text/html,hi">d</a>')
    out = linkify(text, "html", resolver)
    parsed = Tags(out.text)
    for tag, attrs in parsed.tags:
        assert tag in ALLOWED
        assert all(name == "href" for name, _ in attrs), (tag, attrs)
        for _, value in attrs:
            assert value.startswith(("https://", "http://")), value
    assert [tag for tag, _ in parsed.tags] == ["a", "a", "p", "a", "a"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out.text
    assert "&lt;img src=x onerror=alert(1)&gt;" in out.text
    assert '" onmouseover="alert(4)</p>' in out.text  # text, in the paragraph
    assert f'<p><a href="{rule("702.30b")}">702.30b</a>' in out.text
    # The link with a javascript: href keeps its text but loses the href; nothing inside it is linked.
    assert "<a>702.30a</a>" in out.text
    assert out.unknown_names == ['x" onmouseover="y']


def test_unclosed_and_stray_html_tags_are_balanced(resolver):
    out = linkify("<b><i>702.30a</b></div> <ul><li>901.9", "html", resolver)
    assert out.text == (f'<b><i><a href="{rule("702.30a")}">702.30a</a></i></b>&lt;/div&gt; '
                        f'<ul><li><a href="{rule("901.9")}">901.9</a></li></ul>')


def test_text_in_escaped_raw_text_elements_is_not_linked(resolver):
    out = linkify("<textarea>702.30a</textarea> 702.30b", "html", resolver)
    assert out.text == f'&lt;textarea&gt;702.30a&lt;/textarea&gt; <a href="{rule("702.30b")}">702.30b</a>'


@pytest.mark.parametrize("href, kept", [
    ("http://x/a", "http://x/a"), ("/rules/702.30a", "/rules/702.30a"), ("mailto:a@b.c", "mailto:a@b.c"),
    (" https://x/ a ", "https://x/a"), ("javascript:alert(1)", None), ("JaVaScRiPt:alert(1)", None),
    ("java\nscript:alert(1)", None), ("\x01javascript:alert(1)", None), ("vbscript:x", None),
    ("data:text/html,x", None),
])
def test_safe_href(href, kept):
    assert safe_href(href) == kept


def test_unknown_format_is_an_error(resolver):
    with pytest.raises(ValueError, match="format must be one of html, markdown, bbcode"):
        linkify("702.30a", "rst", resolver)


# --- the API ----------------------------------------------------------------------------

def test_api_links_with_absolute_urls_of_the_configured_address(small_index):
    """The links are on the public address the service is configured with, never on the Host
    the request names (here a hostile one)."""
    app = create_app({"TESTING": True, "INDEX_ROOT": small_index, "PUBLIC_URL": "https://rules.example.org"})
    response = app.test_client().post("/api/linkify", base_url="http://evil.example",
                                      json={"text": "規則702.30a 與 [[奪魂紅帽客]]，999.9", "format": "markdown"})
    assert response.status_code == 200
    assert response.get_json() == {
        "text": "規則[702.30a](https://rules.example.org/rules/702.30a) 與 "
                "[奪魂紅帽客](https://rules.example.org/cards/shadowmoor-faq:card:murderous-redcap)，999.9",
        "links": [
            {"text": "702.30a", "kind": "rule", "target": "702.30a", "url": "https://rules.example.org/rules/702.30a"},
            {"text": "奪魂紅帽客", "kind": "card", "target": "shadowmoor-faq:card:murderous-redcap",
             "url": "https://rules.example.org/cards/shadowmoor-faq:card:murderous-redcap"},
        ],
        "unknown": ["999.9"],
        "unknown_names": [],
        "truncated": False,
    }
    assert response.headers["Access-Control-Allow-Origin"] == "*"


def test_api_accepts_form_fields(client):
    response = client.post("/api/linkify", data={"text": "[code]702.30a[/code] 702.30b", "format": "bbcode"})
    assert response.get_json()["text"] == "[code]702.30a[/code] [url=http://localhost/rules/702.30b]702.30b[/url]"


def test_api_format_defaults_to_markdown(client):
    response = client.post("/api/linkify", json={"text": "`702.30a` 702.30b"})
    assert response.get_json()["text"] == "`702.30a` [702.30b](http://localhost/rules/702.30b)"


@pytest.mark.parametrize("body, message", [
    ({"format": "html"}, "text is required: the post to link, as a string."),
    ({"text": 702, "format": "html"}, "text is required: the post to link, as a string."),
    ({"text": "702.30a", "format": "rst"}, "format must be one of html, markdown, bbcode, not 'rst'."),
    (["702.30a"], 'The JSON body must be an object: {"text": "...", "format": "markdown"}.'),
])
def test_api_rejects_bad_bodies_with_the_error_shape(client, body, message):
    response = client.post("/api/linkify", json=body)
    assert response.status_code == 400
    assert response.get_json() == {"error": {"status": 400, "message": message}}


def test_api_rejects_a_lone_surrogate(client):
    response = client.post("/api/linkify", data=b'{"text": "702.30a \\ud800"}', content_type="application/json")
    assert response.status_code == 400
    assert response.get_json() == {"error": {"status": 400,
                                             "message": "text is not valid Unicode: a lone surrogate at offset 8."}}


def test_api_rejects_malformed_json(client):
    response = client.post("/api/linkify", data="{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.get_json()["error"]["status"] == 400


def test_api_refuses_a_body_over_100_kb(client):
    response = client.post("/api/linkify", json={"text": "702.30a " * 13_000, "format": "markdown"})
    assert response.status_code == 413
    assert response.get_json() == {"error": {"status": 413,
                                             "message": "The request body is too large (at most 102400 bytes)."}}


def test_a_form_of_too_many_parts_is_refused_saying_so(client):
    """1,500 parts in 81 KB, within the length allowed: the refusal names the parts."""
    part = '--b\r\nContent-Disposition: form-data; name="f{}"\r\n\r\nx\r\n'
    body = "".join(part.format(n) for n in range(1500)) + "--b--\r\n"
    assert len(body) < 102_400
    response = client.post("/forum", data=body, content_type="multipart/form-data; boundary=b",
                           headers={"Accept": "application/json"})
    assert response.status_code == 413
    message = response.get_json()["error"]["message"]
    assert message.startswith("The form has too many parts or too large a field (at most 1000 parts")


def test_api_preflight_allows_cross_origin_posts(client):
    response = client.options("/api/linkify", headers={"Origin": "https://forum.example",
                                                       "Access-Control-Request-Method": "POST",
                                                       "Access-Control-Request-Headers": "Content-Type"})
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "POST" in response.headers["Access-Control-Allow-Methods"]
    assert response.headers["Access-Control-Allow-Headers"] == "Content-Type"


def test_a_get_of_the_linker_is_405_in_the_error_shape(client):
    response = client.get("/api/linkify")
    assert response.status_code == 405
    assert response.get_json() == {"error": {"status": 405, "message": "This address does not accept that method."}}
    assert set(response.headers["Allow"].split(", ")) == {"POST", "OPTIONS"}


# --- the embed script -------------------------------------------------------------------

def test_embed_script_carries_the_server_grammar(client):
    response = client.get("/embed.js")
    assert response.status_code == 200
    assert response.mimetype == "text/javascript"
    body = response.get_data(as_text=True)
    assert "__RULE_REFERENCE_PATTERN__" not in body and "__URL_PATTERN__" not in body
    assert '(?<num>[1-9]\\\\d\\\\d(?:\\\\.\\\\d{1,3}[a-km-np-z]?)?)' in body  # JSON-escaped named group
    assert "(?P<" not in body
    assert "innerHTML" not in body and "createTreeWalker" in body


def test_sample_forum_page_includes_the_embed_script(client):
    html = client.get("/forum-sample").get_data(as_text=True)
    assert '<script src="/embed.js" defer data-script="hant" data-selector=".post-body"></script>' in html
    assert "<pre><code>// pasted from my notes, not linked: 702.30a 901.9</code></pre>" in html
    assert '<a href="https://magic.wizards.com/en/rules">' in html


@pytest.mark.parametrize("written, number", [
    ("104.3i", "104.3i"), ("CR 122.1i", "122.1i"), ("規則104.3k", "104.3k"),
    ("702.30l", None), ("702.30o", None),
])
def test_subrule_letters_are_every_letter_but_l_and_o(written, number):
    """The rules give 104.3i and 122.1i; they skip only l and o, which read as 1 and 0."""
    assert parse_rule_number(written) == number
    assert [ref.number for ref in find_references(f"see {written} here")] == ([number] if number else [])


@pytest.mark.parametrize("fmt", ["markdown", "html", "bbcode"])
def test_a_post_is_linked_up_to_max_references_and_the_rest_left_as_written(resolver, fmt):
    head = "702.30a [[奪魂紅帽客]] 999.9 " * (MAX_REFERENCES // 3)
    tail = "and then 702.30c, [[Murderous Redcap]] <b>bold</b>"
    out = linkify(head + " 702.30b " * 10 + tail, fmt, resolver)
    assert out.truncated
    # Each repetition spends three (two links and an unknown number), then 702.30b the rest.
    assert len(out.links) == 2 * (MAX_REFERENCES // 3) + MAX_REFERENCES % 3
    assert out.text.endswith(tail)
    assert "702.30c" not in [link["target"] for link in out.links]
    whole = linkify(head, fmt, resolver)
    assert not whole.truncated and len(whole.links) == 2 * (MAX_REFERENCES // 3)


@pytest.mark.parametrize("fmt, piece", [("html", "<b>a "), ("html", "<!--x-->a "), ("markdown", "`a` "),
                                        ("markdown", "<b>a "), ("bbcode", "[b]a ")])
def test_a_post_is_read_up_to_max_markup_and_the_rest_left_as_written(resolver, fmt, piece):
    """Each piece of markup is a step however short: past MAX_MARKUP of them the post stays
    as written, so 100 KB of `<b>a` costs what a short post does."""
    tail = "702.30c <script>alert(1)</script> [[Murderous Redcap]]"
    out = linkify("702.30a " + piece * (MAX_MARKUP + 1) + tail, fmt, resolver)
    assert out.truncated
    assert [link["target"] for link in out.links] == ["702.30a"]
    if fmt == "html":  # left as written: shown, escaped, never markup
        assert out.text.endswith(html.escape(tail, quote=False)) and "<script" not in out.text
    else:
        assert out.text.endswith(tail)
    whole = linkify("702.30a " + piece * (MAX_MARKUP // 2) + tail, fmt, resolver)
    assert not whole.truncated and "702.30c" in [link["target"] for link in whole.links]

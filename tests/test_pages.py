"""Server-rendered pages: search, rules, cards, planes, terms and sources over real records;
the reader's script (toggle, cookie, override); escaping; lang attributes; security headers
and the no-inline-script policy; and, in a browser, every page at 360 px and the scripts'
cases that tests/test_browser.py (the production stack at 375 px) does not cover."""
import json
import re
import threading
from html.parser import HTMLParser
from urllib.parse import quote

import pytest
from browser_support import ACTION_TIMEOUT_MS
from html_support import main, page
from werkzeug.serving import make_server

from indexer.documents.script_ranges import CYRILLIC, HAN
from indexer.search.query import MAX_QUERY_WORDS

PAGES = ["/", "/?q=留存", "/?q=702.30c", "/rules/702.30", "/rules/702.30c",
         "/cards/shadowmoor-faq:card:murderous-redcap",
         "/planes/planechase-guide:planar_card:chaotic-aether", "/terms/glossary:term:persist",
         "/sources/worldwake-faq", "/forum-sample", "/forum", "/rules/999.9"]


class Page(HTMLParser):
    """Elements of a page: tags with attributes, and the text inside elements of a class."""

    def __init__(self, html):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict]] = []
        self.inside: list[tuple[str, dict]] = []
        self.snippet_tags: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if any("snippet" in (a.get("class") or "").split() for _, a in self.inside):
            self.snippet_tags.append(tag)
        self.elements.append((tag, attrs))
        if tag not in ("br", "meta", "link", "input", "img", "hr"):
            self.inside.append((tag, attrs))

    def handle_endtag(self, tag):
        while self.inside:
            if self.inside.pop()[0] == tag:
                break

    def having(self, cls):
        return [(tag, attrs) for tag, attrs in self.elements if cls in (attrs.get("class") or "").split()]


# --- search -----------------------------------------------------------------------------

def test_home_has_an_autofocused_search_box_and_opensearch(client):
    html = page(client, "/")
    assert re.search(r'<input id="q" type="search" name="q" value="" maxlength="500" autofocus', html)
    assert '<form id="search-form" class="search big" action="/" method="get" role="search">' in html
    assert '<script src="/static/search.js" defer></script>' in html
    assert 'class="result"' not in html


def test_results_are_one_ranked_list_each_saying_what_it_is(client):
    """Ranked as the library ranks them (a term is not pushed below every section: persist's
    is above one), each result one link labelled with its kind, the edition shown when it is
    not today's rules' (here, with no rules file in the index, every edition is shown)."""
    html = main(page(client, "/?q=留存&limit=20"))
    kinds = re.findall(r'<a class="title" href="[^"]+"[^>]*><span class="kind"><span lang="zh-Hant">(\S+)</span>', html)
    assert kinds[0] == "規則" and set(kinds) == {"規則", "牌", "詞彙", "段落"}
    persist = [r["kind"] for r in client.get("/api/search?q=persist&limit=20").get_json()["results"]]
    assert "section" in persist[persist.index("term"):]
    first = html[html.index('<li class="result">'):html.index("</li>")]
    # One tab stop per result: its other subrules are reached from the title by arrow key.
    assert len(re.findall(r'<a (?![^>]*tabindex="-1")', first)) == 1
    assert ('<a class="title" href="/rules/502.79?edition=2008-05-01" aria-keyshortcuts="ArrowRight">'
            '<span class="kind">') in first
    assert '<span class="name" lang="zh-Hant">502.79 留存 / Persist</span></a>' in first
    assert "所有暗影荒原中具<mark>留存</mark>異能的牌都是生物" in first
    assert ('<span class="edition">2008-05-01</span> · '
            '<span class="source" lang="zh-Hant">暗影荒原常見問題集 / Shadowmoor FAQ</span>') in first
    planechase = client.get("/api/search?q=競逐時空&limit=50").get_json()["results"]
    assert {r["edition"] for r in planechase if r["kind"] == "rule"} == {"2016-01"}  # the newest in this index
    assert '<span class="edition">2016-01</span>' in main(page(client, "/?q=競逐時空&limit=50"))
    assert '<a tabindex="-1" href="/rules/502.79a?edition=2008-05-01">502.79a</a>' in first  # in the same result
    total = client.get("/api/search?q=留存").get_json()["total"]
    assert (f'<p id="count" class="count" role="status" aria-live="polite">{total} '
            '<span lang="zh-Hant">筆結果</span>') in html
    assert html.count("aria-live") == 1


def test_a_rule_number_gets_a_jump_banner(client):
    html = page(client, "/?q=規則702.30c")
    assert ('<p class="jump"><span lang="zh-Hant">直接前往規則</span> <span lang="en">Go to rule</span>: '
            '<a href="/rules/702.30c?edition=2010-02-01">702.30c 增幅</a>') in html


def test_a_misspelling_gets_a_did_you_mean_link(client):
    html = page(client, "/?q=Murderus+Redcapp")
    assert '<a href="/?q=Murderous+Redcap">Murderous Redcap</a>' in html


def test_words_past_the_most_a_query_searches_are_named_on_the_page(client):
    words = " ".join(f"word{n}" for n in range(MAX_QUERY_WORDS + 2))
    html = page(client, "/?q=" + quote(f"Murderous Redcap {words}"))
    assert len(Page(html).having("left-out")) == 1
    note = re.search(r'<p class="left-out">(.*?)</p>', html, re.S).group(1)
    assert ">" + " ".join(f"word{n}" for n in range(MAX_QUERY_WORDS - 2, MAX_QUERY_WORDS + 2)) + "<" in note
    assert "left-out" not in page(client, "/?q=Murderous+Redcap")


def test_a_long_result_list_offers_more(client):
    html = page(client, "/?q=留存&limit=5")
    assert '<p class="more"><a href="/?q=%E7%95%99%E5%AD%98&amp;limit=10">' in html
    assert len(Page(html).having("result")) == 5


def test_snippets_are_escaped_text_with_only_mark_elements(client):
    """The library escapes snippets (a real text with <www.wizards.com/...> proves it), so
    the page may insert them as HTML: nothing but <mark> appears inside one."""
    html = page(client, "/?q=贊迪卡常見問題集")
    assert "&lt;www.wizards.com/Magic/TCG/Resources.asp ... rules/faqs" in html
    assert "<www." not in html
    parsed = Page(html)
    assert len(parsed.having("snippet")) >= 2
    assert set(parsed.snippet_tags) == {"mark"}


def test_a_script_in_the_query_never_comes_back_as_markup(client):
    html = page(client, "/?q=%3Cscript%3Ealert(1)%3C/script%3E")
    assert "<script>alert" not in html
    assert 'value="&lt;script&gt;alert(1)&lt;/script&gt;"' in html
    assert "<title>&lt;script&gt;alert(1)&lt;/script&gt; · " in html
    assert set(Page(html).snippet_tags) <= {"mark"}


# --- rules ------------------------------------------------------------------------------

def test_rule_page_shows_its_chinese_text_and_parent(client):
    html = main(page(client, "/rules/702.30c"))
    assert '<h1 lang="zh-Hant">702.30c 增幅</h1>' in html
    assert ('<div class="texts main"><div class="text" lang="zh-Hant">多重增幅是增幅異能的變化。'
            '「多重增幅[費用]」意指：「你施放此咒語時，可以任意次數地額外支付[費用]。」'
            '多重增幅的費用屬於增幅費用。</div></div>') in html
    assert '<a href="/rules/702.30?edition=2010-02-01">702.30 增幅</a>' in html
    assert ('<a href="/sources/worldwake-faq#worldwake-faq:rule:702.30c">'
            '天地醒轉常見問題集 / Worldwake FAQ</a>') in html
    # No rules file of 2010 is in this index to give the English: the page says so.
    assert '<p class="note languages-note"><span lang="zh-Hant">此規則的文件只提供中文' in html


def test_rule_page_lists_subrules_and_rulings(client):
    html = main(page(client, "/rules/702.30"))
    subrules = re.findall(r'<a class="num" href="/rules/([^?"]+)\?edition=2010-02-01">', html)
    assert subrules == ["702.30a", "702.30b", "702.30c", "702.30d", "702.30e", "702.30f", "702.30g"]
    rulings = html[html.index('<section class="rulings">'):]
    assert rulings.count("<li>") == 9
    assert "增幅不會改變咒語的法術力費用或總法術力費用。" in rulings


def test_rule_page_shows_english_beside_chinese_with_references_linked(cr_client):
    html = main(page(cr_client, "/rules/702.30a"))
    assert '<h1 lang="zh-Hant">702.30a 增幅 / Kicker</h1>' in html
    assert '<div class="texts main side-by-side"><div class="text" lang="en">Kicker is a static ability' in html
    assert ('in rules <a href="/rules/601.2b?edition=2010-02-01">601.2b</a> and '
            '<a href="/rules/601.2e?edition=2010-02-01">601.2e-g</a>.</div>') in html
    assert ('需依照規則<a href="/rules/601.2b?edition=2010-02-01">601.2b</a>與規則'
            '<a href="/rules/601.2f?edition=2010-02-01">601.2f至h</a>之規範來支付額外費用。</div>') in html


def test_rule_page_shows_editions_keyword_numbers_history_and_diff(cr_client):
    html = main(page(cr_client, "/rules/702.30a"))
    editions = html[html.index('<section class="editions">'):html.index('<section class="keyword-numbers">')]
    assert re.findall(r'<a href="/rules/702.30a\?edition=([\d-]+)">', editions) == ["2009-07-11", "2010-02-01"]
    assert '<li aria-current="true"><a href="/rules/702.30a?edition=2010-02-01">2010-02-01</a>' in editions
    numbers = html[html.index('<section class="keyword-numbers">'):html.index('<section class="history">')]
    assert "2009-07-11: <a" in numbers and '<span lang="en">(kicker)</span>' in numbers
    diff = html[html.index('<p class="diff" lang="en">'):]
    assert "functions while the spell<ins> with kicker</ins> is on the stack." in diff
    assert ('<del>The phrase &#34;Kicker [cost 1] and/or [cost 2]&#34; means the same thing as '
            '&#34;Kicker [cost 1], kicker [cost 2].&#34; </del>Paying') in diff


def test_an_older_edition_of_a_rule(cr_client):
    html = main(page(cr_client, "/rules/702.30c?edition=2009-07-11"))
    assert "Objects with more than one kicker cost have abilities that each correspond" in html
    # Not 2010's 702.30c (multikicker); the Worldwake FAQ quotes this rule as 2010's 702.30f.
    assert "多重增幅是增幅異能的變化" not in html
    quoted = html[html.index('<section class="quoted-elsewhere">'):]
    assert 'href="/rules/702.30f?edition=2010-02-01"' in quoted[:quoted.index("</section>")]


def test_a_missing_rule_is_a_404_page(client):
    html = page(client, "/rules/999.9", 404)
    assert '<p class="message" lang="en">No edition of the rules has 999.9.</p>' in html


# --- cards, planes, terms, sources ------------------------------------------------------

def test_card_page_has_names_in_three_scripts_cost_type_and_rulings(client):
    html = main(page(client, "/cards/shadowmoor-faq:card:murderous-redcap"))
    assert '<h1 lang="zh-Hant">奪魂紅帽客 / Murderous Redcap</h1>' in html
    assert '<dd lang="en">Murderous Redcap</dd>' in html
    assert '<dd lang="zh-Hant">奪魂紅帽客</dd>' in html
    assert '<dd lang="zh-Hans">夺魂红帽客</dd>' in html
    assert ('<dd class="cost" lang="zh-Hant"><span class="symbol">{二}</span><span class="symbol">{黑/紅}</span>'
            '<span class="symbol">{黑/紅}</span></dd>') in html
    assert '<dd lang="zh-Hant">生物～精靈／殺手</dd>' in html and "<dd>2/2</dd>" in html
    rulings = html[html.index('<section class="rulings">'):]
    rulings = rulings[:rulings.index("</section>")]
    assert rulings.count("<li>") == 8
    assert "此異能結算時，才會檢查奪魂紅帽客之力量。如果當時它已離場，則會使用其已知的最後資訊。" in rulings


def test_plane_page_has_its_ability_in_english_and_chinese(client):
    html = main(page(client, "/planes/planechase-guide:planar_card:chaotic-aether"))
    assert '<h1 lang="zh-Hant">混亂乙太 / Chaotic Aether</h1>' in html
    assert '<dd lang="zh-Hans">混乱乙太</dd>' in html
    assert '<dd lang="en">Phenomenon <span lang="zh-Hant">奇跡</span></dd>' in html
    assert ('<div class="texts side-by-side"><div class="text" lang="en">When you encounter Chaotic Aether, each '
            'blank roll of the planar die is a chaos symbol') in html
    assert ('<div class="text" lang="zh-Hant">'
            '當你遭遇Chaotic Aether 混亂乙太時，每個時空骰子的空白面都視作混亂標記') in html


def test_a_typed_card_name_finds_the_card_page(client):
    response = client.get("/cards/奪魂紅帽客", follow_redirects=True)
    assert response.request.path == "/cards/shadowmoor-faq:card:murderous-redcap"
    assert "<dd lang=\"en\">Murderous Redcap</dd>" in response.get_data(as_text=True)


def test_term_page_has_forms_defining_rules_and_occurrences(client):
    html = main(page(client, "/terms/glossary:term:persist"))
    assert '<li lang="en">persist</li><li lang="zh-Hant">留存</li><li lang="zh-Hans">留存</li>' in html
    assert ('<li><a href="/rules/502.79?edition=2008-05-01">502.79</a> '
            '<span class="edition">2008-05-01</span></li>') in html
    assert '<li>702.79 <span class="edition">2026-04-17</span></li>' in html  # that edition is not indexed
    occurrences = html[html.index('<section class="mentions">'):]
    assert '<a href="/cards/shadowmoor-faq:card:murderous-redcap">奪魂紅帽客 / Murderous Redcap</a>' in occurrences


def test_source_page_is_the_clean_document_with_anchors(client, library):
    html = main(page(client, "/sources/worldwake-faq"))
    anchors = re.findall(r'<section class="item \w+" id="([^"]+)">', html)
    assert anchors == [r.id for r in library.records_of_source("worldwake-faq")]
    assert '<dt><span lang="zh-Hant">日期</span> <span lang="en">Date</span></dt><dd>2010-01-14</dd>' in html
    assert '<li class="url">http://www.wizards.com/dci/downloads/EN ... 100114.rtf</li>' in html
    card = html[html.index('id="worldwake-faq:card:咆哮獸群"'):]
    # The FAQ names the card only in Chinese; the glossary knows its English name.
    assert '<h3><a href="/cards/worldwake-faq:card:咆哮獸群" lang="zh-Hant">咆哮獸群 / Gnarlid Pack</a></h3>' in card
    assert '<p class="card-line" lang="zh-Hant">{一}{綠} 生物～野獸 2/2</p>' in card


# --- the reader's script ----------------------------------------------------------------

def test_script_override_converts_chinese_and_sets_the_cookie(client):
    response = client.get("/cards/shadowmoor-faq:card:murderous-redcap?script=hans")
    html = response.get_data(as_text=True)
    assert '<html lang="zh-Hans" data-script="hans" ' in html
    assert '<h1 lang="zh-Hans">夺魂红帽客 / Murderous Redcap</h1>' in html
    assert '<div class="text" lang="zh-Hans">当夺魂红帽客进场时' in html
    assert '<span lang="zh-Hans">规则释疑</span> <span lang="en">Rulings</span>' in html
    assert '<dd lang="en">Murderous Redcap</dd>' in html
    cookie = response.headers["Set-Cookie"]
    assert cookie.startswith("script=hans;") and "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_the_cookie_is_remembered_and_the_override_wins(client):
    client.get("/?script=hans")
    remembered = page(client, "/rules/702.30c")
    assert '<div class="text" lang="zh-Hans">多重增幅是增幅异能的变化。' in remembered
    overridden = client.get("/rules/702.30c?script=hant")
    assert '<div class="text" lang="zh-Hant">多重增幅是增幅異能的變化。' in overridden.get_data(as_text=True)
    assert overridden.headers["Set-Cookie"].startswith("script=hant;")


def test_english_is_never_converted(client):
    hant = main(page(client, "/planes/planechase-guide:planar_card:chaotic-aether?script=hant"))
    hans = main(page(client, "/planes/planechase-guide:planar_card:chaotic-aether?script=hans"))
    english = re.compile(r'<div class="text" lang="en">(.+?)</div>')
    assert english.findall(hant) == english.findall(hans) != []


def test_the_toggle_links_keep_the_page(client):
    html = page(client, "/?q=留存&limit=5")
    assert ('<a href="/?q=%E7%95%99%E5%AD%98&amp;limit=5&amp;script=hant" lang="zh-Hant" hreflang="zh-Hant" '
            'aria-current="true">繁</a>') in html
    assert ('<a href="/?q=%E7%95%99%E5%AD%98&amp;limit=5&amp;script=hans" lang="zh-Hans" '
            'hreflang="zh-Hans">简</a>') in html


# --- every page -------------------------------------------------------------------------

@pytest.mark.parametrize("url", PAGES)
def test_every_text_block_has_a_lang(client, url):
    parsed = Page(client.get(url).get_data(as_text=True))
    blocks = [attrs for tag, attrs in parsed.elements
              if tag in ("div", "dd", "h1", "li", "p") and "text" in (attrs.get("class") or "").split()]
    blocks += parsed.having("snippet") and [attrs for _, attrs in parsed.having("snippet")]
    assert all(attrs.get("lang") in ("en", "zh-Hant", "zh-Hans", "bg") for attrs in blocks)
    tag, attrs = parsed.elements[0]
    assert (tag, attrs["lang"], attrs["data-script"]) == ("html", "zh-Hant", "hant")
    # The character ranges search.js tells a text's language by are the server's.
    assert json.loads(attrs["data-script-ranges"]) == {"han": HAN, "cyrillic": CYRILLIC}


@pytest.mark.parametrize("url", PAGES)
def test_every_page_has_security_headers_and_no_inline_script_or_style(client, url):
    response = client.get(url)
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "style-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "strict-origin-when-cross-origin"
    parsed = Page(response.get_data(as_text=True))
    for tag, attrs in parsed.elements:
        assert tag != "style"
        assert "style" not in attrs and not any(name.startswith("on") for name in attrs), (tag, attrs)
        if tag == "script":
            assert attrs["src"].startswith("/"), attrs


def test_pages_are_laid_out_for_a_phone_first(client):
    """What keeps a 360 px screen from scrolling sideways: the device's viewport, long words
    and addresses wrap, and English beside Chinese only on screens wider than 40rem."""
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page(client, "/")
    css = client.get("/static/style.css").get_data(as_text=True)
    assert re.search(r"body \{[^}]*overflow-wrap: anywhere", css)
    assert re.search(r"\.url \{[^}]*word-break: break-all", css)
    narrow, wide = css.split("@media (min-width: 40rem)")
    assert ".side-by-side" not in narrow
    assert ".side-by-side { display: grid;" in wide


# --- in a browser -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def served(app):
    """The app over the small index on a loopback port."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join()


@pytest.fixture
def phone(browser):
    """A page 360 px wide; a JavaScript error on it fails the test."""
    context = browser.new_context(viewport={"width": 360, "height": 740}, locale="zh-TW")
    tab = context.new_page()
    tab.set_default_timeout(ACTION_TIMEOUT_MS)
    errors = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert errors == []


@pytest.mark.parametrize("url", [*PAGES, "/sources/shadowmoor-faq", "/?q=Murderous+Redcap&limit=50&script=hans"])
def test_no_page_scrolls_sideways_at_360_px(served, phone, url):
    phone.goto(served + url)
    assert phone.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]") == [360, 360]


def test_slash_focuses_the_search_box(served, phone):
    phone.goto(served + "/rules/702.30c")
    phone.keyboard.press("/")
    assert phone.evaluate("document.activeElement.name") == "q"


def test_the_embed_script_leaves_form_fields_and_addresses_alone(served, phone):
    phone.goto(served + "/forum-sample")
    phone.wait_for_selector("a[data-rule-ref]")  # every link of the page is made at once
    labels = phone.eval_on_selector_all("a[data-rule-ref]", "links => links.map(a => a.textContent)")
    assert labels == ["702.30c", "702.30a", "901.9", "901.3a", "901.9a至c", "502.79"]  # no 702.82b here
    assert phone.input_value("textarea") == "702.30a in a text box stays as typed"
    assert "The old FAQ is at http://www.wizards.com/rules/702.30a (that number" in phone.inner_text("#post-2")
    assert phone.eval_on_selector('a[href="https://magic.wizards.com/en/rules"]', "a => a.children.length") == 0


def test_the_embed_script_reads_rule_numbers_as_the_server_does(served, phone):
    """Any script's digits, full-width forms and zero-width characters inside a number, and a
    range with ～: linked whole, to the number the server reads (`fold_number_forms`)."""
    phone.goto(served + "/forum-sample")
    phone.wait_for_selector("a[data-rule-ref]")
    phone.evaluate("""() => { const p = document.createElement("p"); p.id = "forms";
        p.textContent = "規則7\u0660\u0662.\u0663\u0660c, 702.\u200b30a and ９０１．９ａ～ｃ";
        document.querySelector(".post-body").appendChild(p); }""")
    phone.wait_for_selector("#forms a[data-rule-ref]")
    phone.wait_for_function("document.querySelectorAll('#forms a[data-rule-ref]').length === 3")
    links = phone.eval_on_selector_all("#forms a[data-rule-ref]", "ls => ls.map(a => [a.textContent, a.href])")
    assert [label for label, _ in links] == ["7\u0660\u0662.\u0663\u0660c", "702.\u200b30a", "９０１．９ａ～ｃ"]
    assert [href.rsplit("/", 1)[1] for _, href in links] == ["702.30c", "702.30a", "901.9a"]


def test_a_name_shared_by_a_plane_and_a_term_opens_the_page_asked_for(client):
    """The glossary also lists planes: /terms/<name> is the term, /planes/<name> the plane. Its
    cards are the cards' own names: /terms/<a card's name> is no term."""
    term = client.get("/terms/混亂乙太")
    plane = client.get("/planes/混亂乙太")
    assert term.status_code == plane.status_code == 302
    assert term.headers["Location"].endswith("/terms/glossary:term:chaotic-aether")
    assert plane.headers["Location"].endswith("/planes/planechase-guide:planar_card:chaotic-aether")
    assert client.get("/terms/奪魂紅帽客").status_code == 404
    assert client.get("/cards/奪魂紅帽客").headers["Location"].endswith("/cards/shadowmoor-faq:card:murderous-redcap")

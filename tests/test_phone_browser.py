"""A judge's phone at 360 × 740, online and offline, in 繁 and 简, in Chromium against the
production stack: a header of two rows at most that the offline mark never squeezes, the
search box on every page, the reader's language first, every label in the reader's script,
the search box's text converted when the script is switched, and previous and next naming
where they lead on the first screen."""
from __future__ import annotations

from urllib.parse import quote

import pytest
from browser_support import ACTION_TIMEOUT_MS, PHONE, phone_tab, screenshot, wait_for_worker
from playwright.sync_api import expect

expect.set_options(timeout=ACTION_TIMEOUT_MS)

pytestmark = pytest.mark.browser

# The header's share of the screen at most, and the rows it may take (the name, mark and 繁/简;
# the search box).
HEADER_SHARE = 0.15
SCRIPTS = ("hant", "hans")
PAGES = ("/", "/?q=" + quote("踐踏"), "/rules/702.19", "/rules/510.1a", "/rules", "/glossary")
# Words a page in one script must not show: the other script's forms of its own labels and
# sources (one word per idea: 搜索 in Simplified, never 搜寻).
FOREIGN = {"hant": ("万智牌", "规则", "搜索", "搜寻"), "hans": ("萬智牌", "規則", "搜尋", "搜寻")}


@pytest.fixture
def phone(browser, request):
    """A 360 × 740 touch screen in Traditional Chinese that may keep the offline copy."""
    with phone_tab(browser, "phone-" + request.node.name, service_workers="allow") as tab:
        yield tab


def header_rows(tab) -> dict:
    """The header's height and its rows (distinct tops of its direct children), and the site
    name's lines."""
    return tab.evaluate("""() => {
        const top = document.querySelector('header.top');
        const tops = new Set([...top.children].filter(c => c.offsetParent !== null && !c.classList.contains('skip'))
            .map(c => Math.round(c.getBoundingClientRect().top / 8)));
        const name = [...document.querySelectorAll('header.top .home > span')].map(s => s.getClientRects().length);
        return {height: top.getBoundingClientRect().height, rows: tops.size, name};
    }""")


def keep_offline(tab, base: str) -> None:
    """Opens the site once, keeps its offline copy, and cuts the network."""
    tab.goto(base + "/")
    wait_for_worker(tab)
    expect(tab.locator("#offline-status .offline-copy")).to_be_visible()
    tab.context.set_offline(True)


def check_header(tab) -> None:
    rows = header_rows(tab)
    assert rows["height"] <= HEADER_SHARE * PHONE["height"], rows
    assert rows["rows"] <= 2, rows
    assert rows["name"] == [1, 1], rows  # each line of the site's name on one line, never squeezed
    assert tab.locator("input[type=search]:visible").count() == 1  # the search box on every page
    assert tab.evaluate("document.documentElement.scrollWidth") == PHONE["width"]


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_header_is_two_rows_with_the_search_box_online_and_offline(live_server, phone, script):
    for path in PAGES:
        phone.goto(live_server.url + path + ("&" if "?" in path else "?") + "script=" + script)
        check_header(phone)
    keep_offline(phone, live_server.url)
    for path in PAGES:
        phone.goto(live_server.url + path + ("&" if "?" in path else "?") + "script=" + script)
        expect(phone.locator("#offline-status.is-offline")).to_be_visible()
        expect(phone.locator("main h1, main .result, main .home-links").first).to_be_visible()
        check_header(phone)
        mark = phone.locator("#offline-status .offline-mark summary")
        assert mark.bounding_box()["width"] <= 100  # a small mark: 離線中 ✓
        screenshot(phone, f"phone-offline-{script}-{path.strip('/').replace('/', '-') or 'home'}", full_page=False)


def test_the_home_page_leads_to_the_contents_and_the_glossary(live_server, phone):
    phone.goto(live_server.url + "/")
    links = phone.locator(".home-links a")
    expect(links).to_have_count(2)
    for link in links.all():
        box = link.bounding_box()
        assert box["height"] >= 44 and box["y"] + box["height"] <= PHONE["height"]
    links.first.tap()
    phone.wait_for_url("**/rules*")
    expect(phone.locator("#chapter-5")).to_be_visible()
    phone.go_back()
    phone.locator("#q").fill("trample")
    expect(phone.locator(".home-links")).to_be_hidden()


def first_text_lang(tab) -> str:
    """The language of the text shown highest in a rule's main texts."""
    return tab.evaluate("""() => [...document.querySelectorAll('.texts.main .text')]
        .sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)[0].lang""")


def test_a_chinese_reader_reads_the_chinese_first_and_may_choose_english(live_server, phone):
    phone.goto(live_server.url + "/rules/702.19b?script=hans")
    assert first_text_lang(phone) == "zh-Hans"
    toggle = phone.locator("[data-first-toggle]")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    toggle.tap()
    assert first_text_lang(phone) == "en"
    phone.goto(live_server.url + "/rules/702.19?script=hans")  # the choice is remembered
    assert first_text_lang(phone) == "en"
    phone.locator("[data-first-toggle]").tap()
    assert first_text_lang(phone) == "zh-Hans"


def test_an_english_reader_reads_the_english_first(live_server, browser, request):
    with phone_tab(browser, "phone-" + request.node.name, locale="en-US") as tab:
        tab.goto(live_server.url + "/rules/702.19b")
        assert first_text_lang(tab) == "en"


def page_words(tab) -> str:
    """What a reader sees of a page's own words: its visible text and its title."""
    return tab.evaluate("document.title + ' ' + document.body.innerText")


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_label_title_and_source_is_in_the_reader_s_script(live_server, phone, script):
    for path in ("/?q=" + quote("踐踏"), "/rules/702.19", "/"):
        phone.goto(live_server.url + path + ("&" if "?" in path else "?") + "script=" + script)
        expect(phone.locator("main").first).to_be_visible()
        words = page_words(phone)
        assert not [w for w in FOREIGN[script] if w in words], (path, words[:400])
    keep_offline(phone, live_server.url)
    for path in ("/?q=" + quote("踐踏"), "/rules/510"):
        phone.goto(live_server.url + path + ("&" if "?" in path else "?") + "script=" + script)
        expect(phone.locator("main h1, main .result").first).to_be_visible()
        words = page_words(phone)
        assert not [w for w in FOREIGN[script] if w in words], (path, words[:400])
        assert ("萬智牌規則查詢" if script == "hant" else "万智牌规则查询") in words


def test_switching_script_converts_the_search_box(live_server, phone):
    phone.goto(live_server.url + "/?q=" + quote("踐踏") + "&script=hant")
    expect(phone.locator("#q")).to_have_value("踐踏")
    phone.locator('.script-toggle a[hreflang="zh-Hans"]').tap()
    phone.wait_for_url("**script=hans**")
    expect(phone.locator("#q")).to_have_value("践踏")
    expect(phone.locator("#results .result").first).to_contain_text("702.19")
    keep_offline(phone, live_server.url)  # offline, the worker converts it
    # An address not seen online (`n=1`), so the worker opens the shell rather than a kept page.
    phone.goto(live_server.url + "/?q=" + quote("踐踏") + "&script=hant&n=1")
    expect(phone.locator("#q")).to_have_value("踐踏")
    expect(phone.locator("#results .result").first).to_contain_text("702.19")
    phone.locator('.script-toggle a[hreflang="zh-Hans"]').tap()
    phone.wait_for_url("**script=hans**")
    expect(phone.locator("#q")).to_have_value("践踏")
    expect(phone.locator("#results .result").first).to_contain_text("702.19")


def test_previous_and_next_name_where_they_lead_and_walk_the_book_both_ways(live_server, phone):
    phone.goto(live_server.url + "/rules/510.1a")
    following, previous = phone.locator("a[rel=next]"), phone.locator("a[rel=prev]")
    for link in (following, previous):
        box = link.bounding_box()
        assert box["y"] + box["height"] <= PHONE["height"]  # on the first screen
    expect(following).to_contain_text("510.1b")
    assert "戰鬥傷害步驟" not in following.inner_text()  # where it leads, not the section's title
    following.tap()
    phone.wait_for_url("**/rules/510.1b*")
    expect(phone.locator("h1")).to_contain_text("510.1b")
    phone.locator("a[rel=prev]").tap()
    phone.wait_for_url("**/rules/510.1a*")
    expect(phone.locator("h1")).to_contain_text("510.1a")

"""A judge's phone and a keyboard user, in Chromium against the production stack (see
browser_support): Enter on a rule number, results on the first screen, suggestions, hints
for old and wrong forms, the reader's script kept, rule-page navigation and copy buttons,
tap targets, focus, the skip link, one tab stop per result, and axe-core's check of every
kind of page.

axe-core is vendored as its built file: tests/vendor/axe-4.14.1.min.js is `axe.min.js` from
`npm pack axe-core@4.14.1` (MPL-2.0, tests/vendor/axe-LICENSE.txt). It is injected into pages
opened in a context that bypasses the pages' script policy (the site allows only its own
scripts).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import quote

import pytest
from browser_support import ACTION_TIMEOUT_MS, phone_tab, screenshot
from playwright.sync_api import expect

expect.set_options(timeout=ACTION_TIMEOUT_MS)

AXE = Path(__file__).resolve().parent / "vendor" / "axe-4.14.1.min.js"
REDCAP_CARD = "/cards/shadowmoor-faq:card:murderous-redcap"
MIN_TARGET_PX = 44


@pytest.fixture
def phone(browser, request):
    """A 360 × 740 touch screen in Traditional Chinese; a JavaScript error fails the test."""
    with phone_tab(browser, "judge-" + request.node.name, bypass_csp=getattr(request, "param", False)) as tab:
        yield tab


def typed(tab, text: str) -> None:
    """Types into the search box as a reader does, key by key."""
    tab.locator("#q").click()
    tab.keyboard.type(text, delay=20)


# --- 1. Enter opens the rule ------------------------------------------------------------

@pytest.mark.parametrize("query, rule", [
    ("702.30a", "702.30a"), ("規則901.9", "901.9"), ("CR 702.30a-c", "702.30a"), ("901.9a至c", "901.9a"),
], ids=["number", "prefixed", "range", "chinese-range"])
def test_enter_on_a_rule_number_opens_the_rule_and_back_returns_to_the_results(live_server, phone, query, rule):
    phone.goto(live_server.url + "/")
    typed(phone, query)
    phone.keyboard.press("Enter")
    phone.wait_for_url(f"**/rules/{rule}?edition=*")
    expect(phone.locator("h1")).to_contain_text(rule)
    phone.go_back()
    phone.wait_for_url("**/?q=*")
    expect(phone.locator("#q")).to_have_value(query)
    expect(phone.locator("#results .jump a")).to_contain_text(rule)


def test_enter_in_the_header_box_opens_the_rule_too(live_server, page):
    page.goto(live_server.url + "/rules/702.30c")
    box = page.locator("header input[name=q]")
    box.fill("901.9")
    box.press("Enter")
    page.wait_for_url("**/rules/901.9?edition=*")
    page.go_back()
    page.wait_for_url(lambda url: "/rules/" not in url)
    assert page.url == live_server.url + "/?q=901.9&script=hant"
    expect(page.locator("#results .jump a")).to_contain_text("901.9")


def test_a_word_query_still_shows_its_results_on_enter(live_server, page):
    page.goto(live_server.url + "/")
    page.fill("#q", "留存")
    page.press("#q", "Enter")
    page.wait_for_url("**/?q=*")
    expect(page.locator("#results .result").first).to_be_visible()


def test_rule_numbers_typed_together_list_each_with_what_an_old_one_is_today(live_server, page):
    """Enter opens no rule for several numbers: the results list them in turn, and an older
    edition's rule says what it is in today's rules, as typed (drawn by the page's script)
    and on the results page the server sends."""
    page.goto(live_server.url + "/")
    typed(page, "702.79 702.80 edition:2009")
    expect(page.locator("#results .result").first.locator("a.today")).to_have_text("702.82")
    page.keyboard.press("Enter")
    page.wait_for_url("**/?q=*")
    titles = page.locator("#results .result a.title")
    expect(titles.nth(0)).to_contain_text("702.79")
    expect(titles.nth(1)).to_contain_text("702.80")
    expect(page.locator("#results .result").nth(1).locator("a.today")).to_have_text("702.83")
    expect(page.locator("#results .jump")).to_have_count(0)


def test_copy_buttons_give_the_rule_with_its_number_edition_and_link(live_server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    try:
        tab = context.new_page()
        tab.goto(live_server.url + "/rules/702.33c")
        tab.get_by_role("button", name="複製規則 Copy rule").click()
        expect(tab.locator(".copy .copied")).to_have_text("已複製 Copied")
        copied = tab.evaluate("navigator.clipboard.readText()")
        lines = copied.splitlines()
        assert lines[0] == "702.33c 增幅 / Kicker (2026-04-17)"
        assert any(line.startswith("多重增幅是增幅異能的變化。") for line in lines)
        assert any(line.startswith("Multikicker is a variant of the kicker ability.") for line in lines)
        assert lines[-1] == f"{live_server.url}/rules/702.33c?edition=2026-04-17"
        tab.get_by_role("button", name="複製連結 Copy link").click()
        tab.wait_for_function("document.querySelector('.copy').dataset.lastCopied.startsWith('http')")
        assert tab.evaluate("navigator.clipboard.readText()") == f"{live_server.url}/rules/702.33c?edition=2026-04-17"
    finally:
        context.close()


# --- 2. the first screen ----------------------------------------------------------------

def test_the_first_screen_of_a_phone_shows_three_results_with_their_kind(live_server, phone):
    phone.goto(live_server.url + "/?q=" + quote("留存"))
    results = phone.locator("#results .result")
    expect(results.first).to_be_visible()
    boxes = results.evaluate_all("items => items.map(li => li.getBoundingClientRect().bottom)")
    assert sum(bottom <= 740 for bottom in boxes) >= 3, boxes
    kinds = results.locator(".kind").all_inner_texts()
    assert {k.split()[-1] for k in kinds} >= {"Rule", "Card"}
    # a snippet is two lines at most
    heights = results.locator(".snippet").evaluate_all(
        "ps => ps.map(p => p.getBoundingClientRect().height / parseFloat(getComputedStyle(p).lineHeight))")
    assert max(heights) <= 2.05, heights
    screenshot(phone, "phone-search-first-screen", full_page=False)


FIRST_SCREEN_PX = 740


@pytest.mark.browser
def test_the_first_screen_holds_results_rule_text_and_a_ruling_after_the_offline_status_shows_once(live_server, phone):
    """The offline status is news once: in full on the first page, a small mark in the header on
    every page after, and the first screen is the reader's: four results of a search, the
    first subrule of a rule, the first ruling of a card."""
    phone.goto(live_server.url + "/?q=" + quote("留存"))
    status = phone.locator("#offline-status")
    expect(status.locator(".offline-copy")).to_be_visible()
    assert "compact" not in status.get_attribute("class")
    first_view = status.bounding_box()
    screenshot(phone, "phone-360-search-first-visit", full_page=False)

    phone.reload()
    expect(status.locator(".offline-copy")).to_be_visible()
    expect(status).to_have_class(re.compile(r"\bcompact\b"))
    mark = status.bounding_box()
    assert mark["height"] <= 48 and mark["width"] <= 180, (first_view, mark)
    assert phone.locator("header.top").evaluate("(top, s) => top.contains(s)", status.element_handle())
    bottoms = phone.locator("#results .result").evaluate_all(
        "items => items.map(li => li.getBoundingClientRect().bottom)")
    assert sum(bottom <= FIRST_SCREEN_PX for bottom in bottoms) >= 4, bottoms
    # the mark opens to the full status line
    status.locator("summary").click()
    expect(status.locator(".offline-full")).to_be_visible()

    phone.goto(live_server.url + "/rules/702.79")
    first_subrule = phone.locator(".subrules > li .text").first
    expect(first_subrule).to_be_visible()
    assert first_subrule.bounding_box()["y"] < FIRST_SCREEN_PX

    phone.goto(live_server.url + REDCAP_CARD)
    first_ruling = phone.locator(".rulings li").first
    expect(first_ruling).to_be_visible()
    assert first_ruling.bounding_box()["y"] < FIRST_SCREEN_PX


# --- 3. suggestions and hints -----------------------------------------------------------

def test_typing_offers_suggestions_and_choosing_one_opens_it(live_server, phone):
    phone.goto(live_server.url + "/")
    typed(phone, "Murd")
    option = phone.get_by_role("option").first
    expect(option).to_contain_text("Murderous Redcap")
    expect(phone.locator("#q")).to_have_attribute("aria-expanded", "true")
    expect(phone.locator("#results .perhaps")).to_contain_text("Murderous Redcap")  # not a bare "0 results"
    phone.keyboard.press("ArrowDown")
    expect(option).to_have_attribute("aria-selected", "true")
    phone.keyboard.press("Enter")
    phone.wait_for_url(f"**{REDCAP_CARD}")


def test_suggestions_in_simplified_from_the_header_box(live_server, page):
    page.goto(live_server.url + "/rules/702.30c?script=hans")
    page.locator("header input[name=q]").click()
    page.keyboard.type("夺魂", delay=20)
    expect(page.get_by_role("option").first).to_contain_text("夺魂红帽客")


@pytest.mark.parametrize("typed_form, official", [("不死", "留存 persist"), ("瀑布", "傾曳 cascade"),
                                                 ("旅法師", "鵬洛客 planeswalker"), ("移出對戰", "放逐 exile")])
def test_an_old_or_wrong_form_is_told_the_game_s_word(live_server, page, typed_form, official):
    page.goto(live_server.url + "/")
    page.fill("#q", typed_form)
    expect(page.locator("#results .official")).to_contain_text(official)
    expect(page.locator("#results .result").first).to_be_visible()
    expect(page.locator("#results .none")).to_have_count(0)


# --- 5. the reader's script -------------------------------------------------------------

def test_the_script_holds_through_live_search_and_switching(live_server, page):
    page.goto(live_server.url + "/?script=hans")
    page.fill("#q", "夺魂红帽客")
    expect(page.locator("#results .result a.title").first).to_contain_text("夺魂红帽客")
    page.wait_for_url("**/?q=*&script=hans")
    page.locator("nav.script-toggle").get_by_role("link", name="繁").click()
    page.wait_for_url("**/?*script=hant*")
    expect(page.locator("#q")).to_have_value("奪魂紅帽客")  # the query in the script switched to
    expect(page.locator("#results .result a.title").first).to_contain_text("奪魂紅帽客")
    expect(page).to_have_title("奪魂紅帽客 · 萬智牌規則查詢 MTG rules")
    page.locator("nav.script-toggle").get_by_role("link", name="简").click()
    expect(page).to_have_title("夺魂红帽客 · 万智牌规则查询 MTG rules")
    expect(page.locator("#results .source").first).to_have_text("暗影荒原常见问题集 / Shadowmoor FAQ")


# --- 4. rule pages ----------------------------------------------------------------------

def test_a_rule_page_reads_on_within_its_edition(live_server, phone):
    phone.goto(live_server.url + "/rules/702.30a?edition=2010-02-01")
    phone.locator("a[rel=next]").click()
    phone.wait_for_url("**/rules/702.30b?edition=2010-02-01")
    phone.locator("a[rel=prev]").click()
    phone.wait_for_url("**/rules/702.30a?edition=2010-02-01")
    expect(phone).to_have_title("702.30a 增幅 / Kicker · 萬智牌規則查詢 MTG rules")


def test_a_card_page_at_360_px_gives_values_the_whole_width(live_server, phone):
    phone.goto(live_server.url + REDCAP_CARD)
    english = phone.locator("dl.names dd[lang=en]")
    assert english.bounding_box()["width"] > 300
    expect(phone.locator(".texts.main a.term").first).to_have_attribute("href", "/terms/glossary:term:persist")
    expect(phone.locator("dl.attrs dd").last).to_contain_text("新關鍵字異能：留存(Persist)")


# --- 6. accessibility -------------------------------------------------------------------

def test_everything_tapped_is_at_least_44_px(live_server, phone):
    for path in ("/?q=" + quote("留存"), "/rules/702.30", REDCAP_CARD):
        phone.goto(live_server.url + path)
        small = phone.evaluate("""min => [...document.querySelectorAll(
              '.script-toggle a, input[type=search], button, .subrules .num, .neighbours a, .result, .skip, ' +
              '.also summary')]
            .filter(el => el.offsetParent !== null || el.classList.contains('skip'))
            .map(el => [el.className || el.tagName, el.getBoundingClientRect().height])
            .filter(([name, h]) => h < min)""", MIN_TARGET_PX)
        assert small == [], (path, small)


def test_keyboard_focus_skip_link_and_one_tab_stop_per_result(live_server, page):
    page.goto(live_server.url + "/rules/702.30a")
    page.keyboard.press("Tab")
    skip = page.locator("a.skip")
    expect(skip).to_be_focused()
    assert skip.bounding_box()["y"] >= 0  # shown when focused
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    page.goto(live_server.url + "/?q=" + quote("留存"))
    # From the first result, one Tab reaches the next result's title.
    first = page.locator("#results .result a.title").first
    first.focus()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('.result') && "
                         "[...document.querySelectorAll('#results .result')]"
                         ".indexOf(document.activeElement.closest('.result'))") == 1
    # The count is announced; the results themselves are not (nor anything inside them).
    assert page.locator("#count").get_attribute("aria-live") == "polite"
    assert page.evaluate("document.getElementById('results').closest('[aria-live]')") is None
    assert page.locator("#results [aria-live]").count() == 0
    assert page.evaluate("getComputedStyle(document.querySelector('#results .kind span[lang^=zh]'))"
                         ".fontStyle") == "normal"


@pytest.mark.parametrize("how", ["page", "live"])
def test_a_results_other_subrules_open_from_its_title_by_arrow_key(live_server, page, how):
    """A rule is one result showing the subrule that matched best; the others it matched are
    one arrow key (or tap) away, and open as links, without a second tab stop per result. (A
    look-up: a question's results are each one subrule.)"""
    query = "play a land"
    if how == "page":
        page.goto(live_server.url + "/?q=" + quote(query))
    else:
        page.goto(live_server.url + "/")
        typed(page, query)
    first = page.locator("#results .result").first
    also = first.locator("details.also")
    expect(also).to_have_count(1)
    assert "305.2" in first.locator("a.title").inner_text()
    first.locator("a.title").focus()
    page.keyboard.press("ArrowRight")
    expect(also.locator("summary")).to_be_focused()
    page.keyboard.press("Enter")
    expect(also).to_have_attribute("open", "")
    page.keyboard.press("ArrowRight")
    link = also.locator("a").first
    expect(link).to_be_focused()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(first.locator("a.title")).to_be_focused()
    page.keyboard.press("Tab")  # still one tab stop per result
    assert page.evaluate("[...document.querySelectorAll('#results .result')]"
                         ".indexOf(document.activeElement.closest('.result'))") == 1
    link.click()
    expect(page).to_have_url(re.compile(r"/rules/305(\.\w+)?\?edition="))


def test_did_you_mean_is_not_slanted(live_server, page):
    page.goto(live_server.url + "/?q=Murderus+Redcapp")
    assert page.locator(".did-you-mean").evaluate("p => getComputedStyle(p).fontStyle") == "normal"


AXE_PAGES = {
    "search": "/?q=" + quote("留存"),
    "search-hints": "/?q=" + quote("不死"),
    "rule": "/rules/702.30a",
    "card": REDCAP_CARD,
    "term": "/terms/glossary:term:persist",
    "forum": "/forum-sample",
    "forum-tools": "/forum?embed_script=hans&selector=.post",
    "home": "/?script=hans",
    "unknown-card": "/?q=Lightning+Bolt",
    "history": "/rules/502.79?edition=2008-05-01",
}


@pytest.mark.parametrize("phone", [True], indirect=True, ids=["no-csp"])
@pytest.mark.parametrize("name, path", AXE_PAGES.items(), ids=AXE_PAGES)
def test_axe_finds_no_serious_or_critical_violation(live_server, phone, name, path):
    phone.goto(live_server.url + path)
    phone.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    found = phone.evaluate("axe.run(document).then(r => ({passes: r.passes.length, violations: r.violations.map(v => "
                           "({id: v.id, impact: v.impact, "
                           "nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5)}))}))")
    assert found["passes"] > 20  # axe ran its rules on the page
    serious = [v for v in found["violations"] if v["impact"] in ("serious", "critical")]
    assert serious == [], json.dumps(serious, ensure_ascii=False, indent=1)


DOC_SCREENSHOTS = {"search": "/?q=" + quote("留存"), "rule": "/rules/702.79", "card": REDCAP_CARD}


@pytest.mark.parametrize("name, path", DOC_SCREENSHOTS.items(), ids=DOC_SCREENSHOTS)
def test_phone_screenshots_for_the_readme(live_server, phone, name, path):
    """docs/phone-<name>.png are these, test-artifacts/phone-360-<name>.png, from a run: a page as
    a returning reader sees it (the offline status already shown once, now a mark)."""
    phone.goto(live_server.url + path)
    expect(phone.locator("#offline-status .offline-copy")).to_be_visible()
    phone.reload()
    expect(phone.locator("#offline-status.compact .offline-copy")).to_be_visible()
    expect(phone.locator("h1, #results .result").first).to_be_visible()
    assert phone.evaluate("document.documentElement.scrollWidth") == 360
    screenshot(phone, f"phone-360-{name}", full_page=False)

"""What a reader sees in a real browser, over the bundled corpus served by scripts/serve.

Each test drives Debian's chromium through Playwright (see browser_support); the last state
of every page is saved under test-artifacts/. The texts checked are the corpus's own: the
Shadowmoor FAQ's card 奪魂紅帽客 / Murderous Redcap, the Worldwake FAQ's rules 702.30a and
702.30c (2010-02-01 edition) and the Planechase guide's rules 901.9c and 901.8 (its 2016-01, the rules of 2016-09-30).
"""
from __future__ import annotations

import json
import urllib.request

import pytest
from browser_support import ACTION_TIMEOUT_MS, screenshot
from playwright.sync_api import expect

expect.set_options(timeout=ACTION_TIMEOUT_MS)

REDCAP_CARD = "/cards/shadowmoor-faq:card:murderous-redcap"
KICKER_HANT = "增幅屬於靜止式異能，當該咒語在堆疊中時生效。"
KICKER_HANS = "增幅属于静止式异能，当该咒语在堆叠中时生效。"


@pytest.mark.parametrize("query, script, title", [
    ("Murderous Redcap", "hant", "奪魂紅帽客 / Murderous Redcap"),
    ("奪魂紅帽客", "hant", "奪魂紅帽客 / Murderous Redcap"),
    ("夺魂红帽客", "hans", "夺魂红帽客 / Murderous Redcap"),
], ids=["english", "traditional", "simplified"])
def test_search_puts_the_card_first(live_server, page, query, script, title):
    page.goto(f"{live_server.url}/?script={script}")
    first = page.locator("#results .result a.title .name").first
    link = page.locator("#results .result a.title").first

    page.fill("#q", query)  # results drawn as you type, from /api/search
    expect(first).to_have_text(title)
    expect(link).to_have_attribute("href", REDCAP_CARD)

    page.press("#q", "Enter")  # the plain form: the server-rendered results page
    page.wait_for_url("**/?q=*")
    expect(page.locator("#q")).to_have_value(query)
    expect(first).to_have_text(title)
    screenshot(page, f"search-{script}-{query}")

    first.click()
    page.wait_for_url(f"**{REDCAP_CARD}")
    expect(page.locator("h1")).to_have_text(title)
    expect(page.locator("dd[lang=en]").first).to_have_text("Murderous Redcap")


def test_rule_page_reference_leads_to_the_rule_it_names(live_server, page):
    page.goto(f"{live_server.url}/rules/901.9c?edition=2016-01")
    expect(page.locator("h1")).to_have_text("901.9c 競逐時空 / Planechase")
    main = page.locator(".texts.main")
    expect(main).to_contain_text("如果擲骰結果為鵬洛客符號{PW}")

    # The guide's 2016-01 is the rules of 2016-09-30: its Chinese and that file's English
    # both name 901.8, and both lead to that edition's rule.
    links = main.get_by_role("link", name="901.8", exact=True)
    expect(links).to_have_count(2)
    links.first.click()
    page.wait_for_url("**/rules/901.8?edition=2016-09-30")
    expect(page.locator("h1")).to_have_text("901.8 競逐時空 / Planechase")
    expect(page.locator(".meta .edition").first).to_have_text("2016-09-30")


def test_rule_page_parent_link(live_server, page):
    page.goto(f"{live_server.url}/rules/702.30a?edition=2010-02-01")
    expect(page.locator("h1")).to_have_text("702.30a 增幅 / Kicker")  # the FAQ's Chinese, the rules file's English
    page.locator(".crumbs").get_by_role("link", name="702.30 Kicker").click()
    page.wait_for_url("**/rules/702.30?edition=2010-02-01")
    expect(page.locator("h1")).to_have_text("702.30 增幅 / Kicker")


def test_script_switch_converts_the_chinese_text_and_is_remembered(live_server, page):
    page.goto(f"{live_server.url}/rules/702.30a?edition=2010-02-01")
    main = page.locator(".texts.main")
    expect(main).to_contain_text(KICKER_HANT)
    expect(page.locator("html")).to_have_attribute("lang", "zh-Hant")

    page.locator("nav.script-toggle").get_by_role("link", name="简").click()
    expect(main).to_contain_text(KICKER_HANS)
    expect(main).not_to_contain_text(KICKER_HANT)
    expect(page.locator("html")).to_have_attribute("lang", "zh-Hans")
    screenshot(page, "rule-702.30a-simplified")

    # The choice stays for the next page, without ?script= in its address.
    page.goto(f"{live_server.url}/rules/901.9c?edition=2016-01")
    expect(page.locator("h1")).to_have_text("901.9c 竞逐时空 / Planechase")
    expect(page.locator(".texts.main")).to_contain_text("如果掷骰结果为鹏洛客符号{PW}")

    page.locator("nav.script-toggle").get_by_role("link", name="繁").click()
    expect(page.locator("h1")).to_have_text("901.9c 競逐時空 / Planechase")


def test_forum_page_links_rule_numbers_with_a_preview(live_server, page):
    page.goto(f"{live_server.url}/forum-sample")
    refs = "a[data-rule-ref]"
    expect(page.locator(f"#post-3 {refs}")).to_have_count(2)  # the embed script has run

    def linked(post: str) -> list[str]:
        return page.locator(f"{post} {refs}").evaluate_all("links => links.map(a => a.textContent)")

    # Code, an existing link, an address and unknown numbers (999.9) are left alone.
    assert linked("#post-1") == ["702.30c", "702.30a", "901.9", "901.3a"]
    assert linked("#post-2") == ["702.82b", "901.9a至c"]
    assert linked("#post-3") == ["502.79", "409.1f至h"]  # 409.1f: the 2008 rules, which ship
    expect(page.locator("pre code")).to_have_text("// pasted from my notes, not linked: 702.30a 901.9")

    # A bare number previews what the service answers for it: the newest edition holding it.
    with urllib.request.urlopen(f"{live_server.url}/api/rules/702.30c") as response:
        rule = json.load(response)
    link = page.locator(f"#post-1 {refs}").first
    expect(link).to_have_attribute("href", f"{live_server.url}/rules/702.30c")
    # The link and its preview in view at once: a click that first scrolls the preview into
    # view moves the page under the pointer, which leaves the link and starts the preview's
    # hiding (300 ms), a race a busy machine loses.
    page.set_viewport_size({"width": 1280, "height": 1600})
    link.hover()
    tooltip = page.get_by_role("tooltip")
    expect(tooltip).to_be_visible()
    expect(tooltip.locator("strong")).to_contain_text("702.30c")
    expect(tooltip.locator("strong")).to_contain_text(rule["edition"])
    screenshot(page, "forum-preview")

    tooltip.get_by_role("link", name="開啟 Open →").click()
    page.wait_for_url("**/rules/702.30c")
    expect(page.locator("h1")).to_contain_text("702.30c")


PHONE_PAGES = {
    "phone-search": "/?q=Murderous+Redcap",
    "phone-search-simplified": "/?q=%E5%A4%BA%E9%AD%82%E7%BA%A2%E5%B8%BD%E5%AE%A2&script=hans",
    "phone-rule": "/rules/702.30a",
    "phone-rule-reference": "/rules/901.9c",
    "phone-card": REDCAP_CARD,
    "phone-source-faq": "/sources/shadowmoor-faq",
    "phone-source-guide": "/sources/planechase-guide",
    "phone-term": "/terms/glossary:term:graven-cairns",
    "phone-forum": "/forum-sample",
}


@pytest.mark.parametrize("name, path", PHONE_PAGES.items(), ids=PHONE_PAGES)
def test_phone_width_does_not_scroll_sideways(live_server, browser, name, path):
    context = browser.new_context(viewport={"width": 375, "height": 740}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="zh-TW")
    try:
        phone = context.new_page()
        response = phone.goto(live_server.url + path)
        assert response.status == 200
        widths = phone.evaluate("[document.scrollingElement.scrollWidth, window.innerWidth]")
        screenshot(phone, name, full_page=False)
        assert widths[1] == 375
        assert widths[0] <= widths[1], f"{path} is {widths[0]} px wide at a 375 px viewport"
    finally:
        context.close()

"""The book and the search results on a 360 × 740 phone, in Chromium against the production
stack: every result is one tap target of at least 44 px, the book's links are too, and the
contents, the glossary and a section of today's rules open with the network cut, as the
server draws them (the offline copy's answers equal the server's)."""
from __future__ import annotations

import json
import urllib.request
from urllib.parse import quote

import pytest
from browser_support import ACTION_TIMEOUT_MS, phone_tab, screenshot, wait_for_worker
from playwright.sync_api import expect

expect.set_options(timeout=ACTION_TIMEOUT_MS)

pytestmark = pytest.mark.browser

MIN_TARGET_PX = 44
# The book's links, each tapped on its own.
BOOK_LINKS = (".crumbs a, .neighbours a, .section-link, .rule-links a, .chapter-index a, .edition-links a, "
              ".letters a, .terms a, .subrules .num, .section-rules summary, .book-links > a, .perhaps a, .how a")


@pytest.fixture
def phone(browser, request):
    """A 360 × 740 touch screen that may keep the offline copy; a JavaScript error fails the test."""
    with phone_tab(browser, "book-" + request.node.name, service_workers="allow") as tab:
        yield tab


def result_targets(tab) -> list[dict]:
    """Each result's height, and what a tap at its corners and middle (away from its list of
    other subrules, a tap target of its own) lands on: its title link, or something else."""
    return tab.evaluate("""() => [...document.querySelectorAll('#results .result')].map(result => {
        const box = result.getBoundingClientRect();
        const also = result.querySelector('.also');
        const bottom = also ? also.getBoundingClientRect().top : box.bottom;
        const title = result.querySelector('a.title');
        const points = [[box.left + 3, box.top + 3], [box.right - 3, box.top + 3], [box.left + box.width / 2,
                        (box.top + bottom) / 2], [box.left + 3, bottom - 3], [box.right - 3, bottom - 3]];
        const missed = points.filter(([x, y]) => {
            const hit = document.elementFromPoint(x, y);
            return !hit || hit.closest('a') !== title;
        });
        return {title: title.textContent.trim(), height: box.height, missed: missed.length};
    })""")


@pytest.mark.parametrize("query", ["留存", "persist", "702.30", "Murderous Redcap"])
def test_every_result_is_one_tap_target_of_at_least_44_px(live_server, phone, query):
    phone.goto(live_server.url + "/?q=" + quote(query))
    expect(phone.locator("#results .result").first).to_be_visible()
    for _ in range(3):  # scroll down so the results further down are measured in view too
        targets = result_targets(phone)
        assert targets, query
        small = [t for t in targets if t["height"] < MIN_TARGET_PX]
        assert small == [], small
        # Results scrolled out of view are measured only where they are on the screen.
        visible = phone.evaluate("""() => [...document.querySelectorAll('#results .result')].map(r => {
            const b = r.getBoundingClientRect(); return b.top >= 0 && b.bottom <= innerHeight; })""")
        missed = [t for t, shown in zip(targets, visible, strict=True) if shown and t["missed"]]
        assert missed == [], missed
        phone.mouse.wheel(0, 600)
        phone.wait_for_timeout(100)


def small_links(tab, selector: str = BOOK_LINKS) -> list:
    return tab.evaluate("""([selector, min]) => [...document.querySelectorAll(selector)]
        .filter(el => el.offsetParent !== null)
        .map(el => [el.className || el.tagName, el.textContent.trim().slice(0, 30), el.getBoundingClientRect().height])
        .filter(([name, text, h]) => h < min)""", [selector, MIN_TARGET_PX])


@pytest.mark.parametrize("path", ["/rules", "/rules/510", "/rules/702.79a", "/glossary", "/?q=702.999",
                                  "/?q=" + quote("持存")])
def test_the_books_links_are_44_px_tall(live_server, phone, path):
    phone.goto(live_server.url + path)
    phone.evaluate("document.querySelectorAll('details.section-rules').forEach(d => d.open = true)")
    assert phone.locator(BOOK_LINKS).count() > 0
    assert small_links(phone) == []


def test_a_rules_history_is_short_enough_to_read(live_server, phone):
    phone.goto(live_server.url + "/rules/702.79a")
    history = phone.locator("section.history")
    expect(history.locator(".version")).to_have_count(2)
    assert history.bounding_box()["height"] < 900
    expect(history.locator("del").first).to_have_text("play")
    expect(history.locator("ins").first).to_have_text("the battlefield")


@pytest.mark.parametrize("path", ["/rules/502.79?edition=2008-05-01", "/rules/702.79a"])
def test_a_rules_history_links_are_44_px_tall(live_server, phone, path):
    """Each run of editions, each step, the fold of the subrules' changes and each of its lines."""
    phone.goto(live_server.url + path)
    phone.evaluate("document.querySelectorAll('section.history details').forEach(d => d.open = true)")
    links = "section.history a, section.history summary"
    assert phone.locator(links).count() > 1
    assert small_links(phone, links) == []


def online(server, path: str) -> dict:
    return json.loads(urllib.request.urlopen(server.url + path).read())


def test_the_book_opens_offline_as_the_server_draws_it(live_server, phone):
    phone.goto(live_server.url + "/")
    wait_for_worker(phone)
    expect(phone.locator("#offline-status .offline-copy")).to_be_visible()
    edition = online(live_server, "/api/offline")["edition"]
    phone.context.set_offline(True)

    # The offline copy answers the book's JSON as the server does (today's edition only).
    def offline(path: str) -> dict:
        return phone.evaluate("path => fetch(path, {headers: {Accept: 'application/json'}}).then(r => r.json())", path)

    for path in ("/api/toc?script=hant", "/api/toc?script=hans", "/api/glossary?script=hant",
                 "/api/glossary?script=hans"):
        mine, theirs = offline(path), online(live_server, path)
        assert mine.pop("offline")["edition"] == edition
        theirs["editions"] = [e for e in theirs["editions"] if e["current"]]
        assert mine == theirs, path
    for number in ("510", "702.79", "702.79a", "100"):
        mine, theirs = (offline(f"/api/rules/{number}?script=hant"),
                        online(live_server, f"/api/rules/{number}?script=hant"))
        for key in ("place", "previous", "next", "contents"):
            assert mine[key] == theirs[key], (number, key)

    # Pages never seen online open from the copy.
    phone.goto(live_server.url + "/rules")
    expect(phone.locator("#offline-status.is-offline")).to_contain_text(edition)
    expect(phone.locator("#chapter-5 h2")).to_contain_text("回合結構")
    phone.locator('a.section-link[href="/rules/510"]').click()
    phone.wait_for_url("**/rules/510")
    expect(phone.locator("#r-510\\.1a .text[lang=en]")).to_contain_text("assigns combat damage equal to its power")
    expect(phone.locator(".crumbs")).to_contain_text("回合結構")
    expect(phone.locator("a[rel=next]")).to_have_attribute("href", f"/rules/511?edition={edition}")
    screenshot(phone, "book-offline-section-510", full_page=False)
    phone.goto(live_server.url + "/glossary?script=hans")
    expect(phone.locator("#zh-C")).to_contain_text("重生")
    expect(phone.locator("#en-P")).to_contain_text("Persist")
    assert small_links(phone) == []

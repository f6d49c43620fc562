"""The forum embed script in Chromium against the production stack: one request for all of a
page's rule numbers, posts added later linked too, first tap previews and the second opens
on a touch screen, and a post's named elements (DOM clobbering) neither redirect nor stop
it. A third-party forum is played by a small HTTP server of the test on another loopback
port (Chromium lets a page reach the loopback service only from a loopback page)."""
from __future__ import annotations

import json
import threading
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from browser_support import ACTION_TIMEOUT_MS, PHONE, phone_tab, screenshot
from playwright.sync_api import expect

expect.set_options(timeout=ACTION_TIMEOUT_MS)
pytestmark = [pytest.mark.browser, pytest.mark.server]



def forum_page(server_url: str, posts: str, attributes: str = "") -> str:
    return (f'<!doctype html><html lang="zh-Hant"><head><meta charset="utf-8"><title>thread</title>'
            f'<script src="{server_url}/embed.js" defer {attributes}></script></head>'
            f'<body><main id="thread">{posts}</main></body></html>')


@pytest.fixture(scope="module")
def forum_site():
    """A forum on its own origin: every path answers the page in `site["html"]`."""
    site = {"html": ""}

    class Thread(BaseHTTPRequestHandler):
        def do_GET(self):
            body = site["html"].encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Thread)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    site["url"] = f"http://localhost:{server.server_port}/thread/1"
    yield site
    server.shutdown()


@pytest.fixture
def forum(browser, live_server, forum_site, request):
    """A tab whose forum thread (`tab.forum_url`) is `tab.forum_html`; every request is recorded
    in `tab.requests`, and any to another host than the forum and the service is refused
    (and kept in `tab.elsewhere`)."""
    touch = getattr(request, "param", "mouse") == "touch"
    context = browser.new_context(viewport={"width": 360 if touch else 1280, "height": 740},
                                  is_mobile=touch, has_touch=touch, locale="zh-TW")
    tab = context.new_page()
    tab.set_default_timeout(ACTION_TIMEOUT_MS)
    tab.requests, tab.elsewhere, errors = [], [], []
    tab.forum_url = forum_site["url"]
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.on("request", lambda r: tab.requests.append(r.url))

    def serve(route):
        url = route.request.url
        if url == tab.forum_url:
            forum_site["html"] = tab.forum_html
            route.continue_()
        elif url.startswith(live_server.url):
            route.continue_()
        else:
            tab.elsewhere.append(url)
            route.abort()

    context.route("**/*", serve)
    yield tab
    screenshot(tab, "embed-" + request.node.name, full_page=False)
    context.close()
    assert errors == []


def rule_requests(tab, server_url: str) -> list[str]:
    return [u for u in tab.requests if u.startswith(server_url + "/api/rules")]


def test_a_page_full_of_rule_numbers_costs_one_request(live_server, page):
    page.goto(live_server.url + "/forum-sample")
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.reload()
    # 502.79 and 409.1f至h: the 2008 rules have both.
    expect(page.locator("#post-3 a[data-rule-ref]")).to_have_count(2)
    asked = [u for u in requests if "/api/rules" in u]
    assert len(asked) == 1, asked
    assert "numbers=" in asked[0] and "702.30c" in asked[0] and "999.9" in asked[0]


def test_posts_added_after_load_are_linked(live_server, forum):
    forum.forum_html = forum_page(live_server.url, '<div class="post"><p>See 702.30a.</p></div>')
    forum.goto(forum.forum_url)
    expect(forum.locator("a[data-rule-ref]")).to_have_count(1)
    forum.evaluate("""() => {
        const post = document.createElement('div');
        post.className = 'post';
        post.innerHTML = '<p>And 901.9 too, but not <code>702.30c</code>.</p>';
        document.getElementById('thread').appendChild(post);
        const reply = document.createElement('p');
        reply.textContent = 'Reply: 702.30a again';
        document.getElementById('thread').appendChild(reply);
    }""")
    expect(forum.locator("a[data-rule-ref]")).to_have_count(3)
    assert forum.locator("a[data-rule-ref]").evaluate_all("as => as.map(a => a.textContent)") == [
        "702.30a", "901.9", "702.30a"]
    assert len(rule_requests(forum, live_server.url)) == 2  # the page, then the new post's 901.9
    forum.locator("a[data-rule-ref]").nth(1).hover()
    expect(forum.get_by_role("tooltip")).to_contain_text("901.9")


def test_named_elements_in_a_post_neither_redirect_nor_stop_the_script(live_server, forum):
    forum.forum_html = forum_page(live_server.url, """
        <div class="post"><img name="currentScript" src="https://evil.example/x/embed.js" alt="">
          <form name="currentScript"></form><form name="createElement"></form><form name="querySelectorAll"></form>
          <form name="body"></form><form name="readyState"></form>
          <p>Rule 702.30a applies.</p></div>""")
    forum.goto(forum.forum_url)
    link = forum.locator("a[data-rule-ref]")
    expect(link).to_have_count(1)
    expect(link).to_have_attribute("href", f"{live_server.url}/rules/702.30a")
    link.hover()
    tooltip = forum.get_by_role("tooltip")
    expect(tooltip).to_contain_text("702.30a")
    expect(link).to_have_attribute("aria-describedby", tooltip.get_attribute("id"))
    expect(tooltip.get_by_role("link")).to_have_attribute("href", f"{live_server.url}/rules/702.30a")
    assert not [u for u in forum.requests if "evil.example" in u and u.endswith("/api/rules")]
    assert all(not u.startswith("https://evil.example/x/") or u.endswith("/x/embed.js") for u in forum.elsewhere)


def test_the_script_s_addresses_follow_its_own_src_and_options(live_server, forum):
    forum.forum_html = forum_page(live_server.url, '<div class="a">702.30a</div><div class="b">702.30c</div>',
                                  'data-selector=".b" data-script="hans"')
    forum.goto(forum.forum_url)
    expect(forum.locator("a[data-rule-ref]")).to_have_count(1)
    assert forum.locator("a[data-rule-ref]").text_content() == "702.30c"
    asked = rule_requests(forum, live_server.url)
    assert len(asked) == 1 and "script=hans" in asked[0]


@pytest.mark.parametrize("forum", ["touch"], indirect=True)
def test_card_names_in_double_brackets_are_linked_with_a_preview_of_the_card(live_server, forum):
    """[[name]] in any script links to the card (plane, term) as the server's linker does, in
    one request for a page's names; a name nothing is called, or one inside code, stays text."""
    forum.forum_html = forum_page(live_server.url, '<div class="post"><p>[[奪魂紅帽客]] 和 [[Murderous Redcap]] 一樣，'
                                  '見702.30a；[[No Such Card]] 不是牌；<code>[[Talon Gates]]</code></p></div>')
    forum.goto(forum.forum_url)
    cards = forum.locator("a[data-name-ref]")
    expect(cards).to_have_count(2)
    expect(forum.locator("a[data-rule-ref]")).to_have_count(1)
    assert cards.evaluate_all("as => as.map(a => [a.textContent, new URL(a.href).pathname])") == [
        ["奪魂紅帽客", "/cards/shadowmoor-faq:card:murderous-redcap"],
        ["Murderous Redcap", "/cards/shadowmoor-faq:card:murderous-redcap"]]
    expect(forum.locator(".post")).to_contain_text("[[No Such Card]]")
    expect(forum.locator("code")).to_have_text("[[Talon Gates]]")
    asked = [u for u in forum.requests if u.startswith(live_server.url + "/api/names")]
    assert len(asked) == 1 and "No%20Such%20Card" in asked[0]
    cards.first.tap()
    tooltip = forum.get_by_role("tooltip")
    expect(tooltip).to_be_visible()
    expect(tooltip).to_contain_text("生物～精靈／殺手")
    expect(tooltip).to_contain_text("當奪魂紅帽客進場時")
    cards.first.tap()
    forum.wait_for_url(f"{live_server.url}/cards/shadowmoor-faq:card:murderous-redcap")


@pytest.mark.parametrize("forum", ["touch"], indirect=True)
def test_on_a_touch_screen_the_first_tap_previews_and_the_second_opens(live_server, forum):
    forum.forum_html = forum_page(live_server.url, '<div class="post"><p>多重增幅見規則702.33c。</p></div>')
    forum.goto(forum.forum_url)
    link = forum.locator("a[data-rule-ref]")
    expect(link).to_have_count(1)
    link.tap()
    tooltip = forum.get_by_role("tooltip")
    expect(tooltip).to_be_visible()
    expect(tooltip).to_contain_text("多重增幅是增幅異能的變化。")
    assert forum.url == forum.forum_url
    link.tap()
    forum.wait_for_url(f"{live_server.url}/rules/702.33c")


@pytest.mark.parametrize("forum", ["touch"], indirect=True)
def test_a_forum_link_keeps_the_posts_text_size_and_gets_a_44_px_touch_area(live_server, forum):
    forum.forum_html = forum_page(live_server.url, '<div class="post" style="font-size: 15px; line-height: 1.5">'
                                  '<p>第一行文字，說明這個裁定的背景。<br>多重增幅見規則702.33c，另見702.30a。<br>'
                                  '第三行文字，繼續說明。</p></div>')
    forum.goto(forum.forum_url)
    expect(forum.locator("a[data-rule-ref]")).to_have_count(2)
    measured = forum.evaluate("""() => [...document.querySelectorAll('a[data-rule-ref]')].map(a => {
        const box = a.getBoundingClientRect(), x = box.left + box.width / 2;
        const lands = y => document.elementFromPoint(x, y) === a;
        return {size: getComputedStyle(a).fontSize, text: getComputedStyle(a.parentNode).fontSize,
                height: box.height, top: lands(box.top + 2), bottom: lands(box.bottom - 2),
                line: a.parentNode.getBoundingClientRect().height};
    })""")
    for link in measured:
        assert link["size"] == link["text"] == "15px"
        assert link["height"] >= 44 and link["top"] and link["bottom"], link
    assert measured[0]["line"] < 3 * 15 * 1.5 + 1  # the post's lines did not move apart


def test_the_forum_tools_page_gives_the_tag_and_links_a_post(live_server, browser):
    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    try:
        tab = context.new_page()
        tab.goto(live_server.url + "/forum")
        tab.select_option("#embed_script", "hans")
        tab.fill("#selector", ".post-body")
        tab.get_by_role("button", name="產生程式碼 Make the tag").click()
        expect(tab.locator("#snippet")).to_have_text(
            f'<script src="{live_server.url}/embed.js" defer data-script="hans" data-selector=".post-body"></script>')
        tab.get_by_role("button", name="複製程式碼 Copy the tag").click()
        expect(tab.locator(".copy .copied").first).to_have_text("已複製 Copied")
        assert tab.evaluate("navigator.clipboard.readText()") == tab.locator("#snippet").text_content()
        tab.fill("#text", "多重增幅見702.30c")
        tab.select_option("#format", "html")
        tab.get_by_role("button", name="加入連結 Link rule numbers").click()
        expect(tab.locator("#linked")).to_have_value(f'多重增幅見<a href="{live_server.url}/rules/702.30c">702.30c</a>')
        screenshot(tab, "phone-forum-tools", full_page=True)
    finally:
        context.close()


# Text that is code, a link, a form field or editable, each also inside a form whose fields
# are named like the DOM properties the script reads (`form.nodeType` is then the input):
# none of it is linked, while the paragraph after it is.
NEVER_LINKED = """
  <pre><form><input name="nodeType"><input name="parentNode">702.30a in pre</form></pre>
  <code><form><input name="nodeType">702.30c in code</form></code>
  <p><a href="https://forum.example/t/2"><span><form><input name="nodeType">702.33c in a link</form></span></a></p>
  <a href="https://forum.example/t/3">702.33c in a plain link</a>
  <div contenteditable="true"><form><input name="isContentEditable"><input name="nodeType">601.2f editable</form></div>
  <div contenteditable="plaintext-only">601.2f editable too</div>
  <form><input name="replaceChild"><input name="nodeName"><textarea>702.30a in a textarea</textarea>
    <select><option>702.30a in an option</option></select><button>702.30a on a button</button></form>
  <p id="linked">Rule 702.30b applies.</p>
"""


def test_code_links_form_fields_and_editable_text_are_never_linked_whatever_a_post_names(live_server, forum):
    forum.forum_html = forum_page(live_server.url, f'<div class="post">{NEVER_LINKED}</div>')
    forum.goto(forum.forum_url)
    expect(forum.locator("#linked a[data-rule-ref]")).to_have_count(1)
    assert forum.locator("a[data-rule-ref]").count() == 1
    assert forum.locator("a a").count() == 0  # no link inside a link
    for selector, text in (("pre", "702.30a in pre"), ("code", "702.30c in code"), ("[contenteditable=true]", "601.2f"),
                           ("textarea", "702.30a in a textarea")):
        assert text in forum.locator(selector).first.text_content()
    # The numbers were asked for all the same: the skipped ones, being skipped, never were.
    asked = ",".join(rule_requests(forum, live_server.url))
    assert "702.30b" in asked and "702.33c" not in asked and "601.2f" not in asked


def rule_numbers(server_url: str, count: int) -> list[str]:
    """`count` distinct rule numbers of today's rules, read from its source pages."""
    numbers: list[str] = []
    page = 2
    while len(numbers) < count:
        with urllib.request.urlopen(f"{server_url}/api/sources/cr-2026-04-17?page={page}") as answer:
            records = json.load(answer)["records"]
        numbers += [r["number"] for r in records if r["kind"] == "rule" and "." in r["number"]]
        page += 1
    return numbers[:count]


def test_every_number_of_a_page_is_linked_in_batches_of_sixty(live_server, forum):
    numbers = rule_numbers(live_server.url, 150)
    posts = "".join(f'<div class="post"><p>See rule {n}.</p></div>' for n in numbers)
    forum.forum_html = forum_page(live_server.url, posts)
    forum.goto(forum.forum_url)
    expect(forum.locator("a[data-rule-ref]")).to_have_count(150)
    assert forum.locator("a[data-rule-ref]").evaluate_all("as => as.map(a => a.textContent)") == numbers
    asked = rule_requests(forum, live_server.url)
    sizes = sorted(len(urllib.parse.parse_qs(urllib.parse.urlsplit(u).query)["numbers"][0].split(",")) for u in asked)
    assert sizes == [30, 60, 60]


def test_a_batch_answer_may_be_kept_by_a_shared_cache(live_server, forum):
    forum.forum_html = forum_page(live_server.url, '<div class="post"><p>See 702.30a and 999.9.</p></div>')
    with forum.expect_response(lambda r: r.url.startswith(live_server.url + "/api/rules?")) as answer:
        forum.goto(forum.forum_url)
    response = answer.value
    assert "cookie" not in response.request.all_headers()  # the script sends none
    headers = response.all_headers()
    assert headers["cache-control"].startswith("public, max-age=") and "set-cookie" not in headers
    assert "cookie" not in headers.get("vary", "").lower() and headers["etag"]
    expect(forum.locator("a[data-rule-ref]")).to_have_count(1)


@pytest.fixture
def phone(browser, request):
    """A tab on a 360 × 740 touch screen, with JavaScript unless the test's parameter is
    "no-js"; a JavaScript error fails the test, and what the screen last showed is kept."""
    scripts = getattr(request, "param", "js") == "js"
    with phone_tab(browser, "embed-" + request.node.name, java_script_enabled=scripts) as tab:
        yield tab


def on_screen(box: dict) -> bool:
    """Whether a bounding box (the viewport's coordinates) lies wholly inside the phone's screen."""
    return (box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
            and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"])


@pytest.mark.parametrize("phone", ["js", "no-js"], indirect=True)
def test_a_linked_post_opens_at_its_answer_on_a_phone(live_server, phone):
    """The answer, not the page's top, is on the screen after the post is sent: its previews
    of each linked rule in the reader's script, and the post still in the form as typed."""
    phone.goto(live_server.url + "/forum?script=hans")
    typed = "多重增幅見702.33c，\n時空骰見 901.9。"
    phone.fill("#text", typed)
    phone.locator("form.linkify button[type=submit]").click()
    phone.wait_for_url(f"{live_server.url}/forum?script=hans#linked-result")
    phone.wait_for_load_state("load")
    answer = phone.locator("#linked-result")
    expect(answer.locator(".link-previews li")).to_have_count(2)
    top = answer.evaluate("section => section.getBoundingClientRect().top")
    assert 0 <= top < PHONE["height"] / 2, top
    expect(answer.locator(".link-previews li").first).to_contain_text("多重增幅是增幅异能的变化。")
    expect(answer.locator(".link-previews li").last).to_contain_text("901.9 竞逐时空 / Planechase")
    expect(phone.locator("#text")).to_have_value(typed)
    expect(phone.locator("#linked")).to_have_value(
        f"多重增幅見[702.33c]({live_server.url}/rules/702.33c)，\n時空骰見 [901.9]({live_server.url}/rules/901.9)。")


def test_an_opened_preview_stays_on_a_phone_s_screen(live_server, phone):
    """Near the screen's foot a preview opens above its link; in the middle, where neither
    side holds all of a long rule, it takes the larger side and its text scrolls; near the
    top it opens below. Every time it and its Open link are inside the screen."""
    phone.goto(live_server.url + "/forum-sample")
    links = phone.locator("a[data-rule-ref]")
    expect(links).to_have_count(8)
    tooltip = phone.get_by_role("tooltip")
    for link, at in ((links.last, "foot"), (phone.locator("#post-1 a[data-rule-ref]", has_text="901.9"), "middle"),
                     (links.first, "top")):
        place = {"foot": "innerHeight - 8 - a.getBoundingClientRect().bottom",
                 "middle": "innerHeight / 2 - a.getBoundingClientRect().top",
                 "top": "8 - a.getBoundingClientRect().top"}[at]
        link.evaluate(f"a => window.scrollBy(0, -({place}))")
        where = link.bounding_box()
        assert on_screen(where) and {"foot": where["y"] > 560, "middle": 250 < where["y"] < 490,
                                     "top": where["y"] < 150}[at], (at, where)
        link.tap()
        expect(tooltip).to_be_visible()
        opener = tooltip.get_by_role("link", name="開啟 Open →")
        assert on_screen(tooltip.bounding_box()), (at, tooltip.bounding_box())
        assert on_screen(opener.bounding_box()), (at, opener.bounding_box())
        assert opener.evaluate("""a => { const r = a.getBoundingClientRect();
            return a.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)); }""")
        assert phone.url == live_server.url + "/forum-sample"
        screenshot(phone, f"phone-forum-preview-{at}", full_page=False)
        phone.keyboard.press("Escape")
        expect(tooltip).to_be_hidden()

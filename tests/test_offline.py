"""The installable app with the network cut: Chromium visits once online, the network is cut
(`context.set_offline(True)`), and pages, search and rules still answer from what the service
worker and the offline copy kept. Every answer checked offline carries the copy's marker
(`offline` in the JSON, or the shell's rendering), so a test cannot pass on a network
answer."""
from __future__ import annotations

import json
import urllib.parse
import urllib.request

import judged
import pytest
from browser_support import ACTION_TIMEOUT_MS, ROOT, screenshot
from playwright.sync_api import expect

expect.set_options(timeout=ACTION_TIMEOUT_MS)

REDCAP = "奪魂紅帽客 / Murderous Redcap"
REDCAP_HANS = "夺魂红帽客 / Murderous Redcap"


@pytest.fixture
def context(browser):
    """A fresh context at phone size; JavaScript errors on its pages fail the test."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="zh-TW",
                                  service_workers="allow")
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    errors: list[str] = []
    context.on("weberror", lambda error: errors.append(str(error.error)))
    yield context
    context.close()
    if errors:
        pytest.fail("JavaScript errors:\n" + "\n".join(errors), pytrace=False)


def first_visit(context, url: str):
    """A first visit online, until the worker controls the page and the copy is kept."""
    page = context.new_page()
    page.goto(url)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    expect(page.locator("#offline-status .offline-copy")).to_be_visible()
    return page


def offline_fetch(page, path: str) -> dict:
    return page.evaluate("path => fetch(path, {headers: {Accept: 'application/json'}}).then(r => r.json())", path)


def test_manifest_icons_and_worker_make_it_installable(live_server, context):
    page = context.new_page()
    page.goto(live_server.url + "/")
    href = page.locator("link[rel=manifest]").get_attribute("href")
    manifest = json.loads(urllib.request.urlopen(live_server.url + href).read())
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
    sizes = {icon["sizes"] for icon in manifest["icons"] if icon["type"] == "image/png"}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        with urllib.request.urlopen(live_server.url + icon["src"]) as response:
            assert response.status == 200 and response.headers["Content-Type"].startswith("image/")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    scope = page.evaluate("navigator.serviceWorker.ready.then(r => r.scope)")
    assert scope == live_server.url + "/"


def test_offline_pages_search_and_rules(live_server, context):
    page = first_visit(context, live_server.url + "/rules/702.30a")
    seen_title = page.locator("h1").inner_text()
    page.goto(live_server.url + "/?q=Murderous+Redcap")
    expect(page.locator("#results .result a.title").first).to_contain_text(REDCAP)

    context.set_offline(True)
    # A page seen before opens as it was, and says it is offline.
    page.goto(live_server.url + "/rules/702.30a")
    expect(page.locator("h1")).to_have_text(seen_title)
    expect(page.locator("#offline-status.is-offline")).to_contain_text("離線中")
    expect(page.locator("#offline-status .offline-copy")).to_be_visible()

    # Enter on a query never asked: the offline shell, its results from the copy.
    page.goto(live_server.url + "/?q=" + urllib.parse.quote("奪魂紅帽客"))
    expect(page.locator("#results .result a.title").first).to_contain_text(REDCAP)
    screenshot(page, "offline-search")

    # Searching as one types, in Simplified.
    page.goto(live_server.url + "/?script=hans")
    page.fill("#q", "夺魂红帽客")
    expect(page.locator("#results .result a.title").first).to_contain_text(REDCAP_HANS)

    # A rule number typed in the header's search box opens the rule.
    page.goto(live_server.url + "/?jump=1&q=" + urllib.parse.quote("規則 901.9c"))
    page.wait_for_url("**/rules/901.9c*")
    expect(page.locator("h1")).to_contain_text("901.9c")

    # A rule never opened, by number, in both languages of its documents.
    page.goto(live_server.url + "/rules/901.8?edition=2016-01")
    expect(page.locator("h1")).to_contain_text("901.8")
    expect(page.locator(".texts .text[lang=zh-Hant]").first).to_be_visible()
    screenshot(page, "offline-rule")

    answer = offline_fetch(page, "/api/search?q=" + urllib.parse.quote("規則702.30a"))
    assert "offline" in answer, "answered by the network, not by the offline copy"
    assert answer["rule_jump"]["number"] == "702.30a"
    # A range jumps to its first rule, the rest of it in the same result, as online.
    answer = offline_fetch(page, "/api/search?q=" + urllib.parse.quote("CR 901.9a至c"))
    assert (answer["rule_jump"]["number"], answer["rule_jump"]["end"]) == ("901.9a", "901.9c")
    first = answer["results"][0]  # (the offline result lists a group's other records as other_editions)
    assert first["rule"] == "901.9a" and {"901.9b", "901.9c"} <= {o["rule"] for o in first["other_editions"]}
    # The sources' damaged wording finds the repaired text offline too.
    answer = offline_fetch(page, "/api/search?q=" + urllib.parse.quote('"每位元牌手的抓牌步驟"'))
    assert answer["results"][0]["id"] == "shadowmoor-faq:card:spiteful-visions"
    error = offline_fetch(page, "/api/search?q=kind:nothing")
    assert error["error"]["status"] == 400


def test_new_index_updates_the_copy_on_the_next_visit(live_server, context):
    page = first_visit(context, live_server.url + "/")
    current = page.locator("#offline-status .offline-copy").get_attribute("data-index")
    # The copy on the device is from an older build of the index.
    page.evaluate("""caches.open('kb-offline').then(c => c.match('/api/offline')
        .then(r => r.json()).then(m => c.put('/api/offline', new Response(JSON.stringify(
            Object.assign(m, {index: 'older-build'}))))))""")
    page.reload()
    copy = page.locator("#offline-status .offline-copy")
    expect(copy).to_have_attribute("data-index", current)
    expect(copy).to_contain_text("updated")


# --- with today's rules: the Comprehensive Rules files given as extra paths ----------------

EVAL_QUERIES = ROOT.parent / "shared" / "eval" / "queries.tsv"
MAX_COPY_BYTES = 4 * 1024 * 1024
AGREEMENT = 0.9


@pytest.fixture(scope="module")
def rules_server(live_server):
    """The session's server: the bundled corpus ships every rules edition, so its offline copy
    holds today's rules."""
    return live_server


def online_top(server, query: str) -> str | None:
    url = f"{server.url}/api/search?limit=1&q={urllib.parse.quote(query)}"
    with urllib.request.urlopen(url) as response:
        results = json.load(response)["results"]
    return results[0]["id"] if results else None


def offline_tops(page, queries: list[str]) -> list[str | None]:
    """Each query's first result as the worker answers it from the copy (every answer must
    carry the copy's marker)."""
    return page.evaluate("""queries => Promise.all(queries.map(q =>
        fetch('/api/search?limit=1&q=' + encodeURIComponent(q)).then(r => r.json()).then(a => {
            if (!a.offline) throw new Error('answered by the network: ' + q);
            return a.results.length ? a.results[0].id : null;
        })))""", queries)


@pytest.mark.parametrize("queries", ["eval", "judged"])
def test_offline_first_result_agrees_with_the_online_one(rules_server, context, queries, capsys):
    path = EVAL_QUERIES if queries == "eval" else judged.QUERIES
    if not path.exists():
        pytest.skip(f"{path} is absent")
    rows = [query for _, query, _ in judged.load(path)]
    online = [online_top(rules_server, q) for q in rows]
    page = first_visit(context, rules_server.url + "/")
    context.set_offline(True)
    offline = offline_tops(page, rows)
    differ = [(q, a, b) for q, a, b in zip(rows, online, offline) if a != b]
    share = 1 - len(differ) / len(rows)
    with capsys.disabled():
        print(f"\noffline first result = online first result: {len(rows) - len(differ)}/{len(rows)} "
              f"({share:.1%}) of {path.name}")
        for q, a, b in differ:
            print(f"  {q!r}: online {a}, offline {b}")
    assert share >= AGREEMENT


def test_todays_rules_open_offline_in_both_languages_and_scripts(rules_server, context):
    page = first_visit(context, rules_server.url + "/")
    meta = json.loads(urllib.request.urlopen(rules_server.url + "/api/offline").read())
    assert meta["gzip_bytes"] <= MAX_COPY_BYTES
    edition = meta["edition"]
    assert edition == "2026-04-17"  # the newest rules file of ../shared/cr (English and Simplified)
    expect(page.locator("#offline-status .offline-copy")).to_contain_text(edition)
    context.set_offline(True)

    # Every rule of the edition, by number (the rule-number grammar reads each of them, 104.3i
    # included): text in English and in Chinese of either script.
    counts = page.evaluate("""edition => caches.open('kb-offline').then(c => c.match('/api/offline/data'))
        .then(r => r.json()).then(data => {
            const grammar = new RegExp(data.query.rule, 'i');
            const numbers = [...new Set(data.records.filter(r => r.kind === 'rule' && r.edition === edition)
                                                    .map(r => r.number))];
            if (!numbers.every(n => grammar.test(n))) return {rules: numbers.length, open: -1};
            const open = (n, script) => fetch('/api/rules/' + n + '?script=' + script).then(r => r.json())
                .then(rule => rule.offline && rule.edition === edition && rule.number === n
                              && rule.text.some(b => b.lang === 'en')
                              && rule.text.some(b => b.lang === 'zh_' + script));
            return Promise.all(numbers.map(n => Promise.all([open(n, 'hant'), open(n, 'hans')])))
                .then(both => ({rules: numbers.length, open: both.filter(([a, b]) => a && b).length}));
        })""", edition)
    assert counts["rules"] > 3000 and counts["open"] == counts["rules"]

    page.goto(rules_server.url + "/rules/702.79?script=hans")
    expect(page.locator("h1")).to_contain_text("702.79")
    expect(page.locator(".texts .text[lang=zh-Hans]").first).to_contain_text("留存")
    expect(page.locator(".texts .text[lang=en]").first).to_contain_text("Persist")
    page.goto(rules_server.url + "/rules/702.79?script=hant")
    expect(page.locator(".texts .text[lang=zh-Hant]").first).to_contain_text("留存")
    expect(page.locator("#offline-status.is-offline")).to_contain_text(edition)
    screenshot(page, "offline-rule-702.79")

    # Search in each script and by rule-number forms, from the copy.
    for query in ("persist", "留存", "夺魂红帽客", "規則702.79", "７０２．７９", "CR 702.79"):
        top = offline_tops(page, [query])[0]
        assert top and ("702.79" in top or "murderous-redcap" in top or "502.79" in top), (query, top)


def test_offline_answer_shows_the_subrule_with_the_question_words_marked(rules_server, context):
    """As online: a keyword's heading rule is shown with its definition (702.79a's text), and
    a question in Chinese has its words marked in the answer's text, in the reader's script."""
    page = first_visit(context, rules_server.url + "/")
    context.set_offline(True)
    answer = offline_fetch(page, "/api/search?limit=1&script=hans&q=" + urllib.parse.quote("persist"))
    top = answer["results"][0]
    assert answer["offline"] and top["rule"] == "702.79" and top["definition"] == "702.79a"
    assert "<mark>Persist</mark> is a triggered ability" in top["snippet"]
    for script, lang, written in (("hant", "zh_hant", "回合"), ("hans", "zh_hans", "回合")):
        answer = offline_fetch(page, f"/api/search?limit=3&script={script}&q="
                                     + urllib.parse.quote("對手回合可以下地嗎"))
        snippets = [(r["snippet_lang"], r["snippet"]) for r in answer["results"]]
        assert answer["offline"] and any(s_lang == lang and f"<mark>{written}</mark>" in s
                                         for s_lang, s in snippets), snippets

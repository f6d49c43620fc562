"""What a judge's lookups return, server side: old and wrong forms named by the game's word,
hints instead of a bare "No results", rule ranges, suggestions for browsers, rule pages that
read on (previous / next), say when a document gave one language only, link every
cross-reference and cite rulings by section; card text with its keywords linked; the
reader's script in every title. The browser side is tests/test_judge_browser.py."""
import re

import pytest
from html_support import main, page


@pytest.mark.parametrize("typed, name, english", [
    ("不死", "留存", "persist"),          # a common mistranslation (undying is 不息)
    ("瀑布", "傾曳", "cascade"),          # a wrong guess
    ("旅法師", "鵬洛客", "planeswalker"),  # before October 2008
    ("移出對戰", "放逐", "exile"),          # before Magic 2010
])
def test_an_old_or_wrong_form_says_what_the_game_calls_it_and_finds_it(client, typed, name, english):
    answer = client.get("/api/search", query_string={"q": typed}).get_json()
    official = answer["official"]
    assert (official["typed"], official["name"], official["english"]) == (typed, name, english)
    assert official["url"] == f"/terms/glossary:term:{english}"
    assert answer["total"] > 0
    html = main(page(client, f"/?q={typed}"))
    assert f'<span lang="en">{english}</span></a>' in html
    assert '<p class="none">' not in html


def test_a_wrong_form_is_found_but_never_searched_for_the_official_one(client):
    """不死 finds persist; a search for 留存 does not widen to 不死 (nor list it as a form)."""
    persist = client.get("/api/search?q=不死").get_json()["results"]
    assert persist[0]["title"].startswith("502.79 留存")
    assert "不死" not in client.get("/api/terms/glossary:term:persist").get_json()["aliases"]
    assert client.get("/api/search?q=留存").get_json()["official"] is None


def test_a_prefix_that_finds_nothing_gets_the_names_it_starts(client):
    answer = client.get("/api/search?q=Murd").get_json()
    assert answer["total"] == 0
    assert answer["suggestions"][0] == {"text": "Murderous Redcap", "kind": "card",
                                        "id": "shadowmoor-faq:card:murderous-redcap",
                                        "url": "/cards/shadowmoor-faq:card:murderous-redcap"}
    html = main(page(client, "/?q=Murd"))
    assert '<div class="perhaps">' in html and 'href="/cards/shadowmoor-faq:card:murderous-redcap"' in html


@pytest.mark.parametrize("query, first, end", [
    ("702.30a-c", "702.30a", "702.30c"), ("CR 702.30a-c", "702.30a", "702.30c"), ("901.9a至c", "901.9a", "901.9c"),
    ("９０１．９ａ至ｃ", "901.9a", "901.9c"), ("CR 901.9a至c", "901.9a", "901.9c"), ("702.30a–c", "702.30a", "702.30c"),
    ("規則 702.30a到702.30c", "702.30a", "702.30c"), ("rule 702.30a through c", "702.30a", "702.30c"),
])
def test_a_range_of_rule_numbers_jumps_to_its_first_rule(client, query, first, end):
    answer = client.get("/api/search", query_string={"q": query}).get_json()
    assert (answer["rule_jump"]["number"], answer["rule_jump"]["end"]) == (first, end)
    assert answer["rule_jump"]["url"].startswith(f"/rules/{first}?edition=")
    assert answer["results"][0]["rule"] == first
    # The rest of the range is in the same result.
    assert [s["rule"] for s in answer["results"][0]["subrules"]][:2] == [first[:-1] + "b", first[:-1] + "c"]


def test_rule_numbers_typed_together_list_each_rule_on_the_page_and_in_its_json(client):
    """Enter opens no rule page for them: the results page lists the rules in the order typed."""
    answer = client.get("/api/search", query_string={"q": "901.9a, 702.30a"}).get_json()
    assert answer["rule_jump"] is None
    assert [r["rule"] for r in answer["results"][:2]] == ["901.9a", "702.30a"]
    assert all(r["url"].startswith(f"/rules/{r['rule']}?edition=") for r in answer["results"][:2])
    html = main(page(client, "/?q=901.9a%2C+702.30a"))
    assert '<p class="jump">' not in html
    assert 0 < html.index('href="/rules/901.9a?') < html.index('href="/rules/702.30a?')


@pytest.mark.parametrize("path, opened", [
    ("/rules/901.9a-c", "/rules/901.9a"), ("/rules/CR 901.9a至c", "/rules/901.9a"),
    ("/rules/702.30a–c?edition=2010-02-01", "/rules/702.30a?edition=2010-02-01"),
    ("/rules/702.30a-c.json", "/rules/702.30a.json"), ("/api/rules/702.30a-c", "/api/rules/702.30a"),
])
def test_a_rule_page_of_a_range_opens_at_its_first_rule(client, path, opened):
    response = client.get(path)
    assert response.status_code == 302 and response.headers["Location"] == opened
    assert client.get(path, follow_redirects=True).status_code == 200


def test_browsers_get_suggestions_through_opensearch(client):
    description = client.get("/opensearch.xml").get_data(as_text=True)
    assert ('<Url type="application/x-suggestions+json" method="get" '
            'template="http://localhost/api/suggest/opensearch?q={searchTerms}"/>') in description
    response = client.get("/api/suggest/opensearch?q=murd")
    assert response.mimetype == "application/x-suggestions+json"
    assert response.get_json() == ["murd", ["Murderous Redcap"], [""]]
    assert client.get("/api/suggest/opensearch?q=夺魂&script=hans").get_json()[1] == ["夺魂红帽客"]


def test_a_rule_page_reads_on_to_the_previous_and_next_rule(client):
    rule = client.get("/api/rules/702.30a").get_json()
    assert rule["previous"]["number"] == "702.30" and rule["next"]["number"] == "702.30b"
    last = client.get("/api/rules/702.30g").get_json()
    assert last["next"] is None or last["next"]["number"] not in {"702.30a", "702.30"}
    html = main(page(client, "/rules/702.30a"))
    assert '<a rel="prev" href="/rules/702.30?edition=2010-02-01">' in html
    assert '<a rel="next" href="/rules/702.30b?edition=2010-02-01">' in html


def test_the_title_says_the_number_once(client):
    html = page(client, "/rules/702.30c")
    assert re.search(r"<title>702\.30c 增幅 · 萬智牌規則查詢 MTG rules</title>", html)


def test_a_rule_in_chinese_only_says_so_and_one_with_english_does_not(client, cr_client):
    assert client.get("/api/rules/702.30c").get_json()["languages_note"] == "chinese_only"
    assert "the index has no English rules of this edition" in main(page(client, "/rules/702.30c"))
    assert cr_client.get("/api/rules/702.30c").get_json()["languages_note"] is None


def test_a_cross_reference_links_to_the_closest_edition_that_has_it(cr_client):
    """The Worldwake FAQ (2010-02-01) quotes rules; a reference its own edition lacks in the
    index links to the edition that has it rather than staying text."""
    html = main(page(cr_client, "/rules/702.30a"))
    assert re.search(r'<a href="/rules/\d{3}\.\d+[a-z]?\?edition=20\d\d-\d\d-\d\d">', html)


def test_rulings_are_cited_by_section_not_line(client):
    html = main(page(client, "/rules/502.79"))
    rulings = html[html.index('class="rulings"'):]
    assert '新關鍵字異能：留存(Persist)</a>' in rulings
    assert "line" not in rulings and "(行" not in rulings
    card = main(page(client, "/cards/shadowmoor-faq:card:murderous-redcap"))
    assert ('<a class="section" href="/sources/shadowmoor-faq#shadowmoor-faq:section:8" lang="zh-Hant">'
            '新關鍵字異能：留存(Persist)</a>' in card)


def test_keywords_in_card_text_link_to_their_terms(client):
    card = main(page(client, "/cards/shadowmoor-faq:card:murderous-redcap"))
    text = card[card.index('<div class="texts main'):]
    text = text[:text.index("</div></div>")]
    assert '<a class="term" href="/terms/glossary:term:persist">留存</a>' in text
    plane = main(page(client, "/planes/planechase-guide:planar_card:chaotic-aether"))
    assert '<a class="term" href="/terms/glossary:term:planeswalk">planeswalk</a>' in plane


def test_titles_and_source_titles_follow_the_script(client):
    assert "<title>留存 · 萬智牌規則查詢 MTG rules</title>" in page(client, "/?q=留存&script=hant")
    html = page(client, "/?q=夺魂红帽客&script=hans")
    assert "<title>夺魂红帽客 · 万智牌规则查询 MTG rules</title>" in html
    assert "暗影荒原常见问题集 / Shadowmoor FAQ" in html
    assert "暗影荒原常見問題集" not in html
    source = page(client, "/sources/shadowmoor-faq?script=hans")
    assert "<title>暗影荒原常见问题集 / Shadowmoor FAQ · 万智牌规则查询 MTG rules</title>" in source
    live = client.get("/api/search?q=夺魂红帽客&script=hans").get_json()["results"][0]
    assert live["source"]["title"] == "暗影荒原常见问题集 / Shadowmoor FAQ"


def test_every_search_form_keeps_the_script(client):
    for url in ("/?script=hans", "/rules/702.30c?script=hans"):
        assert '<input type="hidden" name="script" value="hans">' in page(client, url)


"""Today's rules by default, on the whole knowledge base: a bare number is today's rule, and a
page of an older edition says in its first lines what that rule is today."""


def test_a_bare_number_is_todays_rule(kb_client):
    rule = kb_client.get("/api/rules/702.79").get_json()
    assert (rule["edition"], rule["current"], rule["today"]) == ("2026-04-17", True, None)
    jump = kb_client.get("/api/search?q=702.79").get_json()["rule_jump"]
    assert (jump["edition"], jump["url"]) == ("2026-04-17", "/rules/702.79?edition=2026-04-17")


def test_an_older_page_says_what_its_rule_and_its_number_are_today(kb_client):
    devour = kb_client.get("/api/rules/702.79?edition=2009-07-11").get_json()
    assert devour["current"] is False
    assert devour["today"]["edition"] == "2026-04-17"
    assert devour["today"]["same_rule"] == {"number": "702.82", "url": "/rules/702.82?edition=2026-04-17"}
    assert devour["today"]["number_now"]["number"] == "702.79"
    assert "Persist" in devour["today"]["number_now"]["name"]
    persist = kb_client.get("/api/rules/502.79").get_json()  # only 2008 has the number
    assert (persist["edition"], persist["today"]["same_rule"]["number"], persist["today"]["number_now"]) == \
        ("2008-05-01", "702.79", None)


def test_the_page_of_an_older_edition_opens_with_todays_rule(kb_client):
    html = kb_client.get("/rules/702.79?edition=2009-07-11").get_data(as_text=True)
    today = html.index('<p class="today">')
    assert today < html.index('<p class="meta">')
    line = html[today:html.index("</p>", today)]
    assert '<a href="/rules/702.82?edition=2026-04-17">702.82</a>' in line
    assert '<span lang="en">this number now names</span> 702.79: <a href="/rules/702.79?edition=2026-04-17">' in line
    assert '<p class="today">' not in kb_client.get("/rules/702.79").get_data(as_text=True)


def test_an_edition_is_named_by_its_year_or_month(kb_client):
    jump = kb_client.get("/api/search?q=702.79+edition:2009").get_json()["rule_jump"]
    assert (jump["number"], jump["edition"]) == ("702.79", "2009-07-11")
    first = kb_client.get("/api/search?q=persist+edition:2008").get_json()["results"][0]
    assert (first["rule"], first["edition"]) == ("502.79", "2008-05-01")
    assert kb_client.get("/api/rules/702.79?edition=2010").get_json()["edition"] == "2010-02-01"
    unknown = kb_client.get("/api/search?q=702.79+edition:1999")  # an edition the index does not hold
    assert unknown.status_code == 404 and unknown.get_json()["error"]["message"].startswith("No edition 1999 ")


def test_rulings_follow_their_rule_to_todays_number(kb_client):
    persist = kb_client.get("/api/rules/702.79").get_json()
    assert persist["edition"] == "2026-04-17"
    assert {r["source"]["id"] for r in persist["rulings"]} == {"shadowmoor-faq"} and len(persist["rulings"]) == 7
    kicker = kb_client.get("/api/rules/702.33").get_json()
    assert {r["source"]["id"] for r in kicker["rulings"]} == {"worldwake-faq"}
    assert kb_client.get("/api/rules/702.79a").get_json()["rulings"] == []


def test_a_documents_edition_label_is_the_rules_file_it_quotes(kb_client):
    """The digest's 2009-07-08 is the rules of 2009-07-11 and the Planechase guide's 2016-01
    those of 2016-09-30: their Chinese stands beside that file's English on one page."""
    devour = kb_client.get("/api/rules/702.79?edition=2009-07-08").get_json()
    assert devour["edition"] == "2009-07-11"
    assert {s["id"] for s in devour["sources"]} == {"cr-2009-07-11", "keyword-digest"}
    assert {"en", "zh_hant"} <= {block["lang"] for block in devour["text"]}
    die = kb_client.get("/api/rules/901.9c?edition=2016-01").get_json()
    assert die["edition"] == "2016-09-30"
    assert {s["id"] for s in die["sources"]} == {"cr-2016-09-30", "planechase-guide"}
    jump = kb_client.get("/api/search?q=901.9c+edition:2016-01").get_json()["rule_jump"]
    assert jump["edition"] == "2016-09-30"
    editions = {e for r in kb_client.get("/api/search?q=cascade&limit=50").get_json()["results"]
                for e in [r["edition"], *(o["edition"] for o in r.get("other_editions", []))]}
    assert not editions & {"2009-07-08", "2016-01"}


def test_a_cards_keywords_link_their_term_and_todays_rule(kb_client):
    card = kb_client.get("/api/cards/shadowmoor-faq:card:murderous-redcap").get_json()
    persist = next(k for k in card["keywords"] if k["url"] == "/terms/glossary:term:persist")
    assert persist["rule"]["url"] == "/rules/702.79?edition=2026-04-17"
    html = kb_client.get("/cards/shadowmoor-faq:card:murderous-redcap").get_data(as_text=True)
    assert '<a class="term" href="/terms/glossary:term:persist">留存</a>' in html
    assert '<a href="/rules/702.79?edition=2026-04-17" lang="zh-Hant">702.79 留存 / Persist</a>' in html


def test_the_stack_is_one_result_per_rule_and_todays_rules_only(kb_client):
    results = kb_client.get("/api/search?q=the+stack").get_json()["results"]
    rules = [r["rule"].split(".")[0] for r in results if r["kind"] == "rule"]
    assert rules[0] == "405" and len(rules) == len(set(rules))
    assert all(r["current"] is not False for r in results)
    asked = kb_client.get("/api/search?q=the+stack+edition:2008").get_json()["results"]
    assert asked and {r["edition"] for r in asked} == {"2008-05-01"}


def test_a_card_page_says_which_edition_its_rules_are_and_whether_current(kb_client):
    card = kb_client.get("/api/cards/shadowmoor-faq:card:murderous-redcap").get_json()
    assert (card["edition"], card["current"], card["current_edition"]) == ("2008-05-01", False, "2026-04-17")
    html = kb_client.get("/cards/shadowmoor-faq:card:murderous-redcap").get_data(as_text=True)
    assert '<span class="edition">2008-05-01</span> (<span lang="zh-Hant">舊版規則</span>' in html


def test_a_documents_rules_show_todays_number_beside_their_own(kb_client):
    html = kb_client.get("/sources/keyword-digest").get_data(as_text=True)
    devour = html[html.index('id="keyword-digest:rule:702.79"'):]
    devour = devour[:devour.index("</section>")]
    assert '(2026-04-17): <a href="/rules/702.82?edition=2026-04-17">702.82</a></p>' in devour
    assert kb_client.get("/api/sources/shadowmoor-faq").status_code == 200
    guide = kb_client.get("/sources/planechase-guide").get_data(as_text=True)
    assert '2016-01 → <a href="/sources/cr-2016-09-30">2016-09-30</a>' in guide
    # A long document is a contents page and numbered pages (webapp.source_pages): its rules,
    # on whichever page holds them, link the edition they quote.
    pages, n = [guide], 1
    while (answer := kb_client.get(f"/sources/planechase-guide?page={n}")).status_code == 200:
        pages.append(answer.get_data(as_text=True))
        n += 1
    assert any('href="/rules/901.1?edition=2016-09-30"' in page for page in pages)


def test_a_subrule_page_shows_its_rules_rulings_that_name_it(kb_client):
    """Multikicker is 702.30c in 2010 and 702.33c today: the Worldwake FAQ's kicker rulings
    about 多重增幅 show on both pages, its other kicker rulings on neither."""
    for url in ("/api/rules/702.33c", "/api/rules/702.30c?edition=2010"):
        rulings = kb_client.get(url).get_json()["rulings"]
        assert len(rulings) == 3 and {r["source"]["id"] for r in rulings} == {"worldwake-faq"}
        assert all("多重增幅" in r["text"][0]["text"] for r in rulings)
    assert len(kb_client.get("/api/rules/702.33").get_json()["rulings"]) == 9
    assert kb_client.get("/api/rules/702.33b").get_json()["rulings"] == []


def test_an_edition_filter_by_its_year_filters_as_the_whole_date_does(kb_client):
    year = kb_client.get("/api/search?q=mana+burn+edition:2008&limit=50").get_json()
    date = kb_client.get("/api/search?q=mana+burn+edition:2008-05-01&limit=50").get_json()
    assert year["total"] == date["total"] > 10
    assert [r["id"] for r in year["results"]] == [r["id"] for r in date["results"]]


def test_suggestions_name_todays_rule_and_one_term_once(kb_client):
    """Every edition has a Devour term and a Devour rule (702.79 in 2009, 702.82 today): typing
    it offers today's rule and one term, each once, and each opens what a search would."""
    found = kb_client.get("/api/suggest?q=devour").get_json()["suggestions"]
    assert [(s["kind"], s["url"]) for s in found] == [("rule", "/rules/702.82?edition=2026-04-17"),
                                                      ("term", "/terms/glossary:term:devour")]
    found = kb_client.get("/api/suggest?q=留存").get_json()["suggestions"]
    assert [(s["kind"], s["id"]) for s in found] == [("rule", "cr-2026-04-17:rule:702.79"),
                                                    ("term", "glossary:term:persist")]


def test_an_old_rule_names_todays_rule_along_its_lineage(kb_client):
    """2008's 104.3f (hybrid mana) is today's 107.4e, not today's 104.3f; 212.3f (summoning
    sickness) is 302.6, 502.78b is 702.78b: the rule, not its section or heading."""
    hybrid = kb_client.get("/api/rules/104.3f?edition=2008").get_json()
    assert hybrid["today"]["same_rule"] == {"number": "107.4e", "url": "/rules/107.4e?edition=2026-04-17"}
    assert hybrid["today"]["number_now"]["number"] == "104.3f" and hybrid["today"]["ended"] is None
    for old, now in (("212.3f", "302.6"), ("502.78b", "702.78b"), ("203.2e", "202.2d"), ("203.3c", "202.3f")):
        assert kb_client.get(f"/api/rules/{old}?edition=2008").get_json()["today"]["same_rule"]["number"] == now


def test_a_split_rule_names_every_rule_it_became_today(kb_client):
    """2016's 702.50a (convoke: one paragraph) became 2022's 702.51a and 702.51b, as the two
    files read; 2022's 500.5 became 500.5a and 500.5b of 2026. Each names both: on its page
    and in its JSON, in a search's jump to it, in a forum preview and in the MCP answer."""
    page = kb_client.get("/api/rules/702.50a?edition=2016").get_json()["today"]
    assert page["same_rule"]["number"] == "702.51a"
    assert page["also"] == [{"number": "702.51b", "url": "/rules/702.51b?edition=2026-04-17"}]
    html = kb_client.get("/rules/702.50a?edition=2016").get_data(as_text=True)
    line = html[html.index('<p class="today">'):]
    assert '702.51a</a>, <a href="/rules/702.51b?edition=2026-04-17">702.51b</a>' in line[:line.index("</p>")]
    jump = kb_client.get("/api/search?q=500.5+edition:2022").get_json()["rule_jump"]["today"]
    assert (jump["number"], [(p["number"], p["url"]) for p in jump["also"]]) == (
        "500.5a", [("500.5b", "/rules/500.5b?edition=2026-04-17")])
    searched = kb_client.get("/?q=500.5+edition:2022").get_data(as_text=True)
    assert 'class="today" href="/rules/500.5b?edition=2026-04-17">500.5b</a>' in searched
    assert kb_client.get("/api/rules/502.79?edition=2008").get_json()["today"]["also"] == []
    # Split and reworded in the 2009 renumbering: 2008's haste rule is today's 702.10b and 702.10c.
    haste = kb_client.get("/api/rules/502.5b?edition=2008").get_json()["today"]
    assert [haste["same_rule"]["number"], *(p["number"] for p in haste["also"])] == ["702.10b", "702.10c"]


def test_a_removed_rule_names_the_last_edition_that_had_it(kb_client):
    burn = kb_client.get("/api/rules/300.3?edition=2008").get_json()
    assert burn["today"]["same_rule"] is None
    assert {k: burn["today"]["ended"][k] for k in ("last", "last_number", "gone_in")} == {
        "last": "2008-05-01", "last_number": "300.3", "gone_in": "2009-07-11"}
    html = kb_client.get("/rules/310.4?edition=2008").get_data(as_text=True)
    line = html[html.index('<p class="today">'):]
    line = line[:line.index("</p>")]
    assert "no longer a rule" in line and "2008-05-01 · 310.4" in line
    # It says so first, and today's 310.4 (battles) is named as what the number now names,
    # no successor.
    assert line.index("no longer a rule") < line.index("this number now names") < line.index("310.4 戰役 / Battles")
    assert 'href="/changes?from=2008-05-01&amp;to=2009-07-11&amp;rule=310.4"' in line


def test_a_history_is_the_rules_own_not_its_sections(kb_client):
    """Today's 118.4 was 2009's 116.4, not 2009's section 116 "Costs": one text since."""
    history = kb_client.get("/api/rules/118.4").get_json()["history"]
    assert (history[0]["first"], history[0]["numbers"]) == ("2009-07-11", ["116.4", "117.4", "118.4"])
    assert [(s["edition"], s["relation"]) for s in history[0]["steps"]][:3] == [
        ("2010-02-01", "same"), ("2016-09-30", "renumbered"), ("2022-11-18", "renumbered")]


def test_multikicker_rulings_follow_the_subrule_into_every_edition(kb_client):
    for url in ("/api/rules/702.32c?edition=2016", "/api/rules/702.33c?edition=2022",
                "/api/rules/702.33c?edition=2026-01-16"):
        rulings = kb_client.get(url).get_json()["rulings"]
        assert len(rulings) == 3 and all("多重增幅" in r["text"][0]["text"] for r in rulings), url


def test_an_old_number_in_search_and_in_the_linker_says_todays(kb_client):
    jump = kb_client.get("/api/search?q=104.3f+edition:2008").get_json()["rule_jump"]
    assert (jump["edition"], jump["today"]["number"], jump["today"]["url"]) == (
        "2008-05-01", "107.4e", "/rules/107.4e?edition=2026-04-17")
    burn = kb_client.get("/api/search?q=300.3+edition:2008").get_json()["rule_jump"]
    assert burn["today"]["ended"]["last"] == "2008-05-01"
    assert "today" not in kb_client.get("/api/search?q=702.79").get_json()["rule_jump"]
    previews = kb_client.get("/api/rules?numbers=502.79,702.79").get_json()["rules"]
    assert previews["502.79"]["today"]["number"] == "702.79" and previews["702.79"]["today"] is None


def test_what_changed_in_the_latest_update(kb_client):
    answer = kb_client.get("/api/changes").get_json()
    assert (answer["from"], answer["to"]) == ("2026-01-16", "2026-04-17")
    assert answer["counts"]["renumbered"] > 50 and answer["counts"]["added"] > 0
    moved = kb_client.get("/api/changes?from=2022-11-18&to=2026-04-17&rule=702.89").get_json()["changes"]
    assert [(c["kind"], c["old"]["number"], c["new"]["number"]) for c in moved] == [("changed", "702.89", "702.89")]
    assert any(op == "insert" and "Umbra" in piece for op, piece in moved[0]["diff"][0]["pieces"])


def test_quotations_follow_their_rule_to_todays_number(kb_client):
    """The keyword digest quotes 2009's 702.79 (devour) and the Shadowmoor FAQ 2008's 502.79
    (persist): today's 702.82 and 702.79 name them, and 702.79 not the digest's devour."""
    devour = {r["id"] for r in kb_client.get("/api/rules/702.82").get_json()["quoted_elsewhere"]}
    assert "keyword-digest:rule:702.79" in devour
    persist = {r["id"] for r in kb_client.get("/api/rules/702.79").get_json()["quoted_elsewhere"]}
    assert "shadowmoor-faq:rule:502.79" in persist and "keyword-digest:rule:702.79" not in persist

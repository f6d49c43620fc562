"""What changed between two editions, page and JSON twin, on the two real editions of the
`cr_client` fixture (2009-07-11 and 2010-02-01): 2010 made 2009's 117.1 two rules, renumbered
303.4b as 303.4c and added multikicker (702.30c)."""
from __future__ import annotations

import re


def test_the_json_twin_lists_every_kind_with_counts_and_diffs(cr_client):
    answer = cr_client.get("/api/changes?from=2009-07-11&to=2010-02-01").get_json()
    assert (answer["from"], answer["to"], answer["page"]) == ("2009-07-11", "2010-02-01", 1)
    counts = answer["counts"]
    assert counts["added"] > 100 and counts["renumbered"] > 100 and counts["changed"] > 100
    assert answer["total"] == sum(counts.values()) and answer["pages"] > 1 and answer["next"]
    assert len(answer["changes"]) == 20


def test_one_rules_entry_with_its_word_diff(cr_client):
    # The number in either edition: 2009's 303.4b is 2010's 303.4c, and 2010's 303.4b was 2009's 303.4d.
    moved = cr_client.get("/api/changes?from=2009&to=2010&rule=303.4b").get_json()["changes"]
    assert sorted((c["kind"], c["old"]["number"], c["new"]["number"]) for c in moved) == [
        ("renumbered", "303.4b", "303.4c"), ("renumbered", "303.4d", "303.4b")]
    added = cr_client.get("/api/changes?from=2009&to=2010&rule=702.30c").get_json()["changes"]
    new = [c for c in added if c["new"]["number"] == "702.30c"]
    assert [(c["kind"], c["old"]) for c in new] == [("added", None)]
    assert "multikicker" in new[0]["text"][0]["text"].lower()
    changed = cr_client.get("/api/changes?from=2009&to=2010&kind=changed").get_json()["changes"]
    first = changed[0]
    assert first["old"]["number"] == first["new"]["number"] and first["diff"][0]["lang"] == "en"
    assert {op for op, _ in first["diff"][0]["pieces"]} - {"equal"}


def test_the_page_shows_the_diff_and_links_both_editions(cr_client):
    html = cr_client.get("/changes?from=2009-07-11&to=2010-02-01&kind=changed").get_data(as_text=True)
    assert '<p class="diff" lang="en">' in html and ("<ins>" in html or "<del>" in html)
    assert re.search(r'href="/rules/[\d.a-z]+\?edition=2009-07-11"', html)
    assert 'rel="next"' in html


def test_a_rules_history_links_each_step_to_its_changes(cr_client):
    history = cr_client.get("/api/rules/702.30a?edition=2010-02-01").get_json()["history"]
    assert [v["edition"] for v in history] == ["2009-07-11", "2010-02-01"]
    assert history[0]["steps"] == []
    # 2009's 702.30a also said what "Kicker [cost 1] and/or [cost 2]" means: 2010 gave that its own subrule.
    assert history[1]["steps"] == [{"edition": "2010-02-01", "number": "702.30a", "relation": "split", "reworded": True,
                                    "changes_url": "/changes?from=2009-07-11&to=2010-02-01&rule=702.30a"}]
    html = cr_client.get("/rules/702.30a?edition=2010-02-01").get_data(as_text=True)
    assert 'href="/changes?from=2009-07-11&amp;to=2010-02-01&amp;rule=702.30a"' in html


def test_bad_arguments_are_clear_errors(cr_client):
    assert cr_client.get("/api/changes?from=2010&to=2009").status_code == 400
    assert cr_client.get("/api/changes?from=1999&to=2010").status_code == 404
    assert cr_client.get("/api/changes?kind=<script>").get_json()["error"]["status"] == 400
    assert cr_client.get("/api/changes?page=999").status_code == 404
    assert cr_client.get("/api/changes?page=x").status_code == 400


def test_without_two_editions_there_is_nothing_to_compare(client):
    assert client.get("/api/changes").status_code == 404

"""The embed script's side of the service: one batch request for a page's rule numbers, the
script written with the app's routes, and the forum owners' and writers' page."""
import pytest
from html_support import main, page


def test_one_request_answers_every_rule_number_of_a_page(client):
    answer = client.get("/api/rules?numbers=702.30c,901.9,999.9,junk&script=hans").get_json()["rules"]
    assert list(answer) == ["702.30c", "901.9", "999.9", "junk"]
    assert answer["999.9"] is None and answer["junk"] is None
    kicker = answer["702.30c"]
    assert (kicker["number"], kicker["edition"], kicker["title"], kicker["url"]) == (
        "702.30c", "2010-02-01", "702.30c 增幅", "/rules/702.30c")
    assert kicker["text"][0]["lang"] == "zh_hans" and kicker["text"][0]["text"].startswith("多重增幅是增幅异能的变化。")
    assert answer["901.9"]["title"] == "901.9 竞逐时空 / Planechase"


def test_a_preview_is_cut_short(client):
    text = client.get("/api/rules?numbers=901.9").get_json()["rules"]["901.9"]["text"]
    assert all(len(block["text"]) <= 401 for block in text)


@pytest.mark.parametrize("query, message", [
    ("", "numbers is required"), ("numbers=" + ",".join(["702.30a"] * 61), "at most 60 rule numbers at once, not 61"),
])
def test_a_bad_batch_is_a_clear_400(client, query, message):
    response = client.get("/api/rules?" + query)
    assert response.status_code == 400
    assert message in response.get_json()["error"]["message"]


def test_one_request_previews_every_name_of_a_page(client):
    """The embed script's [[names]]: what the linker links them to, a card's cost and type
    line, its text in the reader's script; null for a name nothing is called."""
    asked = ["Murderous Redcap", "奪魂紅帽客", "No such card", "Talon Gates"]
    answer = client.get("/api/names?script=hans&" + "&".join(f"name={n}" for n in asked)).get_json()["names"]
    assert list(answer) == asked and answer["No such card"] is None
    redcap = answer["Murderous Redcap"]
    assert redcap == answer["奪魂紅帽客"]
    assert (redcap["kind"], redcap["title"], redcap["url"]) == (
        "card", "夺魂红帽客 / Murderous Redcap", "/cards/shadowmoor-faq:card:murderous-redcap")
    assert redcap["attrs"] == {"mana_cost": "{二}{黑/红}{黑/红}", "type_line": "生物～精灵／杀手",
                               "power_toughness": "2/2"}
    assert redcap["text"][0]["lang"] == "zh_hans"
    assert redcap["text"][0]["text"].startswith("当夺魂红帽客进场时")
    assert answer["Talon Gates"]["kind"] == "planar_card"


@pytest.mark.parametrize("query, message", [
    ("", "name is required"), ("&".join(f"name=card{n}" for n in range(31)), "at most 30 names at once, not 31"),
])
def test_a_bad_name_batch_is_a_clear_400(client, query, message):
    response = client.get("/api/names?" + query)
    assert response.status_code == 400
    assert message in response.get_json()["error"]["message"]


def test_the_embed_script_carries_the_app_s_routes_and_reads_its_element_safely(client):
    source = client.get("/embed.js").get_data(as_text=True)
    assert 'var ROUTES = {"rule": "/rules/NUMBER", "batch": "/api/rules", "names": "/api/names"};' in source
    assert "__" + "ROUTES__" not in source
    assert 'getter(DOC, "currentScript")' in source and "document.currentScript" not in source
    assert "instanceof HTMLScriptElement" in source


def test_forum_owners_get_the_tag_with_their_options(client):
    html = main(page(client, '/forum?embed_script=hans&selector=.post-body"><script>'))
    # The tag as text (escaped once for the page); inside it, the selector escaped for its attribute.
    assert ('<code id="snippet" lang="en">&lt;script src=&#34;http://localhost/embed.js&#34; defer '
            'data-script=&#34;hans&#34; data-selector=&#34;.post-body&amp;quot;&amp;gt;&amp;lt;script&amp;gt;&#34;&gt;'
            '&lt;/script&gt;</code>') in html
    assert "<script>" not in html
    assert 'data-script="hans"' not in html  # the tag is shown as text, never as markup
    plain = main(page(client, "/forum"))
    assert "&lt;script src=&#34;http://localhost/embed.js&#34; defer&gt;&lt;/script&gt;" in plain


def test_writers_get_their_post_linked(client):
    response = client.post("/forum", data={"text": "See rule 702.30c and 999.9.", "format": "bbcode"})
    assert response.status_code == 200
    html = main(response.get_data(as_text=True))
    assert "See rule [url=http://localhost/rules/702.30c?]" not in html
    assert "See rule [url=http://localhost/rules/702.30c]702.30c[/url] and 999.9.</textarea>" in html
    assert "999.9" in html[html.index('class="meta"'):]
    assert client.post("/forum", data={"format": "bbcode"}).status_code == 400

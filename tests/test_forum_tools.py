"""The embed script's side of the service: one batch request for a page's rule numbers, the
script written with the app's routes, and the forum owners' and writers' page."""
import pytest
from html_support import main, page
from markupsafe import escape

from webapp.labels import label
from webapp.views import forum


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


def test_the_writer_s_post_stays_in_the_form_as_typed(client):
    typed = "\n多重增幅見 702.30c，\n<b>not a tag</b> & [[Murderous Redcap]]\n"
    response = client.post("/forum?script=hans", data={"text": typed, "format": "markdown"})
    html = main(response.get_data(as_text=True))
    # HTML drops the newline right after <textarea>, so the post's own first newline survives.
    written = html[html.index('<textarea id="text"'):]
    assert written[written.index(">") + 1:written.index("</textarea>")] == "\n" + escape(typed)
    assert "[702.30c](http://localhost/rules/702.30c)" in html[html.index('<textarea id="linked"'):]


def test_the_form_posts_to_its_answer_in_the_reader_s_script(client):
    html = main(page(client, "/forum?script=hans"))
    assert 'action="/forum?script=hans#linked-result" method="post"' in html
    answer = main(client.post("/forum?script=hans", data={"text": "702.30c"}).get_data(as_text=True))
    assert '<section id="linked-result"' in answer


@pytest.mark.parametrize("script, kicker, planechase", [
    ("hant", "多重增幅是增幅異能的變化。", "901.9 競逐時空 / Planechase"),
    ("hans", "多重增幅是增幅异能的变化。", "901.9 竞逐时空 / Planechase"),
])
def test_the_answer_previews_each_rule_and_name_the_post_links(client, script, kicker, planechase):
    """Each linked rule once, in the order first linked, with its title and the start of its
    text in the reader's script, as the embed script's previews give them; then the markup."""
    post = "702.30c、901.9 和 702.30c；[[奪魂紅帽客]] 與 [[Murderous Redcap]]；999.9"
    response = client.post(f"/forum?script={script}", data={"text": post, "format": "bbcode"})
    html = main(response.get_data(as_text=True))
    answer = html[html.index('<section id="linked-result"'):]
    previews = answer[answer.index('<ul class="link-previews"'):answer.index("</ul>")]
    expected = client.get(f"/api/rules?numbers=702.30c,901.9&script={script}").get_json()["rules"]
    card = client.get(f"/api/names?name=Murderous Redcap&script={script}").get_json()["names"]["Murderous Redcap"]
    titles = [expected["702.30c"]["title"], planechase, card["title"]]
    assert [previews.index(f">{title}</a>") for title in titles] == sorted(previews.index(f">{t}</a>") for t in titles)
    assert previews.count("<li>") == 3  # 702.30c and the card once each; 999.9 is no rule
    assert f'<a href="/rules/702.30c" lang="{"zh-Hans" if script == "hans" else "zh-Hant"}">' in previews
    assert f'<p class="text" lang="zh-{script.title()}">{kicker}' in previews
    assert f"<p class=\"text\" lang=\"zh-{script.title()}\">{escape(card['text'][0]['text'])}" in previews
    heading = str(label("link_previews", script))
    assert heading in answer and answer.index(heading) < answer.index('<textarea id="linked"')
    assert "[url=http://localhost/rules/901.9]901.9[/url]" in answer[answer.index('<textarea id="linked"'):]


def test_a_post_s_markup_and_the_preview_are_escaped(client):
    post = '<script>alert(1)</script><img src=x onerror=alert(2)> 702.30c "quoted"'
    html = main(client.post("/forum", data={"text": post, "format": "html"}).get_data(as_text=True))
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html[html.index('<textarea id="text"'):]


def test_a_post_of_many_rules_previews_the_first_ones_and_counts_the_rest(client, library):
    """Each preview is a rule's look-up: a post linking hundreds is linked whole, previewed in part."""
    numbers = sorted({r.number for r in library.records.values() if r.kind == "rule" and r.number
                      and "." in r.number})[:forum.MAX_PREVIEWS + 12]
    assert len(numbers) == forum.MAX_PREVIEWS + 12
    response = client.post("/forum", data={"text": ", ".join(numbers), "format": "bbcode"})
    answer = main(response.get_data(as_text=True))
    previews = answer[answer.index('<ul class="link-previews"'):answer.index("</ul>")]
    assert previews.count("<li>") == forum.MAX_PREVIEWS
    assert '<p class="meta">+12 ' in answer
    assert all(f"{number}[/url]" in answer for number in numbers)  # every number still linked

"""The JSON API over the small corpus: every field of the search contract, the rule, card,
plane, term and source twins, suggestions, health, limits, scripts and CORS."""
import json
import os

import pytest

from indexer.search.build import current_folder
from webapp import create_app

RESULT_FIELDS = ["id", "kind", "rule", "edition", "title", "names", "text", "today", "current", "snippet",
                 "snippet_lang", "definition", "source", "url", "subrules", "other_editions"]
MULTIKICKER = ("多重增幅是增幅異能的變化。「多重增幅[費用]」意指：「你施放此咒語時，可以任意次數地額外支付[費用]。」"
               "多重增幅的費用屬於增幅費用。")


def get_json(client, url, status=200):
    response = client.get(url)
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    return response.get_json()


# --- /api/search ------------------------------------------------------------------------

def test_search_answers_a_rule_number_with_the_whole_contract(client):
    answer = get_json(client, "/api/search?q=702.30c")
    assert list(answer) == ["query", "total", "took_ms", "did_you_mean", "rule_jump", "results", "left_out",
                            "cards", "unknown_cards", "official", "suggestions"]
    assert answer["query"] == "702.30c"
    assert answer["total"] == 1
    assert isinstance(answer["took_ms"], float) and answer["took_ms"] >= 0
    assert answer["did_you_mean"] is None
    assert answer["rule_jump"] == {"number": "702.30c", "edition": "2010-02-01", "id": "worldwake-faq:rule:702.30c",
                                   "title": "702.30c 增幅", "url": "/rules/702.30c?edition=2010-02-01"}
    [result] = answer["results"]
    assert list(result) == RESULT_FIELDS
    assert result == {
        "id": "worldwake-faq:rule:702.30c", "kind": "rule", "rule": "702.30c", "edition": "2010-02-01",
        "title": "702.30c 增幅", "names": {"zh_hant": "增幅", "zh_hans": "增幅"}, "text": MULTIKICKER, "today": None,
        "current": None,
        "snippet": MULTIKICKER, "snippet_lang": "zh_hant", "definition": None,
        "source": {"id": "worldwake-faq", "title": "天地醒轉常見問題集 / Worldwake FAQ"},
        "url": "/rules/702.30c?edition=2010-02-01", "subrules": [], "other_editions": [],
    }


def test_search_for_a_card_name_highlights_it(client):
    answer = get_json(client, "/api/search?q=奪魂紅帽客&limit=3")
    first = answer["results"][0]
    assert first["id"] == "shadowmoor-faq:card:murderous-redcap"
    assert first["kind"] == "card" and first["rule"] is None and first["edition"] == "2008-05-01"
    assert first["names"] == {"zh_hant": "奪魂紅帽客", "en": "Murderous Redcap", "zh_hans": "夺魂红帽客"}
    assert first["title"] == "奪魂紅帽客 / Murderous Redcap"
    assert first["snippet"].startswith("當<mark>奪魂紅帽客</mark>進場時")
    assert first["source"] == {"id": "shadowmoor-faq", "title": "暗影荒原常見問題集 / Shadowmoor FAQ"}
    assert first["url"] == "/cards/shadowmoor-faq:card:murderous-redcap"
    assert answer["total"] == 1  # the glossary's entry for the card is the card's names, no term of its own


def test_search_suggests_a_spelling_and_answers_it(client):
    answer = get_json(client, "/api/search?q=Murderus%20Redcapp")
    assert answer["did_you_mean"] == "Murderous Redcap"
    assert answer["results"][0]["id"] == "shadowmoor-faq:card:murderous-redcap"


def test_a_spelling_is_offered_only_where_it_finds_what_the_query_did_not(client):
    """One misspelt word beside one that already finds the card: nothing new to offer."""
    answer = get_json(client, "/api/search?q=Murderus%20Redcap")
    assert answer["did_you_mean"] is None
    assert answer["results"][0]["id"] == "shadowmoor-faq:card:murderous-redcap"


def test_search_in_simplified_converts_chinese_but_not_english(client):
    answer = get_json(client, "/api/search?q=Murderous%20Redcap&script=hans")
    first = answer["results"][0]
    assert first["title"] == "夺魂红帽客 / Murderous Redcap"
    assert first["text"].startswith("当夺魂红帽客进场时，它对目标生物或牌手造成伤害")
    plane = get_json(client, "/api/search?q=Chaotic%20Aether&script=hans")["results"][0]
    assert plane["id"] == "planechase-guide:planar_card:chaotic-aether"
    assert plane["text"].startswith("When you encounter Chaotic Aether, each blank roll of the planar die")
    assert "当你遭遇Chaotic Aether 混乱乙太时" in plane["text"]


def test_search_snippets_are_escaped_html(client):
    """A real text with angle brackets (the Worldwake FAQ's <www.wizards.com/...> address)
    comes back escaped, with only <mark> added."""
    answer = get_json(client, "/api/search?q=贊迪卡常見問題集")
    section = next(r for r in answer["results"] if r["id"] == "worldwake-faq:section:5")
    assert "：&lt;www.wizards.com/Magic/TCG/Resources.asp ... rules/faqs" in section["snippet"]
    assert "<www." not in section["snippet"]
    assert section["snippet"].replace("<mark>", "").replace("</mark>", "").count("<") == 0
    assert "<www.wizards.com" in section["text"]  # the plain text is plain


def test_a_hostile_query_is_searched_as_text(client):
    answer = get_json(client, "/api/search?q=%3Cscript%3Ealert(1)%3C/script%3E")
    assert answer["query"] == "<script>alert(1)</script>"
    assert all("<script" not in r["snippet"] for r in answer["results"])


def test_a_search_of_an_edition_the_index_does_not_hold_is_a_404_as_its_pages_are(client):
    for url in ("/api/search?q=persist&edition=1999", "/api/search?q=persist+edition:1999"):
        answer = client.get(url)
        assert answer.status_code == 404
        assert answer.get_json()["error"]["message"].startswith("No edition 1999 is in the index; the editions are: ")
    assert client.get("/?q=persist&edition=1999").status_code == 404
    assert client.get("/api/search?q=persist&edition=2010").status_code == 200


def test_an_empty_query_has_no_results(client):
    assert get_json(client, "/api/search?q=") == {"query": "", "total": 0, "took_ms": 0.0, "did_you_mean": None,
                                                   "rule_jump": None, "results": [], "left_out": [], "cards": [],
                                                   "unknown_cards": [], "official": None, "suggestions": []}


def test_the_page_and_the_api_are_one_view(client):
    api = client.get("/api/search?q=留存&limit=5").get_json()
    page = client.get("/?q=留存&limit=5&format=json").get_json()
    negotiated = client.get("/?q=留存&limit=5", headers={"Accept": "application/json"}).get_json()
    for answer in (page, negotiated):
        answer["took_ms"] = api["took_ms"]
    assert api == page == negotiated
    assert api["results"][0]["id"] == "shadowmoor-faq:rule:502.79"
    assert api["results"][0]["subrules"][0]["id"] == "shadowmoor-faq:rule:502.79a"


def test_every_json_answer_may_be_read_from_another_site(client):
    """The API and the pages' JSON twins (.json, ?format=json, Accept) carry CORS; pages do not."""
    for url, headers in (("/api/search?q=persist", {}), ("/?q=persist&format=json", {}),
                         ("/rules/702.30c.json", {}), ("/rules/702.30c", {"Accept": "application/json"})):
        answer = client.get(url, headers=headers)
        assert answer.mimetype == "application/json", url
        assert answer.headers["Access-Control-Allow-Origin"] == "*", url
    assert "Access-Control-Allow-Origin" not in client.get("/?q=persist").headers


# --- limits -----------------------------------------------------------------------------

@pytest.mark.parametrize("url, message", [
    ("/api/search?q=" + "a" * 501, "query too long: 501 characters (at most 500)"),
    ("/api/search?q=persist&limit=0", "limit must be between 1 and 50"),
    ("/api/search?q=persist&limit=51", "limit must be between 1 and 50"),
    ("/api/search?q=persist&limit=ten", "limit must be a whole number, not 'ten'"),
    ("/api/search?q=persist&script=latin", "script must be one of hant, hans, not 'latin'"),
    ("/api/search?q=kind:spells", "unknown kind 'spells': use one of rule, card, planar_card, section, term"),
    ("/?q=persist&format=xml", "format must be one of html, json, not 'xml'"),
    ("/api/suggest?q=" + "a" * 101, "suggest takes at most 100 characters and a limit of 1 to 50"),
])
def test_limits_are_400_with_a_clear_message(client, url, message):
    response = client.get(url, headers={"Accept": "application/json"})
    assert response.status_code == 400
    assert response.get_json() == {"error": {"status": 400, "message": message}}


def test_a_500_character_query_is_accepted(client):
    assert client.get("/api/search?q=" + "a" * 500).status_code == 200


# --- rules ------------------------------------------------------------------------------

def test_rule_twin_fields(client):
    rule = get_json(client, "/api/rules/702.30c")
    assert rule["number"] == "702.30c" and rule["edition"] == "2010-02-01" and rule["keyword"] == "kicker"
    assert rule["title"] == "702.30c 增幅"
    assert rule["text"] == [{"lang": "zh_hant", "text": MULTIKICKER}]
    assert rule["sources"] == [{"id": "worldwake-faq", "title": "天地醒轉常見問題集 / Worldwake FAQ",
                                "url": "/sources/worldwake-faq#worldwake-faq:rule:702.30c", "line": 27,
                                "section": {"title": "關鍵字異能變化：多重增幅",
                                            "url": "/sources/worldwake-faq#worldwake-faq:section:1"}}]
    assert rule["parent"]["number"] == "702.30" and rule["parent"]["url"] == "/rules/702.30?edition=2010-02-01"
    assert rule["children"] == [] and len(rule["rulings"]) == 3  # the kicker rulings naming 多重增幅
    assert rule["editions"] == [{"edition": "2010-02-01", "number": "702.30c", "name": "kicker",
                                 "url": "/rules/702.30c?edition=2010-02-01", "current": True}]
    assert rule["keyword_numbers"] == [{"edition": "2010-02-01", "number": "702.30",
                                        "url": "/rules/702.30?edition=2010-02-01", "current": True}]


def test_rule_twin_lists_subrules_and_references(client):
    kicker = get_json(client, "/api/rules/702.30")
    assert [c["number"] for c in kicker["children"]] == ["702.30a", "702.30b", "702.30c", "702.30d", "702.30e",
                                                         "702.30f", "702.30g"]
    assert len(kicker["rulings"]) == 9
    assert kicker["rulings"][6]["text"] == [{"lang": "zh_hant", "text": "增幅不會改變咒語的法術力費用或總法術力費用。"}]
    assert get_json(client, "/api/rules/702.30a")["references"] == [
        {"number": "601.2b", "end": None, "url": None}, {"number": "601.2f", "end": "601.2h", "url": None}]


def test_rule_twin_with_the_rules_file_has_english_beside_chinese(cr_client):
    rule = get_json(cr_client, "/api/rules/702.30c")
    assert rule["text"] == [
        {"lang": "en", "text": 'Multikicker is a variant of the kicker ability. "Multikicker [cost]" means '
                               '"You may pay an additional [cost] any number of times as you cast this spell." '
                               'A multikicker cost is a kicker cost.'},
        {"lang": "zh_hant", "text": MULTIKICKER},
    ]
    assert [s["id"] for s in rule["sources"]] == ["cr-2010-02-01", "worldwake-faq"]
    assert get_json(cr_client, "/api/rules/702.30a")["references"][:2] == [
        {"number": "601.2b", "end": None, "url": "/rules/601.2b?edition=2010-02-01"},
        {"number": "601.2e", "end": "601.2g", "url": "/rules/601.2e?edition=2010-02-01"}]


@pytest.mark.parametrize("url", ["/api/rules/702.30c", "/rules/702.30c.json", "/rules/702.30c?format=json",
                                 "/api/rules/規則702.30C", "/api/rules/７０２．３０ｃ"])
def test_rule_twin_urls_agree(client, url):
    assert get_json(client, url)["title"] == "702.30c 增幅"


def test_rule_in_a_named_edition_and_a_missing_one(client):
    assert get_json(client, "/api/rules/502.79?edition=2008-05-01")["title"] == "502.79 留存 / Persist"
    assert get_json(client, "/api/rules/502.79?edition=2009-07-08", 404) == {"error": {
        "status": 404, "message": "Edition 2009-07-08 has no rule 502.79; it is in: 2008-05-01."}}
    assert get_json(client, "/api/rules/999.9", 404) == {"error": {
        "status": 404, "message": "No edition of the rules has 999.9."}}
    assert get_json(client, "/api/rules/persist", 404) == {"error": {
        "status": 404, "message": "'persist' is not a rule number (rule numbers look like 702.30a)"}}


# --- cards, planes, terms, sources ------------------------------------------------------

def test_card_twin(client):
    card = get_json(client, "/api/cards/shadowmoor-faq:card:murderous-redcap")
    assert card["names"] == {"zh_hant": "奪魂紅帽客", "en": "Murderous Redcap", "zh_hans": "夺魂红帽客"}
    assert card["attrs"] == {"mana_cost": "{二}{黑/紅}{黑/紅}", "type_line": "生物～精靈／殺手",
                             "power_toughness": "2/2", "set": "Shadowmoor"}
    assert card["text"][0]["text"].startswith(
        "當奪魂紅帽客進場時，它對目標生物或牌手造成傷害，其數量等同於其力量。\n留存（")
    assert len(card["rulings"]) == 8
    assert card["rulings"][-1] == [{"lang": "zh_hant",
                                    "text": "此異能結算時，才會檢查奪魂紅帽客之力量。"
                                            "如果當時它已離場，則會使用其已知的最後資訊。"}]
    assert card["source"] == {"id": "shadowmoor-faq", "title": "暗影荒原常見問題集 / Shadowmoor FAQ",
                              "url": "/sources/shadowmoor-faq?page=1#shadowmoor-faq:card:murderous-redcap", "line": 3,
                              "section": {"title": "新關鍵字異能：留存(Persist)",
                                          "url": "/sources/shadowmoor-faq#shadowmoor-faq:section:8"}}


def test_card_twin_in_simplified(client):
    card = get_json(client, "/api/cards/shadowmoor-faq:card:murderous-redcap?script=hans")
    assert card["attrs"]["mana_cost"] == "{二}{黑/红}{黑/红}" and card["attrs"]["type_line"] == "生物～精灵／杀手"
    assert card["text"][0] == {"lang": "zh_hans", "text": card["text"][0]["text"]}
    assert card["text"][0]["text"].startswith("当夺魂红帽客进场时")


def test_a_card_name_in_the_address_redirects_to_its_id(client):
    for name in ("奪魂紅帽客", "夺魂红帽客", "Murderous%20Redcap"):
        response = client.get(f"/api/cards/{name}?script=hans")
        assert response.status_code == 302
        assert response.headers["Location"] == "/api/cards/shadowmoor-faq:card:murderous-redcap?script=hans"
    assert client.get("/cards/murderous%20redcap.json").headers["Location"] == \
        "/cards/shadowmoor-faq:card:murderous-redcap.json"


def test_plane_twin(client):
    plane = get_json(client, "/api/planes/planechase-guide:planar_card:chaotic-aether")
    assert plane["names"] == {"en": "Chaotic Aether", "zh_hant": "混亂乙太", "zh_hans": "混乱乙太"}
    assert plane["attrs"] == {"type_line": "Phenomenon", "type_line_zh_hant": "奇跡"}
    assert plane["abilities"] == [[
        {"lang": "en", "text": "When you encounter Chaotic Aether, each blank roll of the planar die is a chaos symbol "
                               "until a player planeswalks away from a plane. "
                               "(Then planeswalk away from this phenomenon.)"},
        {"lang": "zh_hant", "text": "當你遭遇Chaotic Aether 混亂乙太時，每個時空骰子的空白面都視作混亂標記，"
                                    "直到一個玩家從一個地域時空旅行離開。（然後時空旅行離開這個奇跡。）"},
    ]]


def test_a_card_is_not_a_plane(client):
    assert get_json(client, "/api/planes/shadowmoor-faq:card:murderous-redcap", 404) == {
        "error": {"status": 404, "message": "No planar card 'shadowmoor-faq:card:murderous-redcap'."}}


def test_term_twin(client):
    term = get_json(client, "/api/terms/glossary:term:persist")
    assert term["forms"] == [{"lang": "en", "text": "persist"}, {"lang": "zh_hant", "text": "留存"},
                             {"lang": "zh_hans", "text": "留存"}]
    assert term["defining_rules"] == [
        {"number": "502.79", "edition": "2008-05-01", "url": "/rules/502.79?edition=2008-05-01"},
        {"number": "702.79", "edition": "2026-04-17", "url": None}]
    mentioned = [m["id"] for m in term["mentions"]]
    assert {"shadowmoor-faq:rule:502.79", "shadowmoor-faq:rule:502.79a",
            "shadowmoor-faq:card:murderous-redcap"} <= set(mentioned)
    assert "glossary:term:persist" not in mentioned


def test_source_twin_has_metadata_and_every_record_in_order(client, library):
    source = get_json(client, "/api/sources/worldwake-faq")
    assert {k: source[k] for k in ("id", "file", "title", "family", "languages", "product", "date", "edition")} == {
        "id": "worldwake-faq", "file": "worldwake-faq-zh-hant.txt", "title": "天地醒轉常見問題集 / Worldwake FAQ",
        "family": "set-faq", "languages": ["zh_hant"], "product": "Worldwake", "date": "2010-01-14",
        "edition": "2010-02-01"}
    assert source["urls"] == ["http://www.wizards.com/dci/downloads/EN ... 100114.rtf",
                              "http://www.wizards.com/dci/downloads/CS ... 100114.rtf"]
    ids = [r["id"] for r in source["records"]]
    assert ids == [r.id for r in library.records_of_source("worldwake-faq")]
    assert len(ids) == 19 and ids[0] == "worldwake-faq:section:1"
    assert [r["kind"] for r in source["records"]].count("rule") == 8


# --- suggestions and service endpoints --------------------------------------------------

def test_suggest(client):
    answer = get_json(client, "/api/suggest?q=奪魂")
    assert answer["query"] == "奪魂"
    assert answer["suggestions"][0] == {"text": "奪魂紅帽客", "kind": "card",
                                        "id": "shadowmoor-faq:card:murderous-redcap",
                                        "url": "/cards/shadowmoor-faq:card:murderous-redcap"}
    numbers = get_json(client, "/api/suggest?q=702.30&limit=3")["suggestions"]
    assert [s["text"] for s in numbers] == ["702.30 增幅", "702.30a 增幅", "702.30b 增幅"]


def test_healthz_names_the_open_index(client, small_index):
    folder = current_folder(small_index)
    records = sum(1 for line in (folder / "records.jsonl").open(encoding="utf-8") if line.strip())
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok", "records": records, "index": folder.name,
                                   "pid": os.getpid(), "opened_in": os.getpid()}
    assert response.headers["Cache-Control"] == "no-store"


def test_healthz_without_an_index_is_503(no_index_app):
    response = no_index_app.test_client().get("/healthz")
    assert response.status_code == 503
    assert response.get_json() == {"error": {"status": 503, "message": "The search index is not available right "
                                                                       "now; please try again in a moment."}}
    assert response.headers["Retry-After"] == "30"


def test_opensearch_description(small_index, client):
    """Its addresses are on the configured public address, whatever Host the request names."""
    public = create_app({"TESTING": True, "INDEX_ROOT": small_index, "PUBLIC_URL": "https://rules.example.org/"})
    response = public.test_client().get("/opensearch.xml", base_url="http://evil.example")
    assert response.mimetype == "application/opensearchdescription+xml"
    body = response.get_data(as_text=True)
    assert '<Url type="text/html" method="get" template="https://rules.example.org/?q={searchTerms}"/>' in body
    assert '<link rel="search" type="application/opensearchdescription+xml" href="/opensearch.xml"' in \
        client.get("/").get_data(as_text=True)


# --- CORS and JSON form -----------------------------------------------------------------

@pytest.mark.parametrize("url", ["/api/search?q=persist", "/api/suggest?q=per", "/api/rules/702.30",
                                 "/api/cards/shadowmoor-faq:card:murderous-redcap", "/api/rules/999.9"])
def test_api_answers_any_origin(client, url):
    response = client.get(url, headers={"Origin": "https://forum.example"})
    assert response.headers["Access-Control-Allow-Origin"] == "*"


def test_pages_are_not_opened_to_other_origins(client):
    assert "Access-Control-Allow-Origin" not in client.get("/rules/702.30c").headers


def test_json_keeps_chinese_readable(client):
    raw = client.get("/api/rules/702.30c").get_data(as_text=True)
    assert "多重增幅" in raw and "\\u" not in raw
    assert json.loads(raw)["number"] == "702.30c"


def test_arguments_and_cookies_answer_like_werkzeugs_without_raising():
    """`Arguments.get` skips Werkzeug's raised and caught KeyError for an absent name, and
    must answer exactly what Werkzeug's `get` does otherwise."""
    from werkzeug.datastructures import ImmutableMultiDict

    from webapp.respond import AnswerRequest, Arguments

    pairs = [("limit", "5"), ("limit", "7"), ("q", "x"), ("empty", "")]
    ours, theirs = Arguments(pairs), ImmutableMultiDict(pairs)
    for name, default, convert in [("limit", None, None), ("limit", 0, int), ("q", 3, int), ("empty", "d", None),
                                   ("format", None, None), ("format", "html", None), ("format", 9, int)]:
        assert ours.get(name, default, convert) == theirs.get(name, default, convert)
    request = AnswerRequest.from_values("/?q=x&script=hans", headers={"Cookie": "script=hant"})
    assert isinstance(request.args, Arguments) and isinstance(request.cookies, Arguments)
    assert (request.args.get("format"), request.cookies.get("script"), request.new_script) == (None, "hant", "hans")
    # An API answer sets no cookie: its caller names the script in the address.
    assert AnswerRequest.from_values("/api/search?q=x&script=hans",
                                     headers={"Cookie": "script=hant"}).new_script is None


@pytest.mark.parametrize("payload", [
    {"query": "中文 \"x\"", "total": 2, "results": [{"id": "a", "score": 2.5, "url": None}]},
    {1: "a number key", "nested": {2: [True, {"3.5": 3.5}]}},
    [{}, [], ""],
])
def test_json_answers_are_the_standard_encoders_bytes(app, payload):
    """Keys that are not strings too, which orjson only takes when asked to."""
    from flask.json.provider import DefaultJSONProvider

    standard = DefaultJSONProvider(app)
    standard.ensure_ascii, standard.sort_keys = False, False
    assert app.json.dumps(payload) == standard.dumps(payload, separators=(",", ":"))
    with app.app_context():
        assert (app.json.response(payload).get_data(as_text=True)
                == standard.dumps(payload, separators=(",", ":")) + "\n")

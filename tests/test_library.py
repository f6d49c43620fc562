"""Search behaviour of the library over the bundled corpus: rule jumps, names, filters,
phrases, typos, expansion, scripts, suggestions and hostile queries."""
import pytest

from indexer.knowledge.library import Library
from indexer.knowledge.stages import Stages
from indexer.search.folding import fold_key
from indexer.search.query import (
    MAX_QUERY_CHARS,
    MAX_QUERY_WORDS,
    QueryError,
    UnknownEdition,
    counted_words,
    parse_query,
)


def first(library, q, **kw):
    return library.search(q, **kw)["results"][0]


@pytest.mark.parametrize("q", ["702.30a", "702.30a.", "rule 702.30a", "Rule702.30a", "CR 702.30a", "cr702.30a",
                               "規則702.30a", "规则 702.30a", "７０２．３０ａ", "７０２.３０a", " 702.30A "])
def test_rule_number_forms_jump_to_that_rule(corpus_library, q):
    answer = corpus_library.search(q)
    assert answer["rule_jump"]["number"] == "702.30a"
    assert answer["rule_jump"]["id"] == "worldwake-faq:rule:702.30a"
    assert answer["results"][0]["rule"] == "702.30a"


def test_a_rule_number_gives_the_rule_with_its_subrules_as_one_result(corpus_library):
    results = corpus_library.search("702.30", limit=10)["results"]
    assert results[0]["rule"] == "702.30"
    assert [s["rule"] for s in results[0]["subrules"]] == ["702.30a", "702.30b", "702.30c", "702.30d", "702.30e",
                                                            "702.30f", "702.30g"]
    assert [r["rule"] for r in results].count("702.30a") == 0


@pytest.mark.parametrize("q", ["CR 901.9a至c", "901.9a-c", "901.9a–c", "規則901.9a至901.9c", "９０１．９ａ－ｃ"])
def test_a_range_in_every_written_form_jumps_to_its_rules(corpus_library, q):
    answer = corpus_library.search(q)
    assert (answer["rule_jump"]["number"], answer["rule_jump"]["end"]) == ("901.9a", "901.9c")
    result = answer["results"][0]
    assert result["rule"] == "901.9a" and [s["rule"] for s in result["subrules"]][:2] == ["901.9b", "901.9c"]
    assert parse_query(q).rule_end == "901.9c"


@pytest.mark.parametrize("q", ["702.30a 901.9a", "rules 702.30a and 901.9a", "CR 702.30a, CR 901.9a.",
                               "規則702.30a、901.9a", "７０２．３０ａ，９０１．９ａ", "702.30a or 901.9a"])
def test_rule_numbers_typed_together_give_each_rule_in_turn_and_no_jump(corpus_library, q):
    answer = corpus_library.search(q)
    assert answer["rule_jump"] is None
    assert [r["rule"] for r in answer["results"][:2]] == ["702.30a", "901.9a"]
    assert corpus_library.search("901.9a 702.30a")["results"][0]["rule"] == "901.9a"


def test_rule_numbers_typed_together_keep_a_range_and_their_rules_subrules(corpus_library):
    results = corpus_library.search("901.9a至c 702.30")["results"]
    assert results[0]["rule"] == "901.9a" and [s["rule"] for s in results[0]["subrules"]][:2] == ["901.9b", "901.9c"]
    assert results[1]["rule"] == "702.30" and [s["rule"] for s in results[1]["subrules"]][:2] == ["702.30a", "702.30b"]


@pytest.mark.parametrize("q, named", [
    ("702.19b 702.2c", [("702.19b", None), ("702.2c", None)]),
    ("規則702.19b、601.2f至h", [("702.19b", None), ("601.2f", "601.2h")]),
    ("702.19b, 702.19b and 702.2c", [("702.19b", None), ("702.2c", None)]),
    ("rule 702 and rule 703", [("702", None), ("703", None)]),
    ("702.19b", []), ("702.30a-c", []), ("trample 702.19b 702.2c", []), ("702.19b sand 702.2c", []),
    ("702 703", []), ('"702.19b" 702.2c', []), ("702.19b 702.19b", []), ("702.19b?", []),
])
def test_a_list_of_rule_numbers_is_numbers_and_separators_only(q, named):
    assert parse_query(q).rule_list == named


@pytest.mark.parametrize("q", ["702.30a?", "702.30a？", "702.30a 702.30a", "rule 702.30a!"])
def test_one_rule_number_with_marks_around_it_is_a_jump(q):
    parsed = parse_query(q)
    assert (parsed.rule_number, parsed.rule_list, parsed.named_rules) == ("702.30a", [], [])


@pytest.mark.parametrize("q, named", [
    ("what is 702.19b", [("702.19b", None)]), ("規則 613.4c 的意思", [("613.4c", None)]),
    ("rule 702.19b trample 702.2c", [("702.19b", None), ("702.2c", None)]), ('"trample" 702.19b', [("702.19b", None)]),
    ("does 601.2f-h apply", [("601.2f", "601.2h")]), ("trample", []), ("702.19b", []), ("702.19b 702.2c", []),
])
def test_the_rules_a_query_names_among_its_words(q, named):
    assert parse_query(q).named_rules == named


@pytest.mark.parametrize("q", ["what is 702.30a", "702.30a 是什麼", "规则 702.30a 的意思",
                               "does rule 702.30a apply to echo"])
def test_a_rule_named_among_words_comes_first_then_what_the_words_find(corpus_library, q):
    answer = corpus_library.search(q)
    assert answer["rule_jump"] is None and answer["results"][0]["rule"] == "702.30a"


def test_rule_numbers_none_of_which_is_a_rule_are_searched_as_text(corpus_library):
    answer = corpus_library.search("999.99z 998.1")
    assert answer["rule_jump"] is None and all(r.get("rule") not in ("999.99z", "998.1") for r in answer["results"])


def test_an_unknown_rule_number_is_no_jump(corpus_library):
    answer = corpus_library.search("999.99z")
    assert answer["rule_jump"] is None


def test_keyword_heading_comes_first_with_its_subrules_in_order(corpus_library):
    result = corpus_library.search("conspire")["results"][0]
    assert result["rule"] == "502.78"
    assert [s["rule"] for s in result["subrules"]][:2] == ["502.78a", "502.78b"]


@pytest.mark.parametrize("q", ["乾枯", "干枯", "wither", "WITHER"])
def test_every_form_of_a_keyword_finds_the_same_rule(corpus_library, q):
    assert first(corpus_library, q)["id"] == "shadowmoor-faq:rule:502.80"


@pytest.mark.parametrize("q", ["Murderous Redcap", "murderous redcap", "奪魂紅帽客", "夺魂红帽客"])
def test_card_names_in_any_script_put_the_card_first(corpus_library, q):
    assert first(corpus_library, q)["id"] == "shadowmoor-faq:card:murderous-redcap"


def test_result_fields(corpus_library):
    result = first(corpus_library, "奪魂紅帽客")
    assert set(result) >= {"id", "kind", "rule", "edition", "title", "names", "text", "snippet", "source"}
    assert result["kind"] == "card" and result["rule"] is None and result["edition"] == "2008-05-01"
    assert result["names"] == {"en": "Murderous Redcap", "zh_hant": "奪魂紅帽客", "zh_hans": "夺魂红帽客"}
    assert result["source"] == {"id": "shadowmoor-faq", "title": "暗影荒原常見問題集 / Shadowmoor FAQ"}
    assert "<mark>奪魂紅帽客</mark>" in result["snippet"]
    assert "所有暗影荒原中具留存異能的牌都是生物" in result["text"]


def test_script_converts_text_and_snippet_but_keeps_highlights(corpus_library):
    hant = first(corpus_library, "乾枯")
    hans = first(corpus_library, "乾枯", script="hans")
    assert hant["id"] == hans["id"] == "shadowmoor-faq:rule:502.80"
    assert "乾枯的效應適用於任何傷害" in hant["text"]
    assert "干枯的效应适用于任何伤害" in hans["text"]
    assert "<mark>干枯</mark>" in hans["snippet"] and "<mark>乾枯</mark>" in hant["snippet"]
    assert len(hant["text"]) == len(hans["text"])


def test_english_finds_chinese_only_text_through_the_glossary(corpus_library):
    result = first(corpus_library, "multikicker")
    assert result["rule"] == "702.30c" and "多重增幅" in result["text"]
    assert "<mark>多重增幅</mark>" in result["snippet"]


def test_era_forms_expand_to_each_other(corpus_library):
    """移出對戰 (before Magic 2010) and 放逐 (after) each find text written with the other."""
    old = corpus_library.search("移出對戰", limit=30)["results"]
    new = corpus_library.search("放逐", limit=30)["results"]
    assert any("放逐" in r["text"] and "移出對戰" not in r["text"] for r in old)
    assert any("移出對戰" in r["text"] and "放逐" not in r["text"] for r in new)


def test_filters(corpus_library):
    cards = corpus_library.search("留存 kind:card", limit=20)["results"]
    assert cards and all(r["kind"] == "card" for r in cards)
    guide = corpus_library.search("時空骰 source:planechase-guide", limit=20)["results"]
    assert guide and all(r["source"]["id"] == "planechase-guide" for r in guide)
    dated = corpus_library.search("cascade edition:2009-07-08")["results"]
    assert dated and all(r["edition"] == "2009-07-08" for r in dated)
    with pytest.raises(UnknownEdition, match="No edition 1999-01-01 is in the index; the editions are: 2016-01, "):
        corpus_library.search("cascade edition:1999-01-01")
    with pytest.raises(QueryError, match="unknown kind"):
        corpus_library.search("x kind:spaceship")


def test_quoted_phrase_must_occur(corpus_library):
    results = corpus_library.search('"你可以犧牲任意數量的生物"')["results"]
    assert results[0]["rule"] == "702.79a"  # the phrase crossed a line wrap in the digest
    assert {r["source"]["id"] for r in results} == {"keyword-digest", "planechase-guide"}
    assert all("你可以犧牲任意數量的生物" in r["text"] for r in results)
    assert corpus_library.search('"犧牲任意數量的咒語"')["results"] == []


def test_a_question_quoting_words_reads_them_as_its_own_a_phrase_alone_keeps_to_them(corpus_library):
    """A player quotes a card's words inside a question: the question is still read (its
    results are rules that need not hold the quoted words as written); a phrase alone, or with
    a word, keeps only the records holding it."""
    quoted = '效果叫我“犧牲任意數量的咒語”的時候,這個異能要怎麼結算,可以犧牲零個生物嗎?'
    answer = corpus_library.search(quoted)
    assert answer["results"] and not any("犧牲任意數量的咒語" in r["text"] for r in answer["results"])
    assert corpus_library.search('"犧牲任意數量的咒語" 生物')["results"] == []
    parsed = parse_query(quoted, as_phrases=False)
    assert parsed.phrases == [] and "犧牲任意數量的咒語" in parsed.text
    with_filter = corpus_library.search(quoted + " kind:card")["results"]
    assert all(r["kind"] == "card" for r in with_filter)
    without = Library(corpus_library.folder, stages=Stages().without("quotations"))
    try:
        assert without.search(quoted)["results"] == []  # the phrase no record holds, as typed
    finally:
        without.close()


def test_typo_gives_did_you_mean_and_results(corpus_library):
    answer = corpus_library.search("persit")
    assert answer["did_you_mean"] == "persist"
    assert answer["results"][0]["rule"] == "502.79"
    assert corpus_library.search("persist")["did_you_mean"] is None


def test_bulgarian_is_searched_as_words(corpus_library):
    result = first(corpus_library, "зар")
    assert result["source"]["id"] == "planechase-article-bg" and "<mark>зар</mark>" in result["snippet"]


def test_suggestions_from_names_terms_and_numbers(corpus_library):
    texts = [s["text"] for s in corpus_library.suggest("奪魂")]
    assert "奪魂紅帽客" in texts
    assert any(s["text"] == "Murderous Redcap" for s in corpus_library.suggest("murder"))
    assert any(s["text"] == "夺魂红帽客" or s["text"] == "奪魂紅帽客" for s in corpus_library.suggest("夺魂"))
    numbers = [s["id"] for s in corpus_library.suggest("702.3")]
    assert "worldwake-faq:rule:702.30" in numbers


@pytest.mark.parametrize("q", ["", "   ", "*", "AND", "OR NOT", "(((", '"', '"unbalanced', "~^:", "kind:", "a" * 500,
                               "\x00\x01", "<script>alert(1)</script>", "702.30a AND (",
                               "\ud800".encode("utf-8", "surrogatepass").decode("utf-8", "replace")])
def test_any_string_is_a_query(corpus_library, q):
    answer = corpus_library.search(q)
    assert isinstance(answer["results"], list)
    for result in answer["results"]:
        assert "<script>" not in result["snippet"]


def test_limits_give_clear_errors(corpus_library):
    with pytest.raises(QueryError, match="too long"):
        corpus_library.search("a" * 501)
    with pytest.raises(QueryError, match="limit"):
        corpus_library.search("persist", limit=0)
    with pytest.raises(QueryError, match="script"):
        corpus_library.search("persist", script="latin")


def test_snippets_are_escaped(corpus_library):
    for result in corpus_library.search("<b>留存</b>")["results"]:
        assert "<b>" not in result["snippet"]


def test_parse_query_takes_filters_phrases_and_numbers_out():
    parsed = parse_query('kind:rule "planar die" roll edition:2016-01')
    assert parsed.filters == {"kind": "rule", "edition": "2016-01"}
    assert parsed.phrases == ["planar die"] and parsed.text == "roll" and parsed.rule_number is None
    assert parse_query("規則 901.9").rule_number == "901.9"
    assert parse_query("901.9 planar").rule_number is None


@pytest.mark.parametrize("written", ["702.\u200b30a", "７０２．３０ａ", "٧٠٢.٣٠a", "𝟕𝟎𝟐.𝟑𝟎a", "規則७०२.३०a"])
def test_a_rule_number_in_any_digits_or_with_zero_width_characters_jumps(written):
    assert parse_query(written).rule_number == "702.30a"
    assert (parse_query(written + "～ｃ").rule_number, parse_query(written + "至c").rule_end) == ("702.30a", "702.30c")


def test_the_word_bound_counts_distinct_words_whatever_joins_them_never_function_words():
    """Words joined by `,`, `/` or `、` count as the words they are; a word said again, or a
    function word, counts once or not at all: a long question is read whole."""
    words = [f"w{n}" for n in range(90)]
    for joined in (",".join(words), "/".join(words), "、".join(words)):
        parsed = parse_query(joined)
        assert len(counted_words(parsed.text)) == MAX_QUERY_WORDS
        assert counted_words(" ".join(parsed.left_out)) == set(words[MAX_QUERY_WORDS:])
    told = " ".join(["if my creature blocks the one that is attacking and it is the only one can the"] * 3
                    + [f"w{n}" for n in range(MAX_QUERY_WORDS - 8)])
    assert len(told) <= MAX_QUERY_CHARS and parse_query(told).left_out == []


def test_a_query_searches_at_most_max_query_words_and_says_which_it_left_out(corpus_library):
    """Past MAX_QUERY_WORDS, a phrase too long for what is left and the last words of the free
    text are not searched, and the answer names them: a query of 500 characters of distinct
    words is bounded in work, and a query within the bound is searched whole."""
    words = [f"word{n}" for n in range(MAX_QUERY_WORDS + 6)]
    parsed = parse_query(" ".join(words))
    assert parsed.text == " ".join(words[:MAX_QUERY_WORDS]) and parsed.left_out == words[MAX_QUERY_WORDS:]
    long_phrase = " ".join(words[:MAX_QUERY_WORDS - 1])
    parsed = parse_query(f'"planar die" "{long_phrase}" roll twice')
    assert parsed.phrases == ["planar die"] and parsed.text == "roll twice" and parsed.left_out == [f'"{long_phrase}"']
    answer = corpus_library.search("Murderous Redcap " + " ".join(words), limit=5)
    assert answer["left_out"] == words[MAX_QUERY_WORDS - 2:]
    assert [card["name"] for card in answer["cards"]] == ["奪魂紅帽客 / Murderous Redcap"]
    assert corpus_library.search("Murderous Redcap", limit=5)["left_out"] == []


def test_by_name_prefers_cards_then_planes_then_terms(corpus_library):
    assert corpus_library.by_name("夺魂红帽客").id == "shadowmoor-faq:card:murderous-redcap"
    assert corpus_library.by_name("CHAOTIC AETHER").id == "planechase-guide:planar_card:chaotic-aether"
    assert corpus_library.by_name("persist").id == "glossary:term:persist"
    assert corpus_library.by_name("persist", kinds=("card",)) is None
    assert corpus_library.by_name("no such card") is None


def test_suggestions_in_the_readers_script(corpus_library):
    assert "夺魂红帽客" in [s["text"] for s in corpus_library.suggest("奪魂", script="hans")]
    assert "奪魂紅帽客" in [s["text"] for s in corpus_library.suggest("夺魂", script="hant")]


@pytest.mark.parametrize("typed, names_redcap", [
    ("m", None), ("Murderous Redca", True), ("MURDEROUS REDCAP", True), ("murderous redcaq", False),
    ("奪魂紅", False), ("\uffff", False), ("zzzz", False),
])
def test_suggestions_are_the_names_starting_with_what_was_typed_shortest_first(corpus_library, typed, names_redcap):
    found = corpus_library.suggest(typed, limit=50)
    folded = [fold_key(s["text"]) for s in found]
    assert all(text.startswith(fold_key(typed)) for text in folded)
    assert [len(text) for text in folded] == sorted(len(text) for text in folded)
    if names_redcap is not None:
        assert any(s["text"] == "Murderous Redcap" for s in found) == names_redcap


def test_did_you_mean_keeps_the_writers_capitals(corpus_library):
    assert corpus_library.search("Murderus Redcapp")["did_you_mean"] == "Murderous Redcap"
    assert corpus_library.search("murderus redcapp")["did_you_mean"] == "murderous redcap"


def test_glossary_terms_name_the_edition_of_each_defining_rule(corpus_library):
    term = corpus_library.get("glossary:term:persist")
    assert [(r.number, r.edition) for r in term.references] == [("502.79", "2008-05-01"), ("702.79", "2026-04-17")]


def test_snippet_language_is_the_one_shown(corpus_library):
    results = {r["id"]: r for r in corpus_library.search("乾枯", script="hans")["results"]}
    assert results["shadowmoor-faq:rule:502.80"]["snippet_lang"] == "zh_hans"
    assert first(corpus_library, "зар")["snippet_lang"] == "bg"


@pytest.mark.parametrize("q, record_id", [
    ("一部分隻會在該咒語增幅過後才會生效", "worldwake-faq:rule:702.30g"),
    ("在每位元牌手的抓牌步驟開始時", "shadowmoor-faq:card:spiteful-visions"),
    ("之類的數位記號", "shadowmoor-faq:rule:104.3"),
    ('"下一位元不會離開遊戲的牌手成為時空操控者"', "planechase-guide:rule:901.6"),
])
def test_the_original_wording_of_a_repaired_text_still_finds_it(corpus_library, q, record_id):
    """Texts show 一部分只會, 每位牌手 and 數字記號; the wording of the original, damaged by its
    conversion to Traditional Chinese, is repaired in the query as it was in the text."""
    assert parse_query("每位元玩家 位元組").text == "每位玩家 位元組"
    assert first(corpus_library, q)["id"] == record_id


RAVNICA = {"prahv", "orzhova", "kilnspire-district", "grand-ossuary", "selesnya-loft-gardens"}


@pytest.mark.parametrize("q, first", [
    ("Ravnica", RAVNICA), ("拉尼卡", RAVNICA), ("kind:planar_card Ravnica", RAVNICA), ("ravnica", RAVNICA),
    ("Belenon", {"edge-of-malacol", "windriddle-palaces"}),
])
def test_a_world_finds_its_planes_first(corpus_library, q, first):
    """A plane's world is on its type line only (Plane — Ravnica, 地域 — 拉尼卡), never in its
    text; Grand Ossuary's English line misspells it Revnica."""
    ids = [r["id"].rsplit(":", 1)[1] for r in corpus_library.search(q, limit=len(first))["results"]]
    assert set(ids) == first


def test_a_creature_type_finds_the_cards_of_that_type(corpus_library):
    assert first(corpus_library, "巨海獸")["id"] == "shadowmoor-faq:card:isleback-spawn"
    assert first(corpus_library, "巨海兽 kind:card")["id"] == "shadowmoor-faq:card:isleback-spawn"

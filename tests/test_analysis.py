"""The mixed-script analyzer: tokens, positions and offsets on the real documents."""
from __future__ import annotations

import pickle
import re
import tempfile
from pathlib import Path

import pytest
from whoosh import fields, highlight
from whoosh.filedb.filestore import RamStorage
from whoosh.qparser import QueryParser

from indexer.documents.chinese import to_hans
from indexer.documents.glossary import Glossary
from indexer.search import analysis
from indexer.search.analysis import (
    UserDictionaryError,
    bigram_analyzer,
    load_user_dictionary,
    same_outside_chinese,
    set_user_words,
    text_analyzer,
    user_words,
    write_user_dictionary,
)

ROOT = Path(__file__).parents[1]
CORPUS = ROOT / "corpus"
DOCS = {p.name: p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*.txt"))}
GLOSSARY = Glossary.load(CORPUS / "glossary.tsv")


@pytest.fixture(autouse=True)
def glossary_words():
    """Every test runs with the glossary as user dictionary, as an index build does."""
    set_user_words(GLOSSARY.all_forms())
    yield
    set_user_words(GLOSSARY.all_forms())


ana = text_analyzer()


def texts(s, mode="index", analyzer=ana):
    return [t.text for t in analyzer(s, mode=mode)]


def spans(s, mode="index", analyzer=ana):
    return [(t.text, t.pos, t.startchar, t.endchar) for t in analyzer(s, positions=True, chars=True, mode=mode)]


# the Shadowmoor FAQ's rule 502.80a, and the same sentence in Simplified
WITHER_HANT = "具有乾枯異能的來源對生物所造成的傷害，並不會留在該生物上"
WITHER_HANS = "具有干枯异能的来源对生物所造成的伤害，并不会留在该生物上"
WITHER_TOKENS = ["具有", "干枯", "异能", "的", "来源", "对", "生物所", "生物", "造成", "的", "伤害",
                 "并", "不会", "留在", "该", "生物", "上"]


def test_traditional_and_simplified_give_the_same_simplified_tokens():
    assert WITHER_HANT in DOCS["shadowmoor-faq-zh-hant.txt"]
    assert texts(WITHER_HANT) == WITHER_TOKENS
    assert texts(WITHER_HANS) == WITHER_TOKENS
    assert texts("乾枯") == texts("干枯") == ["干枯"]


def test_query_mode_drops_the_alternatives():
    # 生物 inside 生物所 is a search-mode sub-word: indexed, never part of a query phrase
    assert texts(WITHER_HANT, mode="query") == [t for i, t in enumerate(WITHER_TOKENS) if i != 7]
    assert texts("多重增幅是增幅異能的變化") == ["多重增幅", "多重", "增幅", "是", "增幅", "异能", "的", "变化"]
    assert texts("多重增幅是增幅異能的變化", mode="query") == ["多重增幅", "是", "增幅", "异能", "的", "变化"]


def test_positions_are_word_positions_and_alternatives_share_them():
    assert spans("多重增幅是增幅") == [
        ("多重增幅", 0, 0, 4), ("多重", 0, 0, 2), ("增幅", 0, 2, 4), ("是", 1, 4, 5), ("增幅", 2, 5, 7)]
    assert spans("地落屬於異能提示。") == [
        ("地落", 0, 0, 2), ("属于", 1, 2, 4), ("异能提示", 2, 4, 8), ("异能", 2, 4, 6), ("提示", 2, 6, 8)]


def test_english_is_stemmed_with_snowball():
    assert texts("If a creature you control would untap during your untap step, it tapped") == [
        "if", "a", "creatur", "you", "control", "would", "untap", "dure", "your", "untap", "step", "it", "tap"]
    assert texts("Planeswalking planeswalks EXILED café Two-Headed owner's") == [
        "planeswalk", "planeswalk", "exil", "cafe", "two", "head", "owner"]


def test_latin_lookalikes_inside_english_words_are_folded():
    assert "hАVe" in DOCS["planechase-guide-zh-hant.txt"]  # Cyrillic А inside an English word
    assert texts("hАVe ruLЕS") == ["have", "rule"]


def test_bulgarian_words_are_lower_cased_whole_words():
    sentence = "Те никога не влизат на бойното поле и не са постоянни"
    assert sentence in DOCS["planechase-article-bg.txt"]
    assert texts(sentence) == ["те", "никога", "не", "влизат", "на", "бойното", "поле", "и", "не", "са", "постоянни"]
    assert texts("Най-горната Карта й") == ["най", "горната", "карта", "й"]  # й is not folded to и


@pytest.mark.parametrize("written, expected, query", [
    ("702.30a", [("702.30a", 0, 0, 7), ("702.30", 0, 0, 7)], ["702.30a"]),
    ("702.30a.", [("702.30a", 0, 0, 7), ("702.30", 0, 0, 7)], ["702.30a"]),
    ("901.15c", [("901.15c", 0, 0, 7), ("901.15", 0, 0, 7)], ["901.15c"]),
    ("７０２．３０ａ", [("702.30a", 0, 0, 7), ("702.30", 0, 0, 7)], ["702.30a"]),
    ("702.30", [("702.30", 0, 0, 6)], ["702.30"]),
    ("請參見規則601.2f至h", [("请", 0, 0, 1), ("参见", 1, 1, 3), ("规则", 2, 3, 5), ("601.2f", 3, 5, 11),
                           ("601.2", 3, 5, 11), ("至", 4, 11, 12), ("h", 5, 12, 13)],
     ["请", "参见", "规则", "601.2f", "至", "h"]),
])
def test_rule_numbers_stay_whole_and_bring_their_rule(written, expected, query):
    assert spans(written) == expected
    assert texts(written, mode="query") == query


def test_mixed_rule_number_chinese_and_english():
    assert spans("702.30a 增幅Kicker") == [
        ("702.30a", 0, 0, 7), ("702.30", 0, 0, 7), ("增幅", 1, 8, 10), ("kicker", 2, 10, 16)]
    assert texts("702.30a 增幅Kicker", mode="query") == ["702.30a", "增幅", "kicker"]


def test_one_character_words_are_kept():
    assert texts("它的") == ["它", "的"]
    assert texts("將它放逐。") == ["将", "它", "放逐"]


def test_symbols_counters_and_power_toughness():
    assert spans("{藍/黑}{CHAOS}") == [("{蓝/黑}", 0, 0, 5), ("蓝", 0, 1, 2), ("黑", 0, 3, 4),
                                       ("{chaos}", 1, 5, 12), ("chao", 1, 6, 11)]
    assert texts("{藍/黑}{CHAOS}{PW}", mode="query") == ["{蓝/黑}", "{chaos}", "{pw}"]
    assert texts("{重置}：重置") == ["{重置}", "重置", "重置"]
    assert texts("+1/+1指示物與-1/-1指示物 4/4", mode="query") == ["+1/+1", "指示物", "与", "-1/-1", "指示物", "4/4"]


def test_user_words_stay_whole_and_only_because_of_the_dictionary():
    redcap = "當奪魂紅帽客進場時"
    assert texts(redcap, mode="query") == ["当", "夺魂红帽客", "进场", "时"]
    set_user_words(["多重增幅"])
    assert texts(redcap, mode="query") == ["当", "夺魂", "红帽", "客", "进场", "时"]
    assert texts("特別版時空骰", mode="query") == ["特别版", "时空", "骰"]
    set_user_words(["多重增幅", "时空骰", "奪魂紅帽客"])
    assert user_words() == {"多重增幅", "时空骰", "夺魂红帽客"}
    assert texts(redcap, mode="query") == ["当", "夺魂红帽客", "进场", "时"]
    assert texts("特別版時空骰", mode="query") == ["特别版", "时空骰"]


def test_every_glossary_word_in_the_corpus_is_indexed_whole():
    """Each occurrence of a Chinese glossary form in a document is an indexed token at
    exactly its characters, except where the text really reads otherwise."""
    missed = []
    for text in DOCS.values():
        tokens = {(t.text, t.startchar, t.endchar) for t in ana(text, chars=True)}
        hans = to_hans(text)
        for word in user_words():
            if len(word) == 1:
                continue
            for m in re.finditer(re.escape(word), hans):
                if (word, m.start(), m.end()) not in tokens:
                    missed.append(hans[m.start() - 2:m.end() + 2])
    # 战场上 is 战场 + 上 (battlefield, on) and 单色混血牌 is 单色混血 + 牌; 先手牌手 (the
    # first player) is the one misreading, 先 + 手牌 + 手: see analysis.USER_WORD_FREQ
    assert sorted(missed) == ["先手牌手将其", "单色混血牌与其", "回战场上。它", "在战场上、是", "在战场上；它"]


def test_offsets_point_at_the_original_characters_of_every_document():
    checked = 0
    for name, text in DOCS.items():
        for t in ana(text, chars=True, positions=True):
            original = text[t.startchar:t.endchar]
            if t.kind == "han":  # segmentation depends on context: compare the characters
                assert to_hans(original) == t.text, (name, t.startchar)
            else:  # anything else analyses alone to the same token
                assert t.text in texts(original), (name, t.startchar, original)
            checked += 1
    assert checked == 32_321


def test_positions_are_sequential_over_a_whole_document():
    text = DOCS["worldwake-faq-zh-hant.txt"]
    query = list(ana(text, positions=True, chars=True, mode="query"))
    assert [t.pos for t in query] == list(range(len(query)))
    primary = {t.pos: (t.startchar, t.endchar) for t in query}
    index = list(ana(text, positions=True, chars=True, mode="index"))
    assert len(index) > len(query)
    for t in index:  # every alternative lies inside the primary token of its position
        start, end = primary[t.pos]
        assert start <= t.startchar and t.endchar <= end


def test_bigram_analyzer():
    big = bigram_analyzer()
    assert spans("多重增幅。干", analyzer=big) == [
        ("多重", 0, 0, 2), ("重增", 1, 1, 3), ("增幅", 2, 2, 4), ("干", 3, 5, 6)]
    assert texts("乾枯 tapped 702.30a", analyzer=big) == ["干枯", "tap", "702.30a", "702.30"]
    assert texts("乾枯 tapped 702.30a", mode="query", analyzer=big) == ["干枯", "tap", "702.30a"]


def test_query_texts_are_the_analyzers_query_tokens():
    """`query_texts` works a query's tokens out without running the analyzer's filters: the
    same texts, for every line of the documents, with both analyzers; another analyzer
    runs whole."""
    big = bigram_analyzer()
    lines = [line for doc in DOCS.values() for line in doc.splitlines()]
    lines += ["Tapped PERSISTING Creatures’ 702.30A ７０２．３０ａ {藍/黑}{CHAOS} +1/+1 Éclair", "乾枯 tapped 702.30a"]
    for analyzer in (ana, big):
        for line in lines:
            assert list(analysis.query_texts(analyzer, line)) == texts(line, mode="query", analyzer=analyzer), line
    other = analysis.MixedScriptTokenizer("words") | analysis.EnglishFilter()  # not lower-cased
    for text in ("PERSISTING Creatures", "乾枯 702.30A {CHAOS}"):
        assert list(analysis.query_texts(other, text)) == texts(text, mode="query", analyzer=other)
    assert list(analysis.query_texts(other, "{CHAOS}")) == ["{CHAOS}"] != list(analysis.query_texts(ana, "{CHAOS}"))


def test_words_and_bigrams_agree_on_text_without_chinese():
    """A query's text without Chinese is analysed once for the body and the recall field:
    every line of the documents, its Chinese taken out, gives both analyzers' the same tokens."""
    from indexer.documents.chinese import HAN_RUN
    big = bigram_analyzer()
    assert same_outside_chinese(ana, big) and same_outside_chinese(big, ana) and same_outside_chinese(ana, ana)
    assert not same_outside_chinese(ana, analysis.MixedScriptTokenizer("bigrams") | analysis.EnglishFilter())
    assert not same_outside_chinese(ana, ana | analysis.RuleParentFilter())
    lines = {HAN_RUN.sub(" ", line) for doc in DOCS.values() for line in doc.splitlines()}
    assert len(lines) > 300
    for line in lines:
        for mode in ("query", "index"):
            assert texts(line, mode) == texts(line, mode, analyzer=big), line
    assert texts("多重增幅") != texts("多重增幅", analyzer=big)


def test_analyzers_pickle_without_jieba_or_opencc():
    schema = fields.Schema(body=fields.TEXT(analyzer=text_analyzer(), stored=True),
                           grams=fields.TEXT(analyzer=bigram_analyzer()))
    data = pickle.dumps(schema)
    assert b"jieba" not in data and b"opencc" not in data
    restored = pickle.loads(data)
    assert restored["body"].analyzer == schema["body"].analyzer
    assert restored["grams"].analyzer != restored["body"].analyzer
    assert [t.text for t in restored["body"].analyzer(WITHER_HANT)] == WITHER_TOKENS


def test_user_dictionary_file_round_trip(tmp_path):
    path = tmp_path / "userdict.txt"
    written = write_user_dictionary(path, ["奪魂紅帽客", "時空骰", "persist", "+1/+1指示物", "时空骰"])
    assert written == ["夺魂红帽客", "时空骰"]
    assert path.read_text(encoding="utf-8").splitlines()[1:] == ["夺魂红帽客", "时空骰"]
    set_user_words([])
    assert load_user_dictionary(path) == {"夺魂红帽客", "时空骰"}
    assert texts("當奪魂紅帽客進場時", mode="query") == ["当", "夺魂红帽客", "进场", "时"]


def test_a_bad_user_dictionary_names_file_and_line(tmp_path):
    path = tmp_path / "userdict.txt"
    path.write_text("# words\n多重增幅\n\nmulti kicker\n", encoding="utf-8")
    with pytest.raises(UserDictionaryError, match=re.escape(f"{path}:4: 'multi kicker' is not one word")):
        load_user_dictionary(path)
    with pytest.raises(UserDictionaryError, match="cannot read user dictionary"):
        load_user_dictionary(tmp_path / "missing.txt")


def test_warm_up_loads_jieba_with_the_segmenters_words():
    segmenter = analysis.Segmenter(["奪魂紅帽客"])
    assert segmenter._tokenizer is None  # made on first use
    analysis.warm_up(segmenter)
    assert segmenter._tokenizer is not None and segmenter._tokenizer.FREQ["夺魂红帽客"] > 0



def test_a_tokenizer_for_new_words_is_the_one_a_fresh_process_builds():
    """Switching user words reuses the process's copy of jieba's dictionary; the result must
    be exactly a fresh tokenizer given the same words in sorted order."""
    import jieba
    words = ["奪魂紅帽客", "時空換境", "多重增幅", "坟墓场"]
    analysis.warm_up(analysis.Segmenter(["時空骰"]))
    segmenter = analysis.Segmenter(words)
    copied = segmenter.tokenizer()
    fresh = jieba.Tokenizer()
    fresh.initialize()
    for word in sorted(segmenter.words):
        fresh.add_word(word, max(fresh.suggest_freq(word), analysis.USER_WORD_FREQ))
    assert copied.total == fresh.total and copied.FREQ == fresh.FREQ
    assert "时空骰" not in copied.FREQ  # the previous words are gone
    assert analysis._base[0].get("夺魂红帽客") is None  # the shared copy of jieba's dictionary is untouched


def test_jiebas_dictionary_without_a_readable_cache_is_built_and_cached(tmp_path, monkeypatch):
    """The dictionary is read from jieba's cache file in one piece; with no cache, or a
    damaged one, jieba builds it (and writes the cache), and the words are the same."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    (tmp_path / "jieba.cache").write_bytes(b"not marshal data")
    built = analysis._jieba_dictionary()
    assert (tmp_path / "jieba.cache").stat().st_size > 1_000_000  # jieba wrote a good one
    read = analysis._jieba_dictionary()
    assert read[1] == built[1] and read[0] == built[0] and built[0]["乾坤"] > 0

# --- highlighting marks the original characters ---

WITHER_FAQ = "* 具有乾枯異能的來源則會如常地影響牌手與旅法師。"


@pytest.fixture(scope="module")
def ram_index():
    assert WITHER_FAQ[2:] in DOCS["shadowmoor-faq-zh-hant.txt"]
    schema = fields.Schema(body=fields.TEXT(analyzer=text_analyzer(), stored=True, chars=True))
    ix = RamStorage().create_index(schema)
    with ix.writer() as w:
        w.add_document(body=WITHER_FAQ)
        w.add_document(body="702.30a 增幅Kicker: 增幅屬於靜止式異能")
    return ix


@pytest.mark.parametrize("query, marked", [
    ("干枯", ["乾枯"]), ("乾枯", ["乾枯"]), ("旅法师", ["旅法師"]), ("\"干枯 异能\"", ["乾枯異能"]),
])
def test_highlighting_a_traditional_text_for_either_script(ram_index, query, marked):
    with ram_index.searcher() as s:
        hits = s.search(QueryParser("body", ram_index.schema).parse(query))
        assert len(hits) == 1
        hits.formatter = highlight.HtmlFormatter(tagname="b")
        assert re.findall(r"<b[^>]*>([^<]+)</b>", hits[0].highlights("body")) == marked


def test_highlight_function_on_the_original_offsets():
    text = "702.30a 增幅Kicker: 增幅屬於靜止式異能"
    out = highlight.highlight(text, {"增幅", "kicker"}, text_analyzer(), highlight.WholeFragmenter(),
                              highlight.HtmlFormatter(tagname="b"), mode="query")
    assert re.findall(r"<b[^>]*>([^<]+)</b>", out) == ["增幅", "Kicker", "增幅"]


def test_a_runs_query_words_are_segmented_once_and_remembered():
    segmenter = analysis.Segmenter(["奪魂紅帽客"])
    first = segmenter.segment("当夺魂红帽客进场时", alternatives=False)
    assert [word for word, *_ in first] == ["当", "夺魂红帽客", "进场", "时"]
    assert [(start, end, step) for _, start, end, step, _ in first] == [(0, 1, 0), (1, 6, 1), (6, 8, 1), (8, 9, 1)]
    assert segmenter.segment("当夺魂红帽客进场时", alternatives=False) is first  # remembered
    # Another segmenter (other user words) remembers its own.
    assert [w for w, *_ in analysis.Segmenter().segment("当夺魂红帽客进场时", alternatives=False)] != \
        [w for w, *_ in first]

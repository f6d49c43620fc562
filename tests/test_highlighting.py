"""Snippet marking without running the analyzer: it marks what the analyzer would match, in
the characters the reader sees, and gives escaped HTML with only <mark> elements."""
from __future__ import annotations

import random
import re

import pytest
from whoosh import highlight

from indexer.search import highlighting
from indexer.search.analysis import text_analyzer
from indexer.search.record_lines import RecordLines

WITHER_FAQ = "* 具有乾枯異能的來源則會如常地影響牌手與旅法師。"
MARK = re.compile(r"<mark>(.*?)</mark>")


def marked(words, text):
    return MARK.findall(highlighting.Marker(frozenset(words)).mark(text) or "")


def test_query_words_are_marked_in_either_script_on_the_original_characters():
    assert marked(["增幅", "kicker"], "702.30a 增幅Kicker: 多重增幅屬於靜止式異能") == ["增幅", "Kicker", "增幅"]
    assert marked(["干枯", "旅法师"], WITHER_FAQ) == ["乾枯", "旅法師"]
    assert marked(["702.30"], "See rule 702.30a and 702.3.") == ["702.30a"]
    assert marked(["702.30a"], "See rule ７０２．３０ａ.") == ["７０２．３０ａ"]
    assert marked(["tap"], "Tapped creatures, tapping, untap") == ["Tapped", "tapping"]
    assert marked(["{蓝/黑}"], "Pay {藍/黑} now") == ["{藍/黑}"]
    assert marked(["зар"], "Хвърлете зар, ЗАР и зарът") == ["зар", "ЗАР"]


def test_the_longest_word_wins_and_nothing_found_is_none():
    assert marked(["多重增幅", "增幅"], "多重增幅") == ["多重增幅"]
    assert highlighting.Marker(frozenset({"时空"})).mark("tapped 702.30a") is None
    assert highlighting.Marker(frozenset({"时空"})).mark("") is None


def test_marks_are_escaped_html_and_fragments_keep_latin_words_whole():
    out = highlighting.Marker(frozenset({"kicker"})).mark("<b>kicker</b> & " + "word " * 80 + "kicker <script>")
    assert out.count("<mark>") == 2 and highlighting.BETWEEN in out
    assert "<b" not in out and "<script" not in out and "&lt;script" in out and "&lt;/b&gt;" in out
    for fragment in out.split(highlighting.BETWEEN):
        assert len(MARK.sub(r"\1", fragment)) <= highlighting.MAX_CHARS + 20
        assert re.fullmatch(r"(&lt;|\w|<mark>).*(\w|&gt;|</mark>)", fragment, re.S), fragment


def test_marks_what_the_segmenting_analyzer_highlights():
    text = "* 具有乾枯異能的來源則會如常地影響牌手與旅法師。702.30a Kicker"
    for words in (["干枯", "异能"], ["kicker", "702.30"], ["702.30a", "tap"]):
        segmented = highlight.highlight(text, set(words), text_analyzer(), highlight.WholeFragmenter(),
                                        highlight.HtmlFormatter(tagname="b"), mode="index")
        assert marked(words, text) == re.findall(r"<b[^>]*>([^<]+)</b>", segmented)


@pytest.fixture(scope="module")
def corpus_records(ingested):
    return ingested.records


@pytest.fixture(scope="module")
def corpus_texts(corpus_records):
    return [text for record in corpus_records for text in record.text.values() if text]


def test_the_builds_marking_forms_mark_as_the_texts_themselves(corpus_records, tmp_path):
    """The build's line of marking forms gives each of a record's blocks a form of the same
    length, and words are marked in a block from its form as from the block itself: on 300
    records of every kind and language, with words drawn from each block's own tokens."""
    rng = random.Random(5)
    sample = rng.sample(corpus_records, 300)
    highlighting.write(sample, tmp_path)
    lines = RecordLines(tmp_path / highlighting.FILE, len(sample))
    analyzer = text_analyzer()
    try:
        compared = 0
        for position, record in enumerate(sample):
            forms = highlighting.marking_forms(lines[position])
            assert [len(f) for f in forms] == [len(block) for _, block in record.blocks()], record.id
            for (_, block), form in zip(record.blocks(), forms, strict=True):
                tokens = [t.text for t in analyzer(block[:400], mode="query")]
                marker = highlighting.Marker(frozenset(rng.sample(tokens, min(3, len(tokens)))))
                assert marker.matches(block, form) == marker.matches(block), (record.id, marker.words)
                compared += bool(marker.matches(block))
        assert compared > 200
    finally:
        lines.close()


def test_every_non_chinese_word_the_analyzer_matches_is_marked_in_the_documents(corpus_texts):
    """On 300 texts of the documents, with words drawn from each text's own tokens: every
    English word, number, rule and symbol token of the text whose analyzed form is a query
    word is marked (Chinese is marked by occurrence, which the tests above cover)."""
    analyzer = text_analyzer()
    rng = random.Random(7)
    checked = 0
    for text in rng.sample(corpus_texts, 300):
        text = text[:400]
        tokens = [t for t in analyzer(text, chars=True, mode="query") if t.kind != "han"]
        if not tokens:
            continue
        words = frozenset(rng.sample([t.text for t in tokens], min(3, len(tokens))))
        expected = {(t.startchar, t.endchar) for t in tokens if t.text in words}
        assert expected <= set(highlighting.Marker(words).matches(text)), (text, words)
        checked += 1
    assert checked > 100


def test_the_pattern_for_chinese_and_english_queries_marks_what_reading_word_by_word_marks(corpus_texts):
    """A query of Chinese and English words is found by one pattern and stemming only its
    candidates; a query with a number is read word by word. With words drawn from each text,
    both give the same marks (the number, in no text, only forces the second way)."""
    analyzer = text_analyzer()
    rng = random.Random(11)
    compared = 0
    for text in rng.sample(corpus_texts, 300):
        text = text[:400]
        tokens = [t.text for t in analyzer(text, mode="query") if t.text.isalpha()]
        if not tokens:
            continue
        words = frozenset(rng.sample(tokens, min(3, len(tokens))))
        fast = highlighting.Marker(words).matches(text)
        assert fast == sorted(highlighting.Marker(words | {"987654321"}).matches(text)), (text, words)
        compared += bool(fast)
    assert compared > 100


def test_reading_the_words_around_the_querys_only_marks_what_reading_the_whole_text_marks(corpus_texts):
    """A query with a number, a symbol or a Cyrillic word is read token by token from the
    last space before the first place one of its words may start to the last such place; a
    Latin word beyond ASCII (here one in no text), whose stems may start otherwise, has the
    whole text read. With words of every kind drawn from each text, both give the same marks."""
    analyzer = text_analyzer()
    rng = random.Random(13)
    compared = 0
    for text in rng.sample(corpus_texts, 400):
        text = text[:400]
        tokens = [t.text for t in analyzer(text, mode="query")]
        if not tokens:
            continue
        words = frozenset(rng.sample(tokens, min(3, len(tokens)))) | {"987654321"}
        around = highlighting.Marker(words)
        assert around.matches(text) == highlighting.Marker(words | {"ŋŋŋŋ"}).matches(text), (text, words)
        compared += around.probes is not None and bool(around.matches(text))
    assert compared > 150


def test_every_fragment_is_escaped_also_where_it_repeats_the_one_before():
    """A fragment with nothing to escape is joined with its marks as it is; one whose marks
    start before it (where the fragment before it ended) is escaped from its first mark."""
    assert highlighting.Marker(frozenset({"kicker"})).mark("Kicker costs") == "<mark>Kicker</mark> costs"
    text = ("iven time, the game has one face-up plane whose abilities affect the game or one face-up "
            "phenomenon that's being encountered. If an ability of the plane or phenomenon says 'you' on it, "
            "'you' refers to the player who's taking the current turn. The player who's taking the current "
            "turn is considered to")
    out = highlighting.Marker(frozenset({"player", "turn", "that"})).mark(text)
    assert out.endswith("… <mark>turn</mark>. The <mark>player</mark> who&#x27;s taking the current "
                        "<mark>turn</mark> is considered to")
    assert "'" not in out


def test_a_texts_own_noncharacters_open_no_mark():
    """Marks go into a fragment as two noncharacters while it is escaped; a text holding
    them shows U+FFFD there, and only its words are marked."""
    out = highlighting.Marker(frozenset({"kicker"})).mark("<i>kicker</i> \ufdd0 & \ufdd1 kicked")
    assert out.count("<mark>") == out.count("</mark>") == 1
    assert "\ufdd0" not in out and "\ufdd1" not in out and out.count("\ufffd") == 2 and "&amp;" in out


def test_the_word_character_sets_hold_what_their_patterns_match():
    """Fragment edges and the prefix marker look characters up in sets made from the patterns
    over the ranges the scripts take today; a script range widened past them shows here."""
    for pattern, chars in ((highlighting._WORD_CHAR, highlighting._WORD_CHARS),
                           (highlighting._LATIN_CHAR, highlighting._LATIN_CHARS)):
        assert {chr(c) for c in range(0x10000) if pattern.match(chr(c))} <= chars

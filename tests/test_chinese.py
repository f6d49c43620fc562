"""Script folding: character for character, one Simplified form whatever the context."""
from __future__ import annotations

import collections
import subprocess
import sys
from pathlib import Path

import opencc
import pytest

from indexer.documents import chinese
from indexer.documents.chinese import convert_same_length, to_hans, to_hant

ROOT = Path(__file__).parents[1]
CORPUS = ROOT / "corpus"
DOCS = {p.name: p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*.txt"))}


@pytest.mark.parametrize("name, changed, folded", [
    ("keyword-digest-2009.txt", 328, {}),
    ("planechase-article-bg.txt", 0, {}),
    ("planechase-guide-zh-hant.txt", 2373, {("囘", "回"): 5, ("著", "着"): 1}),
    ("shadowmoor-faq-zh-hant.txt", 8538, {("著", "着"): 11}),
    ("worldwake-faq-zh-hant.txt", 1161, {("著", "着"): 1}),
])
def test_to_hans_keeps_every_offset_and_folds_what_t2s_leaves_apart(name, changed, folded):
    text = DOCS[name]
    hans = to_hans(text)
    assert len(hans) == len(text)
    assert sum(a != b for a, b in zip(text, hans, strict=True)) == changed
    t2s = opencc.OpenCC("t2s.json").convert(text)
    assert collections.Counter((a, b) for a, b in zip(t2s, hans, strict=True) if a != b) == folded
    # converting again changes nothing, so Simplified queries and documents meet the same form
    assert to_hans(hans) == hans
    # and the way back has the same length too
    assert len(to_hant(hans)) == len(text)


def test_forms_of_one_word_fold_together():
    assert to_hans("乾枯") == to_hans("干枯") == "干枯"
    assert to_hans("記著") == "记着"          # t2s alone leaves 記著 as 记著
    assert to_hans("憑藉") == "凭借" and to_hans("藉由") == "借由"
    assert to_hans("繫命") == to_hans("系命") == "系命"
    assert to_hans("鵬洛客 702.79 Persist") == "鹏洛客 702.79 Persist"
    assert to_hans("Persist") == "Persist"


def test_to_hant_shows_simplified_text_in_taiwan_traditional():
    assert to_hant("时空骰") == "時空骰"
    assert to_hant("系命") == "繫命"
    assert to_hant("这里的法术力") == "這裡的法術力"


def test_a_length_changing_conversion_falls_back_to_characters():
    # tw2sp rewrites phrases: 布萊雅各天鵝 (Swans of Bryn Argoll) gains a character there
    word = "布萊雅各天鵝"
    assert len(opencc.OpenCC("tw2sp.json").convert(word)) == 7
    assert convert_same_length(word, "tw2sp.json") == "布莱雅各天鹅"


def test_importing_creates_no_converter_and_warm_up_creates_both():
    code = (
        "import indexer.documents.chinese as c, indexer.search.analysis as a;"
        "assert not c._converters and a._default._tokenizer is None;"
        "c.warm_up(); print(sorted(c._converters))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['s2tw.json', 't2s.json']"
    assert chinese.TO_HANS_CONFIG == "t2s.json" and chinese.TO_HANT_CONFIG == "s2tw.json"


@pytest.mark.parametrize("convert, memo, budget, word, converted", [
    (to_hans, "_short_hans", chinese.SIMPLIFIED_BYTES, "記著乾枯", "记着干枯"),
    (to_hant, "_short_hant", chinese.TRADITIONAL_BYTES, "状态动作", "狀態動作"),
])
def test_short_texts_are_remembered_within_their_budget_and_long_ones_are_not(
        monkeypatch, convert, memo, budget, word, converted):
    """A query's words, and a rule title shown in Traditional for all the editions that have
    it, are converted once however often they are asked for; the memory of them stays within
    its budget, and a record's long text is never kept."""
    calls = collections.Counter()
    real = chinese.convert_same_length

    def counted(text, config):
        calls[text] += 1
        return real(text, config)

    monkeypatch.setattr(chinese, "convert_same_length", counted)
    remembered = getattr(chinese, memo)
    remembered.resize(2000)
    try:
        for _ in range(3):
            assert convert(word) == converted and convert("persist") == "persist"
        assert calls == {word: 1}
        long_text = word[:2] * chinese.SHORT_CHARS
        assert convert(long_text) == convert(long_text) == converted[:2] * chinese.SHORT_CHARS
        assert calls[long_text] == 2
        for n in range(200):  # distinct words: the memory empties and starts again
            assert convert(f"{word[:2]}{n}") == f"{converted[:2]}{n}"
        assert remembered.bytes() <= 2000
    finally:
        remembered.resize(budget)

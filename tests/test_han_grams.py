"""Chinese character bigrams (`indexer.knowledge.han_grams`): how a text is cut into them, BM25
over them, and the lever's ablation on the whole knowledge base: without it, the Chinese
tuning questions (questions_tuning.tsv) score lower. The sealed questions are never scored here."""
from __future__ import annotations

import dataclasses
import statistics

import judged
import questions_split

from indexer.knowledge.han_grams import HanGrams, bigrams
from indexer.knowledge.library import Library


def test_bigrams_are_cut_inside_each_run_of_chinese_only():
    assert bigrams("阻挡生物") == ["阻挡", "挡生", "生物"]
    # A Latin word, a number or punctuation ends a run; a lone character makes no pair.
    assert bigrams("造成3点伤害，X 是") == ["造成", "点伤", "伤害"]
    assert bigrams("trample only") == []


def test_a_rarer_shared_bigram_and_a_shorter_text_score_higher():
    table = HanGrams([(0, "生物阻挡攻击生物"), (1, "生物进场"), (2, "生物死去"), (3, "生物阻挡攻击生物，然后将其置入坟墓场并抓一张牌")])
    scores = table.scores("阻擋的生物", 4)  # Traditional is read in Simplified
    assert scores[0] > scores[1] > 0 and scores[1] == scores[2]
    assert scores[0] > scores[3] > 0  # the same pairs in a longer text count for less
    assert not table.scores("trample", 4).any()


def _chinese_tuning_mrr(library: Library) -> float:
    rr = []
    for language, question, targets in (line.split("\t") for line in
                                        questions_split.TUNING.read_text(encoding="utf-8").splitlines()
                                        if line and not line.startswith("#")):
        if language != "en":
            found = judged.rank(library.search(question, limit=10)["results"], targets.split("|"))
            rr.append(1 / found if found else 0.0)
    return statistics.mean(rr)


def test_without_the_bigrams_the_chinese_tuning_questions_score_lower(kb_library):
    library = Library(kb_library.folder, weights=dataclasses.replace(kb_library.weights, han_grams=0.0))
    try:
        without = _chinese_tuning_mrr(library)
    finally:
        library.close()
    assert without < _chinese_tuning_mrr(kb_library)

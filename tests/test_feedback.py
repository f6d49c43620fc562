"""Pseudo-relevance feedback for a question (`indexer.knowledge.feedback`): which words its best
results give, how the candidates are scored again with them, on a small table of made-up
texts. The lever's ablation on the whole knowledge base (without it the tuning questions score
lower) is in tests/test_question_ranking.py with the other question levers'."""
from __future__ import annotations

import numpy as np
import pytest

from indexer.knowledge.feedback import Feedback, bigrams, text_terms

TEXTS = [
    "An untapped creature may block an attacking creature.",   # 0, result 0
    "The defending player declares untapped blockers.",        # 1, result 1
    "Untapped blockers are declared in the declare blockers step.",  # 2, result 1 (a sibling of 1)
    "A player may tap lands for mana while casting a spell.",  # 3, result 2
    "A tapped creature deals no combat damage.",               # 4, result 3
    "Each untapped blocker blocks one attacker.",              # 5, result 4
    "Trample lets an attacking creature assign excess damage.",  # 6, result 5
]
RESULTS = np.array([0, 1, 1, 2, 3, 4, 5])


def table() -> Feedback:
    return Feedback(((at, text_terms(text, "")) for at, text in enumerate(TEXTS)), RESULTS)


def word(text: str) -> str:
    return text_terms(text, "")[0]


def names(found: Feedback, query: list[tuple[int, float]]) -> list[str]:
    by_number = {n: t for t, n in found._numbers.items()}
    return [by_number[t] for t, _ in query]


def test_bigrams_are_cut_inside_each_run_of_chinese_only():
    assert bigrams("阻挡生物") == ["阻挡", "挡生", "生物"]
    # A Latin word, a number or punctuation ends a run; a lone character makes no pair.
    assert bigrams("造成3点伤害，X 是") == ["造成", "点伤", "伤害"]
    assert bigrams("trample only") == []


def test_english_words_are_stemmed_without_stop_words_and_chinese_is_read_as_bigrams():
    assert text_terms("The tapped creatures", "阻挡生物") == ["tap", "creatur", "阻挡", "挡生", "生物"]


def test_the_feedback_is_the_best_results_words_the_question_does_not_use():
    found = table()
    docs = np.array([0, 1, 3])
    query = found.query("can a tapped creature block", docs, np.array([1.0, 0.8, 0.1]))
    words = names(found, query)
    assert word("untapped") in words
    assert not {word("tapped"), word("creature"), word("block")} & set(words)
    # A word of the best result outweighs a rarer one of a result far below it.
    weight = dict(zip(words, (w for _, w in query), strict=True))
    assert weight[word("attacking")] > weight.get(word("lands"), 0.0)
    assert sum(weight.values()) == pytest.approx(1.0)


def test_a_results_second_record_gives_no_feedback():
    found = table()
    # 2 is a subrule of the same result as 1, ranked second: only 1 (and 0) speak for it.
    query = found.query("can a tapped creature block", np.array([1, 2, 0]), np.array([1.0, 0.95, 0.5]))
    assert word("step") not in names(found, query)


def test_a_candidate_holding_the_feedback_words_rises_over_one_holding_the_question_only():
    found = table()
    docs = np.array([0, 1, 4, 5])
    scores = np.array([1.0, 0.8, 0.6, 0.5])
    again = found.rescored("can a tapped creature block", docs, scores, 0.5)
    # 5 (an untapped blocker) passes 4 (a tapped creature, the question's words only).
    assert again[3] > again[2]
    assert again[3] < scores[3] * 2  # interpolated, not added on top
    assert found.rescored("can a tapped creature block", docs, scores, 0.0).tolist() == (scores / scores.max()).tolist()


def test_no_candidate_of_the_table_leaves_the_scores_as_they_were():
    found = Feedback([], np.zeros(3, np.int64))
    scores = np.array([1.0, 0.5])
    assert found.rescored("anything at all here", np.array([0, 1]), scores, 0.5) is scores

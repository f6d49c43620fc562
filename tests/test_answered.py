"""The answered questions (indexer/knowledge/data/answered.tsv): the tuning parts' questions kept as
more index text of the rules answering them. They hold no question of a sealed or held-out
part; a question worded like one of them finds its rule, which the explanation names; and the
stage helps questions it does not hold (its ablation, one fold of the tuning parts left out)."""
from __future__ import annotations

import dataclasses
import statistics

import judged
import pytest
import questions_split

from benchmarks.answered_folds import folds
from benchmarks.questions import REAL_TUNING, TERSE_TUNING, TUNING, load_questions
from indexer.knowledge.answered import ANSWERED, AnsweredQuestion, answered_questions
from indexer.knowledge.library import Library
from indexer.knowledge.stages import Stages
from indexer.knowledge.weights import Weights
from indexer.search.build import current_folder

NOT_ANSWERED = ("questions_sealed.tsv", "questions_terse_sealed.tsv", "questions_real_sealed.tsv",
             "questions_held_out.tsv", "questions_terse_held_out.tsv", "questions_held_out_2.tsv",
             "questions_held_out_3.tsv", "questions_held_out_4.tsv", "questions_held_out_5.tsv")


def test_answered_questions_are_the_tuning_parts_each_with_its_rules_and_source():
    answered = answered_questions()
    tuning = {q for path in (TUNING, TERSE_TUNING, REAL_TUNING) for _, q, _ in load_questions(path)}
    assert {a.text for a in answered} <= tuning and len(answered) >= 500
    for question in answered:
        assert question.rules and all(r.split("@")[0][0].isdigit() for r in question.rules), question
        assert question.source.startswith(("http://", "https://", "tests/questions")), question
    for name in NOT_ANSWERED:
        held = {q for _, q, _ in load_questions(questions_split.HERE / name)}
        assert not held & {a.text for a in answered}, name


def test_a_rules_targets_are_read_with_their_editions():
    assert questions_split.target_rules("rule:702.19b&edition:2026-04-17|rule=510.1c|text:x|rule:702.19b&edition:"
                                        "2026-04-17") == ["702.19b@2026-04-17", "510.1c"]
    assert questions_split.target_rules("name:Murderous Redcap") == []
    assert ANSWERED.read_text(encoding="utf-8").count("\n") > 500


@pytest.fixture(scope="module")
def one_answered(kb_index):
    """The knowledge base ranked with one question answered before only, answered (for the test's sake)
    by a rule its words do not find, and weighed so that its evidence shows in the first ten."""
    question = AnsweredQuestion(("702.19b",), "en", "can my opponent untap lands during the cleanup step", "tests")
    library = Library(current_folder(kb_index), weights=dataclasses.replace(Weights(), answered=2.0),
                      answered=[question])
    yield library
    library.close()


def test_a_question_worded_like_one_asked_finds_the_rule_that_answered_it(one_answered, kb_library):
    query = "during the cleanup step may an opponent untap his lands"
    plain = [r["rule"] for r in kb_library.search(query, limit=10)["results"]]
    assert "702.19b" not in plain
    found = one_answered.search(query, limit=10, explain=True)["results"]
    answer = next(r for r in found if r.get("rule") == "702.19b")
    assert "answered" in {s["stage"] for s in answer["explain"]["stages"]}
    # An older edition's search does not read the questions today's rules answered.
    old = one_answered.search(query + " edition:2010", limit=10)["results"]
    assert "702.19b" not in [r.get("rule") for r in old]


def test_the_answered_questions_help_the_questions_they_do_not_hold(kb_index):
    """One fold of the tuning parts, ranked with the other folds' answered questions, beside the
    same ranked without the stage: its mean MRR@10 rises."""
    folder = current_folder(kb_index)
    rows = [row for path in (TUNING, TERSE_TUNING, REAL_TUNING) for row in load_questions(path)]
    fold = folds([q for _, q, _ in rows])[0]
    answered = [a for a in answered_questions() if a.text not in fold]

    def mrr(library: Library) -> float:
        return statistics.mean(1 / r if (r := judged.rank(library.search(q, limit=10)["results"], targets)) else 0.0
                               for _, q, targets in rows if q in fold)

    with_it, without = Library(folder, answered=answered), Library(folder, stages=Stages().without("answered"))
    try:
        gained, lost = mrr(with_it), mrr(without)
    finally:
        with_it.close()
        without.close()
    assert gained > lost + 0.02, (gained, lost)

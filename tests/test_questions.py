"""The judged question sets (questions.tsv, sentences; questions_terse.tsv, a few words of the
game's terms; questions_real.tsv, real players' questions with where each was asked) and their
splits: every question is answered by rules that exist in today's edition, the three languages
are about a third each, a terse question is two to five words, and the tuning and sealed files
are the fixed-seed split of each set (questions_split.py), not edited by hand."""
from __future__ import annotations

import re
from collections import Counter

import pytest
import questions_split

from indexer.documents.comprules import read_rules_file
from indexer.documents.ingest import DEFAULT_CORPUS

TODAY = "2026-04-17"
LANGUAGES = ("en", "zh_hant", "zh_hans")
TERSE = tuple(f"terse_{language}" for language in LANGUAGES)
TARGET = re.compile(r"^rule:(\d{3}\.\d+[a-z]?)&edition:" + TODAY + "$")


@pytest.fixture(scope="module")
def todays_rules() -> set[str]:
    parsed = read_rules_file(DEFAULT_CORPUS / "rules" / f"bilingual-{TODAY}-en.txt")
    return {unit.key for unit in parsed.units}


def rows(path=questions_split.SOURCE):
    return [line.split("\t") for line in questions_split.question_lines(path)]


@pytest.mark.parametrize("path", [*questions_split.PARTS, questions_split.HERE / "questions_terse_held_out.tsv",
                                  questions_split.HERE / "questions_held_out.tsv",
                                  questions_split.HERE / "questions_held_out_3.tsv",
                                  questions_split.HERE / "questions_held_out_4.tsv",
                                  questions_split.HERE / "questions_held_out_5.tsv"], ids=lambda p: p.name)
def test_every_target_is_a_rule_of_todays_edition(todays_rules, path):
    missing = []
    for _language, question, targets, *_asked in rows(path):
        for target in targets.split("|"):
            match = TARGET.match(target)
            assert match, f"{question!r}: target {target!r} is not rule:N&edition:{TODAY}"
            if match.group(1) not in todays_rules:
                missing.append((question, match.group(1)))
    assert not missing


def test_three_hundred_questions_about_a_third_in_each_language():
    counts = Counter(language for language, _, _ in rows())
    assert set(counts) == set(LANGUAGES)
    assert sum(counts.values()) >= 300
    assert all(0.25 <= n / sum(counts.values()) <= 0.42 for n in counts.values()), counts
    questions = [question for _, question, _ in rows()]
    assert len(questions) == len(set(questions))


def test_ninety_terse_questions_of_two_to_five_words_a_third_in_each_language():
    counts = Counter(category for category, _, _ in rows(questions_split.TERSE))
    assert set(counts) == set(TERSE)
    assert sum(counts.values()) >= 90
    assert all(0.25 <= n / sum(counts.values()) <= 0.42 for n in counts.values()), counts
    questions = [question for _, question, _ in rows(questions_split.TERSE)]
    assert len(questions) == len(set(questions))
    assert not set(questions) & {question for _, question, _ in rows()}
    assert all(2 <= len(question.split()) <= 5 for question in questions if question.isascii())
    assert all(len(question) >= 4 for question in questions)


def test_three_hundred_real_questions_a_third_chinese_each_with_where_it_was_asked():
    """Real players' questions (questions_real.tsv): as long as people write them, with the
    public address of each."""
    real = rows(questions_split.REAL)
    counts = Counter(language for language, *_ in real)
    assert set(counts) == set(LANGUAGES) and len(real) >= 300
    assert (counts["zh_hant"] + counts["zh_hans"]) / len(real) >= 1 / 3
    assert all(len(row) == 4 and re.match(r"https?://\S+$", row[3]) for row in real)
    questions = [question for _, question, *_ in real]
    assert len(questions) == len(set(questions))
    english = sorted(len(q.split()) for language, q, *_ in real if language == "en")
    assert english[len(english) // 2] >= 20  # real English questions: a median near 28 words
    assert not set(questions) & {question for _, question, _ in rows()}


def test_tuning_and_sealed_files_are_the_fixed_split():
    for path, text in questions_split.rendered().items():
        assert path.read_text(encoding="utf-8") == text, f"{path.name}: run python tests/questions_split.py"


@pytest.mark.parametrize(("path", "categories"), [(questions_split.SOURCE, LANGUAGES), (questions_split.TERSE, TERSE)],
                         ids=lambda p: getattr(p, "name", ""))
def test_split_is_stratified_two_thirds_to_one_third(path, categories):
    tuning, sealed = questions_split.split(questions_split.question_lines(path))
    assert not set(tuning) & set(sealed)
    by_category = Counter(line.split("\t", 1)[0] for line in sealed)
    whole = Counter(category for category, _, _ in rows(path))
    for category in categories:
        assert abs(by_category[category] - whole[category] / 3) <= 1


@pytest.mark.parametrize("path", [questions_split.HERE / "questions_held_out_3.tsv",
                                  questions_split.HERE / "questions_held_out_4.tsv"], ids=lambda p: p.name)
def test_the_third_and_fourth_held_out_sets_have_sentences_and_terse_questions_in_each_language(path):
    """Held-out-3 and held-out-4 are scored one figure per category: each category must be there
    in enough questions for its figure to mean something, and no question may be asked twice."""
    held_out = rows(path)
    counts = Counter(category for category, _, _ in held_out)
    assert set(counts) == set(LANGUAGES) | set(TERSE)
    assert all(counts[language] >= 40 for language in LANGUAGES), counts
    assert all(counts[terse] >= 10 for terse in TERSE), counts
    questions = [question for _, question, _ in held_out]
    assert len(questions) == len(set(questions))
    terse = [question for category, question, _ in held_out if category in TERSE]
    assert all(2 <= len(question.split()) <= 4 for question in terse)

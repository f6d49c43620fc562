"""The judged question set (questions.tsv) and its split: every question is answered by rules
that exist in today's edition, the three languages are about a third each, and the tuning and
sealed files are the fixed-seed split of the set (questions_split.py), not edited by hand."""
from __future__ import annotations

import re
from collections import Counter

import pytest
import questions_split

from indexer.documents.comprules import read_rules_file
from indexer.documents.ingest import DEFAULT_CORPUS

TODAY = "2026-04-17"
LANGUAGES = ("en", "zh_hant", "zh_hans")
TARGET = re.compile(r"^rule:(\d{3}\.\d+[a-z]?)&edition:" + TODAY + "$")


@pytest.fixture(scope="module")
def todays_rules() -> set[str]:
    parsed = read_rules_file(DEFAULT_CORPUS / "rules" / f"bilingual-{TODAY}-en.txt")
    return {unit.key for unit in parsed.units}


def rows():
    return [line.split("\t") for line in questions_split.question_lines()]


def test_every_target_is_a_rule_of_todays_edition(todays_rules):
    missing = []
    for language, question, targets in rows():
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


def test_tuning_and_sealed_files_are_the_fixed_split():
    for path, text in questions_split.rendered().items():
        assert path.read_text(encoding="utf-8") == text, f"{path.name}: run python tests/questions_split.py"


def test_split_is_stratified_two_thirds_to_one_third():
    tuning, sealed = questions_split.split(questions_split.question_lines())
    assert not set(tuning) & set(sealed)
    by_language = Counter(line.split("\t", 1)[0] for line in sealed)
    whole = Counter(language for language, _, _ in rows())
    for language in LANGUAGES:
        assert abs(by_language[language] - whole[language] / 3) <= 1

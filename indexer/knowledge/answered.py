"""Answered: questions people asked, each with the rules that answer it read by hand from today's
rules text (data/answered.tsv, the tuning parts of the judged questions), kept as more index text
of those rules. A player's words for a situation are seldom the rules' words for it; a question
worded like one asked before finds the rule that answered that one (document expansion, as
doc2query expands a passage with the questions it answers).

Each of today's rules that answered an asked question holds the text of all it answered, folded
as a question's concepts are looked for (`fold_key`). A question's concepts are scored in those
texts by BM25 (`statements.bm25`); as a share of the best, weighed by `Weights.answered`, the
score is added to the rule's, and a rule the engine did not find comes in as a candidate.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from indexer.documents.chinese import to_hans
from indexer.documents.obsolete_terms import OBSOLETE_MARK
from indexer.search.folding import fold_key
from indexer.search.record_lines import Joined

from .catalogue import Catalogue
from .questions import DATA, Concept, data_rows
from .statements import bm25

ANSWERED = DATA / "answered.tsv"
# BM25's saturation and length normalisation over a rule's answered questions: a rule that
# answered many questions holds many stories, and a word's count in them says less the more
# of them there are, as in a long document.
K1 = 1.2
B = 0.75


@dataclass(frozen=True)
class AnsweredQuestion:
    """One question answered before: the rules answering it (`702.30a`, or `702.79@2009` for an older
    edition's), its language, its text and where it was asked."""

    rules: tuple[str, ...]
    language: str
    text: str
    source: str


def answered_questions(path: Path = ANSWERED) -> list[AnsweredQuestion]:
    """The answered questions of the data file, in its order."""
    return [AnsweredQuestion(tuple(rules.split()), language, text, source)
            for rules, language, text, source in data_rows(path, 4)]


class GlossaryNames:
    """Today's glossary terms' English and Simplified names, each found in a text to give the
    other: the English as whole words, the Chinese longest first, so that a name inside a
    longer one is not found again (法术力异能 is mana ability, not mana as well)."""

    def __init__(self, catalogue: Catalogue):
        other: dict[str, str] = {}
        for record in catalogue.by_position:
            if record.kind != "term" or not catalogue.of_todays_rules(record):
                continue
            chinese = record.names.get("zh_hans", "").strip()
            for english in OBSOLETE_MARK.sub("", record.names.get("en", "")).split(","):
                if english.strip() and chinese:
                    other.setdefault(english.strip().lower(), chinese)
                    other.setdefault(chinese, english.strip().lower())
        self._other = other
        names = sorted(other, key=lambda n: (-len(n), n))
        english = "|".join(re.escape(n) for n in names if n.isascii())
        chinese = "|".join(re.escape(n) for n in names if not n.isascii())
        self._patterns = [re.compile(pattern) for pattern in
                          ((rf"(?<![a-z0-9])(?:{english})(?![a-z0-9])" if english else ""), chinese) if pattern]

    def translated(self, text: str) -> list[str]:
        """The other language's name of each glossary term the text names, once each."""
        simplified = to_hans(text).lower()
        found = [name for pattern in self._patterns for name in pattern.findall(simplified)]
        return list(dict.fromkeys(self._other[name] for name in found))


class Answered:
    """Today's rules that answered questions before, by catalogue position, each with those
    questions (folded, one a line); and a question's BM25 in each."""

    def __init__(self, catalogue: Catalogue, questions: Iterable[AnsweredQuestion],
                 read: Callable[[str], tuple[Concept, ...]]):
        today = catalogue.current_edition
        self._terms = GlossaryNames(catalogue)
        folded: dict[str, int] = {}
        answered: dict[int, dict[int, None]] = {}  # each rule's questions, once each, in order
        for question in questions:
            records = [catalogue.official(number, today) for number, _, edition in
                       (target.partition("@") for target in question.rules)
                       if today is not None and (not edition or today.startswith(edition))]  # today's rules only
            positions = [catalogue.positions[r.id] for r in records if r is not None]
            if positions:
                at = folded.setdefault(self._as_read(question.text, read), len(folded))
                for position in positions:
                    answered.setdefault(position, {})[at] = None
        # The folded questions once each, and each rule's as their numbers (the offline copy
        # ships them so).
        self.questions = list(folded)
        self.positions = np.fromiter(answered, np.int64, len(answered))
        self.questions_of = [list(numbers) for numbers in answered.values()]
        encoded = [q.encode() for q in self.questions]
        # The questions as one text, a line each, and where each starts: a piece is looked for
        # once in all of them (a line break is in no piece, so no match spans two), and a
        # rule's count is the sum of its questions' (`_of_rule`, rules by questions).
        self._joined = Joined(encoded, b"\n")
        self._of_rule = np.zeros((len(self.questions_of), len(encoded)))
        for row, numbers in enumerate(self.questions_of):
            self._of_rule[row, numbers] = 1.0
        # A rule's length is its questions' folded bytes: a Chinese question has no spaces to
        # count words by.
        self.lengths = self._of_rule @ np.array([len(q) for q in encoded], np.float64)

    def _as_read(self, text: str, read: Callable[[str], tuple[Concept, ...]]) -> str:
        """A question folded, with every form of each concept it is read as (`QuestionReader.read`):
        what its question forms ask (how many: number) and the wordings of its players' words in
        every script (下地: play land, 使用地); and the other language's name of each of today's
        glossary terms it names (地: land; turn: 回合), so that a question asked in the other
        language or other words finds it."""
        forms = " ".join(b"".join(pieces).decode() for concept in read(text) for pieces in concept.forms)
        return fold_key(f"{text} {forms} {' '.join(self._terms.translated(text))}")

    def scores(self, concepts: tuple[Concept, ...]) -> np.ndarray:
        """Each rule's BM25 over the questions it answered (in the order of `positions`)."""
        if not len(self.positions):
            return np.zeros(0)
        return bm25(concepts, self._counts, self.lengths / self.lengths.mean(), K1, B)

    def _counts(self, piece: bytes) -> np.ndarray:
        """How many times the piece is in each rule's questions (not overlapping, as `bytes.count`)."""
        return self._of_rule @ self._joined.counts(piece)

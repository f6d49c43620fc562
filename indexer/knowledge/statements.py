"""Statements: how well each of today's rules' own English statement holds an English question's
words, by BM25 over the statement alone.

The engine's score of a record is BM25F over all it holds: its heading at three times its text,
its examples, both languages, its character pairs, with the length normalisation and saturation
of the whole knowledge base. For a question, most of the candidates near the top hold the same
share of its concepts (`QuestionRanker.coverage`: 305.1 and 305.4 for playing a land in the
opponent's turn, 613.1 to 613.4 for the layers), and what parted them was that score of
everything else a record holds: an example's card names and scenario words, a heading repeated
in every subrule. Here a candidate's own statement (the rule's English text, without its
examples, heading or translation) is scored again over the question's concepts: each concept's
weight (its rarity, `Concept.weight`) times its count in the statement, saturated (`K1`) and
lightly normalised by the statement's length against today's rules' mean (`B`). A concept's
count is that of its best form, a form's that of its rarest piece, found as the question's
share finds them (the written start of a stem inside the folded text).

Chinese questions are not read by it: measured on the rules' Simplified statements the same way,
every Chinese tuning figure fell (docs/decisions/0050-english-statements.md), as a Chinese concept is a word as written
and a colloquial question's words are seldom the translation's.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from indexer.search.folding import fold_key
from indexer.search.record_lines import Joined

from .catalogue import Catalogue
from .questions import Concept

# BM25's saturation and length normalisation for a statement (chosen on the tuning questions
# alone, docs/decisions/0050-english-statements.md): a subrule's length says more about how much detail its subject
# has than about whether it is the subject, so the length counts for less than Whoosh's 0.75.
K1 = 1.2
B = 0.3


class Statements:
    """Today's rules' English statements, folded, and their lengths in words, by catalogue
    position; and a question's BM25 over those of its candidates."""

    def __init__(self, catalogue: Catalogue):
        self._texts: dict[int, bytes] = {}
        lengths: dict[int, int] = {}
        for at, record in enumerate(catalogue.by_position):
            text = record.text.get("en") if record.kind == "rule" else None
            if text and catalogue.of_todays_rules(record):
                self._texts[at] = fold_key(text).encode()
                lengths[at] = len(text.split())
        self._length = np.zeros(len(catalogue.by_position))
        self._length[list(lengths)] = list(lengths.values())
        # Today's rules' mean statement length in words (the offline copy ships it).
        self.mean_length = float(np.mean(list(lengths.values()))) if lengths else 1.0

    def scores(self, concepts: tuple[Concept, ...], positions: np.ndarray) -> np.ndarray:
        """Each candidate's BM25 over its statement (0 for one that is not one of today's
        rules)."""
        joined = Joined([self._texts.get(at, b"") for at in positions.tolist()], b"\0")
        return bm25(concepts, joined.counts, self._length[positions] / self.mean_length, K1, B)


def bm25(concepts: tuple[Concept, ...], count_in: Callable[[bytes], np.ndarray], relative_lengths: np.ndarray,
         k1: float, b: float) -> np.ndarray:
    """Each text's BM25 over a question's concepts, the texts being what `count_in` counts a
    piece in (an array of its count in each): a concept's weight (its rarity) times its count,
    saturated by `k1` and normalised by the text's length against the mean (`relative_lengths`)
    by `b`. A concept's count is that of its best form, a form's that of its rarest piece; each
    piece is counted once."""
    counted: dict[bytes, np.ndarray] = {}

    def counts(piece: bytes) -> np.ndarray:
        found = counted.get(piece)
        if found is None:
            found = counted[piece] = count_in(piece)
        return found

    norm = k1 * (1 - b + b * relative_lengths)
    total = np.zeros(len(relative_lengths))
    for concept in concepts:
        count = np.max([np.min([counts(piece) for piece in pieces], axis=0) for pieces in concept.forms], axis=0)
        total += concept.weight * count * (k1 + 1) / (count + norm)
    return total

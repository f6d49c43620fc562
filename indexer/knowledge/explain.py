"""Why a result ranks where it does: what each ranking stage added to its score.

As Lucene's and Elasticsearch's explain: asked for, the ranking records the candidates' scores
after each stage (`stages.STAGES`) and a result's explanation is the change each stage made to
its own, in order, summing to its final score. Recording copies arrays a query's ranking makes
anyway; a query not explained records nothing and ranks the same.
"""
from __future__ import annotations

import numpy as np

# Decimals an explanation's scores are given to: the ranking's ties are exact, the reader's need not be.
DECIMALS = 4


class Trace:
    """The candidates' scores after each stage of one query's ranking, and the stages that
    place records without a score (a rule number's rules, rules named among words)."""

    def __init__(self) -> None:
        self._steps: list[tuple[str, np.ndarray, np.ndarray]] = []
        self._placed: dict[int, str] = {}

    def record(self, stage: str, docs: np.ndarray, scores: np.ndarray) -> None:
        """The scores of the candidates `docs` (catalogue positions) after `stage`."""
        self._steps.append((stage, docs.copy(), np.asarray(scores, np.float64).copy()))

    def place(self, stage: str, positions: np.ndarray) -> None:
        """Records `stage` put where they are by what the query names, not by a score."""
        for at in positions.tolist():
            self._placed.setdefault(at, stage)

    def explain(self, position: int) -> dict:
        """The record's final score and what each stage that changed it added (a stage that
        brought it in adds its whole score then), or the stage that placed it."""
        if position in self._placed:
            return {"score": None, "stages": [{"stage": self._placed[position], "score": None}]}
        stages: list[dict] = []
        before = 0.0
        for stage, docs, scores in self._steps:
            held = np.flatnonzero(docs == position)
            if not len(held):
                continue
            now = float(scores[held[0]])
            if now != before:
                stages.append({"stage": stage, "score": round(now - before, DECIMALS)})
                before = now
        return {"score": round(before, DECIMALS), "stages": stages}

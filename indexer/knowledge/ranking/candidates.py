"""The candidates: the engine's BM25F score weighed by each record's kind, the texts of a
several-word term's other forms, today's rules brought in by their older editions' matches,
and a quoted phrase's check (stages candidates, term_texts, todays_twins, phrases)."""
from __future__ import annotations

import numpy as np

from indexer.search.engine import EngineQuery, SearchBackend
from indexer.search.folding import fold_key

from ..catalogue import Catalogue
from ..explain import Trace
from ..stages import Stages
from ..weights import Weights
from .scoring import passes, record


class Candidates:
    def __init__(self, engine: SearchBackend, catalogue: Catalogue, weights: Weights, stages: Stages,
                 kind_weight: np.ndarray):
        self.engine, self.catalogue = engine, catalogue
        self.weights, self.stages = weights, stages
        self._kind_weight = kind_weight

    def found(self, engine_query: EngineQuery, forms: list[str], limit: int,
                    trace: Trace | None) -> tuple[np.ndarray, np.ndarray]:
        """The engine's best `limit` records, each score weighted by the record's kind, with
        the texts of a several-word term's other forms (`_add_term_texts`), scaled so that
        the best is 1: the bonuses are fractions of that."""
        if not self.stages.on("candidates"):
            return np.zeros(0, np.int64), np.zeros(0)
        docs, scores = self.engine.positions(engine_query, limit)
        scores = scores * self._kind_weight[docs]
        if trace is not None and len(scores):  # (term texts come in level with the best: the same scale)
            trace.record("candidates", docs, scores / (scores.max() or 1.0))
        if forms:
            docs, scores = self._add_term_texts(docs, scores, forms, engine_query.filters, limit)
        if len(scores):
            scores = scores / (scores.max() or 1.0)
        if forms:
            record(trace, "term_texts", docs, scores)
        return docs, scores

    def with_todays_twins(self, docs: np.ndarray, scores: np.ndarray,
                           filters: dict[str, str]) -> tuple[np.ndarray, np.ndarray]:
        """Older editions repeat today's texts and can crowd today's record out of the
        candidates: an older edition's match brings in today's same rule, at the older one's
        lowered score, so that the result shows today's (for quoted words, where today's text
        still holds them). A twin two candidates share comes with the better one's."""
        catalogue = self.catalogue
        twins = catalogue.placement.twin_at[docs]
        candidate = np.zeros(len(catalogue.by_position) + 1, bool)  # the last: no twin (-1)
        candidate[docs] = candidate[-1] = True
        missing = np.flatnonzero(~candidate[twins])
        if not len(missing):  # (every twin a candidate already: the documents alone have none)
            return docs, scores
        first: dict[int, int] = {}  # each twin once, with the first candidate of it
        for at, twin in zip(missing.tolist(), twins[missing].tolist(), strict=True):
            first.setdefault(twin, at)
        brought = np.fromiter(first.values(), np.int64, len(first))
        if filters:
            brought = np.array([i for i in brought.tolist()
                                if passes(catalogue.by_position[twins[i]], filters)], np.int64)
        brought_scores = scores[brought] * self.weights.superseded
        return np.concatenate([docs, twins[brought]]), np.concatenate([scores, brought_scores])

    def holding_phrases(self, docs: np.ndarray, scores: np.ndarray,
                         phrases: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """The ranked records whose texts hold every phrase. Phrases match in the folded text:
        script, case, width, spacing and punctuation do not matter (a phrase that crossed a
        line wrap in the source still matches)."""
        kept = docs.tolist()
        for phrase in phrases:
            kept = self.catalogue.holding(kept, fold_key(phrase).encode())
        keep = np.zeros(len(self.catalogue.by_position), bool)
        keep[kept] = True
        return docs[keep[docs]], scores[keep[docs]]

    def _add_term_texts(self, docs: np.ndarray, scores: np.ndarray, forms: list[str],
                        filters: dict[str, str], limit: int) -> tuple[np.ndarray, np.ndarray]:
        """Candidates for a query that is a term of several words (`mana burn`): the texts
        holding its other forms (法術力灼傷), from their own search, the best of them level
        with the best candidate. Among the query's words' many matches (every text about mana)
        they would not make the candidates, yet they are what the term finds in Chinese."""
        found, found_scores = self.engine.positions(EngineQuery(terms=[(f, 1.0) for f in forms], filters=filters),
                                                    limit)
        found_scores = found_scores * self._kind_weight[found]
        top = scores.max() if len(scores) else 1.0
        best = (found_scores.max() if len(found_scores) else 1.0) or 1.0
        scored = dict(zip(docs.tolist(), scores.tolist(), strict=True))
        for at, score in zip(found.tolist(), (top * found_scores / best).tolist(), strict=True):
            scored[at] = max(scored.get(at, 0.0), score)
        return np.fromiter(scored, np.int64, len(scored)), np.fromiter(scored.values(), np.float64, len(scored))

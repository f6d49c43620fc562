"""What every ranking stage reads and writes: candidates as catalogue positions with scores,
the query's filters, a stage's scores recorded for `explain`, and scores as shares."""
from __future__ import annotations

import numpy as np

from indexer.documents.records import Record

from ..explain import Trace

# Ranked records: their positions in the catalogue, best first.
Ranked = np.ndarray


def passes(record: Record, filters: dict[str, str]) -> bool:
    """Whether a record meets every filter of the query (`kind:`, `source:`, `edition:`, `lang:`;
    an edition as `Catalogue.edition_filter` resolved it: `edition:2008` is 2008-05-01)."""
    for name, value in filters.items():
        if name == "lang":
            if value not in record.languages():
                return False
        elif str(getattr(record, name) or "").lower() != value:
            return False
    return True


def record(trace: Trace | None, stage: str, docs: np.ndarray, scores: np.ndarray) -> None:
    """The candidates' scores after `stage`, when the query is explained."""
    if trace is not None:
        trace.record(stage, docs, scores)


def with_added(docs: np.ndarray, scores: np.ndarray, positions: np.ndarray, added: np.ndarray,
               size: int) -> tuple[np.ndarray, np.ndarray]:
    """The candidates with `added` added to the scores at `positions`, those not among them
    brought in (in position order, as `np.flatnonzero` gives them); `size` is the catalogue's."""
    total = np.zeros(size)
    member = np.zeros(size, bool)
    total[docs], member[docs] = scores, True
    np.add.at(total, positions, added)
    member[positions] = True
    docs = np.flatnonzero(member)
    return docs, total[docs]


def share_of_best(values: np.ndarray) -> np.ndarray:
    """Each value as a share of the largest (negative ones as 0; all 0 when none is above 0)."""
    values = np.maximum(values, 0.0)
    top = values.max() if len(values) else 0.0
    return values / top if top > 0 else values


def from_least_to_best(values: np.ndarray) -> np.ndarray:
    """Each value placed between the least and the largest of those above 0 (0 and 1; 0 for
    a value of 0). Word-by-word nearness crowds together, every rule sharing the question's
    common words, so as a share of the best it barely parts the candidates."""
    held = values > 0
    if not held.any():
        return np.zeros_like(values)
    least, top = values[held].min(), values[held].max()
    return np.where(held, values - least, 0.0) / (top - least or 1.0)

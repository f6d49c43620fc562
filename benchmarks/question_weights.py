"""The question levers' weights learned on the tuning parts of the judged questions
(tests/questions_tuning.tsv, tests/questions_terse_tuning.tsv) by coordinate ascent: each
weight in turn is tried at 0, half, three quarters, one and a half and twice its value, and a
value is taken when it raises the mean of the six categories' MRR@10 (each language's
sentences and terse questions) by more than `MIN_GAIN`. The sealed part is never read:
`python -m benchmarks.questions INDEX_ROOT --weight NAME=VALUE ...` scores the outcome on it,
once, before the values become `Weights`' defaults.

    python -m benchmarks.question_weights INDEX_ROOT [--rounds N]

Only the weights read when a query is taken for a question are tried, so the ranking of
look-ups (a keyword, a name, a rule number) stays as it is.
"""
from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
from pathlib import Path

from indexer.knowledge.library import Library
from indexer.knowledge.weights import Weights

from .measure import build_folder
from .questions import TERSE_TUNING, TUNING, evaluate, scorer

LEVERS = ("share", "question_heading", "todays_share", "glossary_map", "todays_candidates", "meanings", "siblings")
STEPS = (0.0, 0.5, 0.75, 1.5, 2.0)
# Less than this is one question of the tuning part's 71 to 86 a language moving one place.
MIN_GAIN = 0.002


def tuning_mrr(folder: Path, weights: Weights, score) -> float:
    library = Library(folder, weights=weights)
    try:
        figures = [*evaluate(library, TUNING, score).values(), *evaluate(library, TERSE_TUNING, score).values()]
        return statistics.mean(m for m, _, _ in figures)
    finally:
        library.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_root", type=Path)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args(argv)
    folder = build_folder(args.index_root)
    score = scorer()
    weights = Weights()
    best = tuning_mrr(folder, weights, score)
    print(f"start {best:.4f}", flush=True)
    for _ in range(args.rounds):
        for name in LEVERS:
            value = getattr(weights, name)
            for step in STEPS:
                tried = type(value)(value * step)
                if tried == getattr(weights, name):
                    continue
                candidate = dataclasses.replace(weights, **{name: tried})
                mrr = tuning_mrr(folder, candidate, score)
                if mrr > best + MIN_GAIN:
                    best, weights = mrr, candidate
                    print(f"  {name}={tried} {mrr:.4f}", flush=True)
    print(" ".join(f"--weight {name}={getattr(weights, name)}" for name in LEVERS), f"(tuning {best:.4f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

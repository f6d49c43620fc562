"""What the answered questions (indexer/knowledge/data/answered.tsv: the tuning parts' questions as
more index text of the rules answering them) are worth on questions they do not hold: the tuning
parts in `FOLDS` folds, drawn with a fixed seed, each scored by a ranking that reads the answered
questions of the other folds only, for each weight of `Weights.answered` given. A tuning question
scored with its own text among the answered ones finds itself; this is the figure the weight is
chosen by. The sealed parts are scored by `benchmarks.questions`, which reads every answered question.

    python -m benchmarks.answered_folds INDEX_ROOT [--weights 0,0.5,1] [--weight NAME=VALUE ...]
"""
from __future__ import annotations

import argparse
import dataclasses
import random
import sys
from pathlib import Path

from indexer.knowledge.answered import AnsweredQuestion, answered_questions
from indexer.knowledge.library import Library
from indexer.knowledge.weights import Weights

from .measure import build_folder
from .questions import REAL_TUNING, TERSE_TUNING, TUNING, changed_weights, figures, load_questions, scorer

FOLDS = 5
SEED = 20261206
PARTS = (("tuning", TUNING), ("terse tuning", TERSE_TUNING), ("real tuning", REAL_TUNING))


def folds(texts: list[str], count: int = FOLDS, seed: int = SEED) -> list[set[str]]:
    """The questions dealt into `count` folds in an order drawn with `seed`."""
    order = sorted(set(texts))
    random.Random(seed).shuffle(order)
    return [set(order[k::count]) for k in range(count)]


def fold_figures(folder: Path, weight: float, answered: list[AnsweredQuestion], score,
                 weights: Weights | None = None) -> dict[str, dict]:
    """Per part, (MRR@10, hit@5, n) per category of the tuning questions (`questions.figures`),
    each fold's ranked with the other folds' answered questions only, by `weights` (the
    defaults) with `answered` at `weight`."""
    queries = [q for _, path in PARTS for _, q, _ in load_questions(path)]
    results: dict[str, list[dict]] = {}
    for fold in folds(queries):
        library = Library(folder, weights=dataclasses.replace(weights or Weights(), answered=weight),
                          answered=[a for a in answered if a.text not in fold])
        try:
            results.update((q, library.search(q, 10)["results"]) for q in fold)
        finally:
            library.close()
    return {name: figures(path, score, lambda part: [results[q] for q in part]) for name, path in PARTS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_root", type=Path)
    parser.add_argument("--weights", default="0,0.5", help="comma-separated values of Weights.answered")
    parser.add_argument("--weight", action="append", default=[], metavar="NAME=VALUE",
                        help="another weight changed, as benchmarks.questions takes it")
    args = parser.parse_args(argv)
    folder, score, answered = build_folder(args.index_root), scorer(), answered_questions()
    others = changed_weights(args.weight)
    for weight in (float(w) for w in args.weights.split(",")):
        for name, per_category in fold_figures(folder, weight, answered, score, others).items():
            print(f"answered={weight:<5} {name:12}" + "".join(
                f"  {c} {m:.3f}/{h:.3f} (n={n})" for c, (m, h, n) in per_category.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What a ranking lever costs: two libraries of one build in one process, one with the weights
as they are and one with `--weight NAME=VALUE` or stages switched off (`--off STAGE`), each asked every judged question
(tests/questions*.tsv) and 1,500 generated queries (benchmarks.cold_queries) once, in turns
(which library goes first alternates, as the process's shared caches favour the second), after
`gc.freeze` as the service does; prints the CPU time of opening each library and the p50 / p90
/ p99 of a first-asked query's CPU time, per library.

    python -m benchmarks.lever_cost INDEX_ROOT --off meanings
"""
from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

from indexer.knowledge.library import Library
from indexer.knowledge.stages import Stages
from indexer.knowledge.weights import Weights

from .cold_queries import generate
from .measure import ROOT, build_folder, judged_queries, percentile
from .questions import changed_weights

QUESTION_FILES = sorted((ROOT / "tests").glob("questions*.tsv"))
GENERATED = 1500


def _percentiles(values: list[float]) -> str:
    return "  ".join(f"p{p} {percentile(values, p) * 1000:.2f}" for p in (50, 90, 99)) + " ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_root", type=Path)
    parser.add_argument("--weight", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--off", action="append", default=[], metavar="STAGE")
    args = parser.parse_args(argv)
    folder = build_folder(args.index_root)
    libraries = {}
    for name, weights, stages in (("as set", Weights(), Stages()),
                                  ("changed", changed_weights(args.weight), Stages(frozenset(args.off)))):
        started = time.process_time()
        libraries[name] = Library(folder, weights=weights, stages=stages)
        print(f"{name:8} opened in {time.process_time() - started:.2f} s of CPU")
    queries = {"questions": list(dict.fromkeys(judged_queries(*QUESTION_FILES))),
               "generated": [q for _, q in generate(libraries["as set"].catalogue.by_position, GENERATED)]}
    for library in libraries.values():  # each library's first query's loading aside
        library.search("warm up", 10)
    gc.freeze()
    order = list(libraries)
    for kind, texts in queries.items():
        spent: dict[str, list[float]] = {name: [] for name in libraries}
        for n, text in enumerate(texts):
            for name in order if n % 2 else reversed(order):
                started = time.process_time()
                libraries[name].search(text, 10)
                spent[name].append(time.process_time() - started)
        for name, values in spent.items():
            print(f"{name:8} {kind:10} ({len(values)}): {_percentiles(values)}")
    for library in libraries.values():
        library.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where the garbage collector's time falls: inside first-asked queries, or between them as a
worker collects the older generations (webapp/collection.py).

    python -m benchmarks.gc_pauses INDEX_ROOT [--queries N] [--rounds R]

Each of two processes opens the build's library, asks one query, keeps the library from the
collector (`gc.freeze`, as LiveLibrary does) and asks N generated queries (benchmarks.cold_queries)
R times over, each time with a round's own word added so that every query is asked first: one
process with Python's collector as it is, one as a worker sets it (the older two generations
collected by `between_requests` after each query). Printed per process: the queries' CPU time
(p50, p99, max), and per generation how many collections there were, their CPU time in all and
the longest, inside a query and between queries.
"""
from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import time
from pathlib import Path

from indexer.knowledge.library import Library

from .cold_queries import generate
from .measure import build_folder, percentile, table

MODES = ("python", "worker")


def run(index_root: Path, mode: str, count: int, rounds: int) -> dict:
    """One process's figures (see the module's docstring)."""
    from webapp import collection

    library = Library(build_folder(index_root))
    library.search("persist", 10)
    gc.collect()
    gc.freeze()
    if mode == "worker":
        collection.collect_older_between_requests()
    queries = [q for _, q in generate(library.catalogue.by_position, count)]
    pauses: dict[str, list[list[float]]] = {"inside": [[], [], []], "between": [[], [], []]}
    where, started_at = ["between"], [0.0]  # where a collection falls, and when it began

    def timed(phase: str, info: dict) -> None:
        if phase == "start":
            started_at[0] = time.thread_time()
        else:
            pauses[where[0]][info["generation"]].append(time.thread_time() - started_at[0])

    spent: list[float] = []
    gc.callbacks.append(timed)
    try:
        for n in range(rounds):
            for query in queries:
                where[0] = "inside"
                started = time.thread_time()
                library.search(f"{query} r{n}" if n else query, 10)
                spent.append(time.thread_time() - started)
                where[0] = "between"
                if mode == "worker":
                    collection.between_requests()
    finally:
        gc.callbacks.remove(timed)
        library.close()
    return {"spent": spent, "pauses": pauses}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_root", type=Path)
    parser.add_argument("--queries", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--mode", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.mode:
        print(json.dumps(run(args.index_root, args.mode, args.queries, args.rounds)))
        return 0
    rows = []
    for mode in MODES:
        answer = subprocess.run([sys.executable, "-m", "benchmarks.gc_pauses", str(args.index_root),
                                 "--queries", str(args.queries), "--rounds", str(args.rounds), "--mode", mode],
                                capture_output=True, text=True, check=True)
        figures = json.loads(answer.stdout)
        spent = figures["spent"]
        queries = ("  ".join(f"p{p} {percentile(spent, p) * 1000:.2f}" for p in (50, 99))
                   + f"  max {max(spent) * 1000:.1f}")
        for where in ("inside", "between"):
            for generation, times in enumerate(figures["pauses"][where]):
                rows.append([mode, queries if where == "inside" and generation == 0 else "", where, generation,
                             len(times), f"{sum(times) * 1000:.0f}", f"{max(times, default=0) * 1000:.1f}"])
    print(f"{args.queries} generated queries, {args.rounds} rounds, each query asked first")
    print(table(["collector", "queries' CPU ms", "collections", "generation", "count", "total ms", "longest ms"],
                rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())

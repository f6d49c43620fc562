"""Before and after a change: first-asked query time of two versions of the code, side by side.

`python -m benchmarks.code_ab REV [--queries N] [--rules]` builds one index (of corpus/, and
with --rules every rules edition of ../shared/cr) with the working tree's code, then starts two
processes over it: the library of git revision REV (exported to a temporary folder) and the
library of the working tree. Each asks every generated query once (benchmarks.cold_queries),
in chunks of 100 handed to the two in turn, the order alternating, so that both see the same
machine. Printed: p50, p90, p99 and the largest time of each, and their ratios, in elapsed
time and in the CPU time of the asking thread (which a busy machine's waits do not inflate:
the steadier figure when other work shares the cores), and the median and mean of the
queries' paired differences in CPU time.

REV must read the same index format as the working tree (the pipeline's package layout).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from indexer.documents.ingest import DEFAULT_CORPUS

from .cold_queries import generate
from .corpora import build_records, ingest_paths
from .measure import ROOT, SHARED_CR, WARM_UP_QUERY, build_folder, percentile, table

CHUNK = 100
# Runs inside each version's tree: answers lines of JSON query lists with lists of
# [elapsed, CPU] seconds. The opened library is kept from the garbage collector as the service
# keeps it (`LiveLibrary`), or one full collection's walk of it (170 ms) is some query's time.
WORKER = """
import gc, json, sys, time
from pathlib import Path
from indexer.knowledge.library import Library
library = Library(Path(sys.argv[1]))
library.search(sys.argv[2])
gc.freeze()  # as the service keeps an opened library: no full collection walks it
for line in sys.stdin:
    times = []
    for query in json.loads(line):
        started, cpu = time.perf_counter(), time.thread_time()
        library.search(query)
        times.append([time.perf_counter() - started, time.thread_time() - cpu])
    print(json.dumps(times), flush=True)
"""


def export(rev: str, tree: Path) -> Path:
    """The files of git revision `rev` in `tree` (a new folder)."""
    tree.mkdir()
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


class Worker:
    """A Python process running `script` with the code of `tree` (its arguments: `index`, a build
    or an INDEX_ROOT as the script reads it, and the warm-up query), asked one line of JSON at a
    time and answering each with one line of JSON."""

    def __init__(self, script: str, tree: Path, index: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        self.process = subprocess.Popen([sys.executable, "-c", script, str(index), WARM_UP_QUERY], cwd=tree,
                                        env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.process.stdin and self.process.stdout  # both are pipes (PIPE above)
        self._input, self._output = self.process.stdin, self.process.stdout

    def ask(self, value: object) -> Any:
        self._input.write(json.dumps(value, ensure_ascii=False) + "\n")
        self._input.flush()
        return json.loads(self._output.readline())

    def close(self) -> None:
        self._input.close()
        self.process.wait(timeout=60)


def compare(rev: str, count: int, rules: bool) -> str:
    paths = [DEFAULT_CORPUS, *([SHARED_CR] if rules else [])]
    result, _ = ingest_paths(paths)
    queries = [q for _, q in generate(result.records, count)]
    with tempfile.TemporaryDirectory(prefix="bench-ab-") as temporary:
        work = Path(temporary)
        build_records(result, work / "index")
        folder = build_folder(work / "index")
        before_tree = export(rev, work / "before")
        workers = {f"before ({rev})": Worker(WORKER, before_tree, folder),
                   "after (working tree)": Worker(WORKER, ROOT, folder)}
        times: dict[str, list[list[float]]] = {name: [] for name in workers}
        try:
            for n, start in enumerate(range(0, len(queries), CHUNK)):
                order = list(workers.items()) if n % 2 == 0 else list(workers.items())[::-1]
                for name, worker in order:
                    times[name].extend(worker.ask(queries[start:start + CHUNK]))
        finally:
            for worker in workers.values():
                worker.close()
    rows = []
    for kind, column in (("elapsed", 0), ("CPU", 1)):
        figures = {}
        for name, pairs in times.items():
            values = [pair[column] for pair in pairs]
            figures[name] = [percentile(values, p) for p in (50, 90, 99)] + [max(values)]
            rows.append([name, kind, len(values), *(f"{v * 1000:.2f}" for v in figures[name])])
        before, after = figures.values()
        rows.append(["after / before", kind, "", *(f"{a / b:.2f}" for a, b in zip(after, before, strict=True))])
    corpus = "corpus/ and ../shared/cr" if rules else "corpus/"
    return (f"{corpus}, {len(result.records)} records; {len(queries)} distinct generated queries, each asked once "
            f"in each process, in chunks of {CHUNK} taking turns.\n\n"
            + table(["code", "time", "queries", "p50 ms", "p90 ms", "p99 ms", "max ms"], rows)
            + "\n\n" + _paired(*times.values()))


def _paired(before: list[list[float]], after: list[list[float]]) -> str:
    """Query by query, the after's CPU time less the before's: a change of a few percent is
    within the percentiles' noise from run to run, the median of 3,000 paired differences
    much less so."""
    differences = [a[1] - b[1] for b, a in zip(before, after, strict=True)]
    faster = sum(d < 0 for d in differences) / len(differences)
    return (f"Query by query, after less before (CPU): median {statistics.median(differences) * 1000:+.3f} ms, "
            f"mean {statistics.fmean(differences) * 1000:+.3f} ms; faster after in {faster:.0%} of the queries.")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.code_ab", description=__doc__.splitlines()[0])
    ap.add_argument("rev", help="the git revision to compare the working tree with")
    ap.add_argument("--queries", type=int, default=3000)
    ap.add_argument("--rules", action="store_true", help="add every rules edition of ../shared/cr")
    args = ap.parse_args(argv)
    print(compare(args.rev, args.queries, args.rules))
    return 0


if __name__ == "__main__":
    sys.exit(main())

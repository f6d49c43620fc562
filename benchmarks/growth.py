"""Growth: how ingestion, the build, start-up and query time change as the corpus grows.

Corpora: the bundled corpus; the corpus with every Comprehensive Rules file of ../shared/cr
(real growth: about forty times the records, mostly English); and synthetic corpora of 10 and
100 times the corpus's documents (`corpora.synthetic`: perturbed copies with new ids, so
names, titles and texts are new words in the corpus's own scripts). Each is indexed by the
service's build code, started in a fresh process (`benchmarks.first_query`), and asked every
judged query. The goal: p99 query time grows at most 5× for 100× the records.
"""
from __future__ import annotations

import gc
import shutil
import tempfile
from pathlib import Path

from indexer.documents.ingest import DEFAULT_CORPUS
from indexer.knowledge.live import LiveLibrary

from . import coldstart, corpora
from .measure import (
    LATENCY_HEADERS,
    SHARED_CR,
    folder_bytes,
    judged,
    judged_queries,
    latency_cells,
    megabytes,
    percentile,
    stopwatch,
    table,
    time_queries,
)

GOAL_P99_GROWTH = 5.0


def ask_judged(root: Path, rounds: int) -> tuple[dict, dict]:
    """Query times and judged quality of the index under `root`, opened as a server opens it."""
    library = LiveLibrary(root).get()
    try:
        times = time_queries(lambda q: library.search(q, 10), judged_queries(), rounds)
        return times, judged.score(lambda q, k: library.search(q, k)["results"])
    finally:
        library.close()


def measure_corpus(label: str, result, made_seconds: float, made_how: str, work: Path, rounds: int) -> dict:
    root = work / label.replace(" ", "-").replace("×", "x")
    outcome = corpora.build_records(result, root)
    start = coldstart.library_start(root)
    times, quality = ask_judged(root, rounds)
    gc.unfreeze()  # let this corpus's library go before the next is measured
    gc.collect()
    figures = {"label": label, "records": len(result.records), "made": f"{made_seconds:.1f} s ({made_how})",
               "build": outcome.seconds, "size": folder_bytes(outcome.folder), "start": start,
               "times": times, "p99": percentile(times["first"], 99), "mrr": quality["mrr"]}
    shutil.rmtree(root, ignore_errors=True)
    return figures


def report(quick: bool = False, rounds: int = 2) -> str:
    """The growth table; `quick` leaves out the two slow corpora (the rules files and ×100)."""
    work = Path(tempfile.mkdtemp(prefix="bench-growth-"))
    rows = []
    try:
        seed, seed_seconds = corpora.ingest_paths([DEFAULT_CORPUS])
        rows.append(measure_corpus("corpus", seed, seed_seconds, "ingestion", work, rounds))
        if not quick and SHARED_CR.is_dir():
            with_cr, seconds = corpora.ingest_paths([DEFAULT_CORPUS, SHARED_CR])
            rows.append(measure_corpus("corpus + rules files", with_cr, seconds, "ingestion", work, rounds))
        for factor in ((10,) if quick else (10, 100)):
            with stopwatch() as made:
                result = corpora.synthetic(seed, factor)
            rows.append(measure_corpus(f"corpus ×{factor}", result, seed_seconds + made[0],
                                       "ingestion + copying", work, 1 if factor >= 100 else rounds))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    base = rows[0]
    lines = [table(
        ["corpus", "records", "records made in", "index build", "index size", "open index", "start to first answer",
         *LATENCY_HEADERS, "p99 vs corpus", "MRR@10"],
        [[r["label"], r["records"], r["made"], f"{r['build']:.1f} s", megabytes(r["size"]),
          f"{r['start']['open_s']:.2f} s", f"{r['start']['wall_s']:.2f} s", *latency_cells(r["times"]),
          f"{r['p99'] / base['p99']:.1f}×", f"{r['mrr']:.3f}"] for r in rows])]
    if quick:
        lines.append("\n(--quick: the rules files and ×100 corpora were left out.)")
    if not SHARED_CR.is_dir():
        lines.append(f"\n{SHARED_CR} is absent: the rules-files corpus was left out.")
    lines.append(f"\nGoal: p99 at most {GOAL_P99_GROWTH:.0f}× the corpus's for 100× the records (\"p99 vs corpus\" "
                 "compares first askings). Index size "
                 "counts the whole index folder (records file, user dictionary, engine files).")
    return "\n".join(lines)

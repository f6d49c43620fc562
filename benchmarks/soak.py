"""`python -m benchmarks.soak [--seconds 60] [--clients 16]`: the live-rebuild soak.

A real server (gunicorn, two workers) over a copy of corpus/ answers clients for the whole
time while the index is rebuilt again and again from two versions of the corpus, with one
build of a broken corpus among them (benchmarks/live_rebuild.py). Prints the figures and
every problem seen; exits 1 when any request failed or any answer came from no whole index.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from indexer.documents.ingest import DEFAULT_CORPUS

from . import live_rebuild
from .measure import machine, table


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="scripts/soak",
                                 description="Rebuild the index under load and check every answer.")
    ap.add_argument("--seconds", type=float, default=60.0, help="how long clients query (default 60)")
    ap.add_argument("--clients", type=int, default=16, help="concurrent clients (default 16)")
    args = ap.parse_args(argv)
    if args.seconds < 5 or not 1 <= args.clients <= 64:
        ap.error("--seconds must be at least 5 and --clients from 1 to 64")
    print(f"Machine: {machine()}\n", flush=True)
    work = Path(tempfile.mkdtemp(prefix="soak-"))
    try:
        outcome = live_rebuild.run(DEFAULT_CORPUS, work, clients=args.clients, seconds=args.seconds,
                                   log=lambda line: print(line, flush=True))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    f = outcome.figures()
    print()
    print(table(["clients", "seconds", "requests", "requests/s", "failed", "inconsistent", "p50 ms", "p99 ms",
                 "max ms", "switches", "failed builds"],
                [[args.clients, f"{outcome.seconds:.1f}", f["requests"], f"{f['rps']:.1f}", f["failed"],
                  len(outcome.problems), f"{f['p50_ms']:.1f}", f"{f['p99_ms']:.1f}", f"{f['max_ms']:.1f}",
                  f["switches"], f["failed_builds"]]]))
    print("\n" + live_rebuild.render(outcome))
    for problem in outcome.problems[:20]:
        print(f"problem: {problem}")
    return 1 if outcome.problems or f["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())

"""`python -m benchmarks [PART ...] [options]`: run benchmarks and print their tables.

PART is one or more of cold, peers, http, growth, coldstart, profile, memory, hostile, rules,
book, cost, mcp, front (default: all of them, in that order; cold, the headline, first). The output is Markdown, ready
for docs/benchmarks.md.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from indexer.documents.ingest import DEFAULT_CORPUS
from indexer.search.build import build
from webapp import book_parts, offline_copy

from . import (
    book_pages,
    cold,
    coldstart,
    front,
    growth,
    hostile,
    http_load,
    mcp_cost,
    memory,
    peers,
    profile_app,
    request_cost,
    rule_pages,
    stages,
    worker_profile,
)
from .measure import machine
from .wrk import WrkMissing

PARTS = ("cold", "peers", "http", "growth", "coldstart", "profile", "memory", "hostile", "rules", "book", "cost",
         "mcp", "front")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="scripts/bench", description="Run benchmarks and print their tables.")
    ap.add_argument("parts", nargs="*", metavar="PART", help=f"any of {', '.join(PARTS)} (default: all)")
    ap.add_argument("--quick", action="store_true",
                    help="leave out the slow parts: growth without the rules files and ×100, 8 s HTTP runs")
    ap.add_argument("--seconds", type=int, default=None,
                    help="wrk load per server and connection count, in four turns (default 20, --quick 8)")
    ap.add_argument("--connections", default="16,2", help="wrk connection counts, comma-separated (default 16,2)")
    ap.add_argument("--queries", type=int, default=3000,
                    help="distinct queries of the cold run, each asked once (default 3000)")
    ap.add_argument("--rounds", type=int, default=3, help="timed rounds of the judged queries (default 3)")
    args = ap.parse_args(argv)
    parts = args.parts or list(PARTS)
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        ap.error(f"unknown part {unknown[0]!r}: choose from {', '.join(PARTS)}")
    seconds = args.seconds or (8 if args.quick else 20)
    try:
        connections = tuple(int(c) for c in args.connections.split(","))
    except ValueError:
        ap.error(f"--connections takes numbers separated by commas, not {args.connections!r}")

    print(f"# Benchmarks, {time.strftime('%Y-%m-%d %H:%M')}\n\nMachine: {machine()}\n", flush=True)
    work = Path(tempfile.mkdtemp(prefix="bench-"))
    try:
        index_root = work / "index"
        if {"http", "coldstart", "profile", "hostile", "front"} & set(parts):
            build([DEFAULT_CORPUS], root=index_root)
        for part in parts:
            started = time.perf_counter()
            print(f"## {part}\n", flush=True)
            try:
                run(part, args, index_root, work, seconds, connections)
            except WrkMissing as exc:  # cold, memory and http ask through wrk
                print(f"skipped: {exc}")
            print(f"\n({part}: {time.perf_counter() - started:.0f} s)\n", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def run(part: str, args: argparse.Namespace, index_root: Path, work: Path, seconds: int,
        connections: tuple[int, ...]) -> None:
    if part == "cold":
        print(cold.report([DEFAULT_CORPUS], count=args.queries, with_rules=not args.quick))
    elif part == "peers":
        print(peers.compare([DEFAULT_CORPUS], rounds=args.rounds))
    elif part == "http":
        print(http_load.compare(index_root, seconds, connections))
    elif part == "growth":
        print(growth.report(quick=args.quick, rounds=min(args.rounds, 2)))
    elif part == "coldstart":
        print(coldstart.report(index_root))
    elif part == "profile":
        print(profile_app.report(index_root))
        print("\nBy stage, without the profiler (benchmarks.stages), first-asked queries:\n")
        print(stages.report(index_root))
        print("\nInside the server's workers (benchmarks.worker_profile), first-asked queries:\n")
        print(worker_profile.report(index_root, count=args.queries))
    elif part == "memory":
        print(memory.report(with_rules=not args.quick))
    elif part == "hostile":
        print(hostile.report(index_root, quick=args.quick))
    elif part == "rules":
        print(rule_pages.report(work))
    elif part == "book":
        print(book_pages.report())
    elif part == "cost":
        print(request_cost.report(_site_index(work)))
    elif part == "mcp":
        print(mcp_cost.report(_site_index(work)))
    elif part == "front":
        print(front.report(index_root, work, count=args.queries))


def _site_index(work: Path) -> Path:
    """The whole knowledge base as the site serves it (its offline copy and book parts), built once a run."""
    root = work / "site-index"
    if not root.exists():
        build([DEFAULT_CORPUS], root=root, extras={"offline": offline_copy.write, "book": book_parts.write})
    return root


if __name__ == "__main__":
    sys.exit(main())

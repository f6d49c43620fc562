"""Hostile input: the linker's worst inputs and the memory distinct queries leave.

Linker: each reported attack (and a few more), repeated to the largest body the API takes,
in every format, through the real index's resolver; the table gives the time of each and of
the worst, and how the time grew from a sixteenth of the size (linear work grows 16 times).

Memory: QUERIES distinct queries as long as a query may be, of made-up words, asked of one
library over the whole corpus, with the process's resident memory every 2,000 queries.
"""
from __future__ import annotations

import random
import time
from pathlib import Path

from indexer.knowledge.library import Library
from indexer.knowledge.settings import Settings
from indexer.search.query import MAX_QUERY_CHARS
from webapp.linkify import FORMATS, LibraryResolver, linkify

from .measure import build_folder

ATTACKS = ["`", "`a` ", "[a=", "<a>", "<b>a", "<p>a", "<a b=", "![a](", "<http:", "[url=", "<!--", "[[",
           "規則702.30a ", "www."]
QUERIES = 20_000
WORDS = ["persist", "留存", "multikicker", "增幅", "exile", "planar", "redcap", "奪魂", "夺魂", "kicker", "規則"]


def _time(text: str, fmt: str, resolver) -> float:
    started = time.perf_counter()
    linkify(text, fmt, resolver)
    return time.perf_counter() - started


def linker_table(library: Library) -> str:
    resolver = LibraryResolver(library, base="https://kb.example")
    rows = ["| input | format | body | time | growth from 1/16 of it |", "|---|---|---:|---:|---:|"]
    worst = (0.0, "")
    for piece in ATTACKS:
        body = piece * (Settings().max_body_bytes // len(piece.encode()))
        for fmt in FORMATS:
            full = min(_time(body, fmt, resolver) for _ in range(2))
            part = min(_time(body[: len(body) // 16], fmt, resolver) for _ in range(2))
            rows.append(f"| `{piece!r}` × {len(body) // len(piece):,} | {fmt} | {len(body.encode()) // 1024} KB "
                        f"| {full * 1000:.0f} ms | {full / max(part, 1e-6):.1f}× |")
            worst = max(worst, (full, f"{piece!r} as {fmt}"))
    rows.append(f"\nWorst: {worst[1]}, {worst[0] * 1000:.0f} ms.")
    return "\n".join(rows)


def resident_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096 / 2**20


def memory_table(library: Library, queries: int = QUERIES) -> str:
    rng = random.Random(1)
    rows = ["| distinct queries | resident memory | seconds |", "|---:|---:|---:|",
            f"| 0 | {resident_mb():.0f} MB | 0 |"]
    started = time.perf_counter()
    for i in range(1, queries + 1):
        words = (f"{rng.choice(WORDS)}{rng.randrange(10**6)}" for _ in range(60))
        library.search(f"{i} {' '.join(words)}"[:MAX_QUERY_CHARS])
        if i % 2000 == 0:
            rows.append(f"| {i:,} | {resident_mb():.0f} MB | {time.perf_counter() - started:.0f} |")
    return "\n".join(rows)


def report(index_root: Path, quick: bool = False) -> str:
    library = Library(build_folder(index_root))
    try:
        return (f"### The linker's worst inputs\n\n{linker_table(library)}\n\n"
                f"### Memory after distinct long queries\n\n{memory_table(library, 2000 if quick else QUERIES)}")
    finally:
        library.close()

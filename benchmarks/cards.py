"""Every card at Scryfall's real size, beside today's knowledge base without cards, in one run.

Generated in Scryfall's bulk formats (`benchmarks.card_data`: 35,000 cards, 75,000 rulings,
60,000 Chinese printings), then measured as the issue of card data asks:

- reading: the reader's peak memory on All Cards files of growing size (it must not grow);
- the whole build, corpus/ alone and corpus/ with the cards (wall time, peak memory);
- a first-asked search: the same never-asked queries (`benchmarks.cold_queries`) asked of both
  builds in turns in one fresh process, CPU per query (p50, p99); and the memory of a fresh
  process that asked them of one build (a worker's);
- no request over 50 ms of CPU: `benchmarks.request_cost` on the build with the cards.

    python -m benchmarks.cards [--cards N] [--queries N] [--sizes 100,1000] [--keep DIR]
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from indexer.documents.ingest import DEFAULT_CORPUS

from . import card_data, request_cost
from .measure import build_folder, machine, percentile, table

# One process's figures, printed as JSON: a child runs this so each measure starts cold. Its
# builds are opened as a worker opens one (frozen, the free heap handed back), and with two
# builds each query is asked of one and then the other (in turns, which first): on a shared
# machine whose speed drifts, both are timed under the same drift, so their ratio holds.
_SEARCH = """
import json, sys, time
from pathlib import Path
from benchmarks.measure import WARM_UP_QUERY
from indexer.knowledge.live import LiveLibrary
libraries = [LiveLibrary(Path(root)).get() for root in sys.argv[1:]]
for library in libraries:
    library.search(WARM_UP_QUERY, 10)
queries = json.loads(sys.stdin.read())
times = [[] for _ in libraries]
for n, q in enumerate(queries):
    for k in (range(len(libraries)) if n % 2 == 0 else reversed(range(len(libraries)))):
        started = time.process_time()
        libraries[k].search(q, 10)
        times[k].append(time.process_time() - started)
rss = next(int(line.split()[1]) for line in open('/proc/self/status') if line.startswith('VmRSS:'))
print(json.dumps({"times": times, "rss_kb": rss}))
"""
_READ = """
import json, sys, time
from pathlib import Path
from indexer.documents import scryfall
started = time.perf_counter()
data = scryfall.read_files([Path(sys.argv[1])])
peak = next(int(line.split()[1]) for line in open('/proc/self/status') if line.startswith('VmHWM:'))
print(json.dumps({"seconds": time.perf_counter() - started, "peak_kb": peak, "cards": len(data.english),
                  "chinese": len(data.chinese)}))
"""


def _child(code: str, *args: str, stdin: str = "") -> dict:
    done = subprocess.run([sys.executable, "-c", code, *args], input=stdin, capture_output=True, text=True,
                          check=True, cwd=Path(__file__).resolve().parents[1])
    return json.loads(done.stdout)


def _build(root: Path, *paths: Path) -> tuple[float, float]:
    """(seconds, peak MB) of a whole build in a process of its own."""
    started = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M", sys.executable, "-m", "indexer", "--index-root", str(root),
                           "build", *map(str, paths)], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parents[1])
    return time.perf_counter() - started, int(done.stderr.strip().splitlines()[-1]) / 1024


def reading(folder: Path, records: list, sizes_mb: list[int]) -> list[list]:
    w = card_data.Words(records)
    cards = card_data.oracle_cards(w, 5000)
    printings = card_data.chinese_printings(w, cards, 8000)
    rows = []
    for size in sizes_mb:
        path = folder / f"all-cards-{size}mb.json"
        written = card_data.write_array(path, card_data.all_cards(cards, printings, size * 2**20))
        found = _child(_READ, str(path))
        rows.append([f"{written / 2**20:,.0f} MB", found["cards"], found["chinese"], f"{found['seconds']:.1f} s",
                     f"{found['peak_kb'] / 1024:.0f} MB"])
        path.unlink()
    return rows


def searching(roots: list[Path], queries: list[str]) -> list[dict]:
    """CPU per query (p50, p99, largest) on each build, the queries asked of all of them in
    one process (`_SEARCH`); the memory of a process that opened one build alone."""
    found = _child(_SEARCH, *map(str, roots), stdin=json.dumps(queries))["times"]
    figures = []
    for root, seconds in zip(roots, found, strict=True):
        times = [t * 1000 for t in seconds]
        alone = _child(_SEARCH, str(root), stdin=json.dumps(queries))
        figures.append({"p50": percentile(times, 50), "p99": percentile(times, 99), "max": max(times),
                        "rss": alone["rss_kb"] / 1024})
    return figures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.cards", description=__doc__.split("\n")[0])
    ap.add_argument("--cards", type=int, default=card_data.CARDS)
    ap.add_argument("--queries", type=int, default=1500)
    ap.add_argument("--sizes", default="100,1000", help="All Cards sizes to read, in MB (default 100,1000)")
    ap.add_argument("--keep", type=Path, default=None, help="a folder for the files and builds, kept after")
    args = ap.parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="kb-cards-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        print(f"# Every card at Scryfall's size\n\n{machine()}\n")
        plain_root, cards_root, files = work / "index-plain", work / "index-cards", work / "cards"
        plain = _build(plain_root, DEFAULT_CORPUS)
        from indexer.knowledge.library import Library  # (after the build: the child processes import it too)
        library = Library(build_folder(plain_root))
        records = list(library.records.values())
        library.close()
        sizes = card_data.write(files, records, args.cards, round(args.cards * 75 / 35), round(args.cards * 60 / 35))
        with_cards = _build(cards_root, DEFAULT_CORPUS, files)
        from .cold_queries import generate
        queries = [q for _, q in generate(records, args.queries)]
        before, after = searching([plain_root, cards_root], queries)
        print(f"Generated: {', '.join(f'{name} {n / 2**20:,.0f} MB' for name, n in sizes.items())}.\n")
        print(table(["", "without cards", f"with {args.cards:,} cards", "ratio / difference"], [
            ["whole build", f"{plain[0]:.0f} s", f"{with_cards[0]:.0f} s", f"{with_cards[0] / plain[0]:.2f}×"],
            ["build's peak memory", f"{plain[1]:,.0f} MB", f"{with_cards[1]:,.0f} MB",
             f"+{with_cards[1] - plain[1]:,.0f} MB"],
            [f"first-asked search, p50 CPU ({len(queries):,} queries)", f"{before['p50']:.2f} ms",
             f"{after['p50']:.2f} ms", f"{after['p50'] / before['p50']:.2f}×"],
            ["first-asked search, p99 CPU", f"{before['p99']:.2f} ms", f"{after['p99']:.2f} ms",
             f"{after['p99'] / before['p99']:.2f}×"],
            ["first-asked search, largest", f"{before['max']:.1f} ms", f"{after['max']:.1f} ms", ""],
            ["a worker's memory after them", f"{before['rss']:,.0f} MB", f"{after['rss']:,.0f} MB",
             f"+{after['rss'] - before['rss']:,.0f} MB"],
        ]))
        print("\nThe reader's peak memory by the size of All Cards (5,000 cards in a dozen languages):\n")
        print(table(["All Cards", "cards kept", "Chinese printings", "read in", "peak memory"],
                    reading(work, records, [int(s) for s in args.sizes.split(",") if s])))
        print("\nEvery request with the cards (`benchmarks.request_cost`, a sample of the cards):\n")
        print(request_cost.report(cards_root).split("\n\n")[0])
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`python -m benchmarks.lineage`: what the lineage costs, as Markdown tables for
docs/benchmarks.md: aligning the rules editions of corpus/rules (a build's share), opening
their tables (a library's share), and a list of changes between two editions, first asked
and again, with the worst page of its word diffs (what one request to /api/changes costs)."""
from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Any

from indexer.documents.comprules import read_rules_files
from indexer.documents.ingest import DEFAULT_CORPUS
from indexer.knowledge.editions import EditionTables
from indexer.search.lineage import RELATIONS, align
from webapp.history import bounded_changes

from .measure import machine

PAGE = 20  # webapp.present.CHANGES_PER_PAGE


def cpu_ms(fn: Callable[[], Any]) -> tuple[float, Any]:
    started = time.process_time()
    out = fn()
    return (time.process_time() - started) * 1000, out


def worst_page(tables: EditionTables, old: str, new: str) -> float:
    """The CPU of the costliest page of diffs of the changes from `old` to `new`."""
    found = tables.changes(old, new)
    worst = 0.0
    for at in range(0, len(found), PAGE):
        started = time.process_time()
        for change in found[at:at + PAGE]:
            before, after = tables.record(old, change.old), tables.record(new, change.new)
            for lang in ("en", "zh_hans"):
                if before and after and before.text.get(lang) and after.text.get(lang):
                    bounded_changes(before.text[lang], after.text[lang])
        worst = max(worst, (time.process_time() - started) * 1000)
    return worst


def main() -> None:
    records = read_rules_files([DEFAULT_CORPUS / "rules"]).records
    align_ms, edges = cpu_ms(lambda: align(records))
    open_ms, tables = cpu_ms(lambda: EditionTables(records, edges))
    print(machine())
    print(f"\nAligning {len({r.edition for r in records})} editions: {align_ms:.0f} ms CPU; "
          f"opening their tables: {open_ms:.0f} ms.\n")
    counts = Counter((e.from_edition, e.to_edition, e.relation) for e in edges)
    print("| pair | " + " | ".join(RELATIONS) + " |\n|---|" + "---|" * len(RELATIONS))
    for old, new in sorted({(a, b) for a, b, _ in counts}):
        print(f"| {old} → {new} | " + " | ".join(str(counts[(old, new, r)]) for r in RELATIONS) + " |")
    editions = tables.lineage_editions
    print("\n| changes | entries | first ms | again ms | worst page of diffs ms |\n|---|---|---|---|---|")
    for old, new in [(editions[0], editions[-1]), (editions[-2], editions[-1]), (editions[3], editions[4])]:
        first, found = cpu_ms(partial(tables.changes, old, new))
        again, _ = cpu_ms(partial(tables.changes, old, new))
        print(f"| {old} → {new} | {len(found)} | {first:.1f} | {again:.3f} | {worst_page(tables, old, new):.1f} |")


if __name__ == "__main__":
    main()

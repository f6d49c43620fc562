"""`python -m benchmarks.lineage_reading`: how much of tests/lineage_read.tsv and
tests/lineage_read_2.tsv (links of the lineage read against the rules files, two samples) the
lineage of corpus/rules agrees with, per sample.

A link read as right (`agree`) agrees when the lineage still has it; one read as wrong
(`disagree`) when the lineage has what the reading says instead: every rule of a split or
merge named (exact) or at least one (loosely), `removed` with no successor, an added entry
with the predecessor read. Readings marked `unsure` are left out. The gold list
(tests/lineage_gold.tsv) is the part the suite holds whole; this is the wider measure."""
from __future__ import annotations

import csv
import sys
from collections import Counter, defaultdict
from pathlib import Path

from indexer.documents.comprules import read_rules_files
from indexer.documents.ingest import DEFAULT_CORPUS
from indexer.search.lineage import Edge, align

TESTS = Path(__file__).resolve().parent.parent / "tests"
READS = (TESTS / "lineage_read.tsv", TESTS / "lineage_read_2.tsv")


def readings(path: Path = READS[0]) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader((line for line in fh if not line.startswith("#")), delimiter="\t"))


def agreement(row: dict[str, str], forward: dict, back: dict) -> tuple[bool, bool]:
    """(loosely, exactly): whether the lineage has what `row` reads."""
    if row["sample"] == "added":
        sources = {e.from_key for e in back[(row["to_edition"], row["to_key"])]}
        if row["verdict"] == "agree":
            return (sources == {""},) * 2
        words = row["correct"].split()  # "from 2008-05-01 415 renumbered"
        return (len(words) > 2 and words[2] in sources,) * 2
    successors = {e.to_key for e in forward[(row["from_edition"], row["from_key"])]}
    if row["verdict"] == "agree":
        wanted = {row["to_key"]}
    else:
        words = row["correct"].split()  # "split 702.10b 702.10c", "removed"
        wanted = {""} if words[0] == "removed" else set(words[1:])
    if wanted == {""}:
        return (successors == {""},) * 2
    return bool(wanted & successors), wanted <= successors if row["verdict"] == "agree" else wanted == successors


def main() -> int:
    edges: list[Edge] = align(read_rules_files([DEFAULT_CORPUS / "rules"]).records)
    forward: dict[tuple[str, str], list[Edge]] = defaultdict(list)
    back: dict[tuple[str, str], list[Edge]] = defaultdict(list)
    for e in edges:
        forward[(e.from_edition, e.from_key)].append(e)
        back[(e.to_edition, e.to_key)].append(e)
    for path in READS:
        counted: Counter[str] = Counter()
        loose: Counter[str] = Counter()
        exact: Counter[str] = Counter()
        for row in readings(path):
            if row["verdict"] not in ("agree", "disagree"):
                continue
            found = agreement(row, forward, back)
            counted[row["sample"]] += 1
            loose[row["sample"]] += found[0]
            exact[row["sample"]] += found[1]
        print(f"\n{path.name}\n\n| sample | read | agreed, loosely | agreed, every part |\n|---|---|---|---|")
        for sample in [*sorted(counted), "all"]:
            n, lo, ex = ((sum(c.values()) for c in (counted, loose, exact)) if sample == "all"
                         else (counted[sample], loose[sample], exact[sample]))
            print(f"| {sample} | {n} | {lo} ({lo / n:.3f}) | {ex} ({ex / n:.3f}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

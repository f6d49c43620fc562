"""Run in a fresh process by the cold-start and growth benchmarks: open the index under a
root, answer one query, and print (as JSON) how long each step took and the peak memory.

`python -m benchmarks.first_query INDEX_ROOT [QUERY]`
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

started = time.perf_counter()

from indexer.knowledge.live import LiveLibrary  # noqa: E402  (the import is part of what is timed)


def peak_memory_mb() -> float:
    """This process's peak resident memory (VmHWM; getrusage's maxrss would carry over the
    peak of the process that started it, which Linux keeps across exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main(argv: list[str]) -> int:
    root, query = Path(argv[0]), argv[1] if len(argv) > 1 else "persist"
    imported = time.perf_counter()
    library = LiveLibrary(root).get()
    opened = time.perf_counter()
    answer = library.search(query, 10)
    answered = time.perf_counter()
    print(json.dumps({
        "import_s": imported - started, "open_s": opened - imported, "first_query_s": answered - opened,
        "total_s": answered - started, "records": len(library.records), "results": answer["total"],
        "max_rss_mb": peak_memory_mb(),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

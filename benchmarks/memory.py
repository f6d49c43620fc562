"""Memory: what each gunicorn worker holds with every rules edition served, how much of it the
workers share with the master after the fork, and whether it grows across index switches.

The real app (2 workers, --preload, as scripts/serve runs it) over the documents and every
rules edition of ../shared/cr, answering the cold benchmark's generated queries. Figures come
from /proc/PID/smaps_rollup: RSS (resident), PSS (resident with shared pages divided among
the processes sharing them), shared (pages another process also maps: what the fork left
shared), private, and anonymous (resident memory no file backs: the process's heap, where
what it allocates stays; the rest of RSS is pages of mapped files it has read, the index's
among them, which the page cache holds for every process). Then the index is switched 20
times between two copies of the build (different ids, so each switch opens the index anew in
every worker, as a new artifact would), and the workers' RSS and anonymous memory are read
after each, in three runs of a fresh server each:

- the same queries after every switch: what the switches themselves leave behind;
- new queries after every switch, as a server meets them: the switches, and the memos every
  build shares (query patterns, stems) filling toward their budgets with the new queries;
- the new queries without switching: the memos filling alone, the control for the second.

After the switches each worker's memory maps are read for files of a build it no longer
serves (/proc/PID/maps): a replaced build's maps must all be gone.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

from harness.server import Server, free_port
from indexer.documents.ingest import DEFAULT_CORPUS
from indexer.knowledge.live import LiveLibrary
from indexer.search.build import switch_to

from .cold_queries import generate
from .corpora import build_records, documents_only, ingest_paths
from .measure import SHARED_CR, build_folder, table
from .wrk import ask_once

SWITCHES = 20
# Queries every worker answers before the first reading, and after each switch.
WARM_QUERIES = 200
QUERIES_PER_SWITCH = 100
# The switches after which the workers' memory is reported.
REPORTED = (1, 5, 10, 20)
RUNS = {"same": "the same queries after each switch", "new": "new queries after each switch",
        "control": "new queries after each step, without switching"}


def smaps(pid: int) -> dict[str, float]:
    """Megabytes of a process's memory by kind, from /proc/PID/smaps_rollup."""
    kb = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        kb[name] = int(value.split()[0])
    shared = kb["Shared_Clean"] + kb["Shared_Dirty"]
    private = kb["Private_Clean"] + kb["Private_Dirty"]
    return {"rss": kb["Rss"] / 1024, "pss": kb["Pss"] / 1024, "shared": shared / 1024, "private": private / 1024,
            "anonymous": kb["Anonymous"] / 1024}


def stale_maps(pid: int, root: Path, served: Path) -> int:
    """How many of a process's memory maps are of files of builds under `root` other than `served`."""
    lines = Path(f"/proc/{pid}/maps").read_text().splitlines()
    return sum(1 for line in lines
               if line.split()[-1].startswith(f"{root}/") and not line.split()[-1].startswith(f"{served}/"))


def _row(label: str, pid: int) -> list:
    m = smaps(pid)
    return [label, f"{m['rss']:.0f}", f"{m['pss']:.0f}", f"{m['shared']:.0f}", f"{m['private']:.0f}"]


class _Run:
    """One server's 20 switches (or none): the workers' memory before and after them."""

    def __init__(self, root: Path, builds: list[str], queries: list[str], kind: str):
        switch_to(root, builds[0])
        self.rows, self.memory, self.replaced, self.stale = [], {}, [], 0
        with Server.real_app(root, free_port()) as server:
            server.check_index()
            ask_once(server.port, queries[:WARM_QUERIES])
            workers = sorted(server.worker_pids())
            self.rows.append(_row("master (after --preload, the index open)", server.process.pid))
            for n, pid in enumerate(workers, 1):
                self.rows.append(_row(f"worker {n} after {WARM_QUERIES} queries", pid))
            self.memory[0] = [smaps(pid) for pid in workers]
            for step in range(1, SWITCHES + 1):
                if kind != "control":
                    switch_to(root, builds[step % 2])
                    time.sleep(LiveLibrary.CHECK_SECONDS + 0.2)
                fresh = kind != "same"
                start = WARM_QUERIES + (step - 1) * QUERIES_PER_SWITCH if fresh else WARM_QUERIES
                ask_once(server.port, queries[start:start + QUERIES_PER_SWITCH])
                now = sorted(server.worker_pids())
                if now != workers:  # gunicorn replaced a worker (one that timed out, say)
                    self.replaced.append(step)
                    workers = now
                self.memory[step] = [smaps(pid) for pid in workers]
            for n, pid in enumerate(workers, 1):
                self.rows.append(_row(f"worker {n} after the {SWITCHES} switches", pid))
            served = build_folder(root)
            self.stale = sum(stale_maps(pid, root, served) for pid in workers)

    def cell(self, step: int, kind: str) -> str:
        return " / ".join(f"{m[kind]:.0f}" for m in self.memory[step])

    def growth(self, since: int, kind: str) -> str:
        return " and ".join(f"{after[kind] - before[kind]:+.0f}"
                            for before, after in zip(self.memory[since], self.memory[SWITCHES], strict=True))


def report(with_rules: bool = True) -> str:
    work = Path(tempfile.mkdtemp(prefix="bench-memory-"))
    try:
        paths = ([DEFAULT_CORPUS, *([SHARED_CR] if SHARED_CR.is_dir() else [])] if with_rules
                 else [documents_only(DEFAULT_CORPUS, work / "documents")])
        result, _ = ingest_paths(paths)
        root = work / "index"
        first = build_records(result, root).folder
        # A second artifact of the same build under another id: a switch to it opens it anew.
        second_name = first.name[:-12] + ("0" if first.name.endswith("f" * 12) else "f") * 12
        shutil.copytree(first, root / second_name)
        count = WARM_QUERIES + SWITCHES * QUERIES_PER_SWITCH
        queries = [f"/api/search?q={quote(q, safe='')}" for _, q in generate(result.records, count)]
        runs = {kind: _Run(root, [first.name, second_name], queries, kind) for kind in RUNS}
        header = ["after switch", *(f"{kind}: {label}" for kind in RUNS for label in ("RSS", "anonymous"))]
        rows = [[str(step), *(run.cell(step, kind) for run in runs.values() for kind in ("rss", "anonymous"))]
                for step in (0, *REPORTED)]
        replaced = [f"{kind}: switches {run.replaced}" for kind, run in runs.items() if run.replaced]
        lines = [f"{'documents + every rules edition' if with_rules else 'documents'}, "
                 f"{len(result.records)} records; gunicorn, 2 workers, --preload.", "",
                 table(["process", "RSS MB", "PSS MB", "shared MB", "private MB"], runs["same"].rows), "",
                 f"Workers' RSS and anonymous memory, MB (worker 1 / worker 2), across {SWITCHES} index "
                 f"switches, {QUERIES_PER_SWITCH} queries after each, in three runs: "
                 + "; ".join(f"{kind}, {label}" for kind, label in RUNS.items()) + ":", "",
                 table(header, rows), ""]
        lines += [f"From the first switch to the last ({kind}): RSS {run.growth(1, 'rss')} MB, anonymous "
                  f"{run.growth(1, 'anonymous')} MB; from before the first: RSS {run.growth(0, 'rss')} MB, "
                  f"anonymous {run.growth(0, 'anonymous')} MB" for kind, run in runs.items()]
        lines += ["", f"Maps of a replaced build left in the workers after the switches: "
                      f"{sum(run.stale for run in runs.values())}"]
        if replaced:
            lines.append(f"gunicorn replaced a worker ({'; '.join(replaced)}): the figures after it are its "
                         "replacement's")
        return "\n".join(lines)
    finally:
        shutil.rmtree(work, ignore_errors=True)

"""Memory: what each gunicorn worker holds with every rules edition served, how much of it the
workers share with the master after the fork, and whether it grows across index switches.

The real app (2 workers, --preload, as scripts/serve runs it) over the documents and every
rules edition of ../shared/cr, answering the cold benchmark's generated queries. Figures come
from /proc/PID/smaps_rollup: RSS (resident), PSS (resident with shared pages divided among
the processes sharing them), shared (pages another process also maps: what the fork left
shared) and private. Then the index is switched 20 times between two copies of the build
(different ids, so each switch opens the index anew in every worker, as a new artifact
would), with queries after each switch, and the workers' RSS is read again.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

from indexer.documents.ingest import DEFAULT_CORPUS
from indexer.knowledge.live import LiveLibrary
from indexer.search.build import current_folder, switch_to

from .cold import ask_once
from .cold_queries import generate
from .corpora import build_records, ingest_paths
from .measure import SHARED_CR, table
from .server import Server, free_port

SWITCHES = 20
QUERIES_PER_SWITCH = 200


def smaps(pid: int) -> dict[str, float]:
    """Megabytes of a process's memory by kind, from /proc/PID/smaps_rollup."""
    kb = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        kb[name] = int(value.split()[0])
    shared = kb["Shared_Clean"] + kb["Shared_Dirty"]
    private = kb["Private_Clean"] + kb["Private_Dirty"]
    return {"rss": kb["Rss"] / 1024, "pss": kb["Pss"] / 1024, "shared": shared / 1024, "private": private / 1024}


def _row(label: str, pid: int) -> list:
    m = smaps(pid)
    return [label, f"{m['rss']:.0f}", f"{m['pss']:.0f}", f"{m['shared']:.0f}", f"{m['private']:.0f}"]


def report(with_rules: bool = True) -> str:
    paths = [DEFAULT_CORPUS, *([SHARED_CR] if with_rules and SHARED_CR.is_dir() else [])]
    work = Path(tempfile.mkdtemp(prefix="bench-memory-"))
    try:
        result, _ = ingest_paths(paths)
        root = work / "index"
        first = build_records(result, root).folder
        # A second artifact of the same build under another id: a switch to it opens it anew.
        second_name = first.name[:-12] + "f" * 12 if not first.name.endswith("f" * 12) else first.name[:-12] + "0" * 12
        shutil.copytree(first, root / second_name)
        queries = [f"/api/search?q={quote(q, safe='')}" for _, q in generate(result.records, 3000)]
        rows, growth = [], []
        with Server.real_app(root, free_port()) as server:
            server.check_index()
            ask_once(server.port, queries[:QUERIES_PER_SWITCH])
            workers = sorted(server.worker_pids())
            rows.append(_row("master (after --preload)", server.process.pid))
            for n, pid in enumerate(workers, 1):
                rows.append(_row(f"worker {n} after {QUERIES_PER_SWITCH} queries", pid))
            start = {pid: smaps(pid)["rss"] for pid in workers}
            start_rss = [start[pid] for pid in workers]
            replaced: list[int] = []
            names = [second_name, first.name]
            for switch in range(SWITCHES):
                switch_to(root, names[switch % 2])
                time.sleep(LiveLibrary.CHECK_SECONDS + 0.2)
                batch = queries[(switch + 1) * 100:(switch + 2) * 100]
                ask_once(server.port, batch)
                now = sorted(server.worker_pids())
                if now != workers:  # gunicorn replaced a worker (one that timed out, say)
                    replaced.append(switch + 1)
                    workers = now
                if switch in (0, 4, 9, 19):
                    growth.append([switch + 1, *(f"{smaps(pid)['rss']:.0f}" for pid in workers)])
            end = {pid: smaps(pid)["rss"] for pid in workers}
            served = current_folder(root).name
        header = ["process", "RSS MB", "PSS MB", "shared MB", "private MB"]
        lines = [f"{'documents + every rules edition' if len(paths) > 1 else 'documents'}, "
                 f"{len(result.records)} records; gunicorn, 2 workers, --preload.", "", table(header, rows), "",
                 f"Workers' RSS across {SWITCHES} index switches ({QUERIES_PER_SWITCH // 2} new queries after each; "
                 f"serving {served} at the end):", "",
                 table(["after switch", *(f"worker {n} RSS MB" for n in range(1, len(workers) + 1))],
                       [["0", *(f"{rss:.0f}" for rss in start_rss)], *growth]), "",
                 "Growth from before the first switch to after the last: "
                 + ", ".join(f"worker {n} {end[pid] - before:+.0f} MB"
                             for n, (pid, before) in enumerate(zip(workers, start_rss), 1))
                 + (f" (gunicorn replaced a worker during switches {replaced}: the figures after "
                    f"it are its replacement's)" if replaced else "")]
        return "\n".join(lines)
    finally:
        shutil.rmtree(work, ignore_errors=True)

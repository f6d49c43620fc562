"""The front of `scripts/serve`: what HAProxy in front of nginx costs a request, and how the
service answers while thousands of connections stall.

Cost. One gunicorn as scripts/serve runs it (deploy/gunicorn.conf.py) on a loopback port, and
two ways in to it at once: nginx alone (deploy/nginx.conf on a port: as the replicas run it, and
as scripts/serve ran it before HAProxy), and HAProxy (deploy/haproxy.cfg) in front of a second
nginx on a unix socket, as scripts/serve runs them. wrk (benchmarks.wrk, 8 connections) asks
gunicorn directly and through each way in distinct generated queries (benchmarks.cold_queries:
none asked twice of this gunicorn, whose workers remember answers), in turns of TURN, the three
alternating which goes first; then /healthz, the cheapest request, as many times. wrk keeps a
connection the server leaves open (the proxies do; gunicorn's sync workers close each). CPU per
request: gunicorn's (master and workers), nginx's and HAProxy's.

Stalled. `scripts/serve` over the same index, KB_REQUEST_SECONDS=STALL_SECONDS, with STALLED
connections of each kind of harness.stalled open: the slowest of five /healthz and five
searches, when each kind was closed and how many were answered 408.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from urllib.parse import quote

from deploy.edge import Haproxy
from deploy.proxy import Nginx
from harness.server import HOST, Server, cpu_seconds, free_port, get
from harness.stalled import IDLE, KINDS, hold
from indexer.documents.records import Record
from indexer.knowledge.settings import Settings

from .cold_queries import generate
from .measure import WARM_UP_QUERY, build_folder, ms, percentile, table
from .wrk import CONNECTIONS, ask_once

TURN = 250
GUNICORN, NGINX, EDGE = "gunicorn alone", "nginx → gunicorn", "HAProxy → nginx → gunicorn"
STALLED = 1000
STALL_SECONDS = 15
STALL_MARGIN = 6.0


def _records(index_root: Path) -> list[Record]:
    with (build_folder(index_root) / "records.jsonl").open(encoding="utf-8") as lines:
        return [Record.from_dict(json.loads(line)) for line in lines]


class _Ways:
    """gunicorn, nginx alone in front of it, and HAProxy in front of another nginx in front of
    it: the port of each way in, and the CPU time used so far by each program."""

    def __init__(self, index_root: Path, work: Path):
        settings = Settings.from_env()
        # HAProxy's worker and nginx's run unprivileged when started by root: they must reach
        # the socket and the pages under `work`.
        work.mkdir(parents=True, exist_ok=True)
        for folder in (work.parent, work):
            folder.chmod(0o755)
        self.app = Server.production(index_root, free_port())
        self.ports = {GUNICORN: self.app.port, NGINX: free_port(), EDGE: free_port()}
        upstream = [f"server {HOST}:{self.app.port} max_fails=0;"]
        socket_path = work / "nginx.sock"
        self.nginx = Nginx(work / "nginx", f"{HOST}:{self.ports[NGINX]}", settings.request_seconds,
                           settings.max_body_bytes)
        self.behind = Nginx(work / "nginx-behind", f"unix:{socket_path} proxy_protocol", settings.request_seconds,
                            settings.max_body_bytes)
        self.edge = Haproxy(work / "haproxy", f"{HOST}:{self.ports[EDGE]}", f"unix@{socket_path}",
                            settings.request_seconds, settings.max_body_bytes)
        try:
            self.app.check_index()
            self.nginx.start(upstream, lambda: get(self.ports[NGINX], "/healthz", timeout=5)[0] == 200)
            self.behind.start(upstream, socket_path.exists)
            self.edge.start(lambda: get(self.ports[EDGE], "/healthz", timeout=5)[0] == 200)
        except BaseException:
            self.close()
            raise

    def cpu(self) -> dict[str, float]:
        return {"gunicorn": self.app.cpu_seconds(),
                "nginx": sum(cpu_seconds([n.running.pid, *n.workers()]) for n in (self.nginx, self.behind)),
                "HAProxy": cpu_seconds([self.edge.running.pid, *self.edge.workers()])}

    def close(self) -> None:
        for proxy in (self.edge, self.behind, self.nginx):
            proxy.close()
        self.app.close()


def _ask(ways: _Ways, way: str, paths: list[str], into: dict) -> None:
    before = ways.cpu()
    run = ask_once(ways.ports[way], paths, CONNECTIONS)
    after = ways.cpu()
    into["latencies"] += run["latencies"]
    into["seconds"] += run["seconds"]
    into["failed"] += run["failures"]
    for program, seconds in after.items():
        into["cpu"][program] = into["cpu"].get(program, 0.0) + seconds - before[program]


def _empty() -> dict:
    return {"latencies": [], "seconds": 0.0, "failed": 0, "cpu": {}}


def cost(index_root: Path, work: Path, count: int) -> tuple[dict[str, dict], dict[str, dict]]:
    """The figures of each way in: for first-asked searches, and for /healthz."""
    queries = [q for _, q in generate(_records(index_root), count)]
    ways_in = (GUNICORN, NGINX, EDGE)
    turns = [queries[i:i + TURN * len(ways_in)] for i in range(0, len(queries), TURN * len(ways_in))]
    searches = {way: _empty() for way in ways_in}
    health = {way: _empty() for way in ways_in}
    ways = _Ways(index_root, work)
    try:
        for way in ways_in:  # every worker has opened its index and loaded its analysis
            ask_once(ways.ports[way], [f"/api/search?q={quote(WARM_UP_QUERY)}"] * (CONNECTIONS * 2), CONNECTIONS)
        for n, turn in enumerate(turns):
            order = ways_in[n % 3:] + ways_in[:n % 3]
            for k, way in enumerate(order):
                paths = [f"/api/search?q={quote(q, safe='')}" for q in turn[k::len(ways_in)]]
                _ask(ways, way, paths, searches[way])
        for way in ways_in:
            _ask(ways, way, ["/healthz"] * (count // len(ways_in)), health[way])
    finally:
        ways.close()
    return searches, health


PROGRAMS = {GUNICORN: ("gunicorn",), NGINX: ("gunicorn", "nginx"), EDGE: ("gunicorn", "nginx", "HAProxy")}


def _rows(label: str, figures: dict[str, dict]) -> list[list]:
    rows = []
    for way, f in figures.items():
        latencies, n = f["latencies"], len(f["latencies"])
        rows.append([label, way, n, f"{n / f['seconds']:.0f}", ms(percentile(latencies, 50)),
                     ms(percentile(latencies, 90)), ms(percentile(latencies, 99)), f["failed"],
                     *(f"{f['cpu'][p] / n * 1000:.2f}" if p in PROGRAMS[way] else "—"
                       for p in ("gunicorn", "nginx", "HAProxy"))])
    return rows


def _resident(serve_pid: int) -> dict[str, int]:
    """KiB of resident memory of HAProxy and of nginx (master and worker): the children of
    deploy/serve.py's process `serve_pid`, and theirs."""
    processes = {}
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
            processes[int(status.parent.name)] = (int(fields["PPid"]), (status.parent / "cmdline").read_bytes(),
                                                  int(fields.get("VmRSS", "0 kB").split()[0]))
        except (OSError, KeyError, ValueError):
            continue
    found: dict[str, int] = {}
    for name, program in (("HAProxy", b"haproxy"), ("nginx", b"nginx")):
        tops = {pid for pid, (parent, cmdline, _) in processes.items() if parent == serve_pid and program in cmdline}
        found[name] = sum(rss for pid, (parent, _, rss) in processes.items() if pid in tops or parent in tops)
    return found


def stalled(index_root: Path, work: Path) -> str:
    shutil.copytree(index_root, work / "stall-index")  # up to date: scripts/serve does not build it again
    os.environ["KB_REQUEST_SECONDS"] = str(STALL_SECONDS)
    try:
        server = Server.serve_script(work / "stall-index", free_port())
    finally:
        del os.environ["KB_REQUEST_SECONDS"]
    memory: dict[str, int] = {}
    try:
        server.check_index(300)
        held = hold(server.port, STALLED, STALL_SECONDS + STALL_MARGIN,
                    while_open=lambda: memory.update(_resident(server.process.pid)))
    finally:
        server.close()
    rows = []
    for kind, ends in held.closed.items():
        times = [lasted for lasted, _ in ends]
        rows.append([kind, len(ends) + held.left.get(kind, 0), f"{min(times):.1f}–{max(times):.1f}" if times else "—",
                     sum(got.startswith(b"HTTP/1.1 408 ") for _, got in ends), held.left.get(kind, 0)])
    open_count = sum(len(ends) for ends in held.closed.values()) + sum(held.left.values())
    failed = [c for c in held.checks if c[1] != 200]
    return (f"`scripts/serve`, KB_REQUEST_SECONDS={STALL_SECONDS}: {open_count:,} loopback connections held "
            f"({held.per_kind:,} of each stalled kind, {len(held.closed[IDLE]) + held.left.get(IDLE, 0)} whole "
            f"requests then idle); with all of them open, {len(held.checks) // 2} /healthz and as many searches "
            f"answered in **{held.slowest('/healthz') * 1000:.0f} ms and {held.slowest('search') * 1000:.0f} ms at "
            f"most** ({len(failed)} not 200). Resident memory meanwhile: "
            + ", ".join(f"{name} {kib / 1024:.0f} MB" for name, kib in memory.items()) + ".\n\n"
            + table(["kind", "connections", "closed after (s)", "answered 408", "still open at the deadline"], rows))


HEADER = ["requests", "way in", "answered", "requests/s", "p50 ms", "p90 ms", "p99 ms", "failed",
          "gunicorn CPU ms/request", "nginx CPU ms/request", "HAProxy CPU ms/request"]


def report(index_root: Path, work: Path, count: int = 3000) -> str:
    searches, health = cost(index_root, work / "cost", count)
    return (f"{count} distinct generated queries, a third through each way in, in turns of {TURN} each, the ways "
            f"alternating; then /healthz {count // 3} times each; wrk, {CONNECTIONS} connections; gunicorn as "
            f"`scripts/serve` runs it (2 sync workers, --preload).\n\n"
            + table(HEADER, _rows("first-asked search", searches) + _rows("/healthz", health))
            + f"\n\nKinds of stall ({len(KINDS) - 1}, and idle), held against `scripts/serve`:\n\n"
            + stalled(index_root, work))

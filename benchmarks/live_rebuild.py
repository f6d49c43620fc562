"""Rebuilding the index under load: clients query a real server while the index it serves is
rebuilt from a changed corpus and switched, and while a build of a broken corpus fails.

Three corpora are copies of one corpus folder: "old" (as it is), "new" (one document changed:
a keyword's Chinese name, so its rule's title and the answers that find it differ) and
"broken" (the new one with a document that is not UTF-8). Before any load, the answers of
both good corpora to the probe queries are computed in-process from their own indexes. Under
load, every /api/search answer must then equal the old corpus's answer or the new one's (an
index is either wholly in use or not at all), every /healthz must name a folder built from one
of them with that corpus's record count, and no request may fail. The failed build must exit
non-zero, say why (file and offset), and leave the serving index as it was.

`run` is shared by tests/test_live_rebuild.py (a short run, few clients) and scripts/soak
(60 s, 16 clients, builds back and forth for the whole time).
"""
from __future__ import annotations

import http.client
import itertools
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from harness.server import HOST, Server, free_port
from indexer.knowledge.library import Library
from indexer.search.build import build, current_folder
from webapp.urls import addressed

from .measure import ROOT, percentile

CHANGED_FILE = "keyword-digest-2009.txt"
CHANGE = ("頌威", "頌揚")          # exalted's Chinese name in the keyword digest, and a new one
BROKEN_FILE = "worldwake-faq-zh-hant.txt"
# Queries whose answers differ between the old and the new corpus, and some that do not.
PROBES = ["頌威", "頌揚", "exalted", "702.80", "留存", "Murderous Redcap", "702.30a", "混亂乙太"]
HEALTH_EVERY = 5                  # every fifth request of a client is /healthz


@dataclass
class Observation:
    started: float
    seconds: float
    path: str
    query: str | None = None          # the probe, for a search
    status: int | None = None
    body: bytes = b""
    error: str = ""


@dataclass
class Outcome:
    """What a run saw, with its verdicts (`problems` empty means the run passed)."""

    observations: list[Observation]
    builds: list[dict]
    labels: dict[str, str]            # built folder name -> "old" / "new"
    answers: dict[str, dict]          # "old" / "new" -> probe -> projection of the answer
    counts: dict[str, int]            # "old" / "new" -> records
    seconds: float
    clients: int
    problems: list[str] = field(default_factory=list)
    seen: dict[str, int] = field(default_factory=dict)   # responses matching only "old" / only "new" / "both"

    def classify(self, observation: Observation) -> tuple[set[str], str]:
        return classify(observation, self.answers, self.counts, self.labels)

    def during_builds(self, observation: Observation, settle: float = 2.0) -> bool:
        """Whether a request overlapped a build or the reopening of the index after it."""
        return any(b["started"] <= observation.started + observation.seconds
                   and observation.started <= b["ended"] + settle for b in self.builds)

    def figures(self) -> dict:
        times = [o.seconds for o in self.observations]
        quiet = [o.seconds for o in self.observations if not self.during_builds(o)]
        busy = [o.seconds for o in self.observations if self.during_builds(o)]
        return {
            "quiet_requests": len(quiet), "quiet_p50_ms": percentile(quiet, 50) * 1000,
            "quiet_p99_ms": percentile(quiet, 99) * 1000, "build_requests": len(busy),
            "build_p50_ms": percentile(busy, 50) * 1000, "build_p99_ms": percentile(busy, 99) * 1000,
            "requests": len(self.observations), "failed": sum(1 for o in self.observations if o.status != 200),
            "rps": len(self.observations) / self.seconds if self.seconds else 0.0,
            "p50_ms": percentile(times, 50) * 1000, "p99_ms": percentile(times, 99) * 1000,
            "max_ms": max(times, default=0.0) * 1000,
            "switches": sum(1 for b in self.builds if b["ok"]),
            "failed_builds": sum(1 for b in self.builds if not b["ok"]),
            "build_s": [round(b["seconds"], 1) for b in self.builds],
        }


def projection(answer: dict) -> list:
    """What must be equal between two answers from the same index (not timings)."""
    return [answer["total"], answer["rule_jump"], answer["did_you_mean"],
            [(r["id"], r["title"], r["rule"], r["snippet"]) for r in answer["results"]]]


def make_corpora(source: Path, work: Path) -> dict[str, Path]:
    old = work / "corpus-old"
    shutil.copytree(source, old)
    new = work / "corpus-new"
    shutil.copytree(source, new)
    changed = new / CHANGED_FILE
    text = changed.read_text(encoding="utf-8")
    assert CHANGE[0] in text, f"{changed} no longer holds {CHANGE[0]!r}: choose another change"
    changed.write_text(text.replace(*CHANGE), encoding="utf-8")
    broken = work / "corpus-broken"
    shutil.copytree(new, broken)
    (broken / BROKEN_FILE).write_bytes(b"\xff\xfe not UTF-8\n")
    return {"old": old, "new": new, "broken": broken}


def expected_answers(corpus: Path, root: Path) -> tuple[dict[str, list], int, str]:
    """Answers of the index of `corpus` (built into `root`) to every probe, as the API gives
    them (with each record's address), its record count and its folder's name."""
    outcome = build([corpus], root=root)
    library = Library(outcome.folder)
    try:
        answers = {q: projection(addressed(library, library.search(q, 10))) for q in PROBES}
        return answers, len(library.records), outcome.folder.name
    finally:
        library.close()


def build_cli(corpus: Path, root: Path) -> dict:
    """`python -m indexer build` into the served root, as an operator (or scripts/serve) runs it."""
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "indexer", "build", "--index-root", str(root), str(corpus)],
                            cwd=ROOT, capture_output=True, text=True, timeout=900,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    last = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    folder = last.split()[1] if last.startswith("built ") else None
    return {"corpus": corpus.name, "ok": result.returncode == 0, "returncode": result.returncode,
            "folder": Path(folder).name if folder else None, "stderr": result.stderr,
            "started": started, "ended": time.monotonic(), "seconds": time.monotonic() - started}


class Clients:
    """Threads that query the server continuously until stopped: the probes in turn, with a
    /healthz now and then. Every request is on a new connection (gunicorn's sync workers
    close each one)."""

    def __init__(self, port: int, count: int):
        self.port, self.count = port, count
        self.observations: list[Observation] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._loop, args=(n,), daemon=True) for n in range(count)]

    def start(self) -> Clients:
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> list[Observation]:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=60)
        return sorted(self.observations, key=lambda o: o.started)

    def recent(self, n: int) -> list[Observation]:
        with self._lock:
            return self.observations[-n:]

    def _loop(self, n: int) -> None:
        for i in itertools.count(n):
            if self._stop.is_set():
                return
            query = None if i % HEALTH_EVERY == 0 else PROBES[i % len(PROBES)]
            path = "/healthz" if query is None else "/api/search?q=" + quote(query, safe="")
            observation = Observation(time.monotonic(), 0.0, path, query)
            conn = http.client.HTTPConnection(HOST, self.port, timeout=30)
            try:
                conn.request("GET", path)
                response = conn.getresponse()
                observation.status, observation.body = response.status, response.read()
            except OSError as exc:
                observation.error = f"{type(exc).__name__}: {exc}"
            finally:
                conn.close()
            observation.seconds = time.monotonic() - observation.started
            with self._lock:
                self.observations.append(observation)


def classify(observation: Observation, answers: dict[str, dict], counts: dict[str, int],
             labels: dict[str, str]) -> tuple[set[str], str]:
    """The corpora a response is consistent with, and what is wrong when none."""
    if observation.status != 200:
        return set(), f"{observation.path}: {observation.status or observation.error} {observation.body[:200]!r}"
    data = json.loads(observation.body)
    if observation.query is None:
        label = labels.get(data.get("index"))
        if label is None:
            return set(), f"/healthz names {data.get('index')!r}, which no build of the run made"
        if data.get("records") != counts[label]:
            return set(), (f"/healthz: {data.get('records')} records in {data['index']}, "
                           f"not the {counts[label]} of {label}")
        return {label}, ""
    matching = {label for label, by_query in answers.items() if by_query[observation.query] == projection(data)}
    return matching, "" if matching else f"{observation.path}: an answer of neither index: {projection(data)!r:.300}"


def wait_for_new(clients: Clients, answers: dict, counts: dict, labels: dict, timeout: float = 60.0) -> bool:
    """Until the last responses (enough to reach both workers) all come from the new index."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        recent = clients.recent(4 * clients.count + 10)
        kinds = [classify(o, answers, counts, labels)[0] for o in recent]
        if len(recent) >= 10 and all("new" in k for k in kinds) and {"new"} in kinds:
            return True
        time.sleep(0.2)
    return False


def run(source: Path, work: Path, clients: int, seconds: float, log=print) -> Outcome:
    """Serve the old corpus, load it with `clients`, and rebuild: new, a failed broken build,
    then (while time is left) old and new in turn. At least one switch and one failed build
    happen however short `seconds` is."""
    corpora = make_corpora(source, work)
    root = work / "served"
    answers, counts = {}, {}
    answers["old"], counts["old"], first = expected_answers(corpora["old"], root)
    answers["new"], counts["new"], _ = expected_answers(corpora["new"], work / "expected-new")
    labels = {first: "old"}
    builds: list[dict] = []
    with Server.real_app(root, free_port()) as server:
        server.check_index()
        load = Clients(server.port, clients).start()
        started = time.monotonic()
        time.sleep(1.5)
        plan = itertools.chain(["new", "broken"], itertools.cycle(["old", "new"]))
        for label in plan:
            if builds and time.monotonic() - started >= seconds - 1.5 and any(not b["ok"] for b in builds):
                break
            outcome = build_cli(corpora[label], root)
            builds.append(outcome)
            log(f"build of corpus {label}: {'switched to ' + outcome['folder'] if outcome['ok'] else 'failed'} "
                f"in {outcome['seconds']:.1f} s")
            if outcome["ok"]:
                labels[outcome["folder"]] = label
                if label == "new" and not wait_for_new(load, answers, counts, labels):
                    log("the server did not take the new index within 60 s")
                    break
        time.sleep(1.5)
        observations = load.stop()
        elapsed = time.monotonic() - started
        served_last = current_folder(root)
    result = Outcome(observations, builds, labels, answers, counts, elapsed, clients)
    seen = {"old": 0, "new": 0, "both": 0}
    for observation in observations:
        matching, problem = result.classify(observation)
        if problem:
            result.problems.append(problem)
        elif matching == {"old", "new"}:
            seen["both"] += 1
        else:
            seen[next(iter(matching))] += 1
    result.seen = seen
    failed = [b for b in builds if not b["ok"]]
    for b in failed:
        if b["corpus"] != corpora["broken"].name:
            result.problems.append(f"build of {b['corpus']} failed: {b['stderr'][-500:]}")
    if served_last is None or served_last.name not in labels:
        result.problems.append(f"the index in use at the end, {served_last}, is not one the run built")
    return result


def render(outcome: Outcome) -> str:
    f = outcome.figures()
    return (f"{f['requests']} requests from {outcome.clients} clients in {outcome.seconds:.1f} s "
            f"({f['rps']:.1f}/s): {f['failed']} failed; latency p50 {f['p50_ms']:.1f} ms, p99 {f['p99_ms']:.1f} ms, "
            f"max {f['max_ms']:.1f} ms (no build running: {f['quiet_requests']} requests, "
            f"p50 {f['quiet_p50_ms']:.1f} ms, p99 {f['quiet_p99_ms']:.1f} ms; during a build or within 2 s after: "
            f"{f['build_requests']} requests, p50 {f['build_p50_ms']:.1f} ms, p99 {f['build_p99_ms']:.1f} ms); "
            f"{f['switches']} index switches and {f['failed_builds']} failed build(s) "
            f"(build times {f['build_s']} s); answers from the old index only {outcome.seen.get('old', 0)}, "
            f"the new only {outcome.seen.get('new', 0)}, the same in both {outcome.seen.get('both', 0)}; "
            f"inconsistent or failed: {len(outcome.problems)}")

"""A new build becomes current under load: gunicorn's master opens and warms it, new workers
forked with it serve it, and no reader's request opens it (webapp/build_follower.py).

gunicorn with the production settings (deploy/gunicorn.conf.py) serves a copy of the
session's index of corpus/, with a second whole build beside it; four clients search and ask
/healthz without pause while `CURRENT` is switched to the second build. Every request must
answer 200, both builds must have answered, and every answer from the new build must come from
a library the master opened (`opened_in`), in workers other than the old ones, which are gone
after the switch. The latencies are printed (docs/benchmarks.md); the bound asserted, a second,
is what a worker opening the build inside a request took (2.5 s), not the 100 ms target, which
a shared machine running the other tests cannot promise.
"""
from __future__ import annotations

import http.client
import json
import os
import shutil
import threading
import time

import pytest

from harness.server import HOST, Server, free_port
from indexer.search.build import CURRENT, current_folder

pytestmark = pytest.mark.server  # a real gunicorn, forking workers

CLIENTS = 4
SECONDS_BEFORE, SECONDS_AFTER = 3.0, 3.0
SWITCH_SECONDS = 120


def test_a_new_build_is_opened_by_the_master_and_served_by_new_workers(kb_index, tmp_path):
    root = tmp_path / "index"
    shutil.copytree(kb_index, root)
    served = current_folder(root)
    assert served is not None
    other = root / (served.name[:-1] + ("0" if served.name[-1] != "0" else "1"))
    shutil.copytree(served, other)
    answers: list[tuple[float, float, str, int, dict]] = []  # started, seconds, path, status, health
    stop = threading.Event()

    def client(n: int) -> None:
        asked = 0
        while not stop.is_set():
            asked += 1
            path = "/healthz" if asked % 3 == 0 else f"/api/search?q=persist+counter{n}x{asked}"
            started = time.monotonic()
            conn = http.client.HTTPConnection(HOST, server.port, timeout=30)
            try:
                conn.request("GET", path)
                response = conn.getresponse()
                body = response.read()
            finally:
                conn.close()
            health = json.loads(body) if path == "/healthz" and response.status == 200 else {}
            answers.append((started, time.monotonic() - started, path, response.status, health))

    with Server.production(root, free_port(), log=tmp_path / "gunicorn.log") as server:
        server.check_index()
        master, old_workers = server.process.pid, set(server.worker_pids())
        clients = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(CLIENTS)]
        for thread in clients:
            thread.start()
        time.sleep(SECONDS_BEFORE)
        switched = time.monotonic()
        pointer = root / f".{CURRENT}.test"
        pointer.write_text(other.name + "\n", encoding="ascii")
        os.replace(pointer, root / CURRENT)
        # Until the old workers are gone (on a loaded machine the master takes longer to open
        # the build), and then a while more under the new ones.
        deadline = time.monotonic() + SWITCH_SECONDS
        while set(server.worker_pids()) & old_workers and time.monotonic() < deadline:
            time.sleep(0.5)
        time.sleep(SECONDS_AFTER)
        stop.set()
        for thread in clients:
            thread.join(60)
        new_workers = set(server.worker_pids())
        log = server.output()
    after = [seconds for started, seconds, *_ in answers if started >= switched]
    before = [seconds for started, seconds, *_ in answers if started < switched]
    print(f"\n{len(answers)} requests from {CLIENTS} clients; the slowest {max(before) * 1000:.0f} ms before the "
          f"switch and {max(after) * 1000:.0f} ms after it ({sum(s > 0.1 for s in after)} over 100 ms)")
    assert [a for a in answers if a[3] != 200] == []
    healths = [health for *_, health in answers if health]
    assert {h["index"] for h in healths} == {served.name, other.name}
    assert {h["opened_in"] for h in healths if h["index"] == other.name} == {master}
    assert {h["pid"] for h in healths if h["index"] == other.name} <= new_workers
    assert len(new_workers) == 2 and not new_workers & old_workers
    assert f"opened {other.name}" in log and "Traceback" not in log
    assert max(after) < 1.0

"""Two app replicas behind nginx (deploy/) under 16 clients for 30 s: one replica is killed
and started again, then a new index is rolled to both, one after the other. No request may
fail, and no client may see the older index after it has seen the newer one.

nginx is Debian's package: scripts/test installs it as root when missing; without it this
test skips, except under CI=true where it fails.
"""
from __future__ import annotations

import http.client
import json
import os
import threading
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from corpus_support import copy_corpus

from deploy.proxy import nginx_binary
from deploy.replicas import Cluster
from harness.server import HOST
from indexer.search.build import build

pytestmark = pytest.mark.server  # nginx in front of two gunicorn replicas

CLIENTS = 16
SECONDS = 30.0
KILL_AT, ROLL_AT, AFTER_ROLL = 4.0, 12.0, 3.0
QUERIES = ["persist", "留存", "702.30a", "奪魂紅帽客", "夺魂红帽客", "Murderous Redcap", "kicker", "規則 502.79"]


def _answer_build(conn_port: int, path: str) -> tuple[int, str | None]:
    """(status, index build that answered), over a new connection as a browser's would be."""
    conn = http.client.HTTPConnection(HOST, conn_port, timeout=30)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read()
        if response.status != 200:
            return response.status, None
        if path == "/healthz":
            return 200, json.loads(body)["index"]
        json.loads(body)
        return 200, response.getheader("ETag", "").removeprefix('W/"').split(".")[0]
    finally:
        conn.close()


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory) -> tuple[Path, Path]:
    """Two index builds of the small corpus, the second from a changed document."""
    if nginx_binary() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("nginx is missing (scripts/test installs Debian's nginx as root)")
        pytest.skip("nginx is not installed (apt-get install nginx)")
    base = tmp_path_factory.mktemp("artifacts")
    corpus = copy_corpus(("worldwake-faq", "planechase-guide"), base / "corpus")
    old = build([corpus], root=base / "old").folder
    guide = corpus / "planechase-guide-zh-hant.txt"
    guide.write_text(guide.read_text(encoding="utf-8") + "\n\n", encoding="utf-8")
    new = build([corpus], root=base / "new").folder
    assert old.name != new.name
    return old, new


def test_a_killed_replica_and_a_rolled_index_lose_no_request_and_never_go_back(artifacts, tmp_path):
    old, new = artifacts
    with Cluster(old, tmp_path / "cluster", replicas=2, workers=1) as cluster:
        stop = threading.Event()
        seen: list[list[str]] = [[] for _ in range(CLIENTS)]
        failures: list[str] = []

        def client(n: int) -> None:
            i = n
            while not stop.is_set():
                i += 1
                path = "/healthz" if i % 5 == 0 else "/api/search?q=" + quote(QUERIES[i % len(QUERIES)])
                try:
                    status, build_name = _answer_build(cluster.port, path)
                except (OSError, ValueError, http.client.HTTPException) as exc:  # a cut answer fails too
                    failures.append(f"{path}: {exc!r}")
                    continue
                if status != 200 or build_name not in (old.name, new.name):
                    failures.append(f"{path}: {status} from {build_name!r}")
                else:
                    seen[n].append(build_name)

        threads = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(CLIENTS)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        time.sleep(KILL_AT)
        cluster.kill(0)
        cluster.start(0)
        time.sleep(max(0.0, ROLL_AT - (time.monotonic() - started)))
        assert cluster.roll(new) == new.name
        # At least SECONDS in all, and a while on the new index however long the roll took.
        time.sleep(max(AFTER_ROLL, SECONDS - (time.monotonic() - started)))
        stop.set()
        for thread in threads:
            thread.join(timeout=60)

    assert not failures, (f"{len(failures)} of {len(failures) + sum(map(len, seen))} requests failed, "
                          f"e.g. {failures[:5]}")
    for n, builds in enumerate(seen):
        assert builds and builds[0] == old.name and builds[-1] == new.name, f"client {n}"
        switch = builds.index(new.name)
        assert set(builds[switch:]) == {new.name}, f"client {n} saw {old.name} after {new.name}"
    assert sum(map(len, seen)) > CLIENTS * 20

"""However clients send or stall, they cannot exhaust `./scripts/serve`, and a request that does
not arrive in time is answered 408: HAProxy in front of nginx in front of gunicorn
(deploy/serve.py, deploy/haproxy.cfg, deploy/nginx.conf) waits for them, holding none of
gunicorn's workers.

Against a real `scripts/serve` (KB_REQUEST_SECONDS set small) over the knowledge base: 1,000
loopback connections of each kind of `harness.stalled` are opened and left silent (the fake
last chunk of a chunked body, which held a thread of an earlier worker until it gave up, among
them; a fifth as many whole requests, answered first, then idle); meanwhile /healthz and a
search must answer within a second, every time; then every stalled request must be answered
408 and closed within KB_REQUEST_SECONDS and a margin, none before, and every idle connection
closed without another word. Bounded: a few thousand sockets for about half a minute.
"""
from __future__ import annotations

import json
import shutil

import pytest

from harness.server import Server, free_port
from harness.stalled import BODY_KINDS, IDLE, KINDS, hold

pytestmark = pytest.mark.server  # scripts/serve: HAProxy and nginx in front of gunicorn

REQUEST_SECONDS = 15
STALLED = 1000  # of each kind
ANSWER_LIMIT = 1.0
CLOSE_MARGIN = 6.0  # timers are checked as events come, and the machine is shared


@pytest.fixture
def served(kb_index, tmp_path, monkeypatch):
    """scripts/serve over a copy of the session's index of corpus/ (up to date: serve does not
    build it again), KB_REQUEST_SECONDS small."""
    shutil.copytree(kb_index, tmp_path / "index")
    monkeypatch.setenv("KB_REQUEST_SECONDS", str(REQUEST_SECONDS))
    server = Server.serve_script(tmp_path / "index", free_port(), log=tmp_path / "serve.log")
    try:
        server.check_index(300)
        yield server
    finally:
        server.stop()


def test_thousands_of_stalled_connections_neither_stop_the_service_nor_outlive_the_deadline(served):
    held = hold(served.port, STALLED, REQUEST_SECONDS + CLOSE_MARGIN)
    closed_times = {kind: [lasted for lasted, _ in ends] for kind, ends in held.closed.items() if ends}
    answered_408 = {kind: sum(got.startswith(b"HTTP/1.1 408 ") for _, got in ends)
                    for kind, ends in held.closed.items()}
    print(f"\n{held.per_kind} stalled connections of each of {len(KINDS) - 1} kinds and "
          f"{len(held.closed[IDLE]) + held.left.get(IDLE, 0)} whole requests, then idle, "
          f"KB_REQUEST_SECONDS={REQUEST_SECONDS}: /healthz and a search answered in "
          f"{held.slowest('/healthz'):.3f} and {held.slowest('search'):.3f} s at most "
          f"({len(held.checks) // 2} each, in {held.checked_in:.2f} s while all were open); closed after "
          f"(min-max s): " + "; ".join(f"{kind} {min(times):.1f}-{max(times):.1f}"
                                       for kind, times in closed_times.items())
          + "; answered 408: " + ", ".join(f"{kind} {count}" for kind, count in answered_408.items()))
    slow = [check for check in held.checks if check[1] != 200 or check[2] >= ANSWER_LIMIT]
    assert not slow, slow
    assert held.unanswered == 0
    assert not held.left, f"still open {CLOSE_MARGIN:.0f} s after the deadline: {held.left}"
    early = [(kind, lasted) for kind, times in closed_times.items() for lasted in times
             if lasted < REQUEST_SECONDS - 0.5]
    assert not early, early[:5]
    for kind, ends in held.closed.items():
        if kind == IDLE:
            # Its one answer, then nothing: the connection is closed without a word.
            assert all(got.startswith(b"HTTP/1.1 200 ") and got.count(b"HTTP/1.1 ") == 1 for _, got in ends)
        else:
            assert answered_408[kind] == len(ends) == held.per_kind, kind
    for kind in BODY_KINDS:
        # A request whose head arrived is answered in the app's error shape: JSON for /api/.
        for _, got in held.closed[kind][:20]:
            head, _, body = got.partition(b"\r\n\r\n")
            assert b"content-type: application/json" in head.lower()
            assert json.loads(body)["error"]["status"] == 408
    assert "Traceback" not in served.output()

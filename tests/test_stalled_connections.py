"""However clients send or stall, they cannot exhaust `./scripts/serve`: nginx in front of
gunicorn (deploy/serve.py, deploy/nginx.conf) waits for them, holding none of gunicorn's
workers, and closes each after KB_REQUEST_SECONDS without progress.

Against a real `scripts/serve` (KB_REQUEST_SECONDS set small) over the knowledge base: STALLED
loopback connections of each kind below are opened and left silent (the fake last chunk of
a chunked body, which held a thread of the earlier worker until it gave up, among them; a
fifth as many whole requests, answered first, then idle); meanwhile /healthz and a search
must answer within a second, every time; then every stalled connection must be closed (or
answered 408) within KB_REQUEST_SECONDS and a margin, none before. Bounded: a few thousand
sockets for about half a minute.
"""
from __future__ import annotations

import resource
import selectors
import shutil
import socket
import time

import pytest

from harness.server import HOST, Server, free_port

pytestmark = pytest.mark.server  # scripts/serve: nginx in front of gunicorn

REQUEST_SECONDS = 15
STALLED = 1000  # of each kind
CHECKS = 5
ANSWER_LIMIT = 1.0
CLOSE_MARGIN = 6.0  # nginx checks its timers as events come, and the machine is shared

KINDS = {
    "nothing sent": b"",
    "half a head": b"GET /api/search?q=persist HTTP/1.1\r\nHost: kb\r\nAccept: */*\r\n",
    "head, half a body": b"POST /api/linkify HTTP/1.1\r\nHost: kb\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 1000\r\n\r\n{\"text\": \"702.30a",
    "chunked, half a chunk": b"POST /api/linkify HTTP/1.1\r\nHost: kb\r\nContent-Type: application/json\r\n"
                             b"Transfer-Encoding: chunked\r\n\r\n100\r\n{\"text\"",
    "chunked, a fake last chunk": b"POST /api/linkify HTTP/1.1\r\nHost: kb\r\nTransfer-Encoding: chunked\r\n\r\n"
                                  b"100\r\n0\r\n\r\n",
    "a whole request, then idle": b"GET /healthz HTTP/1.1\r\nHost: kb\r\n\r\n",
}
IDLE = "a whole request, then idle"
IDLE_SHARE = 5  # a fifth as many of those: each is a request to answer before the checks


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


def timed_get(port: int, path: str) -> tuple[int | str, float]:
    started = time.monotonic()
    try:
        with socket.create_connection((HOST, port), timeout=10) as sock:
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: kb\r\nConnection: close\r\n\r\n".encode())
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        status: int | str = int(answer.split(b" ", 2)[1])
    except (OSError, ValueError, IndexError) as exc:
        status = repr(exc)
    return status, time.monotonic() - started


@pytest.mark.server
def test_thousands_of_stalled_connections_neither_stop_the_service_nor_outlive_the_deadline(served):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = STALLED * len(KINDS) + 500
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    per_kind = min(STALLED, (min(wanted, hard) - 500) // len(KINDS))
    selector = selectors.DefaultSelector()
    opened: dict[socket.socket, tuple[str, float]] = {}
    received: dict[socket.socket, bytes] = {}

    def open_stalled(kind: str) -> None:
        for _ in range(per_kind if kind != IDLE else per_kind // IDLE_SHARE):
            sock = socket.create_connection((HOST, served.port), timeout=10)
            if KINDS[kind]:
                sock.sendall(KINDS[kind])
            sock.setblocking(False)
            opened[sock] = (kind, time.monotonic())
            selector.register(sock, selectors.EVENT_READ)

    try:
        # The whole requests first, a thousand answers to make; once answered, left idle.
        open_stalled(IDLE)
        waiting = set(opened)
        answers_by = time.monotonic() + REQUEST_SECONDS / 2
        while waiting and time.monotonic() < answers_by:
            for key, _ in selector.select(timeout=0.1):
                sock = key.fileobj
                try:
                    received[sock] = received.get(sock, b"") + sock.recv(65536)
                except (BlockingIOError, InterruptedError):
                    continue
                waiting.discard(sock)
        assert not waiting, f"{len(waiting)} whole requests not answered in {REQUEST_SECONDS / 2} s"
        for kind in KINDS:
            if kind != IDLE:
                open_stalled(kind)
        all_open = time.monotonic()
        checks = []
        for _ in range(CHECKS):
            checks.append(("/healthz", *timed_get(served.port, "/healthz")))
            checks.append(("search", *timed_get(served.port, "/api/search?q=multikicker")))
        checked = time.monotonic() - all_open
        closed: dict[str, list[float]] = {kind: [] for kind in KINDS}
        answered_408 = 0
        early = []
        deadline = max(t for _, t in opened.values()) + REQUEST_SECONDS + CLOSE_MARGIN
        while opened and time.monotonic() < deadline:
            for key, _ in selector.select(timeout=0.5):
                sock = key.fileobj
                try:
                    data = sock.recv(65536)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                if data:
                    received[sock] = received.get(sock, b"") + data
                    continue
                kind, started = opened.pop(sock)
                lasted = time.monotonic() - started
                closed[kind].append(lasted)
                answered_408 += received.get(sock, b"").startswith(b"HTTP/1.1 408")
                if lasted < REQUEST_SECONDS - 0.5:
                    early.append((kind, lasted, received.get(sock, b"")[:200]))
                selector.unregister(sock)
                sock.close()
        left = {}
        for kind, _ in opened.values():
            left[kind] = left.get(kind, 0) + 1
    finally:
        for sock in list(opened):
            sock.close()
        selector.close()
    slow = [check for check in checks if check[1] != 200 or check[2] >= ANSWER_LIMIT]
    print(f"\n{per_kind} stalled connections of each of {len(KINDS) - 1} kinds and {per_kind // IDLE_SHARE} "
          f"whole requests, then idle: {sum(len(times) for times in closed.values()) + sum(left.values())} in all, "
          f"KB_REQUEST_SECONDS={REQUEST_SECONDS}: /healthz and a search answered in "
          f"{max(c[2] for c in checks if c[0] == '/healthz'):.3f} and "
          f"{max(c[2] for c in checks if c[0] == 'search'):.3f} s at most ({CHECKS} each, in {checked:.2f} s "
          f"while all were open); closed after (min-max s): " + "; ".join(
              f"{kind} {min(times):.1f}-{max(times):.1f}" for kind, times in closed.items() if times)
          + f"; answered 408 before closing: {answered_408}")
    assert not slow, slow
    assert not left, f"still open {REQUEST_SECONDS + CLOSE_MARGIN:.0f} s after the deadline: {left}"
    assert not early, early[:5]
    assert "Traceback" not in served.output()

"""Connections that stall, held open against a server on loopback while the service is asked
for /healthz and a search: tests/test_stalled_connections.py asserts what comes of them, the
benchmark `scripts/bench front` (benchmarks/front.py) prints it.

Of each kind below, `per_kind` connections are opened and left silent (the whole requests,
a fifth as many, are answered first, then left idle); with all of them open the service is
asked `checks` times for each check; then every connection is watched until it is closed
or the deadline passes, and what it received and when it closed are kept.

Only 127.0.0.1 is contacted.
"""
from __future__ import annotations

import resource
import selectors
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .server import HOST

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
# The kinds whose head is whole: their path is known when the wait for the body ends.
BODY_KINDS = ("head, half a body", "chunked, half a chunk", "chunked, a fake last chunk")
IDLE_SHARE = 5  # a fifth as many of those: each is a request to answer before the checks
CHECKS = {"/healthz": "/healthz", "search": "/api/search?q=multikicker"}
# Descriptors kept for everything else of the process.
SPARE_FILES = 500


@dataclass
class Held:
    per_kind: int
    checks: list[tuple[str, int | str, float]] = field(default_factory=list)  # (check, status, seconds)
    checked_in: float = 0.0  # seconds all checks took, while every connection was open
    unanswered: int = 0  # whole requests not answered before the checks
    # kind: (seconds from opening to closing, everything received)
    closed: dict[str, list[tuple[float, bytes]]] = field(default_factory=dict)
    left: dict[str, int] = field(default_factory=dict)  # still open at the deadline, by kind

    def slowest(self, check: str) -> float:
        return max(seconds for name, _, seconds in self.checks if name == check)


def timed_get(port: int, path: str) -> tuple[int | str, float]:
    """One GET over a new connection: its status (or the error) and the seconds it took."""
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


def hold(port: int, per_kind: int, deadline_seconds: float, checks: int = 5,
         while_open: Callable[[], None] | None = None) -> Held:
    """Hold up to `per_kind` connections of each kind (fewer if the process may not open so
    many files), check the service meanwhile (and call `while_open`), and watch them for
    `deadline_seconds` after the last opened."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = per_kind * len(KINDS) + SPARE_FILES
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    held = Held(min(per_kind, (min(wanted, hard) - SPARE_FILES) // len(KINDS)))
    selector = selectors.DefaultSelector()
    opened: dict[socket.socket, tuple[str, float]] = {}
    received: dict[socket.socket, bytes] = {}

    def open_stalled(kind: str) -> None:
        for _ in range(held.per_kind if kind != IDLE else held.per_kind // IDLE_SHARE):
            sock = socket.create_connection((HOST, port), timeout=10)
            if KINDS[kind]:
                sock.sendall(KINDS[kind])
            sock.setblocking(False)
            opened[sock] = (kind, time.monotonic())
            selector.register(sock, selectors.EVENT_READ, sock)

    try:
        # The whole requests first; once answered, left idle.
        open_stalled(IDLE)
        waiting = set(opened)
        answers_by = time.monotonic() + deadline_seconds / 2
        while waiting and time.monotonic() < answers_by:
            for key, _ in selector.select(timeout=0.1):
                sock = key.data
                try:
                    received[sock] = received.get(sock, b"") + sock.recv(65536)
                except (BlockingIOError, InterruptedError):
                    continue
                waiting.discard(sock)
        held.unanswered = len(waiting)
        for kind in KINDS:
            if kind != IDLE:
                open_stalled(kind)
        all_open = time.monotonic()
        for _ in range(checks):
            for name, path in CHECKS.items():
                held.checks.append((name, *timed_get(port, path)))
        held.checked_in = time.monotonic() - all_open
        if while_open is not None:
            while_open()
        held.closed = {kind: [] for kind in KINDS}
        deadline = max(t for _, t in opened.values()) + deadline_seconds
        while opened and time.monotonic() < deadline:
            for key, _ in selector.select(timeout=0.5):
                sock = key.data
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
                held.closed[kind].append((time.monotonic() - started, received.get(sock, b"")))
                selector.unregister(sock)
                sock.close()
        for kind, _ in opened.values():
            held.left[kind] = held.left.get(kind, 0) + 1
    finally:
        for sock in list(opened):
            sock.close()
        selector.close()
    return held

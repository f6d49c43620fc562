"""Clients that ask and then do not read, give up, post hostile markup or speak HTTP/2 in clear
text, against a real `scripts/serve` (HAProxy, nginx, gunicorn) with KB_REQUEST_SECONDS small.

- 300 clients ask for the largest answer (the offline data, uncompressed) and never read: the
  host's TCP memory (/proc/net/sockstat) stays under 200 MB, and the server's ends of their
  connections are gone within 30 s of the timeout although the clients keep theirs open.
- 300 long distinct searches whose clients reset their connections after 100 ms cost the
  workers under a second of CPU, and /healthz answers within a second meanwhile.
- A burst of the linker's most hostile posts never keeps /healthz waiting a second.
- A connection opening with HTTP/2's preface, or asking to upgrade to h2c, is answered in
  HTTP/1.1.
"""
from __future__ import annotations

import shutil
import socket
import struct
import subprocess
import threading
import time
from pathlib import Path

import pytest

from harness.server import Server, cpu_seconds, free_port

pytestmark = pytest.mark.server  # scripts/serve: HAProxy and nginx in front of gunicorn

REQUEST_SECONDS = 5
HOST = "127.0.0.1"


@pytest.fixture(scope="module")
def served(kb_index, tmp_path_factory):
    folder = tmp_path_factory.mktemp("edge-clients")
    shutil.copytree(kb_index, folder / "index")
    mp = pytest.MonkeyPatch()
    mp.setenv("KB_REQUEST_SECONDS", str(REQUEST_SECONDS))
    server = Server.serve_script(folder / "index", free_port(), log=folder / "serve.log")
    mp.undo()
    try:
        server.check_index(300)
        yield server
    finally:
        server.stop()


def gunicorn_pids(server: Server) -> list[int]:
    """gunicorn's master and workers under the server's process tree."""
    found, pending = [], [server.process.pid]
    while pending:
        pid = pending.pop()
        children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
        pending += [int(child) for child in children]
        try:
            if b"gunicorn" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except FileNotFoundError:
            pass
    return found


def tcp_memory_mb() -> float:
    """The kernel's TCP memory in use, host-wide (pages of 4 KB)."""
    for line in Path("/proc/net/sockstat").read_text().splitlines():
        if line.startswith("TCP:"):
            fields = line.split()
            return int(fields[fields.index("mem") + 1]) * 4096 / 2**20
    raise AssertionError("no TCP line in /proc/net/sockstat")


def server_ends(port: int) -> int:
    """Connections whose local end is `port`, but the listening socket (/proc/net/tcp)."""
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        if int(local.split(":")[1], 16) == port and state != "0A":  # 0A: LISTEN
            count += 1
    return count


class HealthChecks(threading.Thread):
    """/healthz asked every 0.2 s until stopped: each answer's status and seconds."""

    def __init__(self, port: int):
        super().__init__(daemon=True)
        self.port, self.stop, self.answers = port, threading.Event(), []

    def run(self):
        while not self.stop.is_set():
            started = time.monotonic()
            try:
                with socket.create_connection((HOST, self.port), timeout=10) as sock:
                    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    status = sock.recv(64)[9:12]
            except OSError:
                status = b"---"
            self.answers.append((status, time.monotonic() - started))
            self.stop.wait(0.2)

    def slowest(self) -> float:
        self.stop.set()
        self.join()
        assert self.answers and all(status == b"200" for status, _ in self.answers), self.answers
        return max(seconds for _, seconds in self.answers)


def test_clients_that_do_not_read_hold_bounded_memory_freed_at_the_timeout(served):
    clients, before, peak = [], tcp_memory_mb(), 0.0
    request = b"GET /api/offline/data HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\n\r\n"
    try:
        for _ in range(300):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # and never read
            sock.connect((HOST, served.port))
            sock.sendall(request)
            clients.append(sock)
        started = time.monotonic()
        while server_ends(served.port) and time.monotonic() - started < REQUEST_SECONDS + 30:
            peak = max(peak, tcp_memory_mb() - before)
            time.sleep(0.5)
        lasted, left = time.monotonic() - started, server_ends(served.port)
    finally:
        for sock in clients:
            sock.close()
    print(f"\n300 clients not reading /api/offline/data: TCP memory at most {peak:.0f} MB above the "
          f"{before:.0f} MB before; the server's ends gone after {lasted:.1f} s ({left} left)")
    assert peak < 200
    assert left == 0


def test_searches_whose_clients_have_gone_are_not_run(served):
    health = HealthChecks(served.port)
    health.start()
    pids = gunicorn_pids(served)
    before = cpu_seconds(pids)
    clients = []
    for n in range(300):  # distinct long queries: none is answered from a cache
        query = "+".join(f"persist{n}x{i}+counter{n}y{i}" for i in range(24))[:500]
        sock = socket.create_connection((HOST, served.port))
        sock.sendall(f"GET /api/search?q={query}&limit=50 HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        clients.append(sock)
    time.sleep(0.1)
    for sock in clients:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # reset
        sock.close()
    time.sleep(8)
    spent, slowest = cpu_seconds(pids) - before, health.slowest()
    print(f"\n300 long searches reset after 100 ms: the workers spent {spent:.2f} s of CPU; "
          f"/healthz answered in {slowest:.3f} s at most")
    assert spent < 1.0
    assert slowest < 1.0


def test_a_burst_of_hostile_posts_never_keeps_the_health_check_waiting(served):
    body = ('{"format": "html", "text": "' + "<b>a" * 25_000 + '"}').encode()
    request = (b"POST /api/linkify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n"
               b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    statuses: list[bytes] = []

    def post():
        with socket.create_connection((HOST, served.port), timeout=60) as sock:
            sock.sendall(request)
            statuses.append(sock.recv(64)[9:12])

    health = HealthChecks(served.port)
    health.start()
    posts = [threading.Thread(target=post) for _ in range(200)]
    for thread in posts:
        thread.start()
    for thread in posts:
        thread.join()
    slowest = health.slowest()
    print(f"\n200 posts of 100 KB of <b>a at once: /healthz answered in {slowest:.3f} s at most")
    assert statuses == [b"200"] * 200
    assert slowest < 1.0


@pytest.mark.parametrize("opening", [
    b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00",  # prior knowledge
    b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
    b"HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n",
], ids=["prior-knowledge", "upgrade"])
def test_http2_in_clear_text_is_answered_in_http1(served, opening):
    with socket.create_connection((HOST, served.port), timeout=10) as sock:
        sock.sendall(opening)
        answer = sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 ")
    assert not answer.startswith(b"HTTP/1.1 101")

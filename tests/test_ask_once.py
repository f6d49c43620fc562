"""The cold benchmark's client (benchmarks/wrk.py, benchmarks/ask_once.lua): wrk asks every
path exactly once, over connections the server closes after each answer, counts what got no
2xx answer as failed, and ends when the last answer is in.

wrk is Debian's package: scripts/test and scripts/bench install it as root when missing;
without it these tests skip.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from benchmarks import wrk
from harness.server import HOST, ServerError, free_port, get

pytestmark = pytest.mark.server  # wrk and gunicorn

needs_wrk = pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk is not installed (apt-get install wrk)")

ECHO_APP = '''
def app(environ, start_response):
    body = (environ["PATH_INFO"] + "?" + environ["QUERY_STRING"]).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
'''


class Recorder(BaseHTTPRequestHandler):
    """Answers like a gunicorn sync worker (HTTP/1.0, one request per connection) and records
    every path asked: /fail/... is answered 500, /drop/... closed without an answer, and after
    answering /stop/ the server stops listening."""
    protocol_version = "HTTP/1.0"
    seen: list[str]

    def do_GET(self):
        self.seen.append(self.path)
        if self.path.startswith("/drop/"):
            return
        body = self.path.encode()
        self.send_response(500 if self.path.startswith("/fail/") else 200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        if self.path == "/stop/":
            threading.Thread(target=self.server.shutdown).start()

    def log_message(self, *args):
        pass


@pytest.fixture
def recorder():
    seen: list[str] = []
    handler = type("Handler", (Recorder,), {"seen": seen})
    server = ThreadingHTTPServer((HOST, 0), handler)
    def serve():
        server.serve_forever()
        server.socket.close()  # stops listening: connections not yet accepted are refused

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.server_address[1], seen
    server.shutdown()
    server.server_close()


@needs_wrk
def test_every_path_is_asked_once_and_what_got_no_2xx_answer_fails(recorder):
    port, seen = recorder
    # 1,003 paths do not split evenly among 8 threads; a dropped request in the middle of a
    # thread's share and at the end of one (the last path is its thread's last).
    paths = ([f"/api/search?q={n}" for n in range(1000)] + ["/fail/1", "/drop/1"]
             + [f"/api/search?q=again{n}" for n in range(40)] + ["/fail/2", "/drop/2"])
    result = wrk.ask_once(port, paths)
    assert Counter(seen) == Counter(paths)
    assert result["asked"] == len(paths)
    assert result["statuses"] == Counter({200: len(paths) - 4, 500: 2})
    assert result["failures"] == 4
    assert len(result["latencies"]) == len(paths) - 2 and all(t > 0 for t in result["latencies"])
    assert 0 < max(result["latencies"]) <= result["seconds"]
    assert result["cpu_seconds"] > 0  # wrk's own, from wait4


@needs_wrk
def test_fewer_paths_than_connections(recorder):
    port, seen = recorder
    result = wrk.ask_once(port, ["/a", "/b", "/a"], connections=8)
    assert Counter(seen) == Counter(["/a", "/b", "/a"])
    assert result["asked"] == 3 and result["failures"] == 0 and len(result["latencies"]) == 3


@needs_wrk
def test_a_server_gone_in_the_middle_leaves_the_rest_failed(recorder):
    port, seen = recorder
    paths = [f"/api/search?q={n}" for n in range(100)] + ["/stop/"] + [f"/api/search?q={n}" for n in range(100, 1000)]
    # A thread whose connection is refused outright waits for the cap: wrk tells it nothing.
    result = wrk.ask_once(port, paths, cap_seconds=10)
    assert "/stop/" in seen and max(Counter(seen).values()) == 1 and len(seen) < len(paths)
    assert result["statuses"] == Counter({200: len(seen)})
    assert result["failures"] == len(paths) - len(seen)


@needs_wrk
def test_nothing_listening_is_an_error_that_says_so():
    with pytest.raises(RuntimeError, match="unable to connect"):
        wrk.ask_once(free_port(), [f"/{n}" for n in range(20)], connections=4, cap_seconds=5)


@needs_wrk
def test_gunicorn_sync_workers_log_every_path_once(tmp_path):
    """gunicorn's sync workers, as the benchmark runs them: each closes the connection after
    its answer and wrk connects again. A connection left idle after a thread's last answer
    would hold a worker until wrk exits (two of them, both workers), so the run would stall
    until the cap and count the rest as failed."""
    (tmp_path / "echo_app.py").write_text(ECHO_APP, encoding="utf-8")
    log = tmp_path / "access.log"
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--workers", "2", "--bind", f"{HOST}:{port}", "--timeout", "120",
         "--chdir", str(tmp_path), "--access-logfile", str(log), "--access-logformat", "%(U)s?%(q)s", "echo_app:app"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        for _ in range(200):
            try:
                get(port, "/started")
                break
            except OSError:
                if server.poll() is not None:
                    raise ServerError(f"gunicorn exited with {server.returncode}") from None
                threading.Event().wait(0.05)
        paths = [f"/api/search?q={n}" for n in range(1500)]
        results = [wrk.ask_once(port, paths, cap_seconds=60) for _ in range(2)]
    finally:
        server.terminate()
        server.wait(timeout=30)
    logged = Counter(Path(log).read_text(encoding="utf-8").split())
    del logged["/started?"]
    assert logged == Counter({path: 2 for path in paths})
    assert all(r["failures"] == 0 and r["asked"] == len(paths) == len(r["latencies"]) for r in results)


def test_without_wrk_the_benchmark_says_so(monkeypatch):
    monkeypatch.setattr(wrk.shutil, "which", lambda name: None)
    with pytest.raises(wrk.WrkMissing, match="apt-get install wrk"):
        wrk.ask_once(free_port(), ["/"])

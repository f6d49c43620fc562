"""A gunicorn server on a loopback port, started and stopped by the benchmarks and by the
live-rebuild tests: the real app (`webapp.wsgi:app`, as scripts/serve runs it) or the
minimal endpoint (`benchmarks.minimal_app:app`), over an index root given as INDEX_ROOT.

Only 127.0.0.1 is ever bound or contacted.
"""
from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from indexer.search.build import current_folder

from .measure import ROOT

HOST = "127.0.0.1"
REAL_APP = "webapp.wsgi:app"
MINIMAL_APP = "benchmarks.minimal_app:app"
START_TIMEOUT = 120.0


class ServerError(Exception):
    """The server did not come up; the message carries the end of its log."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def get(port: int, path: str, timeout: float = 30.0) -> tuple[int, bytes]:
    """One GET over a new loopback connection: (status, body)."""
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


class Server:
    """`with Server(...) as server:` runs gunicorn until the block ends."""

    def __init__(self, app: str, index_root: Path, port: int, workers: int = 2, preload: bool = True):
        self.app, self.index_root, self.port = app, Path(index_root), port
        self.log = tempfile.NamedTemporaryFile(prefix="gunicorn-", suffix=".log", delete=False)
        argv = [sys.executable, "-m", "gunicorn", "--workers", str(workers), "--bind", f"{HOST}:{port}",
                "--graceful-timeout", "5", *(["--preload"] if preload else []), app]
        env = {**os.environ, "INDEX_ROOT": str(self.index_root)}
        self.process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL, start_new_session=True)

    @classmethod
    def real_app(cls, index_root: Path, port: int, **kw) -> "Server":
        return cls(REAL_APP, index_root, port, **kw)

    @classmethod
    def minimal_app(cls, index_root: Path, port: int, **kw) -> "Server":
        return cls(MINIMAL_APP, index_root, port, **kw)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def output(self) -> str:
        return Path(self.log.name).read_text(encoding="utf-8", errors="replace")

    def get(self, path: str, timeout: float = 30.0) -> tuple[int, bytes]:
        return get(self.port, path, timeout)

    def wait_for(self, path: str, timeout: float = START_TIMEOUT) -> bytes:
        """Poll `path` until it answers 200; its body."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ServerError(f"{self.app} exited with {self.process.returncode}:\n{self.output()[-3000:]}")
            try:
                status, body = self.get(path, timeout=10)
                if status == 200:
                    return body
            except OSError:
                pass
            time.sleep(0.01)
        raise ServerError(f"{self.app} gave no 200 for {path} in {timeout:.0f} s:\n{self.output()[-3000:]}")

    def check_index(self) -> str:
        """Wait until the server answers, and make sure it serves the index under its
        INDEX_ROOT (an app that ignored INDEX_ROOT would be measured on another index)."""
        health = json.loads(self.wait_for("/healthz"))
        expected = current_folder(self.index_root)
        if expected is None or health.get("index") != expected.name:
            raise ServerError(f"{self.app} serves index {health.get('index')!r}, not {self.index_root}/"
                              f"{expected.name if expected else '(none)'}: does it read INDEX_ROOT?")
        return health["index"]

    def worker_pids(self) -> list[int]:
        out = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True)
        return [int(pid) for pid in out.stdout.split()]

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=15)
        self.log.close()

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
        os.unlink(self.log.name)

"""The one harness that runs a server on a loopback port, for the benchmarks, the tests and
the replicas (deploy/): `scripts/serve` as an operator runs it (it builds the index, then runs
HAProxy and nginx in front of gunicorn), its gunicorn alone (`Server.production`), or plain gunicorn with
the real app (`webapp.wsgi:app`) or any other WSGI app (`Server.gunicorn`, as the benchmarks
run their minimal and naive apps), over an index root given as INDEX_ROOT.
Started in its own process group, stopped with it; its output goes to a log file.

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

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
REAL_APP = "webapp.wsgi:app"
SERVE = ROOT / "scripts" / "serve"
GUNICORN_CONF = ROOT / "deploy" / "gunicorn.conf.py"
START_TIMEOUT = 120.0
# How long a harness's server (without a config file) lets its workers finish when stopped.
GRACEFUL_SECONDS = 5


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


def cpu_seconds(pids: list[int]) -> float:
    """CPU time (user and system) the processes `pids` have used so far."""
    ticks = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:  # a worker that exited since it was listed
            continue
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


class Server:
    """`with Server.real_app(...) as server:` runs the server until the block ends."""

    def __init__(self, name: str, argv: list[str], index_root: Path, port: int, log: Path | None = None):
        self.app, self.index_root, self.port = name, Path(index_root), port
        if log is None:
            with tempfile.NamedTemporaryFile(prefix="server-", suffix=".log", delete=False) as named:
                log = Path(named.name)
            self._own_log = True
        else:
            self._own_log = False
        self.log = log
        env = {**os.environ, "INDEX_ROOT": str(self.index_root)}
        env.pop("PORT", None)
        with log.open("wb") as out:
            self.process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True)

    @classmethod
    def gunicorn(cls, app: str, index_root: Path, port: int, workers: int = 2, preload: bool = True,
                 log: Path | None = None, config: Path | None = None, options: tuple[str, ...] = ()) -> Server:
        """gunicorn with a config file's settings, or else its defaults (sync workers) but for
        `preload`, a graceful timeout of GRACEFUL_SECONDS (a harness's server stops quickly) and
        no control socket (whose one path a user's servers would share); either way with the
        workers, address and further `options` given."""
        settings = ["--config", str(config)] if config else [
            "--no-control-socket", "--graceful-timeout", str(GRACEFUL_SECONDS), *(["--preload"] if preload else [])]
        argv = [sys.executable, "-m", "gunicorn", *settings, "--workers", str(workers), "--bind", f"{HOST}:{port}",
                *options, app]
        return cls(app, argv, index_root, port, log)

    @classmethod
    def real_app(cls, index_root: Path, port: int, **kw) -> Server:
        return cls.gunicorn(REAL_APP, index_root, port, **kw)

    @classmethod
    def production(cls, index_root: Path, port: int, workers: int = 2, log: Path | None = None,
                   options: tuple[str, ...] = ()) -> Server:
        """The real app as `scripts/serve` runs it (deploy/gunicorn.conf.py: its worker class and
        settings), without building an index first; `options` on top of the file's."""
        return cls.gunicorn(REAL_APP, index_root, port, workers=workers, log=log, config=GUNICORN_CONF,
                            options=options)

    @classmethod
    def serve_script(cls, index_root: Path, port: int, *paths: str, log: Path | None = None) -> Server:
        """`scripts/serve` (once it has built, its pid is deploy/serve.py's, whose children are gunicorn's master
        and nginx's)."""
        return cls("scripts/serve", [str(SERVE), "--host", HOST, "--port", str(port), *paths], index_root, port, log)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def get(self, path: str, timeout: float = 30.0) -> tuple[int, bytes]:
        return get(self.port, path, timeout)

    def wait_for(self, path: str, timeout: float = START_TIMEOUT) -> bytes:
        """Poll `path` until the server answers; its body. Raises with the end of the log if the
        server exits first, answers anything but 200 (with --preload the app is whole once it
        listens, so that is final), or does not answer within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ServerError(f"{self.app} exited with {self.process.returncode}:\n{self.output()[-3000:]}")
            try:
                status, body = self.get(path, timeout=10)
            except OSError:
                time.sleep(0.05)
                continue
            if status != 200:
                raise ServerError(f"{self.url}{path} answered {status}: {body[:500]!r}\n{self.output()[-3000:]}")
            return body
        raise ServerError(f"{self.app} gave no answer for {path} in {timeout:.0f} s:\n{self.output()[-3000:]}")

    def check_index(self, timeout: float = START_TIMEOUT) -> str:
        """Wait until the server answers, and make sure it serves the index under its
        INDEX_ROOT (an app that ignored INDEX_ROOT would be measured on another index)."""
        health = json.loads(self.wait_for("/healthz", timeout))
        expected = current_folder(self.index_root)
        if expected is None or health.get("index") != expected.name:
            raise ServerError(f"{self.app} serves index {health.get('index')!r}, not {self.index_root}/"
                              f"{expected.name if expected else '(none)'}: does it read INDEX_ROOT?")
        return health["index"]

    def worker_pids(self) -> list[int]:
        out = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True)
        return [int(pid) for pid in out.stdout.split()]

    def cpu_seconds(self) -> float:
        """CPU time (user and system) the master and its current workers have used so far."""
        return cpu_seconds([self.process.pid, *self.worker_pids()])

    def stop(self) -> None:
        """Stop the server and its workers (its own process group) and wait for it."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=15)

    def __enter__(self) -> Server:
        return self

    def close(self) -> None:
        """Stop the server, and remove its log when the harness made it."""
        self.stop()
        if self._own_log:
            self.log.unlink(missing_ok=True)

    def __exit__(self, *exc) -> None:
        self.close()

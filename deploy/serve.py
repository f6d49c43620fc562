"""What scripts/serve runs once the index is built: gunicorn on a unix socket (and a second one
for /healthz alone), nginx in front of it on another, and HAProxy in front of nginx on the
address asked for, until interrupted.

HAProxy (deploy/haproxy.cfg) waits for each request whole, head and body, and answers 408 to
one not in within KB_REQUEST_SECONDS; nginx (deploy/nginx.conf) gets only whole requests, hands
them to gunicorn and takes every answer at once, so however a client sends or stalls it holds
none of gunicorn's workers. gunicorn's settings are deploy/gunicorn.conf.py's, as for the
replicas. nginx starts once gunicorn has loaded the app and the index and listens, HAProxy
once nginx listens, so the first request is answered. All stop with this process: on SIGINT
or SIGTERM it stops HAProxy and nginx gracefully and then gunicorn; killed outright, the
kernel sends them SIGTERM (Linux's parent-death signal). If any exits, the others are
stopped, and so is this, with an error.

`python -m deploy.serve --bind HOST:PORT [--dry-run]`; `--dry-run` prints the three commands.
"""
from __future__ import annotations

import argparse
import contextlib
import ctypes
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from .edge import Haproxy
from .proxy import Nginx, ProxyError

GUNICORN_CONF = Path(__file__).with_name("gunicorn.conf.py")
APP = "webapp.wsgi:app"
SOCKET = "app.sock"
# gunicorn's second listener, for /healthz alone (deploy/nginx.conf says why).
HEALTH_SOCKET = "health.sock"
NGINX_SOCKET = "nginx.sock"
# How long gunicorn may take to load the app and the index before it listens.
START_SECONDS = 600
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In a child, before it runs: SIGTERM when this process dies, however it dies."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _child_setup(stop: set[signal.Signals]) -> Callable[[], None]:
    """For a child, before it runs: it dies with this process and takes the signals this one
    waits for."""
    def setup() -> None:
        _die_with_parent()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stop)
    return setup


def app_command(run: Path) -> list[str]:
    return [sys.executable, "-m", "gunicorn", "--config", str(GUNICORN_CONF), "--bind", f"unix:{run / SOCKET}",
            "--bind", f"unix:{run / HEALTH_SOCKET}", APP]


def _listening(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX) as sock:
        try:
            sock.connect(str(path))
        except OSError:
            return False
    return True


def _answers(host: str, port: int) -> bool:
    with socket.create_connection((host, port), timeout=5) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: serve\r\nConnection: close\r\n\r\n")
        return sock.recv(12).startswith(b"HTTP/1.1 ")


def serve(bind: str, run: Path) -> int:
    from indexer.knowledge.settings import Settings  # here: --dry-run runs without the environment

    settings = Settings.from_env()
    try:
        nginx = Nginx(run / "nginx", f"unix:{run / NGINX_SOCKET} proxy_protocol", settings.request_seconds,
                      settings.max_body_bytes)
        edge = Haproxy(run / "haproxy", bind, f"unix@{run / NGINX_SOCKET}", settings.request_seconds,
                       settings.max_body_bytes)
    except ProxyError as exc:
        print(f"serve: {exc}", file=sys.stderr)
        return 1
    stop = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop)  # until waited for, below; children unblock
    app = subprocess.Popen(app_command(run), stdin=subprocess.DEVNULL,
                           preexec_fn=_child_setup(stop))
    try:
        deadline = time.monotonic() + START_SECONDS
        while not _listening(run / SOCKET):
            if app.poll() is not None:
                print(f"serve: gunicorn exited with {app.returncode}", file=sys.stderr)
                return 1
            if time.monotonic() > deadline or signal.sigpending() & stop:
                return 1
            time.sleep(0.05)
        host, _, port = bind.rpartition(":")
        nginx.start([f"server unix:{run / SOCKET} max_fails=0;"], lambda: _listening(run / NGINX_SOCKET),
                    preexec_fn=_child_setup(stop), health_servers=[f"server unix:{run / HEALTH_SOCKET} max_fails=0;"])
        edge.start(lambda: _answers(host.strip("[]") or "127.0.0.1", int(port)), preexec_fn=_child_setup(stop))
        print(f"serve: HAProxy on http://{bind}/ in front of nginx (unix:{run / NGINX_SOCKET}) in front of "
              f"gunicorn (unix:{run / SOCKET})", flush=True)
        while True:
            if signal.sigtimedwait(stop, 0.5) is not None:
                return 0
            for name, process in (("gunicorn", app), ("nginx", nginx.process), ("haproxy", edge.process)):
                if process is not None and process.poll() is not None:
                    print(f"serve: {name} exited with {process.returncode}", file=sys.stderr)
                    return 1
    except ProxyError as exc:
        print(f"serve: {exc}", file=sys.stderr)
        return 1
    finally:
        edge.close()
        nginx.close()
        if app.poll() is None:
            app.terminate()
            try:
                app.wait(timeout=40)
            except subprocess.TimeoutExpired:
                app.kill()
                app.wait()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="deploy.serve",
                                 description="Serve the app: gunicorn behind nginx behind HAProxy.")
    ap.add_argument("--bind", required=True, help="HOST:PORT HAProxy listens on ([HOST]:PORT for IPv6)")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    args = ap.parse_args(argv)
    if args.dry_run:
        run = Path(tempfile.gettempdir()) / "kb-serve-XXXXXX"
        print(f"app: {' '.join(['python', *app_command(run)[1:]])}")
        print(f"proxy: nginx -p {run / 'nginx'} -c {run / 'nginx' / 'nginx.conf'} (deploy/nginx.conf, on "
              f"unix:{run / NGINX_SOCKET})")
        print(f"edge: haproxy -W -db -f {run / 'haproxy' / 'haproxy.cfg'} (deploy/haproxy.cfg, on {args.bind})")
        return 0
    # A short path: a unix socket's is limited to 107 bytes.
    run = Path(tempfile.mkdtemp(prefix="kb-serve-"))
    try:
        return serve(args.bind, run)
    finally:
        shutil.rmtree(run, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

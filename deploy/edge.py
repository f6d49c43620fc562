"""HAProxy at the edge of scripts/serve, in front of nginx: its configuration (deploy/haproxy.cfg,
filled in), the app's error answers it gives, and its process.

nginx closes a connection whose request does not arrive in time without answering it; HAProxy
answers it 408 (deploy/haproxy.cfg says how). It passes nginx each request whole, over a unix
socket with the client's address in a PROXY protocol header (nginx takes it as the request's
address), and nginx does the rest as it does behind any proxy.
"""
from __future__ import annotations

import os
import pwd
import resource
import shutil
import signal
from collections.abc import Callable
from pathlib import Path

from .proxy import ERRORS, ProxyError, ProxyProcess, json_paths

CONFIG = Path(__file__).with_name("haproxy.cfg")
# The statuses HAProxy answers with itself: a request that does not parse (400), declares a
# body longer than the app takes (413) or does not arrive in time (408), and nginx not
# answering (500, 502, 503, 504); and those it refuses by the configuration's rules (413 for
# a body declared too long, 414 for an address too long), which `errorfile` does not take.
ERROR_STATUSES = (400, 408, 413, 500, 502, 503, 504)
REFUSED_STATUSES = (413, 414)
# The longest address passed on: the app refuses those over 4096 characters itself (414), and
# gunicorn reads request lines of up to 8190 (deploy/gunicorn.conf.py), method and version
# included; nginx would refuse one over its 16 KB line buffer with no address to tell JSON by.
MAX_URL_BYTES = 8000
# The largest head nginx takes (deploy/nginx.conf: large_client_header_buffers 4 16k), and
# HAProxy's reserve for rewriting headers (tune.maxrewrite).
NGINX_HEAD_BYTES = 4 * 16 * 1024
REWRITE_BYTES = 1024
# As many connections as nginx's worker takes (deploy/nginx.conf: worker_connections), when
# the file limit allows: HAProxy needs two descriptors for a connection it passes on.
MAX_CONNECTIONS = 8192
# How long after KB_REQUEST_SECONDS the kernel drops a client connection whose data is not
# taken (TCP_USER_TIMEOUT): HAProxy has closed it by then (`timeout client`), and what it
# still held to send is freed.
USER_TIMEOUT_MARGIN = 5


def haproxy_binary() -> str | None:
    return shutil.which("haproxy") or next((p for p in ("/usr/sbin/haproxy",) if os.access(p, os.X_OK)), None)


def max_connections() -> int:
    """MAX_CONNECTIONS, or fewer where the process may not open enough files (HAProxy raises
    its own soft limit up to the hard one, and refuses to start beyond it)."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return MAX_CONNECTIONS if hard == resource.RLIM_INFINITY else max(64, min(MAX_CONNECTIONS, (hard - 100) // 2))


def run_as() -> str:
    """The `user` and `group` lines of the configuration: Debian's `haproxy` user when this
    runs as root (else `nobody`), nothing otherwise (a user cannot change its user)."""
    if os.geteuid() != 0:
        return ""
    try:
        user = pwd.getpwnam("haproxy")
    except KeyError:
        user = pwd.getpwnam("nobody")
    return f"    uid {user.pw_uid}\n    gid {user.pw_gid}"


def write_error_answers(prefix: Path) -> dict[str, list[str]]:
    """The app's whole error answer (`webapp.serving.error_answer`) for each status HAProxy
    answers with, as a page and as JSON; the `errorfile` lines of each form."""
    from webapp import create_app
    from webapp.serving import error_answer

    app = create_app()
    folder = prefix / ERRORS
    folder.mkdir(parents=True, exist_ok=True)
    lines: dict[str, list[str]] = {"html": [], "json": []}
    for status in sorted({*ERROR_STATUSES, *REFUSED_STATUSES}):
        for form, path, accept in (("html", "/", "text/html"), ("json", "/api/", "application/json")):
            file = error_file(prefix, status, form)
            file.write_bytes(error_answer(app, status, path, accept))
            if status in ERROR_STATUSES:
                lines[form].append(f"    errorfile {status} {file}")
    return lines


def error_file(prefix: Path, status: int, form: str) -> Path:
    """The file of one of `write_error_answers`' answers."""
    return prefix / ERRORS / f"{status}.{form}.http"


class Haproxy(ProxyProcess):
    """HAProxy listening on `listen` in front of nginx at `nginx` (an HAProxy address:
    `unix@PATH` or HOST:PORT), everything it writes under `prefix`."""

    name = "haproxy"
    graceful_signal = signal.SIGUSR1  # stop listening, finish the requests in flight

    def __init__(self, prefix: Path, listen: str, nginx: str, request_seconds: float, max_body_bytes: int):
        binary = haproxy_binary()
        if binary is None:
            raise ProxyError("haproxy is not installed (Debian: apt-get install haproxy)")
        super().__init__(prefix)
        self.binary, self.listen, self.nginx = binary, listen, nginx
        self.request_seconds, self.max_body_bytes = request_seconds, max_body_bytes

    def write_config(self, errorfiles: dict[str, list[str]]) -> Path:
        text = (CONFIG.read_text(encoding="utf-8")
                .replace("@LISTEN@", self.listen).replace("@NGINX@", self.nginx).replace("@USER@", run_as())
                .replace("@MAX_CONNECTIONS@", str(max_connections()))
                .replace("@BUFFER_BYTES@", str(NGINX_HEAD_BYTES + self.max_body_bytes + REWRITE_BYTES))
                .replace("@REQUEST_SECONDS@", f"{self.request_seconds:g}")
                .replace("@USER_TIMEOUT_SECONDS@", f"{self.request_seconds + USER_TIMEOUT_MARGIN:g}")
                .replace("@JSON_PATHS@", json_paths())
                .replace("@MAX_BODY_BYTES@", str(self.max_body_bytes))
                .replace("@MAX_URL_BYTES@", str(MAX_URL_BYTES))
                .replace("@ERROR_413_JSON@", str(error_file(self.prefix, 413, "json")))
                .replace("@ERROR_413_HTML@", str(error_file(self.prefix, 413, "html")))
                .replace("@ERROR_414_JSON@", str(error_file(self.prefix, 414, "json")))
                .replace("@ERROR_414_HTML@", str(error_file(self.prefix, 414, "html")))
                .replace("@ERRORFILES_HTML@", "\n".join(errorfiles["html"]))
                .replace("@ERRORFILES_JSON@", "\n".join(errorfiles["json"])))
        path = self.prefix / "haproxy.cfg"
        path.write_text(text, encoding="utf-8")
        return path

    def command(self) -> list[str]:
        """In master-worker mode (-W), in the foreground (-db): the master stays as it was started
        and the worker drops to the configuration's user, which clears the parent-death signal a
        process keeps only while its credentials stay the same; the master, which keeps it, stops
        the worker when it goes."""
        return [self.binary, "-W", "-db", "-f", str(self.prefix / "haproxy.cfg")]

    def start(self, ready: Callable[[], bool], preexec_fn=None) -> None:
        """Start HAProxy and return once `ready()` is true (it answers), or raise ProxyError."""
        self.prefix.mkdir(parents=True, exist_ok=True)
        self.write_config(write_error_answers(self.prefix))
        self.spawn(ready, preexec_fn)

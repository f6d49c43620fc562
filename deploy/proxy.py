"""nginx in front of app servers, on one machine: its configuration (deploy/nginx.conf, filled
in), the app's error pages it answers with, and its process. deploy/replicas.py puts it in
front of app replicas, deploy/serve.py (scripts/serve) in front of one gunicorn, behind
HAProxy (deploy/edge.py), which runs as a `ProxyProcess` too.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

CONFIG = Path(__file__).with_name("nginx.conf")
NGINX_TEMP_DIRS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
ERRORS = ".kb-errors"
# The statuses nginx answers with itself (deploy/nginx.conf's error_page lines).
ERROR_STATUSES = (400, 405, 413, 414, 431, 500, 502, 504)
# Headers of the app's error answers that nginx writes itself, from the file's name and charset.
_OWN_HEADERS = {"content-type", "vary"}


class ProxyError(Exception):
    """nginx did not start or reload; the message carries the end of its log."""


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)


def write_error_pages(prefix: Path) -> dict[str, dict[str, str]]:
    """The app's error answer for each status nginx answers with itself, as a page and as
    JSON (`webapp.serving.error_document`), where deploy/nginx.conf finds them; the headers
    of each form, for `error_headers`."""
    from webapp import create_app
    from webapp.serving import error_document

    app = create_app()
    folder = prefix / ERRORS
    folder.mkdir(parents=True, exist_ok=True)
    headers: dict[str, dict[str, str]] = {}
    for status in ERROR_STATUSES:
        for form, path, accept in (("html", "/", "text/html"), ("json", "/api/", "application/json")):
            headers[form], body = error_document(app, status, path, accept)
            (folder / f"{status}.{form}").write_bytes(body)
    return headers


def error_headers(headers: dict[str, dict[str, str]]) -> tuple[str, str]:
    """nginx's lines giving its own answers the headers the app's error answers carry (the
    security headers; CORS on JSON): `map`s choosing each header's value by the answer's form
    ($kb_error_form), and the `add_header` lines of the error pages' location."""
    names = sorted({name for found in headers.values() for name in found if name.lower() not in _OWN_HEADERS})
    maps, adds = [], []
    for n, name in enumerate(names):
        values = {form: found.get(name, "") for form, found in headers.items()}
        maps += [f"    map $kb_error_form $kb_error_header_{n} {{",
                 *(f'        {form} "{_quoted(value)}";' for form, value in values.items()), "    }"]
        adds.append(f"            add_header {name} $kb_error_header_{n} always;")
    return "\n".join(maps), "\n".join(adds)


def _quoted(value: str) -> str:
    """`value` inside an nginx string in double quotes (where `$` would start a variable)."""
    if "$" in value:
        raise ProxyError(f"an error header's value holds a $: {value!r}")
    return value.replace("\\", "\\\\").replace('"', '\\"')


def json_paths() -> str:
    """The addresses the app answers in JSON, as the regular expression nginx matches them by."""
    return f"^({_json_prefixes()})" + r"|\.json(\?|$)"


def json_request_lines() -> str:
    """`json_paths` as a request line (method, address, version) matches them: nginx knows the
    line of a request whose address it refused (400), not its address."""
    return rf"^\S+ ({_json_prefixes()})|^\S+ [^?\s]*\.json[?\s]"


def _json_prefixes() -> str:
    """The paths the app answers in JSON by their start, as alternatives of a regular expression."""
    from webapp.respond import JSON_ONLY

    return "|".join(re.escape(p) for p in JSON_ONLY)


class ProxyProcess:
    """A proxy program run in the foreground, in a session of its own, everything it writes
    under `prefix` (its output in stderr.log): started once it answers, stopped gracefully by
    `graceful_signal`, killed after 15 s."""

    name = "proxy"
    graceful_signal = signal.SIGTERM
    logs: tuple[str, ...] = ("stderr.log",)

    def __init__(self, prefix: Path):
        self.prefix = Path(prefix)
        self.process: subprocess.Popen | None = None

    def command(self) -> list[str]:
        raise NotImplementedError

    def spawn(self, ready: Callable[[], bool], preexec_fn=None) -> None:
        """Run `command()` and return once `ready()` is true (it answers), or raise ProxyError."""
        self.log = open(self.prefix / "stderr.log", "wb")  # noqa: SIM115  (open while it runs)
        # In a session of its own: a Ctrl-C or a signal to the caller's group reaches the
        # caller, which stops it gracefully.
        self.process = subprocess.Popen(self.command(), stdout=self.log, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=preexec_fn)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ProxyError(f"{self.name} exited with {self.process.returncode}: {self.log_tail()}")
            try:
                if ready():
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise ProxyError(f"{self.name} did not answer in 30 s: {self.log_tail()}")

    @property
    def running(self) -> subprocess.Popen:
        """The program's master process, once `spawn` has started it."""
        if self.process is None:
            raise ProxyError(f"{self.name} is not running")
        return self.process

    def workers(self) -> set[int]:
        """The processes the program's master started."""
        out = subprocess.run(["pgrep", "-P", str(self.running.pid)], capture_output=True, text=True)
        return {int(pid) for pid in out.stdout.split()}

    def log_tail(self) -> str:
        logs = [self.prefix / name for name in self.logs]
        return "\n".join(p.read_text(errors="replace")[-2000:] for p in logs if p.exists())

    def close(self) -> None:
        """Stop gracefully (finish the requests in flight), or kill it after 15 s."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(self.graceful_signal)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)
        self.log.close()
        self.process = None


class Nginx(ProxyProcess):
    """nginx listening on `listen` in front of `servers` (nginx `server` lines of its upstream),
    everything it writes under `prefix`."""

    name = "nginx"
    graceful_signal = signal.SIGQUIT
    logs = ("stderr.log", "error.log")

    def __init__(self, prefix: Path, listen: str, request_seconds: float, max_body_bytes: int,
                 fail_seconds: int = 2):
        binary = nginx_binary()
        if binary is None:
            raise ProxyError("nginx is not installed (Debian: apt-get install nginx)")
        super().__init__(prefix)
        self.binary, self.listen = binary, listen
        self.request_seconds, self.max_body_bytes, self.fail_seconds = request_seconds, max_body_bytes, fail_seconds

    def write_config(self, servers: list[str], headers: dict[str, dict[str, str]],
                     health_servers: list[str] | None = None) -> Path:
        maps, adds = error_headers(headers)
        text = (CONFIG.read_text(encoding="utf-8")
                .replace("@ERROR_HEADER_MAPS@", maps).replace("@ERROR_HEADERS@", adds)
                .replace("@UPSTREAM_SERVERS@", "\n".join(f"        {line}" for line in servers))
                .replace("@HEALTH_SERVERS@", "\n".join(f"        {line}" for line in health_servers or servers))
                .replace("@LISTEN@", self.listen).replace("@PREFIX@", str(self.prefix))
                .replace("@FAIL_SECONDS@", str(self.fail_seconds))
                .replace("@REQUEST_SECONDS@", f"{self.request_seconds:g}")
                .replace("@MAX_BODY_BYTES@", str(self.max_body_bytes))
                .replace("@JSON_REQUEST_LINES@", json_request_lines()))
        path = self.prefix / "nginx.conf"
        path.write_text(text, encoding="utf-8")
        return path

    def command(self) -> list[str]:
        return [self.binary, "-p", str(self.prefix), "-c", str(self.prefix / "nginx.conf")]

    def start(self, servers: list[str], ready: Callable[[], bool], preexec_fn=None,
              health_servers: list[str] | None = None) -> None:
        """Start nginx and return once `ready()` is true (it answers), or raise ProxyError.
        `/healthz` goes to `health_servers` (the app's listeners for it alone), else to `servers`."""
        for folder in (self.prefix, *(self.prefix / d for d in NGINX_TEMP_DIRS)):
            folder.mkdir(parents=True, exist_ok=True)
        # nginx's workers run as an unprivileged user when the master is root: they must be
        # able to reach the temporary folders and the error pages.
        for folder in (self.prefix.parent, self.prefix):
            folder.chmod(0o755)
        self.headers, self.health_servers = write_error_pages(self.prefix), health_servers
        self.write_config(servers, self.headers, health_servers)
        self.spawn(ready, preexec_fn)

    def reload(self, servers: list[str]) -> None:
        """Apply a new upstream list, and return once nginx's workers of the old one are gone
        (until then they still route by it)."""
        self.write_config(servers, self.headers, self.health_servers)
        before = self.workers()
        self.running.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            now = self.workers()
            if now and not now & before:
                return
            if self.running.poll() is not None:
                raise ProxyError(f"nginx exited on reload: {self.log_tail()}")
            time.sleep(0.02)
        raise ProxyError(f"nginx did not finish its reload in 30 s: {self.log_tail()}")

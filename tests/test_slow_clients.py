"""Slow and idle clients do not starve the service (scripts/serve's gunicorn, as deployed),
and a request line too long for the app is answered in its error shape, not gunicorn's page.

Against the session's real server (two workers): more connections than it has workers send
their request a byte at a time, trickle a POST body, or send nothing at all, and stay open,
while /healthz is asked once a second. Under sync workers two such connections blocked both
workers and the health checks failed; now every one answers.
"""
from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from browser_support import live_server  # noqa: F401  (a fixture, used by name)

SLOW_CONNECTIONS = 4  # of each kind: twice the workers
HEALTH_CHECKS = 12
CHECK_TIMEOUT_SECONDS = 5


def open_slow(address: tuple[str, int], stop: threading.Event, head: bytes) -> threading.Thread:
    """A connection that sends `head` one byte every half second until told to stop."""
    sock = socket.create_connection(address, timeout=30)

    def trickle():
        try:
            for byte in head:
                if stop.wait(0.5):
                    break
                sock.sendall(bytes([byte]))
            stop.wait()
        except OSError:
            pass
        finally:
            sock.close()

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    return thread


def test_health_checks_answer_while_slow_clients_hold_connections(live_server):  # noqa: F811
    url = urlsplit(live_server.url)
    address = (url.hostname, url.port)
    body = json.dumps({"text": "702.30a " * 5000, "format": "markdown"}).encode()
    heads = [
        b"GET /api/search?q=persist HTTP/1.1\r\nHost: x\r\nUser-Agent: slow\r\nAccept: */*\r\n" * 20,  # never ends
        b"POST /api/linkify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode() + body,
        b"",  # connects, sends nothing
    ]
    stop = threading.Event()
    threads = [open_slow(address, stop, head) for head in heads for _ in range(SLOW_CONNECTIONS)]
    answers = []
    try:
        time.sleep(2)  # every slow connection has started sending
        for _ in range(HEALTH_CHECKS):
            started = time.monotonic()
            try:
                with urllib.request.urlopen(live_server.url + "/healthz", timeout=CHECK_TIMEOUT_SECONDS) as response:
                    answers.append(response.status)
            except OSError as exc:
                answers.append(repr(exc))
            time.sleep(max(0.0, 1 - (time.monotonic() - started)))
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=5)
    assert answers == [200] * HEALTH_CHECKS


def test_a_long_request_line_gets_the_apps_error_shape(live_server):  # noqa: F811
    url = live_server.url + "/api/search?q=" + "a" * 6000
    try:
        urllib.request.urlopen(url, timeout=30)
    except urllib.error.HTTPError as exc:
        assert exc.code == 414
        assert json.loads(exc.read())["error"]["message"].startswith("The address is too long: ")
    else:
        raise AssertionError("a 6,000-byte address was answered")

"""Slow and idle clients do not starve the service (scripts/serve: HAProxy and nginx in front
of gunicorn), and requests the server itself refuses are answered in the app's error shape.

Against the session's real server: more connections than gunicorn has workers send their
request a byte at a time, trickle a POST body, or send nothing at all, and stay open, while
/healthz is asked once a second. Under sync workers alone two such connections blocked both
workers and the health checks failed; behind HAProxy and nginx, which wait for them, every
check answers, and a request still not in after `Settings.request_seconds` is answered 408
(HAProxy) and closed. tests/test_stalled_connections.py holds thousands of them with a small
deadline. A refusal comes from HAProxy (an address or a declared body too long), nginx (a head
over its buffers, an address it cannot decode, a method it does not pass on, a body over the
limit) or gunicorn (a request line or fields over its limits), each in the app's error shape
with the app's security headers (and CORS where the app answers JSON). A head HAProxy cannot
parse (malformed, larger than its buffer, a Transfer-Encoding it refuses) gets HAProxy 2.6's
fixed short text, which its HTTP/1 layer writes before any setting applies.
"""
from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from urllib.parse import quote, urlsplit

import pytest

from indexer.knowledge.settings import Settings

SLOW_CONNECTIONS = 40  # of each kind: 120 in all, against gunicorn's 2 workers
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


def test_health_checks_answer_while_slow_clients_hold_connections(live_server):
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
    # A request that stops half way, left to the server's deadline.
    stalled = socket.create_connection(address, timeout=Settings().request_seconds + 10)
    stalled.sendall(b"GET /api/search?q=persist HTTP/1.1\r\nHost: x\r\n")
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
        timed_out = read_all(stalled)
    finally:
        stop.set()
        stalled.close()
        for thread in threads:
            thread.join(timeout=5)
    assert answers == [200] * HEALTH_CHECKS
    assert timed_out.startswith(b"HTTP/1.1 408 ")  # answered by HAProxy at the deadline, then closed


def read_all(sock: socket.socket) -> bytes:
    out = b""
    while chunk := sock.recv(65536):
        out += chunk
    return out


def parse(answer: bytes) -> tuple[int, dict, bytes]:
    """Status, headers (lower-cased names) and body of one whole HTTP/1.1 answer."""
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, body


def send_raw(server, request: bytes) -> tuple[int, dict, bytes]:
    """The answer to `request`, read up to its Content-Length (nginx may keep the connection)."""
    url = urlsplit(server.url)
    with socket.create_connection((url.hostname, url.port), timeout=30) as sock:
        sock.sendall(request)
        answer = b""
        while b"\r\n\r\n" not in answer and (chunk := sock.recv(65536)):
            answer += chunk
        status, headers, body = parse(answer)
        while len(body) < int(headers.get("content-length", 0)) and (chunk := sock.recv(65536)):
            body += chunk
        return status, headers, body


LONG_LINE = b"a" * 9000
REFUSED = [  # (request, status, JSON or a page); nginx's and gunicorn's refusals, before the app
    (b"GET /api/search?q=" + LONG_LINE + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "json"),
    (b"GET /search?q=" + LONG_LINE + b" HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n\r\n", 414, "html"),
    (b"GET /api/search?q=x HTTP/1.1\r\nHost: x\r\n" + b"X-A: b\r\n" * 150 + b"\r\n", 431, "json"),
    (b"GET /rules/702.30a HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nX-Big: " + LONG_LINE + b"\r\n\r\n",
     431, "html"),
    (b"GET / HTTP/1.1\r\nHost: x\r\nX-Huge: " + b"a" * 65536 + b"\r\n\r\n", 431, "html"),  # over nginx's buffers
    (b"POST /api/linkify HTTP/1.1\r\nHost: x\r\nContent-Length: 200000\r\n\r\n" + b"a" * 200000, 413, "json"),
    (b"POST /forum HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nContent-Length: 200000\r\n\r\n", 413, "html"),
    (b"POST /api/linkify HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
     + b"".join(b"fa0\r\n" + b"a" * 4000 + b"\r\n" for _ in range(30)) + b"0\r\n\r\n", 413, "json"),
    (b"GET /api/search?q=" + b"a" * 17000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "json"),  # over nginx's line
    (b"GET /?q=" + b"a" * 17000 + b" HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n\r\n", 414, "html"),
    (b"GET /api/rules/%00 HTTP/1.1\r\nHost: x\r\n\r\n", 400, "json"),
    (b"GET /rules/%zz HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n\r\n", 400, "html"),
    (b"TRACE /api/search HTTP/1.1\r\nHost: x\r\n\r\n", 405, "json"),
    (b"GET /api/search?q=x HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: b\r\n" % n for n in range(999)) + b"\r\n",
     431, "json"),
]
# Every refusal carries what the app's answers carry.
SECURITY_HEADERS = {"content-security-policy", "x-frame-options", "referrer-policy", "x-content-type-options"}
# Heads HAProxy refuses before any path is known, with its own page (HAProxy 2.6 answers them
# before any of its settings apply): malformed, or larger than its buffer (never ending).
REFUSED_AT_THE_EDGE = [
    b"NONSENSE\r\n\r\n",
    b"GET /api/search?q=x HTTP/1.1\r\nHost: x\r\nBroken header\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nX-Huge: " + b"a" * 300_000,
    b"POST /api/linkify HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
]


@pytest.mark.parametrize("request_bytes, status, form", REFUSED, ids=[f"{s}-{f}-{i}" for i, (_, s, f) in
                                                                       enumerate(REFUSED)])
def test_requests_the_server_refuses_get_the_apps_error_shape(live_server, request_bytes, status, form):
    got, headers, body = send_raw(live_server, request_bytes)
    assert got == status
    assert headers["x-content-type-options"] == "nosniff"
    assert not SECURITY_HEADERS - set(headers), SECURITY_HEADERS - set(headers)
    assert int(headers["content-length"]) == len(body)
    if form == "json":
        assert headers["content-type"] == "application/json"
        assert headers["access-control-allow-origin"] == "*"
        assert json.loads(body)["error"]["status"] == status
    else:
        assert headers["content-type"].startswith("text/html")
        assert b'<article class="error">' in body and str(status).encode() in body and b"gunicorn" not in body


def test_a_body_declared_too_long_is_refused_without_a_100_continue(live_server):
    """Expect: 100-continue with a body longer than the app takes: the first answer is the 413,
    in the app's error shape, never a 100 asking for a body that would be refused."""
    head = b"POST /api/linkify HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 10000000\r\n\r\n"
    got, headers, body = send_raw(live_server, head)
    assert got == 413 and headers["content-type"] == "application/json"
    assert json.loads(body)["error"]["message"].startswith("The request body is too large")


@pytest.mark.parametrize("request_bytes", REFUSED_AT_THE_EDGE, ids=range(len(REFUSED_AT_THE_EDGE)))
def test_heads_haproxy_cannot_take_are_refused_at_once(live_server, request_bytes):
    got, headers, body = send_raw(live_server, request_bytes)
    assert headers["content-type"] == "text/html"
    assert (got, body.split(b"</h1>")[0]) in ((400, b"<html><body><h1>400 Bad request"),
                                              (422, b"<html><body><h1>422 Unprocessable Content"))


def test_a_question_of_500_chinese_characters_is_answered_through_every_part(live_server):
    """Percent-encoded it is 4,500 bytes: HAProxy, nginx and gunicorn pass it, and the app
    measures its address decoded."""
    question = ("对手施放咒语时我用反击咒语回应，它会被反击吗？" * 25)[:500]
    with urllib.request.urlopen(live_server.url + "/api/search?q=" + quote(question), timeout=30) as got:
        assert got.status == 200 and json.loads(got.read())["results"]


def test_a_long_request_line_gets_the_apps_error_shape(live_server):
    url = live_server.url + "/api/search?q=" + "a" * 6000
    try:
        urllib.request.urlopen(url, timeout=30)
    except urllib.error.HTTPError as exc:
        assert exc.code == 414
        assert json.loads(exc.read())["error"]["message"].startswith("The address is too long: ")
    else:
        raise AssertionError("a 6,000-byte address was answered")

"""A response's head goes out in the same write as its body (webapp/serving.py `Worker`).

gunicorn writes the head and the body with two `sendall`s; a replica killed between them
leaves nginx a head it has already passed on to the client and no body, a cut answer it can
no longer retry on another replica. These tests run the worker's own request handling
(gunicorn's parser and response over a socket pair) with a client socket that records every
write.
"""
from __future__ import annotations

import socket

import pytest
from gunicorn import http
from worker_support import Listener, worker_of

BODY = b'{"answer": "' + b"x" * 600 + b'"}'


class Recording:
    """A connection's socket that records each write before making it."""

    def __init__(self, sock: socket.socket):
        self.sock, self.writes = sock, []

    def sendall(self, data) -> None:
        self.writes.append(bytes(data))
        self.sock.sendall(data)

    def __getattr__(self, name):
        return getattr(self.sock, name)


def app(environ, start_response):
    if environ["PATH_INFO"] == "/broken":
        raise RuntimeError("the app failed before answering")
    status = "304 Not Modified" if environ["PATH_INFO"] == "/unchanged" else "200 OK"
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(BODY)))])
    return [BODY]


@pytest.fixture
def worker():
    with worker_of(app) as worker:
        yield worker


@pytest.fixture
def connection():
    """(the recording socket of the worker's end, the client's end) of one connection."""
    server, client = socket.socketpair()
    yield Recording(server), client
    server.close()
    client.close()


def handle(worker, sock, client, request: bytes) -> None:
    client.sendall(request)
    req = next(http.get_parser(worker.cfg, sock, ("127.0.0.1", 40000)))
    worker.handle_request(Listener(), req, sock, ("127.0.0.1", 40000))


def received(client, size: int) -> bytes:
    data = b""
    client.settimeout(5)
    while len(data) < size:
        data += client.recv(65536)
    return data


def test_head_and_body_go_out_in_one_write(worker, connection):
    recording, client = connection
    handle(worker, recording, client, b"GET /api/search?q=persist HTTP/1.1\r\nHost: kb\r\n\r\n")
    [write] = recording.writes
    head, body = write.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 200 OK\r\n") and b"Connection: close" in head
    assert body == BODY
    assert received(client, len(write)) == write


@pytest.mark.parametrize("request_bytes", [
    b"HEAD /api/search?q=persist HTTP/1.1\r\nHost: kb\r\n\r\n",
    b"GET /unchanged HTTP/1.1\r\nHost: kb\r\n\r\n",
], ids=["HEAD", "304"])
def test_a_head_without_a_body_is_written_when_the_request_ends(worker, connection, request_bytes):
    recording, client = connection
    handle(worker, recording, client, request_bytes)
    [write] = recording.writes
    assert write.startswith(b"HTTP/1.1 ") and write.endswith(b"\r\n\r\n") and BODY not in write
    assert received(client, len(write)) == write


def test_an_app_that_fails_before_answering_leaves_the_socket_untouched_for_the_error(worker, connection):
    recording, client = connection
    with pytest.raises(RuntimeError):
        handle(worker, recording, client, b"GET /broken HTTP/1.1\r\nHost: kb\r\n\r\n")
    assert recording.writes == []

"""How the app meets gunicorn behind nginx: one write for a response's head and body, and the
server's own refusals in the app's error shape.

scripts/serve runs nginx (behind HAProxy) in front of gunicorn (deploy/serve.py): nginx reads
every request whole, whatever the client sends or withholds, and reads every answer whole, so
gunicorn's plain synchronous worker meets only complete requests over a unix socket, one at a
time, as the app runs them (the search engine's readers share file positions). `Worker` is that
worker with four changes:

- A response's head goes out in the same write as the first part of its body (`_HeadWithBody`).
- gunicorn's own answers to a request it cannot read (a request line over its limit: 414,
  too many or too large header fields: 431, a malformed request: 400) come in the app's one
  error shape, JSON or an HTML page as the path and `Accept` ask, instead of gunicorn's bare
  page. gunicorn still chooses the status and logs the refusal.
- The garbage collector's older generations are collected between requests, after a
  request's connection is closed, never inside one (webapp/collection.py).
- A request whose connection nginx has closed before the worker took it up (its client went
  away: nginx closes the connection to the app then) is not run: a burst of searches left
  behind by their clients would otherwise keep the workers busy for seconds.

`error_document` gives the same shape to the pages nginx answers with itself (a request it
refuses, an app server that does not answer), and `error_answer` to HAProxy's (a request that
does not arrive in time), written once when the server starts.
"""
from __future__ import annotations

import contextlib
import re
import select
import socket

from flask import Flask
from gunicorn.workers.sync import SyncWorker
from werkzeug.http import HTTP_STATUS_CODES

from . import collection
from .views.errors import MESSAGES, error_response

_STATUS = re.compile(rb"HTTP/1\.1 ([0-9]{3}) ")
# How much of a request's head is kept to answer a refusal of it.
HEAD_BYTES = 16 * 1024
_REQUEST_LINE = re.compile(rb"[A-Z]{1,20} (/[^ ?\r\n]{0,4096})")
_ACCEPT = re.compile(rb"\r\naccept:[ \t]*([^\r\n]{0,1000})", re.IGNORECASE)
# The messages of the statuses only nginx answers with.
PROXY_MESSAGES = {
    502: "The service is not answering right now; please try again in a moment.",
    503: "The service is not answering right now; please try again in a moment.",
    504: "The service took too long to answer; please try again in a moment.",
}


class _Captured:
    """Stands for a client socket to keep what gunicorn would have sent it."""

    def __init__(self):
        self.sent = b""

    def gettimeout(self):
        return 0.0

    def sendall(self, data):
        self.sent += bytes(data)

    send = sendall


class _HeadWithBody:
    """A client socket for one response whose head goes out in the same write as the first
    part of its body.

    gunicorn writes a response's head and its body separately. A replica killed between the
    two writes leaves nginx holding a head it has already passed on to the client, with no
    body to follow: a lost request that nginx can no longer retry on another replica. Written
    together, a kill loses either the whole answer, which nginx retries, or nothing."""

    def __init__(self, sock):
        self._sock = sock
        self._head: bytes | None = None
        self._first = True

    def sendall(self, data) -> None:
        if self._first:
            self._first, self._head = False, bytes(data)
            return
        if self._head is not None:
            data, self._head = self._head + bytes(data), None
        self._sock.sendall(data)

    def send(self, data) -> int:
        """Before the response: gunicorn's `100 Continue`, which goes out at once."""
        self.flush()
        return self._sock.send(data)

    def flush(self) -> None:
        if self._head is not None:
            head, self._head = self._head, None
            self._sock.sendall(head)

    def sendfile(self, *args, **kwargs):
        self.flush()
        return self._sock.sendfile(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._sock, name)


class _Recorded:
    """A client socket that keeps the first HEAD_BYTES it received: the head of a request
    gunicorn refuses before it has parsed its path, for the path and Accept of the answer."""

    def __init__(self, sock):
        self.sock, self.head = sock, b""

    def recv(self, size: int, *args) -> bytes:
        data = self.sock.recv(size, *args)
        if len(self.head) < HEAD_BYTES:
            self.head += data[:HEAD_BYTES - len(self.head)]
        return data

    def __getattr__(self, name):
        return getattr(self.sock, name)


def closed_by_peer(sock: socket.socket) -> bool:
    """Whether the other end has closed `sock`, with nothing left in it to read: its end of
    file is all a read would find. (A request's unread body, or a peer that is only slow,
    reads as open.)"""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:  # reset
        return True


class Worker(SyncWorker):
    """gunicorn's synchronous worker writing a response's head with its body, whose refusals
    are in the app's error shape, and which collects the garbage collector's older
    generations between requests (see the module's docstring)."""

    def init_process(self):
        collection.collect_older_between_requests()
        super().init_process()

    def handle(self, listener, client, addr):
        try:
            return super().handle(listener, _Recorded(client), addr)
        finally:
            collection.between_requests()

    def handle_request(self, listener, req, client, addr):
        if closed_by_peer(getattr(client, "sock", client)):
            self.log.debug("Not run: the connection of %s %s was closed before it began.", req.method, req.path)
            return  # gunicorn closes the connection
        one_write = _HeadWithBody(client)
        try:
            return super().handle_request(listener, req, one_write, addr)
        finally:
            with contextlib.suppress(OSError):
                one_write.flush()

    def handle_error(self, req, client, addr, exc):
        """gunicorn chooses the status and logs; the answer is the app's error shape."""
        captured = _Captured()
        super().handle_error(req, captured, addr, exc)
        status = _STATUS.match(captured.sent)
        if req is not None:
            path, accept = req.path or "/", dict(req.headers).get("ACCEPT")
        else:
            path, accept = _path_and_accept(getattr(client, "head", b""))
        try:
            client.sendall(error_answer(self.wsgi, int(status.group(1)) if status else 500, path, accept))
        except OSError:
            self.log.debug("Failed to send error message.")


def error_document(app: Flask, status: int, path: str, accept: str | None = None) -> tuple[dict[str, str], bytes]:
    """The app's error answer for `status` at `path`: its headers (but the length and the
    connection's) and its body, JSON or a page as `path` and `accept` ask."""
    with app.test_request_context(path, headers={"Accept": accept} if accept else {}):
        message = MESSAGES.get(status) or PROXY_MESSAGES.get(status, "The request was refused.")
        response = app.process_response(error_response(status, message))
        headers = {name: value for name, value in response.headers.items()
                   if name.lower() not in ("content-length", "connection", "set-cookie")}
        return headers, response.get_data()


def error_answer(app: Flask, status: int, path: str, accept: str | None) -> bytes:
    """The app's whole error answer for `status`, as bytes for a socket (and for HAProxy's
    errorfiles, deploy/edge.py)."""
    headers, body = error_document(app, status, path, accept)
    reason = HTTP_STATUS_CODES.get(status, "Error")
    lines = [f"HTTP/1.1 {status} {reason}", *(f"{name}: {value}" for name, value in headers.items()),
             f"Content-Length: {len(body)}", "Connection: close", "", ""]
    return "\r\n".join(lines).encode("latin-1") + body


def _path_and_accept(head: bytes) -> tuple[str, str | None]:
    """The path and Accept header of a request head that may not parse."""
    line = _REQUEST_LINE.match(head)
    accept = _ACCEPT.search(head)
    return (line.group(1).decode("latin-1") if line else "/",
            accept.group(1).decode("latin-1") if accept else None)

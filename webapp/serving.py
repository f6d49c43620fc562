"""How the app meets gunicorn: requests are read whole before a thread takes them, and even
the server's own refusals come in the app's error shape.

scripts/serve runs `Worker`, gunicorn's threaded worker (gthread) changed in two ways:

- Its poller, not a thread, reads each request: the head, then a body of at most the app's
  body cap (`Content-Length`, or chunks up to their last). Only a request read whole goes to
  the thread pool. A client that sends its request a byte at a time, or nothing at all, holds
  a poller entry and its bytes, never a thread, however many such clients there are (up to
  gunicorn's worker connections, 1000 a worker; past that, the buffering proxy of the
  deployment, deploy/nginx.conf). A request not in whole within `Settings.request_seconds`
  is answered 408 and its connection closed; a head over HEAD_BYTES, 431.
- gunicorn's own answers to a request it cannot read (a request line over its limit: 414,
  too many or too large header fields: 431, a malformed request: 400) come in the app's one
  error shape, JSON or an HTML page as the path and `Accept` ask, instead of gunicorn's bare
  page. gunicorn still chooses the status and logs the refusal.

The app itself runs one request at a time per worker, as under sync workers (the search
engine's readers share file positions, and two processes already use both cores):
`one_request_at_a_time` reads the body into memory before the app is entered, so even under
another server a body trickling in holds its thread, never the app.
"""
from __future__ import annotations

import contextlib
import io
import re
import selectors
import threading
import time
from collections import deque
from functools import partial

from gunicorn.workers.gthread import ThreadWorker

from .views.errors import MESSAGES, error_response

# A request head larger than this is refused (431) without being read further.
HEAD_BYTES = 64 * 1024
_HEAD_END = b"\r\n\r\n"
_LAST_CHUNK = b"0\r\n\r\n"
_CONTENT_LENGTH = re.compile(rb"\r\ncontent-length:[ \t]*([0-9]{1,15})[ \t]*\r\n", re.IGNORECASE)
_CHUNKED = re.compile(rb"\r\ntransfer-encoding:[^\r\n]{0,200}chunked", re.IGNORECASE)
_REQUEST_LINE = re.compile(rb"[A-Z]{1,20} (/[^ ?\r\n]{0,4096})")
_ACCEPT = re.compile(rb"\r\naccept:[ \t]*([^\r\n]{0,1000})", re.IGNORECASE)
_STATUS = re.compile(rb"HTTP/1\.1 ([0-9]{3}) ")

def one_request_at_a_time(wsgi_app, max_body_bytes: int):
    lock = threading.Lock()

    def run(environ, start_response):
        length = environ.get("CONTENT_LENGTH") or ""
        chunked = environ.get("HTTP_TRANSFER_ENCODING", "").lower() == "chunked"
        if (length.isdigit() and 0 < int(length) <= max_body_bytes) or chunked:
            # One more byte than allowed tells the app a chunked body is too large.
            wanted = int(length) if length.isdigit() else max_body_bytes + 1
            environ["wsgi.input"] = io.BytesIO(environ["wsgi.input"].read(wanted))
        with lock:
            return wsgi_app(environ, start_response)

    return run


class _Reading:
    """A request being read by the poller: its bytes so far and when it must be in."""

    __slots__ = ("data", "deadline", "head_end", "searched")

    def __init__(self, deadline: float):
        self.data = bytearray()
        self.deadline = deadline
        self.head_end = -1   # where the head ends, once it has
        self.searched = 0    # how far the head's end was looked for (each byte once)

    def complete(self, max_body_bytes: int) -> bool:
        """Whether the request is in: its head, and its body up to the cap."""
        if self.head_end < 0:
            found = self.data.find(_HEAD_END, max(0, self.searched - 3))
            self.searched = len(self.data)
            if found < 0:
                return False
            self.head_end = found + len(_HEAD_END)
        head = bytes(self.data[:self.head_end])
        body = len(self.data) - self.head_end
        length = _CONTENT_LENGTH.search(head)
        if length is not None:
            return body >= min(int(length.group(1)), max_body_bytes + 1)
        if _CHUNKED.search(head):
            return body > max_body_bytes or self.data.endswith(_LAST_CHUNK)
        return True


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


class Worker(ThreadWorker):
    """gunicorn's gthread worker whose poller reads each request whole, and whose refusals
    are in the app's error shape (see the module's docstring)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.reading: deque = deque()  # connections whose request is being read, by deadline
        self.current = threading.local()  # the head of the request a thread is handling

    def _limits(self) -> tuple[int, float]:
        """The app's body cap and the time a request may take to arrive (Settings)."""
        return self.wsgi.config["MAX_CONTENT_LENGTH"], self.wsgi.extensions["kb.settings"].request_seconds

    # -- reading in the poller (main thread) --

    def enqueue_req(self, conn):
        conn.reading = _Reading(time.monotonic() + self._limits()[1])
        if conn.parser is not None:  # what a client sent after its last request (pipelined)
            conn.reading.data += conn.parser.unreader.take_buffered()
            if conn.reading.data and conn.reading.complete(self._limits()[0]):
                conn.data_ready = True
                return super().enqueue_req(conn)
        conn.sock.setblocking(False)
        self.reading.append(conn)
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._on_readable, conn))

    def _on_readable(self, conn, _sock):
        reading = conn.reading
        try:
            data = conn.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._drop(conn)
            return
        reading.data += data
        if reading.complete(self._limits()[0]):
            self._stop_reading(conn)
            conn.data_ready = True
            super().enqueue_req(conn)
        elif reading.head_end < 0 and len(reading.data) > HEAD_BYTES:
            self._refuse(conn, 431)

    def _stop_reading(self, conn):
        self.poller.unregister(conn.sock)
        self.reading.remove(conn)

    def _drop(self, conn):
        self._stop_reading(conn)
        self.nr_conns -= 1
        conn.close()

    def _refuse(self, conn, status: int):
        """Answer `status` in the app's shape (best effort: the socket does not block), close."""
        with contextlib.suppress(OSError):
            conn.sock.send(self._error_bytes(status, *_path_and_accept(bytes(conn.reading.data[:HEAD_BYTES]))))
        self._drop(conn)

    def murder_pending(self):
        super().murder_pending()
        now = time.monotonic()
        while self.reading and (self.reading[0].reading.deadline <= now or not self.alive):
            conn = self.reading[0]
            if conn.reading.data:
                self._refuse(conn, 408)
            else:
                self._drop(conn)

    # -- in a thread --

    def handle(self, conn):
        reading = getattr(conn, "reading", None)
        self.current.head = b""
        if reading is not None:
            conn.reading = None
            self.current.head = bytes(reading.data[:HEAD_BYTES])
            conn.sock.setblocking(True)
            try:
                conn.init()
            except Exception as exc:  # noqa: BLE001  (answered as gunicorn answers it)
                self.handle_error(None, conn.sock, conn.client, exc)
                return False
            conn.parser.unreader.unread(bytes(reading.data))
        return super().handle(conn)

    def handle_request(self, req, conn):
        sock, conn.sock = conn.sock, _HeadWithBody(conn.sock)
        try:
            return super().handle_request(req, conn)
        finally:
            with contextlib.suppress(OSError):
                conn.sock.flush()
            conn.sock = sock

    def handle_error(self, req, client, addr, exc):
        """gunicorn chooses the status and logs; the answer is the app's error shape."""
        captured = _Captured()
        super().handle_error(req, captured, addr, exc)
        status = _STATUS.match(captured.sent)
        if req is not None:
            path, accept = req.path or "/", dict(req.headers).get("ACCEPT")
        else:
            path, accept = _path_and_accept(getattr(self.current, "head", b""))
        try:
            client.sendall(self._error_bytes(int(status.group(1)) if status else 500, path, accept))
        except OSError:
            self.log.debug("Failed to send error message.")

    def _error_bytes(self, status: int, path: str, accept: str | None) -> bytes:
        """The app's whole error answer for `status`, JSON or a page as `path` and `accept` ask."""
        app = self.wsgi
        with app.test_request_context(path, headers={"Accept": accept} if accept else {}):
            message = MESSAGES.get(status, "The request was refused.")
            response = app.process_response(error_response(status, message))
            body = response.get_data()
            lines = [f"HTTP/1.1 {response.status}"]
            lines += [f"{name}: {value}" for name, value in response.headers.items()
                      if name.lower() not in ("content-length", "connection", "set-cookie")]
        lines += [f"Content-Length: {len(body)}", "Connection: close", "", ""]
        return "\r\n".join(lines).encode("latin-1") + body


def _path_and_accept(head: bytes) -> tuple[str, str | None]:
    """The path and Accept header of a request head that may not parse."""
    line = _REQUEST_LINE.match(head)
    accept = _ACCEPT.search(head)
    return (line.group(1).decode("latin-1") if line else "/",
            accept.group(1).decode("latin-1") if accept else None)

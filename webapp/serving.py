"""How the app meets gunicorn's threaded workers: slow clients wait in threads, not in the app.

scripts/serve runs gthread workers: a worker's threads read requests, so a client that sends
its request a byte at a time (or not at all) holds one thread, not the worker. The app itself
runs one request at a time per worker, as under sync workers (the search engine's readers
share file positions, and two processes already use both cores), and only once the request
is in: its body is read into memory before the app is entered, so a body trickling in holds
its thread, never the app.
"""
from __future__ import annotations

import io
import threading


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

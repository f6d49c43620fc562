"""gunicorn's worker of the app (`webapp.serving.Worker`) in tests, without its process: made
with gunicorn's default settings and handed a WSGI app, its requests handled over a socket
pair by the test."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from gunicorn.config import Config
from gunicorn.glogging import Logger

from webapp.serving import Worker


class Listener:
    """The listening socket a request came in on, as the worker asks it."""

    def getsockname(self):
        return ("127.0.0.1", 8000)


@contextmanager
def worker_of(app: Callable) -> Iterator[Worker]:
    """A worker serving `app`, its temporary file closed after."""
    cfg = Config()
    worker = Worker(0, 0, [], None, 30, cfg, Logger(cfg))
    worker.wsgi = app
    try:
        yield worker
    finally:
        worker.tmp.close()

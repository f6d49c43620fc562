"""The MCP server's streamable HTTP transport, answered at `/mcp` inside the site's workers.

The SDK's transport is an ASGI app; a worker runs it on an event loop thread of its own, made in
the process that serves (a thread does not survive gunicorn's fork), stateless and answering
JSON, so that a call is one POST answered whole: HAProxy and nginx in front hold it to the
site's limits (its body, its time) like any other request, and `a2wsgi` hands it to the loop.
Host and Origin are checked against the site's public address, as the SDK recommends against
DNS rebinding.
"""
from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from a2wsgi import ASGIMiddleware
from mcp.server.transport_security import TransportSecuritySettings

from indexer.knowledge.library import Library

from .mcp_server import create_server

PATH = "/mcp"
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
# How long a worker waits for its loop to start the transport (it takes milliseconds).
START_SECONDS = 10


def transport_security(public_url: str) -> TransportSecuritySettings:
    """Host and Origin as the public address names them; a loopback address on any port (a
    server reached on loopback is reached under each of its names)."""
    address = urlsplit(public_url)
    hosts, origins = [address.netloc], [f"{address.scheme}://{address.netloc}"]
    if address.hostname in ("127.0.0.1", "localhost", "::1"):
        hosts += [*LOOPBACK, *(f"{host}:*" for host in LOOPBACK)]
        origins += [f"http{tls}://{host}{port}" for tls in ("", "s") for host in LOOPBACK for port in ("", ":*")]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts,
                                     allowed_origins=origins)


class McpEndpoint:
    """The transport of one process, started at its first call: `wsgi()` is the WSGI app that
    answers `/mcp`."""

    def __init__(self, library: Callable[[], Library], public_url: str, max_body_bytes: int):
        self._library, self._public_url, self._max_body_bytes = library, public_url, max_body_bytes
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._app: Any = None

    def wsgi(self) -> Any:
        with self._lock:
            if self._pid != os.getpid():
                self._app, self._pid = self._start(), os.getpid()
            return self._app

    def _start(self) -> Any:
        server = create_server(self._library, self._public_url)
        app = server.streamable_http_app(streamable_http_path=PATH, json_response=True, stateless_http=True,
                                         transport_security=transport_security(self._public_url),
                                         max_request_body_size=self._max_body_bytes)
        loop = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, name="mcp", daemon=True).start()
        ready = threading.Event()

        async def serve() -> None:
            # The transport's task group lives as long as the process.
            async with server.session_manager.run():
                ready.set()
                await loop.create_future()  # never done

        asyncio.run_coroutine_threadsafe(serve(), loop)
        if not ready.wait(START_SECONDS):
            raise RuntimeError("the MCP transport did not start")
        return ASGIMiddleware(app, loop=loop)  # type: ignore[arg-type]  # Starlette's looser ASGI types

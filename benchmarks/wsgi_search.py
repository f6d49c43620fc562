"""Searches asked of the web app without a server: the WSGI environ gunicorn hands the app for
`/api/search?q=...` (with its RAW_URI, which the app's addresses read), the app called with it
as gunicorn calls it, and the command line of the benchmarks that ask generated queries so
(benchmarks.stages, benchmarks.worker_profile)."""
from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication, WSGIEnvironment


def search_environ(query: str) -> WSGIEnvironment:
    """The environ of `/api/search?q=<query>`, as gunicorn builds it."""
    from werkzeug.test import EnvironBuilder

    env = EnvironBuilder(path="/api/search", query_string="q=" + quote(query, safe="")).get_environ()
    env["RAW_URI"] = "/api/search?" + env["QUERY_STRING"]
    return env


def _start_response(status: str, headers: list[tuple[str, str]], exc_info: object = None) -> Callable[[bytes], None]:
    """The answer's status and headers are not wanted; nor is anything written."""
    return lambda data: None


def ask(app: WSGIApplication, environ: WSGIEnvironment) -> None:
    """One call of the app, its answer read to the end."""
    body: Iterable[bytes] = app(environ, _start_response)
    b"".join(body)


def index_and_queries(prog: str, description: str, queries: int, argv: list[str] | None) -> tuple[Path, int]:
    """INDEX_ROOT and `--queries N` (how many generated queries are asked) of the command line."""
    ap = argparse.ArgumentParser(prog=prog, description=description)
    ap.add_argument("index_root", type=Path, help="a folder of index builds (INDEX_ROOT)")
    ap.add_argument("--queries", type=int, default=queries, help=f"generated queries asked (default {queries})")
    args = ap.parse_args(argv)
    return args.index_root, args.queries

"""The web layer: server-rendered pages, their JSON twins, the forum linker and embed script.

Everything shown comes from the `knowledge` service; this package only chooses what to ask for and
how to present it. `create_app` is the application factory (gunicorn uses `webapp.wsgi:app`);
the index root is `INDEX_ROOT` from the test config, else from the environment, else var/index.
`PUBLIC_URL` (likewise) is the address readers reach the service at: absolute links (the forum
linker's, opensearch.xml) are built on it, never on the request's Host header, which a client
chooses.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path

from flask import Flask

from indexer.knowledge.live import LiveLibrary
from indexer.search.build import DEFAULT_INDEX_ROOT

from . import caching, respond, templating
from .views import cards, errors, forum, meta, offline, rules, search, sources, terms

MAX_BODY_BYTES = 100 * 1024
DEFAULT_PUBLIC_URL = "http://localhost"


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__name__)
    app.config.from_mapping(
        # The variable scripts/serve sets for both the build and the server.
        INDEX_ROOT=os.environ.get("INDEX_ROOT") or DEFAULT_INDEX_ROOT,
        PUBLIC_URL=os.environ.get("PUBLIC_URL") or DEFAULT_PUBLIC_URL,
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        # Reader-facing defaults; a query string may ask for up to the library's maximum.
        SEARCH_LIMIT=10,
    )
    if test_config:
        app.config.update(test_config)
    app.config["INDEX_ROOT"] = Path(app.config["INDEX_ROOT"])
    app.config["PUBLIC_URL"] = app.config["PUBLIC_URL"].rstrip("/")
    # Readable Chinese in JSON, and keys in the order the library builds them.
    app.json.ensure_ascii = False
    app.json.sort_keys = False
    app.extensions["kb.library"] = LiveLibrary(app.config["INDEX_ROOT"])
    app.extensions["kb.library.lock"] = threading.Lock()

    for blueprint in (errors.bp, search.bp, rules.bp, cards.bp, terms.bp, sources.bp, forum.bp, meta.bp,
                      offline.bp):
        app.register_blueprint(blueprint)
    respond.install(app)
    templating.install(app)
    caching.install(app)
    from .cli import cli  # here, not at the top: `python -m webapp.cli` must import it only once

    app.cli.add_command(cli, "kb")
    return app

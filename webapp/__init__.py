"""The web layer: server-rendered pages, their JSON twins, the forum linker and embed script.

Everything shown comes from the `knowledge` service; this package only chooses what to ask for and
how to present it. `create_app` is the application factory (gunicorn uses `webapp.wsgi:app`);
the settings come from the environment (`indexer.knowledge.settings`), and a test config may
replace `INDEX_ROOT` and `PUBLIC_URL`. `PUBLIC_URL` is the address readers reach the service
at: absolute links (the forum linker's, opensearch.xml) are built on it, never on the
request's Host header, which a client chooses.
"""
from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

from flask import Flask

from indexer.knowledge.library import Library
from indexer.knowledge.live import LiveLibrary
from indexer.knowledge.settings import Settings

from . import caching, hooks, templating
from .json_answers import OrjsonProvider
from .mcp_http import McpEndpoint
from .views import book, cards, changes, errors, forum, mcp_endpoint, meta, offline, rules, search, sources, terms


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__name__)
    settings = Settings.from_env()
    app.config.from_mapping(
        INDEX_ROOT=settings.index_root,
        PUBLIC_URL=settings.public_url,
        MAX_CONTENT_LENGTH=settings.max_body_bytes,
        # Reader-facing defaults; a query string may ask for up to the library's maximum.
        SEARCH_LIMIT=10,
    )
    if test_config:
        app.config.update(test_config)
    app.config["INDEX_ROOT"] = Path(app.config["INDEX_ROOT"])
    app.config["PUBLIC_URL"] = app.config["PUBLIC_URL"].rstrip("/")
    # Readable Chinese in JSON, and keys in the order the library builds them.
    app.json = OrjsonProvider(app)
    settings = dataclasses.replace(settings, index_root=app.config["INDEX_ROOT"], public_url=app.config["PUBLIC_URL"])
    app.extensions["kb.settings"] = settings
    app.extensions["kb.library"] = LiveLibrary.from_settings(settings)
    app.extensions["kb.library.lock"] = lock = threading.Lock()
    live = app.extensions["kb.library"]

    def current_library() -> Library:
        """The live library's current build, as a request gets it (`AnswerRequest.library`)."""
        with lock:
            return live.get()

    app.extensions["kb.mcp"] = McpEndpoint(current_library, settings.public_url, app.config["MAX_CONTENT_LENGTH"])

    for blueprint in (errors.bp, search.bp, book.bp, rules.bp, changes.bp, cards.bp, terms.bp, sources.bp,
                      forum.bp, meta.bp, offline.bp, mcp_endpoint.bp):
        app.register_blueprint(blueprint)
    templating.install(app)
    caching.install(app)
    hooks.install(app)
    return app

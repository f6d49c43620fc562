"""The bare stack for the HTTP benchmark: Flask and a search, with nothing else.

It opens the index INDEX_ROOT names and answers a query string with the matching record ids
as JSON: no ranking, snippets, result records or pages. Both routes run the very query the
library would run (the same parsing and glossary expansion):

- /api/search: through Whoosh's own searcher and matchers (`search_with_whoosh`), the way a
  minimal Flask + Whoosh service would search this index. The ceiling the issue's goal names.
- /api/engine: through the engine's own evaluation (`engine.search`, what the real app
  calls), so that the real app's distance from it is the cost of everything the app adds:
  the cold benchmark's floor (benchmarks.cold).
"""
from __future__ import annotations

from flask import Flask, jsonify, request

from indexer.knowledge.live import LiveLibrary
from indexer.knowledge.settings import Settings
from indexer.search import analysis
from indexer.search.query import parse_query

analysis.warm_up()
app = Flask(__name__)
live = LiveLibrary.from_settings(Settings.from_env())


def _engine_query():
    library = live.get()
    return library, library.engine_query(parse_query(request.args.get("q", "")))


@app.get("/api/search")
def search():
    library, query = _engine_query()
    return jsonify({"ids": [record_id for record_id, _ in library.engine.search_with_whoosh(query, 10)]})


@app.get("/api/engine")
def engine():
    library, query = _engine_query()
    return jsonify({"ids": [record_id for record_id, _ in library.engine.search(query, 10)]})


@app.get("/healthz")
def healthz():
    return jsonify({"status": "ok", "index": live.get().folder.name})

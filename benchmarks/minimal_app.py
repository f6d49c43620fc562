"""The ceiling of this stack for the HTTP benchmark: Flask and Whoosh with nothing else.

It opens the index INDEX_ROOT names and, for /api/search?q=, runs the very engine query the
library would run (the same parsing and glossary expansion, so Whoosh does the same work)
and returns the matching record ids as JSON: no ranking, snippets, result records or pages.
The real app can only be slower; how much slower is the cost of everything it adds.
"""
from __future__ import annotations

import os
from pathlib import Path

from flask import Flask, jsonify, request

from indexer import analysis
from indexer.library import LiveLibrary
from indexer.query import parse_query

analysis.warm_up()
app = Flask(__name__)
live = LiveLibrary(Path(os.environ["INDEX_ROOT"]))


@app.get("/api/search")
def search():
    library = live.get()
    query = library._engine_query(parse_query(request.args.get("q", "")))
    return jsonify({"ids": [record_id for record_id, _ in library.engine.search(query, 10)]})


@app.get("/healthz")
def healthz():
    return jsonify({"status": "ok", "index": live.get().folder.name})

"""The peer of the cold benchmark: a naive Flask + Whoosh + jieba search service.

What a first version of this service would be: the records' names, title and body indexed
by Whoosh with jieba's `ChineseAnalyzer` (benchmarks.peers.NaiveWhoosh writes the index into
the folder INDEX_ROOT names), a query parsed by Whoosh's `MultifieldParser` and searched by
Whoosh's searcher, the top ten record ids returned as JSON. No snippets, no ranking of its
own and no result records: it does less per request than the real app.
"""
from __future__ import annotations

import os

from flask import Flask, jsonify, request
from whoosh import index as whoosh_index
from whoosh.qparser import MultifieldParser

from .peers import FIELDS, RESULTS

app = Flask(__name__)
_open: dict = {}  # per process, opened on the first request (after the fork)


def _searcher():
    if not _open:
        ix = whoosh_index.open_dir(os.environ["INDEX_ROOT"])
        _open["searcher"], _open["parser"] = ix.searcher(), MultifieldParser(list(FIELDS), ix.schema)
    return _open["searcher"], _open["parser"]


@app.get("/api/search")
def search():
    searcher, parser = _searcher()
    hits = searcher.search(parser.parse(request.args.get("q", "")), limit=RESULTS)
    return jsonify({"ids": [hit["id"] for hit in hits]})


@app.get("/healthz")
def healthz():
    _searcher()
    return jsonify({"status": "ok"})

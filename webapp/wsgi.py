"""The production entry point: `gunicorn --preload webapp.wsgi:app` (scripts/serve).

Everything is loaded here, at import, in gunicorn's master, so the workers fork with it and
share it instead of each loading it on its first request: OpenCC's converters, jieba's
dictionary together with the current index's user dictionary, and the current index itself
(records, tables, engine), so the first query after the server is ready answers from it, and
the templates, compiled.
A worker opens the index files again for itself when it forks (a file position is not to be
shared between processes) and switches to a new build on its own when a rebuild names one.
Requests reach the app whole, one at a time per worker (nginx in front, `serving`).
"""
import os
from urllib.parse import urlsplit

from indexer.search import analysis
from indexer.search.build import current_folder
from indexer.search.engine import IndexUnavailable
from indexer.search.opened_build import USER_WORDS_FILE

from . import create_app, templating

app = create_app()
_folder = current_folder(app.config["INDEX_ROOT"])
_segmenter = None
if _folder is not None and (_folder / USER_WORDS_FILE).is_file():
    try:
        _segmenter = analysis.segmenter_for(frozenset(analysis.read_user_dictionary(_folder / USER_WORDS_FILE)))
    except analysis.UserDictionaryError as exc:
        app.logger.warning("not warming up with the index's user words: %s", exc)
analysis.warm_up(_segmenter)
templating.compile_all(app)
_live = app.extensions["kb.library"]
try:  # a first query loads what a query needs beyond the index (field lengths, lazy imports)
    _live.get().search("persist 留存")
except IndexUnavailable as exc:  # each worker tries again on its first request
    app.logger.warning("no index opened before the workers start: %s", exc)
os.register_at_fork(after_in_child=_live.after_fork)


def warm_worker() -> None:
    """What a worker does before its first request (gunicorn's `post_worker_init`,
    deploy/gunicorn.conf.py): it asks a search page itself (fifty results, two words
    misspelt: its spelling and snippets' code and tables too), a rule page and a tool of
    `/mcp` (whose transport each worker starts for itself), so the memory pages a request
    first writes after the fork (copied then from the master's: 2,000 and more, 9 ms of
    system time) and the first calls of the pages' code are not paid by the first reader's
    request."""
    client = app.test_client()
    coded = {"Accept-Encoding": "gzip, br, zstd"}
    tool_call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                 "params": {"name": "get_rule", "arguments": {"number": "702.79"}}}
    asks: list[tuple[str, dict, dict | None]] = [
        ("/?q=persist+留存+flyng+counterr&limit=50", coded, None), ("/rules/702.79", coded, None),
        ("/mcp", {**coded, "Accept": "application/json, text/event-stream",
                  "Host": urlsplit(app.config["PUBLIC_URL"]).netloc}, tool_call)]
    for address, headers, body in asks:
        try:  # (with no index yet, an answer in the error shape: the worker serves anyway)
            client.open(address, method="POST" if body else "GET", headers=headers, json=body)
        except Exception:  # a warm-up never keeps a worker from serving
            app.logger.exception("warming up the worker with %s", address)

"""The production entry point: `gunicorn --preload webapp.wsgi:app` (scripts/serve).

Everything is loaded here, at import, in gunicorn's master, so the workers fork with it and
share it instead of each loading it on its first request: OpenCC's converters, jieba's
dictionary together with the current index's user dictionary, and the current index itself
(records, tables, engine), so the first query after the server is ready answers from it, and
the templates, compiled.
A worker opens the index files again for itself when it forks (a file position is not to be
shared between processes). When a rebuild names a new build, the master opens and warms it
and new workers serve it (`follow_builds`); a gunicorn without this module's hooks leaves each
worker to switch on its own.
Requests reach the app whole, one at a time per worker (nginx in front, `serving`).
"""
import os

from indexer.knowledge.library import Library
from indexer.search import analysis
from indexer.search.engine import IndexUnavailable
from indexer.search.opened_build import USER_WORDS_FILE

from . import create_app, templating, warming
from .build_follower import BuildFollower

app = create_app()


def warm_library(library: Library | None) -> None:
    """Loads what a query on `library` needs beyond the index, so that no worker's first
    query pays for it: jieba's dictionary with the build's user words, field lengths, lazy
    imports (without a library, jieba's dictionary alone)."""
    segmenter = None
    words = library.folder / USER_WORDS_FILE if library is not None else None
    if words is not None and words.is_file():
        try:
            segmenter = analysis.segmenter_for(frozenset(analysis.read_user_dictionary(words)))
        except analysis.UserDictionaryError as exc:
            app.logger.warning("not warming up with the index's user words: %s", exc)
    analysis.warm_up(segmenter)
    if library is not None:
        library.search("persist 留存")


_live = app.extensions["kb.library"]
try:
    warm_library(_live.get())
except IndexUnavailable as exc:  # each worker tries again on its first request
    app.logger.warning("no index opened before the workers start: %s", exc)
    warm_library(None)
templating.compile_all(app)
os.register_at_fork(after_in_child=_live.after_fork)


def follow_builds(arbiter) -> None:
    """In gunicorn's master (its `when_ready`, deploy/gunicorn.conf.py): new builds are opened
    and warmed here and served by new workers (`BuildFollower`)."""
    follower = app.extensions["kb.follower"] = BuildFollower(arbiter, _live, warm_library)
    follower.start()


def warm_worker() -> None:
    """What a worker does before its first request (gunicorn's `post_worker_init`,
    deploy/gunicorn.conf.py): it asks itself what `warming.warm` asks, then tells the master
    that it serves."""
    warming.warm(app)
    if "kb.follower" in app.extensions:
        app.extensions["kb.follower"].serving()

"""The production entry point: `gunicorn --preload webapp.wsgi:app` (scripts/serve).

Chinese analysis is loaded here, at import, so the workers fork with it and share it instead
of each loading it on its first request: OpenCC's converters and jieba's dictionary, the
latter together with the current index's user dictionary, because a tokenizer built without
those words would be built again when a worker opens the index. The index itself is opened
lazily by each worker: open index files are not shared across a fork. Requests reach the app
one at a time per worker, once read (`serving`).
"""
from indexer.search import analysis
from indexer.search.build import current_folder
from indexer.search.index_build import USER_WORDS_FILE

from . import create_app
from .serving import one_request_at_a_time

app = create_app()
app.wsgi_app = one_request_at_a_time(app.wsgi_app, app.config["MAX_CONTENT_LENGTH"])
_folder = current_folder(app.config["INDEX_ROOT"])
_segmenter = None
if _folder is not None and (_folder / USER_WORDS_FILE).is_file():
    try:
        _segmenter = analysis.segmenter_for(frozenset(analysis.read_user_dictionary(_folder / USER_WORDS_FILE)))
    except analysis.UserDictionaryError as exc:
        app.logger.warning("not warming up with the index's user words: %s", exc)
analysis.warm_up(_segmenter)

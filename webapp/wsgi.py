"""The production entry point: `gunicorn webapp.wsgi:app` (add `--preload` so the workers
fork from one process).

Chinese analysis (jieba's dictionary, the OpenCC converters) is loaded here, at import, so
forked workers share it instead of each loading it on its first request. The index itself
is opened lazily by each worker: open index files are not shared across a fork.
"""
from indexer import analysis

from . import create_app

analysis.warm_up()
app = create_app()

"""What the tests make from corpus/ (indexes, the rules read and aligned, the corpus ingested),
made once and kept between runs in pytest's cache folder (`.pytest_cache/d/kept/`, ignored
by git; `pytest --cache-clear` or `-p no:cacheprovider` makes everything afresh).

Each of these takes seconds, over and over for a test run that should take a minute, so a run
after the first reads them instead. What keeps a kept one from being stale: each is kept under
a hash of everything it is made of (every file of corpus/, the indexing code and an extra
stage's module, as `build` hashes them, and for a build with an extra stage all of indexer/
and webapp/; this module, the corpus copier and conftest.py, which says what each entry is
made of; Python's version and the locked packages), so a changed document, parser, analyser,
fixture or package is a new entry, never an old one; an index is checked again by `build` on
each use (its own hash, every file's checksum), which builds again what a test or a crash left
damaged. Making one entry takes turns (a lock file), so concurrent runs and xdist workers make
each once. The newest two entries of each are kept, older ones removed.
"""
from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import pickle
import shutil
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import MappingProxyType
from typing import TypeVar

from corpus_support import copy_corpus

from indexer.documents.ingest import DEFAULT_CORPUS
from indexer.search.build import Extra, build, inputs_hash

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[1]
# What a kept entry depends on besides the corpus and the indexing code: the packages, this
# module, the corpus copier, and the fixtures saying what each entry is made of.
ENVIRONMENT = (ROOT / "requirements-dev.txt", Path(__file__), Path(__file__).with_name("corpus_support.py"),
               Path(__file__).with_name("conftest.py"))
# Entries kept of each: the one in use and one more, for a run of another state of the
# checkout still reading it.
KEEP = 2
VALUE = "value.pickle"


@functools.cache
def _inputs(paths: tuple[Path, ...], extras: tuple[tuple[str, Extra], ...]) -> str:
    """`inputs_hash` of corpus/ and `paths`: read once a run, the files do not change under it."""
    return inputs_hash([DEFAULT_CORPUS, *paths], dict(extras))


def cache_key(name: str, documents: tuple[str, ...] = (), paths: tuple[Path, ...] = (),
              extras: Mapping[str, Extra] = MappingProxyType({})) -> str:
    digest = hashlib.sha256(repr((name, documents, [str(p) for p in paths], sorted(extras), sys.version)).encode())
    digest.update(_inputs(paths, tuple(sorted(extras.items()))).encode())
    for path in ENVIRONMENT:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@contextmanager
def _entry(cache: Path, name: str, key: str) -> Iterator[Path]:
    """The folder of `name`'s entry for `key`, held alone (the lock is the name's) while it is
    made or checked; older entries of `name` are removed after."""
    cache.mkdir(parents=True, exist_ok=True)
    folder = cache / f"{name}-{key}"
    with open(cache / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        folder.mkdir(exist_ok=True)
        yield folder
        os.utime(folder)
        entries = sorted(cache.glob(f"{name}-" + "[0-9a-f]" * 16), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[KEEP:]:
            shutil.rmtree(old, ignore_errors=True)


def kept_index(cache: Path, name: str, documents: tuple[str, ...] = (), paths: tuple[Path, ...] = (),
               extras: Mapping[str, Extra] = MappingProxyType({})) -> Path:
    """The index root of `documents` of corpus/ (copied with their sources.toml entries into
    a `corpus` folder beside the root) and further `paths`, as `build` makes it."""
    with _entry(cache, name, cache_key(name, documents, paths, extras)) as folder:
        corpus = folder / "corpus"
        if documents and not corpus.is_dir():  # copied whole or not at all, and never again
            tmp = folder / f".tmp-corpus-{os.getpid()}"
            shutil.rmtree(tmp, ignore_errors=True)
            copy_corpus(documents, tmp)
            os.rename(tmp, corpus)
        build([corpus, *paths] if documents else list(paths), root=folder / "index", extras=extras)
    return folder / "index"


def kept_value(cache: Path, name: str, make: Callable[[], T]) -> T:
    """What `make` returns (made from corpus/ by the indexing code), pickled."""
    with _entry(cache, name, cache_key(name)) as folder:
        try:
            return pickle.loads((folder / VALUE).read_bytes())
        except Exception:  # noqa: BLE001 - none yet, or not whole (unpickling raises any type): made again
            value = make()
            tmp = folder / f".tmp-{os.getpid()}"
            tmp.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
            os.replace(tmp, folder / VALUE)
            return value

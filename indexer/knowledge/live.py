"""The library of whichever build the index root names, reopened when a rebuild switches it."""
from __future__ import annotations

import gc
import time
from pathlib import Path

from indexer.search.build import DEFAULT_INDEX_ROOT, current_folder
from indexer.search.engine import IndexUnavailable

from .library import Library


class LiveLibrary:
    """The library of whichever index `CURRENT` names, reopened when a rebuild switches it.

    A request holds the Library it got for its whole duration, so a switch never mixes two
    indexes in one answer; the old one is freed once no request holds it.

    An opened library is long-lived: its records and tables are moved out of the cyclic
    garbage collector's reach (`gc.freeze`), because a full collection walks every tracked
    object, which at a hundred times the corpus's records was a pause of 0.1 s in the middle
    of some request. At a switch they are handed back and collected once, so the old
    library's memory is freed (it holds reference cycles: its caches hold its methods)."""

    CHECK_SECONDS = 1.0

    def __init__(self, root: Path = DEFAULT_INDEX_ROOT):
        self.root = root
        self._library: Library | None = None
        self._folder: Path | None = None
        self._checked = 0.0

    def get(self) -> Library:
        now = time.monotonic()
        if self._library is None or now - self._checked >= self.CHECK_SECONDS:
            self._checked = now
            folder = current_folder(self.root)
            if folder is None:
                if self._library is None:
                    raise IndexUnavailable(f"{self.root}: no index built yet (run: python -m indexer build)")
            elif folder != self._folder:
                try:
                    library = Library(folder)
                except IndexUnavailable:
                    if self._library is None:
                        raise
                else:
                    switched = self._library is not None
                    self._library, self._folder = library, folder
                    if switched:
                        gc.unfreeze()
                        gc.collect()
                    gc.freeze()
        return self._library

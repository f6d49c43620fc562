"""The library of whichever build the index root names, reopened when a rebuild switches it."""
from __future__ import annotations

import ctypes
import gc
import time
from pathlib import Path

from indexer.search.build import DEFAULT_INDEX_ROOT, build_folders, current_folder
from indexer.search.engine import IndexUnavailable

from .library import Library
from .settings import CacheSizes, Settings, size_process_caches
from .weights import Weights


class LiveLibrary:
    """The library of whichever index `CURRENT` names, reopened when a rebuild switches it.

    A request holds the Library it got for its whole duration, so a switch never mixes two
    indexes in one answer; the old one is freed once no request holds it.

    A build that does not open or verify is never switched to, and one found damaged while
    in use (a file cut short: its sizes are checked every CHECK_SECONDS) is left: the newest
    older build that opens is served instead, and `problem` says why, until a rebuild names a
    good one. A folder that failed is not tried again.

    An opened library is long-lived: its records and tables are moved out of the cyclic
    garbage collector's reach (`gc.freeze`), because a full collection walks every tracked
    object, a pause in the middle of some request that grows with the records
    (docs/benchmarks.md, growth). At a switch they are handed back and collected once, so the
    old library's memory is freed (it holds reference cycles: its caches hold its methods),
    and what the C allocator then holds free is handed back to the system (`release_free_memory`)."""

    CHECK_SECONDS = 1.0

    def __init__(self, root: Path = DEFAULT_INDEX_ROOT, weights: Weights = Weights(), caches: CacheSizes = CacheSizes()):
        self.root = root
        self.weights, self.caches = weights, caches
        self._library: Library | None = None
        self._checked = 0.0
        self._failed: dict[Path, str] = {}
        # Why the build CURRENT names is not the one served (None when it is).
        self.problem: str | None = None
        self.current: Path | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> "LiveLibrary":
        size_process_caches(settings.caches)
        live = cls(settings.index_root, settings.weights, settings.caches)
        if settings.check_seconds is not None:
            live.CHECK_SECONDS = settings.check_seconds
        return live

    def get(self) -> Library:
        now = time.monotonic()
        if self._library is None or now - self._checked >= self.CHECK_SECONDS:
            self._checked = now
            self._refresh()
        if self._library is None:
            raise IndexUnavailable(self.problem or f"{self.root}: no index built yet (run: python -m indexer build)")
        return self._library

    def after_fork(self) -> None:
        """In a worker forked with the library open (gunicorn's master opened it): the
        worker serves it without opening the build again, through file handles of its own."""
        if self._library is not None:
            self._library.after_fork()

    def _refresh(self) -> None:
        self.current = current_folder(self.root)
        if self._library is not None:
            damage = self._library.build.damage()
            if damage is not None:
                self._failed[self._library.folder] = damage
                self._library = None
            elif self.current is None or self._library.folder == self.current or self.current in self._failed:
                self.problem = self._failed.get(self.current)
                return
        self.problem = None
        if self.current is None:  # no build named (none yet, or CURRENT unreadable)
            return
        wanted = [self.current] if self.current not in self._failed else []
        if self._library is None:  # nothing good open: the newest other build that opens
            wanted += [folder for folder in build_folders(self.root) if folder not in (self.current, *self._failed)]
        for folder in wanted:
            try:
                library = Library(folder, self.weights, self.caches)
            except IndexUnavailable as exc:
                self._failed[folder] = str(exc)
                continue
            self._switch(library)
            break
        self.problem = self._failed.get(self.current)

    def _switch(self, library: Library) -> None:
        switched = self._library is not None
        self._library = library
        if switched:
            gc.unfreeze()
            gc.collect()
            release_free_memory()
        gc.freeze()


def release_free_memory() -> None:
    """Returns the free pages of the C heap to the system (glibc's malloc_trim; elsewhere
    nothing). A switch opens the new library while requests still hold the old one, so
    for a moment a worker holds both; glibc keeps what the old one freed for later
    allocations, and the worker's resident memory stayed at that peak."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass

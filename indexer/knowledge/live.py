"""The library of whichever build the index root names, reopened when a rebuild switches it."""
from __future__ import annotations

import contextlib
import ctypes
import gc
import time
import weakref
from pathlib import Path

from indexer.search.build import DEFAULT_INDEX_ROOT, build_folders, current_folder
from indexer.search.engine import IndexUnavailable

from .library import Library
from .settings import CacheSizes, Settings, size_process_caches
from .weights import Weights


class LiveLibrary:
    """The library of whichever index `CURRENT` names, reopened when a rebuild switches it.

    A request holds the Library it got for its whole duration, so a switch never mixes two
    indexes in one answer. At a switch the library served so far is let go and collected
    before the new one opens (`_release`): under gunicorn no request of the worker holds it
    then (its requests run one at a time, and the switch happens in the next one), so it is
    freed first and never held together with the new one.

    A build that does not open or verify is never switched to: the library served before
    it serves on (held by a request, or opened again from its folder). One found damaged
    while in use (a file cut short: its sizes are checked every CHECK_SECONDS) is left: the
    newest older build that opens is served instead, and `problem` says why, until a rebuild
    names a good one. A folder that failed is not tried again.

    An opened library is long-lived: its records and tables are moved out of the cyclic
    garbage collector's reach (`gc.freeze`), because a full collection walks every tracked
    object, a pause in the middle of some request that grows with the records
    (docs/benchmarks.md, growth). At a switch they are handed back and collected once, so the
    old library's memory is freed (it holds reference cycles: its caches hold its methods),
    and what the C allocator then holds free is handed back to the system (`release_free_memory`)."""

    CHECK_SECONDS = 1.0

    def __init__(self, root: Path = DEFAULT_INDEX_ROOT, weights: Weights = Weights(),
                 caches: CacheSizes = CacheSizes()):
        self.root = root
        self.weights, self.caches = weights, caches
        self._library: Library | None = None
        self._checked = 0.0
        self._failed: dict[Path, str] = {}
        # Why the build CURRENT names is not the one served (None when it is).
        self.problem: str | None = None
        self.current: Path | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> LiveLibrary:
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
        served = self._library
        if served is not None:
            damage = served.build.damage()
            if damage is not None:
                self._failed[served.folder] = damage
            elif self.current is None or served.folder == self.current or self.current in self._failed:
                self.problem = self._failed.get(self.current) if self.current is not None else None
                return
        del served
        released = self._library is not None
        previous = self._release()
        self.problem = None
        if self.current is not None:  # else no build named (none yet, or CURRENT unreadable)
            wanted = [self.current] if self.current not in self._failed else []
            if previous is None:  # nothing good was open: the newest other build that opens
                wanted += [folder for folder in build_folders(self.root) if folder not in (self.current, *self._failed)]
            for folder in wanted:
                self._library = self._open(folder)
                if self._library is not None:
                    break
            else:
                if previous is not None:  # the one served before: still held by a request, or opened again
                    self._library = previous[1]() or self._open(previous[0])
            gc.freeze()
            self.problem = self._failed.get(self.current)
        if released:
            release_free_memory()

    def _open(self, folder: Path) -> Library | None:
        try:
            return Library(folder, self.weights, self.caches)
        except IndexUnavailable as exc:
            self._failed[folder] = str(exc)
            return None

    def _release(self) -> tuple[Path, weakref.ref] | None:
        """Drop the library served so far and collect it, before the next one opens: in a
        worker no request holds it then, so it is freed, and the next one is laid out in the
        memory it leaves rather than among what the allocator keeps of it, which grew a
        worker's memory with every switch (docs/benchmarks.md, memory). Its folder and a
        weak reference to it, for when the next one does not open; None when there was none,
        or it was damaged."""
        library, self._library = self._library, None
        if library is None:
            return None
        previous = (library.folder, weakref.ref(library)) if library.folder not in self._failed else None
        del library
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        return previous


def release_free_memory() -> None:
    """Returns the free pages of the C heap to the system (glibc's malloc_trim; elsewhere
    nothing): glibc keeps what a switched-from library freed for later allocations, and
    the worker's resident memory stayed at the peak of the switch."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)

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
from indexer.search.opened_build import signature

from .library import Library
from .settings import CacheSizes, Settings, size_process_caches
from .stages import Stages
from .weights import Weights


class LiveLibrary:
    """The library of whichever index `CURRENT` names, reopened when a rebuild switches it.

    A request holds the Library it got for its whole duration, so a switch never mixes two
    indexes in one answer. At a switch the library served so far is let go and collected
    before the new one opens (`_release`): under gunicorn no request of the worker holds it
    then (its requests run one at a time, and the switch happens in the next one), so it is
    freed first and never held together with the new one.

    A build that does not open or verify is never switched to: the library served before
    it serves on (held by a request, or opened again from its folder). A build is found
    damaged while in use when one of its files changed (its files are looked at every
    CHECK_SECONDS, and checked whole when one changed: `IndexBuild.damage`) or when a request
    on it failed and its files no longer match their checksums (`failed`). Then the newest
    other build that opens is served instead, and `problem` says why the one `CURRENT` names
    is not served; with none, the damaged build serves on from what it read into memory
    when it opened, checked then, and `damaged` says what is wrong with it (`/healthz`
    answers 503). A build that failed is tried again once its files change (restored, or
    rebuilt in place), and served again when it is whole.

    An opened library is long-lived: its records and tables are moved out of the cyclic
    garbage collector's reach (`gc.freeze`), because a full collection walks every tracked
    object, a pause in the middle of some request that grows with the records
    (docs/decisions/0002-first-asking-on-a-hundred-times-the-corpus.md). At a switch they are
    handed back and collected once, so the old library's memory is freed (it holds reference
    cycles: its caches hold its methods), and what the C allocator then holds free, the old
    library's and what reading the new one's files left, is handed back to the system
    (`release_free_memory`).

    Under gunicorn the master switches instead (`webapp.build_follower`): its workers'
    libraries do not follow `CURRENT` (`follows_current`), they leave a damaged build only,
    and the master opens the new build (`switch`) for new workers forked with it."""

    CHECK_SECONDS = 1.0

    def __init__(self, root: Path = DEFAULT_INDEX_ROOT, weights: Weights = Weights(),
                 caches: CacheSizes = CacheSizes(), stages: Stages = Stages()):
        self.root = root
        self.weights, self.caches, self.stages = weights, caches, stages
        self._library: Library | None = None
        self._checked = 0.0
        # Builds that failed: why, and what a stat of their files said then (`signature`).
        self._failed: dict[Path, tuple[str, tuple]] = {}
        # Why the build CURRENT names is not the one served (None when it is).
        self.problem: str | None = None
        # What is wrong with the files of the build served, when no other could replace it.
        self.damaged: str | None = None
        self.current: Path | None = None
        # Whether `get` opens the build a rebuild names, or serves on what is open (which is
        # then replaced from outside: `webapp.build_follower`) while it is not damaged.
        self.follows_current = True

    @classmethod
    def from_settings(cls, settings: Settings) -> LiveLibrary:
        size_process_caches(settings.caches)
        live = cls(settings.index_root, settings.weights, settings.caches, settings.stages)
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

    @property
    def served_folder(self) -> Path | None:
        """The folder of the build served, or None."""
        return self._library.folder if self._library is not None else None

    def switch(self) -> Library | None:
        """The library of the build `CURRENT` names, opened now if it is not the one served
        (and opens), whatever `follows_current` says; else the one served, or None."""
        self._checked = time.monotonic()
        self._refresh(follow=True)
        return self._library

    def failed(self, library: Library) -> str | None:
        """After a request on `library` failed: what is wrong with its build's files, checked
        whole again (`IndexBuild.check`), or None. A damaged build is marked, and
        the next request is served by another (`_refresh`)."""
        problem = self._failed[library.folder][0] if library.folder in self._failed else library.build.check()
        if problem is not None and library.folder not in self._failed:
            self._fail(library.folder, problem)
            self._checked = float("-inf")  # the next request looks again
        return problem

    def after_fork(self) -> None:
        """In a worker forked with the library open (gunicorn's master opened it): the
        worker serves it without opening the build again, through file handles of its own."""
        if self._library is not None:
            self._library.after_fork()

    def _fail(self, folder: Path, why: str) -> None:
        self._failed[folder] = (why, signature(folder))

    def _refresh(self, follow: bool | None = None) -> None:
        self.current = current_folder(self.root)
        for folder, (_, files) in list(self._failed.items()):
            if signature(folder) != files:  # changed since it failed: tried again
                del self._failed[folder]
        served = self._library
        if served is not None:
            if served.folder not in self._failed:
                damage = served.build.damage()
                if damage is not None:
                    self._fail(served.folder, damage)
            if served.folder in self._failed:
                damaged = served.folder
                del served
                self._replace_damaged(damaged)
                return
            if (self.current is None or served.folder == self.current or self.current in self._failed
                    or not (self.follows_current if follow is None else follow)):
                self._report()
                return
        del served
        previous = self._release()
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
        self._report()
        release_free_memory()

    def _replace_damaged(self, damaged: Path) -> None:
        """The served build is damaged: the newest other build that opens replaces it, opened
        before the damaged one is let go, which serves on when none does."""
        wanted = [self.current] if self.current is not None else []
        wanted += build_folders(self.root)
        for folder in dict.fromkeys(wanted):
            if folder == damaged or folder in self._failed:
                continue
            opened = self._open(folder)
            if opened is not None:
                self._release()
                self._library = opened
                gc.freeze()
                release_free_memory()
                break
        self._report()

    def _report(self) -> None:
        self.problem = self._failed[self.current][0] if self.current in self._failed else None
        served = self.served_folder
        self.damaged = self._failed[served][0] if served in self._failed else None

    def _open(self, folder: Path) -> Library | None:
        try:
            return Library(folder, self.weights, self.caches, self.stages)
        except IndexUnavailable as exc:
            self._fail(folder, str(exc))
            return None

    def _release(self) -> tuple[Path, weakref.ref] | None:
        """Drop the library served so far and collect it, before the next one opens: in a
        worker no request holds it then, so it is freed, and the next one is laid out in the
        memory it leaves rather than among what the allocator keeps of it, which grew a
        worker's memory with every switch (docs/decisions/0010-memory-across-index-switches.md). Its folder and a
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

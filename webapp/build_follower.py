"""A new build opened and warmed in gunicorn's master, then served by workers forked with it.

A worker that opened a rebuild's build itself did it inside the first request it served after
the switch: 2.6 s of CPU that a reader waited for. The master serves no request: it opens the
build and warms it (`LiveLibrary.switch`, then a search), starts as many new workers as it has,
which fork with the build open and warm themselves before they accept (`post_worker_init`),
and once each new worker has said it serves (`serving`, over a pipe), retires the old ones
(gunicorn stops the oldest, each after its request in progress).
Until then the old workers serve the old build, whole. The workers' libraries do not follow
`CURRENT` themselves (`LiveLibrary.follows_current`); they still leave a build found damaged.
"""
from __future__ import annotations

import contextlib
import os
import select
import struct
import threading
import time
from collections.abc import Callable

from indexer.knowledge.library import Library
from indexer.knowledge.live import LiveLibrary

_PID = struct.Struct("i")


class BuildFollower(threading.Thread):
    """In gunicorn's master (`arbiter`): follows the builds `live`'s index root names."""

    # How long new workers may take to start serving before the old ones are retired anyway.
    READY_SECONDS = 120.0

    def __init__(self, arbiter, live: LiveLibrary, warm: Callable[[Library], None]):
        super().__init__(name="build-follower", daemon=True)
        self.arbiter, self.live, self.warm = arbiter, live, warm
        # The build the workers were forked with: until they are replaced, a switch is pending.
        self.workers_folder = live.served_folder
        self._ready_read, self._ready_write = os.pipe()
        os.set_blocking(self._ready_read, False)
        os.set_blocking(self._ready_write, False)
        live.follows_current = False  # for the workers, forked from here

    def serving(self) -> None:
        """In a new worker, once it is warm: tells the master it serves (unheard if the pipe
        is full: no switch is waiting then, and the next one empties it first)."""
        with contextlib.suppress(BlockingIOError):
            os.write(self._ready_write, _PID.pack(os.getpid()))

    def run(self) -> None:
        while True:
            time.sleep(self.live.CHECK_SECONDS)
            try:
                self.follow()
            except Exception:  # a failed look never stops the following ones
                self.arbiter.log.exception("following the index's builds")

    def follow(self) -> None:
        """If `CURRENT` names a new build that opens (or one opened is not yet the workers'):
        warm it, and replace the workers."""
        library = self.live.switch()
        if library is None or library.folder == self.workers_folder:
            return
        self.arbiter.log.info("opened %s; starting workers with it", library.folder.name)
        try:
            self.warm(library)
        except Exception:  # the workers warm themselves too: they are replaced anyway
            self.arbiter.log.exception("warming %s", library.folder.name)
        self.replace_workers()
        self.workers_folder = library.folder

    def replace_workers(self) -> None:
        """As many new workers as there are, then the old ones retired once the new serve.
        (gunicorn's own way, SIGTTIN and SIGTTOU, loses a signal sent while the same one is
        pending: the count is set, and the master's loop woken to act on it.)"""
        old, count = set(self.arbiter.WORKERS), self.arbiter.num_workers
        self._drain()
        self.arbiter.num_workers += count
        self.arbiter.wakeup()
        ready: set[int] = set()
        deadline = time.monotonic() + self.READY_SECONDS
        while len(ready) < count and time.monotonic() < deadline:
            ready |= self._drain() - old
        if len(ready) < count:
            self.arbiter.log.warning("%d of %d new workers serving after %.0f s; retiring the old ones",
                                     len(ready), count, self.READY_SECONDS)
        self.arbiter.num_workers -= count  # gunicorn stops the oldest
        self.arbiter.wakeup()

    def _drain(self, wait: float = 0.05) -> set[int]:
        """The pids the pipe holds (waiting up to `wait` s for one)."""
        readable, _, _ = select.select([self._ready_read], [], [], wait)
        if not readable:
            return set()
        data = os.read(self._ready_read, 4096)
        return {_PID.unpack_from(data, at)[0] for at in range(0, len(data) - len(data) % _PID.size, _PID.size)}

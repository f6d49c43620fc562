"""App replicas behind nginx on one machine: start them, kill and restart one, and roll a new
index artifact to all of them without a client ever seeing an older index after a newer one.

Each replica is gunicorn as scripts/serve runs it (deploy/gunicorn.conf.py) with an index
root of its own, as on a machine of its own: an index artifact (a build folder, whose name is its id) is copied
into every root, then switched to. nginx (deploy/nginx.conf) balances between them.

Rolling a new index keeps answers monotonic. While both an old and a new replica take traffic
a client could meet new then old, so at no moment do both: the second half of the replicas is
made nginx's backup (it gets requests only when every other replica is down) and switched
while idle; then the first half is stopped one after another and restarted on the new index.
Once the last of them stops listening, nginx sends every request to the backups, already new;
each restarted replica comes back new. The backups then rejoin the rotation. Requests that a
stopping replica had accepted finish there, before any new answer was given; a request it
refuses is retried by nginx on the next replica, so none fails.

`python -m deploy.replicas [PATHS...]` (scripts/replicas) builds the index and serves it this
way on loopback until interrupted. Only 127.0.0.1 is bound.
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from harness.server import HOST, Server, free_port, get
from indexer.documents.ingest import DEFAULT_CORPUS
from indexer.knowledge.settings import Settings
from indexer.search.build import BuildError, build, current_folder, install_artifact, switch_to

from .proxy import Nginx, ProxyError

FAIL_SECONDS = 2
# A replica stopped for a restart or a roll lets its requests in flight finish for this long,
# not scripts/serve's 30 s: the other replica answers meanwhile, and a roll waits on each stop.
GRACEFUL_SECONDS = 5


class DeployError(Exception):
    """nginx or a replica did not start or reload; the message carries the log's end."""


class Replica:
    """One app server with its own index root."""

    def __init__(self, root: Path, workers: int):
        self.root, self.workers, self.port = root, workers, free_port()
        self.server: Server | None = None

    def start(self) -> None:
        self.server = Server.production(self.root, self.port, workers=self.workers,
                                        options=("--graceful-timeout", str(GRACEFUL_SECONDS)))
        self.server.check_index()

    def stop(self, kill: bool = False) -> None:
        """Stop gracefully (finish accepted requests), or kill the whole process group at once."""
        if self.server is None:
            return
        if kill and self.server.process.poll() is None:
            os.killpg(self.server.process.pid, signal.SIGKILL)
            self.server.process.wait(timeout=15)
        self.server.close()
        self.server = None

    def serve(self, name: str) -> None:
        """Restart on the index build `name`, already installed in its root."""
        self.stop()
        switch_to(self.root, name)
        self.start()


class Cluster:
    """`with Cluster(artifact, work) as cluster:` replicas serving `artifact` behind nginx."""

    def __init__(self, artifact: Path, work: Path, replicas: int = 2, workers: int = 1, port: int | None = None):
        self.work = Path(work)
        self.port = port or free_port()
        settings = Settings.from_env()
        try:
            self.nginx = Nginx(self.work / "nginx", f"{HOST}:{self.port}", settings.request_seconds,
                               settings.max_body_bytes, FAIL_SECONDS)
        except ProxyError as exc:
            raise DeployError(str(exc)) from None
        self.replicas = [Replica(self.work / f"replica-{i}" / "index", workers) for i in range(replicas)]
        try:
            for replica in self.replicas:
                switch_to(replica.root, install_artifact(artifact, replica.root))
                replica.start()
            self.nginx.start(self._servers(), lambda: get(self.port, "/healthz", timeout=5)[0] == 200)
        except ProxyError as exc:
            self.close()
            raise DeployError(str(exc)) from None
        except BaseException:
            self.close()
            raise

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def _servers(self, backups: tuple[Replica, ...] = ()) -> list[str]:
        return [f"server {HOST}:{r.port} max_fails=1 fail_timeout={FAIL_SECONDS}s{' backup' if r in backups else ''};"
                for r in self.replicas]

    def reload(self, backups: tuple[Replica, ...] = ()) -> None:
        """Apply a new upstream list, and return once nginx's workers of the old one are gone
        (until then they still route by it)."""
        try:
            self.nginx.reload(self._servers(backups))
        except ProxyError as exc:
            raise DeployError(str(exc)) from None

    def kill(self, index: int) -> None:
        self.replicas[index].stop(kill=True)

    def start(self, index: int) -> None:
        self.replicas[index].start()

    def roll(self, artifact: Path) -> str:
        """Switch every replica to the index artifact, monotonically (see the module's
        docstring); its name."""
        names = [install_artifact(artifact, replica.root) for replica in self.replicas]
        name = names[0]
        half = len(self.replicas) // 2 or 1
        first, backups = self.replicas[:half], tuple(self.replicas[half:])
        self.reload(backups)
        for replica in backups:
            replica.serve(name)
        for replica in first:
            replica.serve(name)
        self.reload()
        return name

    def close(self) -> None:
        self.nginx.close()
        for replica in self.replicas:
            replica.stop()

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="scripts/replicas",
                                 description="Build the index and serve it from app replicas behind nginx.")
    ap.add_argument("paths", nargs="*", type=Path, metavar="PATHS", help="extra rules files or corpus folders")
    ap.add_argument("--port", type=int, default=int(os.environ.get("PORT", 8000)), help="nginx's port (default 8000)")
    ap.add_argument("--replicas", type=int, default=2, help="app replicas (default 2)")
    ap.add_argument("--workers", type=int, default=1, help="gunicorn workers per replica (default 1)")
    ap.add_argument("--index-root", type=Path, default=Path(os.environ.get("INDEX_ROOT", "var/index")))
    args = ap.parse_args(argv)
    try:
        build([DEFAULT_CORPUS, *args.paths], root=args.index_root)
    except BuildError as exc:
        if current_folder(args.index_root) is None:
            print(f"replicas: no index to serve: {exc}", file=sys.stderr)
            return 1
        print(f"replicas: serving the previous index: {exc}", file=sys.stderr)
    folder = current_folder(args.index_root)
    if folder is None:
        print(f"replicas: no index to serve in {args.index_root}", file=sys.stderr)
        return 1
    work = Path(tempfile.mkdtemp(prefix="replicas-"))
    try:
        with Cluster(folder, work, args.replicas, args.workers, args.port) as cluster:
            ports = ", ".join(str(r.port) for r in cluster.replicas)
            print(f"replicas: nginx on {cluster.url}/ in front of {args.replicas} replicas (ports {ports})", flush=True)
            stop = {signal.SIGINT, signal.SIGTERM}
            signal.pthread_sigmask(signal.SIG_BLOCK, stop)  # here: the servers must not inherit it
            signal.sigwait(stop)
    except DeployError as exc:
        print(f"replicas: {exc}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

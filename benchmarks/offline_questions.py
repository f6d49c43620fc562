"""The judged questions asked of the offline copy, as a phone's service worker asks it
(webapp/static/offline-search/ over a build's offline.json, in Node), scored as
`benchmarks.questions` scores the server: MRR@10 and hit@5 per category, the sealed and
held-out parts one figure per category only. With `--meanings` the copy ranks with the words'
meaning vectors the page keeps after it (offline-meanings.json), as the worker does once they
are kept; without, as it does before.

    python -m benchmarks.offline_questions INDEX_ROOT [--meanings]

Needs Node.js (`node`).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from webapp import offline_copy

from .measure import build_folder
from .questions import PARTS, figures, line, scorer


def offline_search(folder: Path, meanings: bool):
    """A `figures` search over the copy in `folder`, one Node process per file of queries."""
    from offline_node import offline_results  # tests/, which .measure puts on the path

    def search(queries: list[str]) -> list[list[dict]]:
        return offline_results(folder, queries, meanings=offline_copy.MEANINGS_FILE if meanings else "")
    return search


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_root", type=Path)
    parser.add_argument("--meanings", action="store_true")
    args = parser.parse_args(argv)
    search = offline_search(build_folder(args.index_root), args.meanings)
    score = scorer()
    for name, path in PARTS:
        print(line(name, figures(path, score, search)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

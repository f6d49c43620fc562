"""The judged questions asked of the offline copy, as a phone's service worker asks it
(webapp/static/offline-search.js over a build's offline.json, in Node), scored as
`benchmarks.questions` scores the server: MRR@10 and hit@5 per category, the sealed and
held-out parts one figure per category only. With `--meanings` the copy ranks with the words'
meaning vectors the page keeps after it (offline-meanings.json), as the worker does once they
are kept; without, as it does before.

    python -m benchmarks.offline_questions INDEX_ROOT [--meanings]

Needs Node.js (`node`).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from webapp import offline_copy

from .measure import build_folder
from .questions import PARTS, ROOT, figures, line, scorer

SEARCH = ROOT / "webapp" / "static" / "offline-search.js"
# Reads the copy (and the vectors), then each query of a JSON list on standard input; writes
# each query's first ten results as the scorer reads them.
_DRIVER = """
globalThis.self = globalThis;
const [search, folder, meanings] = process.argv.slice(2);
require(search);
const fs = require('fs');
const copy = new OfflineIndex(JSON.parse(fs.readFileSync(folder + '/offline.json')));
const kept = meanings && JSON.parse(fs.readFileSync(folder + '/' + meanings));
if (kept && !copy.useMeanings(kept)) throw new Error('the vectors are of another build');
const queries = JSON.parse(fs.readFileSync(0));
const results = queries.map(q => copy.search(q, 10, null).results.map(r =>
  ({rule: r.rule, edition: r.edition, kind: r.kind, names: r.names, title: r.title, text: r.text})));
process.stdout.write(JSON.stringify(results));
"""


def offline_search(folder: Path, meanings: bool):
    """A `figures` search over the copy in `folder`, one Node process per file of queries."""
    def search(queries: list[str]) -> list[list[dict]]:
        with tempfile.NamedTemporaryFile("w", suffix=".js") as driver:
            driver.write(_DRIVER)
            driver.flush()
            done = subprocess.run(["node", driver.name, str(SEARCH), str(folder),
                                   offline_copy.MEANINGS_FILE if meanings else ""],
                                  input=json.dumps(queries), capture_output=True, text=True, check=True)
        return json.loads(done.stdout)
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

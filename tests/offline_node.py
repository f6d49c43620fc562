"""The offline copy's search run as a phone's service worker runs it: webapp/static/offline-search/
over a build's offline.json, in Node (Debian's `nodejs`), one process a list of queries. Shared by
the tests that hold the copy to the server and by `benchmarks.offline_questions`."""
from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from webapp.views.offline import ENGINE

STATIC = Path(__file__).resolve().parents[1] / "webapp" / "static"
# Reads the copy (and the vectors, when named), then each query of a JSON list on standard
# input; writes each query's first results (`limit`) as the scorer and the tests read them.
_DRIVER = """
globalThis.self = globalThis;
const [parts, folder, meanings, limit] = process.argv.slice(2);
JSON.parse(parts).forEach(part => require(part));
const fs = require('fs');
const copy = new OfflineIndex(JSON.parse(fs.readFileSync(folder + '/offline.json')));
const kept = meanings && JSON.parse(fs.readFileSync(folder + '/' + meanings));
if (kept && !copy.useMeanings(kept)) throw new Error('the vectors are of another build');
const queries = JSON.parse(fs.readFileSync(0));
const results = queries.map(q => copy.search(q, Number(limit), null).results.map(r =>
  ({id: r.id, rule: r.rule, edition: r.edition, kind: r.kind, names: r.names, title: r.title, text: r.text})));
process.stdout.write(JSON.stringify(results));
"""


def node() -> str | None:
    """Node's path, or None where it is not installed."""
    return shutil.which("node") or shutil.which("nodejs")


def offline_results(folder: Path, queries: list[str], limit: int = 10, meanings: str = "") -> list[list[dict]]:
    """Each query's first `limit` results from the copy in build `folder` (with the meaning
    vectors of the file `meanings` in it, when named)."""
    program = node()
    if program is None:
        raise RuntimeError("Node.js is not installed (as root: apt-get install nodejs)")
    with tempfile.NamedTemporaryFile("w", suffix=".js") as driver:
        driver.write(_DRIVER)
        driver.flush()
        parts = json.dumps([str(STATIC / name) for name in ENGINE])
        done = subprocess.run([program, driver.name, parts, str(folder), meanings, str(limit)],
                              input=json.dumps(queries), capture_output=True, text=True, check=True)
    return json.loads(done.stdout)

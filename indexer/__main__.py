"""Command line: `python -m indexer ingest [PATHS...]`, `python -m indexer build [PATHS...]`
`python -m indexer check` and `python -m indexer fetch URL|FILE`.

PATHS are corpus folders (with sources.toml), folders of Comprehensive Rules files, or rules
files; the default is the bundled corpus. Both commands print what each file gave and exit
non-zero when any input failed. `check` opens the build a server would serve (the one
`CURRENT` names, else the newest good one), prints its folder, and exits non-zero when none
opens. `fetch` adds a newly published rules edition to the corpus.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from indexer.documents.fetch import FetchError, fetch
from indexer.documents.ingest import DEFAULT_CORPUS, ROOT, ingest, write_records
from indexer.knowledge import offline
from indexer.knowledge.live import LiveLibrary
from indexer.search.build import DEFAULT_INDEX_ROOT, BuildError, build
from indexer.search.engine import IndexUnavailable


def _print_summaries(result) -> None:
    for summary in result.summaries:
        print(summary.line())
        for warning in summary.warnings:
            print(f"  warning: {warning}")
    for error in result.errors:
        print(f"error: {error}", file=sys.stderr)


def _check(root: Path) -> int:
    live = LiveLibrary(root)
    try:
        library = live.get()
    except IndexUnavailable as exc:
        print(f"error: no index to serve: {exc}", file=sys.stderr)
        return 1
    if live.problem is not None:
        print(f"warning: {live.problem}", file=sys.stderr)
    print(library.folder)
    return 0


def _fetch(location: str, corpus: Path) -> int:
    try:
        fetched = fetch(location, corpus)
    except FetchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if not fetched.added:
        print(f"already in the corpus: {fetched.path} (edition {fetched.edition}, {fetched.lang})")
    else:
        print(f"added {fetched.path} (edition {fetched.edition}, {fetched.lang}); "
              "the next build or ./scripts/serve indexes it")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m indexer", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p_ingest = sub.add_parser("ingest", help="parse documents into records (JSON Lines)")
    p_ingest.add_argument("paths", nargs="*", type=Path)
    p_ingest.add_argument("--out", type=Path, default=ROOT / "var" / "records",
                          help="folder for records.jsonl and sources.json (default: var/records)")
    p_build = sub.add_parser("build", help="ingest and build the search index, then switch to it")
    p_build.add_argument("paths", nargs="*", type=Path)
    p_build.add_argument("--index-root", type=Path, default=DEFAULT_INDEX_ROOT)
    p_build.add_argument("--force", action="store_true", help="rebuild even if the corpus did not change")
    p_check = sub.add_parser("check", help="open and verify the build a server would serve")
    p_check.add_argument("--index-root", type=Path, default=DEFAULT_INDEX_ROOT)
    p_fetch = sub.add_parser("fetch", help="add a newly published rules file (a URL or a file) to the corpus")
    p_fetch.add_argument("location", metavar="URL|FILE")
    p_fetch.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="corpus folder (default: corpus/)")
    args = ap.parse_args(argv)
    if args.command == "check":
        return _check(args.index_root)
    if args.command == "fetch":
        return _fetch(args.location, args.corpus)
    paths = args.paths or [DEFAULT_CORPUS]

    if args.command == "ingest":
        result = ingest(paths, progress=sys.stderr.isatty())
        _print_summaries(result)
        write_records(result, args.out)
        print(f"{len(result.records)} records from {len(result.summaries)} files in {result.seconds:.1f} s "
              f"-> {args.out / 'records.jsonl'}")
        return 1 if result.errors else 0

    try:
        outcome = build(paths, root=args.index_root, force=args.force, progress=sys.stderr.isatty(),
                        extras={"offline": offline.write})
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if not outcome.built:
        print(f"index up to date: {outcome.folder}")
        return 0
    _print_summaries(outcome.result)
    print(f"built {outcome.folder} ({len(outcome.result.records)} records) in {outcome.seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

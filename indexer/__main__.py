"""Command line: `python -m indexer ingest [PATHS...]`, `python -m indexer build [PATHS...]`
and `python -m indexer check`.

PATHS are corpus folders (with sources.toml), folders of Comprehensive Rules files, or rules
files; the default is the bundled corpus. Both commands print what each file gave and exit
non-zero when any input failed. `check` opens the build a server would serve (the one
`CURRENT` names, else the newest good one), prints its folder, and exits non-zero when none
opens.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from indexer.documents.corpus import CorpusError
from indexer.documents.glossary import GlossaryError
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


# What bad input (a broken sources.toml or glossary, an unreadable folder) raises: one line.
INPUT_ERRORS = (CorpusError, GlossaryError, OSError)


def _failed(exc: Exception) -> int:
    print(f"error: {exc}", file=sys.stderr)
    return 1


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
    args = ap.parse_args(argv)
    if args.command == "check":
        return _check(args.index_root)
    paths = args.paths or [DEFAULT_CORPUS]

    if args.command == "ingest":
        try:
            result = ingest(paths, progress=sys.stderr.isatty())
        except INPUT_ERRORS as exc:
            return _failed(exc)
        _print_summaries(result)
        write_records(result, args.out)
        print(f"{len(result.records)} records from {len(result.summaries)} files in {result.seconds:.1f} s "
              f"-> {args.out / 'records.jsonl'}")
        return 1 if result.errors else 0

    try:
        outcome = build(paths, root=args.index_root, force=args.force, progress=sys.stderr.isatty(),
                        extras={"offline": offline.write})
    except (BuildError, *INPUT_ERRORS) as exc:
        return _failed(exc)
    if not outcome.built:
        print(f"index up to date: {outcome.folder}")
        return 0
    _print_summaries(outcome.result)
    print(f"built {outcome.folder} ({len(outcome.result.records)} records) in {outcome.seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

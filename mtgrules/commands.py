"""The command line: one command group for building the index and reading it.

    mtgrules build [PATHS...]            ingest and build the index, then switch to it
    mtgrules ingest [PATHS...]           parse documents into records, report per file
    mtgrules check                       open and verify the build a server would serve
    mtgrules fetch URL|FILE              add a newly published rules edition to corpus/
    mtgrules fetch cards                 every card, its rulings and Chinese names from Scryfall, into var/cards/
    mtgrules 702.30a                     the rule (newest edition that has it)
    mtgrules rule 702.79 --edition 2009-07-08
    mtgrules search 留存                 search results
    mtgrules card 奪魂紅帽客             a card (or plane) by name in any script, or id
    mtgrules term persist                a glossary term
    mtgrules mcp                         the rules as tools for AI assistants (MCP over stdio)
Options before the command: --index-root PATH, --script hant|hans, --json. `python -m
mtgrules` and `python -m indexer` are the same command, and `flask --app webapp kb ...` runs
the group with the application's settings and index (the installed package declares it a
Flask command, so the web app does not import the command line).
"""
from __future__ import annotations

import dataclasses
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import click
from flask.cli import ScriptInfo

from indexer.documents.card_fetch import BULK_DATA_URL, TOTAL_SECONDS, fetch_cards
from indexer.documents.corpus import CorpusError
from indexer.documents.fetch import FetchError, fetch as fetch_edition
from indexer.documents.glossary import GlossaryError
from indexer.documents.ingest import DEFAULT_CORPUS, ROOT, IngestResult, ingest as ingest_paths, write_records
from indexer.documents.references import parse_rule_number
from indexer.knowledge.display import SCRIPTS
from indexer.knowledge.library import Library
from indexer.knowledge.live import LiveLibrary
from indexer.knowledge.settings import Settings
from indexer.search.build import BuildError, build as build_index
from indexer.search.engine import IndexUnavailable
from indexer.search.query import QueryError
from webapp.book_parts import write as write_book_parts
from webapp.mcp_server import create_server
from webapp.offline_copy import write as write_offline_copy
from webapp.present import record_view, rule_view, term_view
from webapp.urls import addressed

from .terminal import print_record, print_rule, print_search

# What bad input (a broken sources.toml or glossary, an unreadable folder) raises: one line.
INPUT_ERRORS = (CorpusError, GlossaryError, OSError)
PATHS_HELP = "corpus folders (with sources.toml), folders of rules files, or rules files (default: corpus/)"


@dataclass
class Options:
    settings: Settings
    script: str | None
    as_json: bool
    live: LiveLibrary | None = None  # the application's, when run as `flask kb`

    def library(self) -> Library:
        try:
            return (self.live or LiveLibrary.from_settings(self.settings)).get()
        except IndexUnavailable as exc:
            raise click.ClickException(str(exc)) from None


def emit(payload: dict, printer, options: Options) -> None:
    if options.as_json:
        click.echo(json.dumps(payload, ensure_ascii=False, indent=1))
    else:
        printer(payload, options.script)


# --- commands ---------------------------------------------------------------------------

@click.group(help="Build the knowledge base's index, and read rules, rulings and search from it.")
@click.option("--index-root", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="index root (default: the application's, else INDEX_ROOT, else var/index)")
@click.option("--script", type=click.Choice(SCRIPTS), default=None, help="show Chinese as 繁 (hant) or 简 (hans)")
@click.option("--json", "as_json", is_flag=True, help="print the JSON the web API returns")
@click.pass_context
def cli(ctx: click.Context, index_root: Path | None, script: str | None, as_json: bool) -> None:
    info = ctx.find_object(ScriptInfo)
    app = info.load_app() if info is not None and index_root is None else None
    if app is not None and "kb.settings" not in app.extensions:  # `flask kb` run with another Flask app
        app = None
    settings = app.extensions["kb.settings"] if app is not None else Settings.from_env()
    if index_root is not None:
        settings = dataclasses.replace(settings, index_root=index_root)
    ctx.obj = Options(settings, script, as_json, app.extensions["kb.library"] if app is not None else None)


# --- building ---------------------------------------------------------------------------

def _print_summaries(result: IngestResult) -> None:
    for summary in result.summaries:
        click.echo(summary.line())
        for warning in summary.warnings:
            click.echo(f"  warning: {warning}")
    for error in result.errors:
        click.echo(f"error: {error}", err=True)


@cli.command(help="Parse documents into records (JSON Lines) and report what each file gave.")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=ROOT / "var" / "records",
              help="folder for records.jsonl and sources.json (default: var/records)")
def ingest(paths: tuple[Path, ...], out: Path) -> int:
    try:
        result = ingest_paths(list(paths) or [DEFAULT_CORPUS], progress=sys.stderr.isatty())
    except INPUT_ERRORS as exc:
        click.echo(f"error: {exc}", err=True)
        return 1
    _print_summaries(result)
    write_records(result, out)
    click.echo(f"{len(result.records)} records from {len(result.summaries)} files in {result.seconds:.1f} s "
               f"-> {out / 'records.jsonl'}")
    return 1 if result.errors else 0


@cli.command(help="Ingest and build the search index, then switch to it (only when an input changed).")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--index-root", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="index root (default: the group's --index-root)")
@click.option("--force", is_flag=True, help="rebuild even if the corpus did not change")
@click.pass_obj
def build(options: Options, paths: tuple[Path, ...], index_root: Path | None, force: bool) -> int:
    root = index_root or options.settings.index_root
    try:
        outcome = build_index(list(paths) or [DEFAULT_CORPUS], root=root, force=force, progress=sys.stderr.isatty(),
                              extras={"offline": write_offline_copy, "book": write_book_parts})
    except (BuildError, *INPUT_ERRORS) as exc:
        click.echo(f"error: {exc}", err=True)
        return 1
    if not outcome.built or outcome.result is None:
        click.echo(f"index up to date: {outcome.folder}")
        return 0
    _print_summaries(outcome.result)
    click.echo(f"built {outcome.folder} ({len(outcome.result.records)} records) in {outcome.seconds:.1f} s")
    return 0


@cli.command(help="Open and verify the build a server would serve (the one CURRENT names, else the newest "
                  "good one) and print its folder; exit non-zero when none opens.")
@click.option("--index-root", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="index root (default: the group's --index-root)")
@click.pass_obj
def check(options: Options, index_root: Path | None) -> int:
    settings = dataclasses.replace(options.settings, index_root=index_root or options.settings.index_root)
    live = LiveLibrary.from_settings(settings)
    try:
        library = live.get()
    except IndexUnavailable as exc:
        click.echo(f"error: no index to serve: {exc}", err=True)
        return 1
    if live.problem is not None:
        click.echo(f"warning: {live.problem}", err=True)
    click.echo(library.folder)
    return 0


# Where `fetch cards` keeps Scryfall's files, and ./scripts/serve finds them.
CARDS_FOLDER = ROOT / "var" / "cards"


@cli.command(help="Add a newly published Comprehensive Rules file (a URL or a file) to the corpus; "
                  "or, given `cards`, download every card, its rulings and its Chinese names from "
                  "Scryfall's bulk data into a folder of their own. The next build or ./scripts/serve indexes it.")
@click.argument("location", metavar="URL|FILE|cards")
@click.option("--corpus", type=click.Path(path_type=Path, file_okay=False), default=DEFAULT_CORPUS,
              help="corpus folder (default: corpus/)")
@click.option("--to", "cards_folder", type=click.Path(path_type=Path, file_okay=False), default=CARDS_FOLDER,
              help="with `cards`: the folder the card files are kept in (default: var/cards/)")
@click.option("--bulk-data", default=BULK_DATA_URL, show_default=True, help="with `cards`: Scryfall's bulk-data list")
@click.option("--seconds", type=click.FloatRange(min=1), default=TOTAL_SECONDS, show_default=True,
              help="with `cards`: the whole download's deadline")
def fetch(location: str, corpus: Path, cards_folder: Path, bulk_data: str, seconds: float) -> int:
    try:
        if location == "cards":
            cards = fetch_cards(cards_folder, bulk_data, seconds)
            click.echo(f"kept {cards.cards} cards, {cards.rulings} rulings and {cards.chinese} Chinese printings "
                       f"in {cards.folder}; the next build or ./scripts/serve indexes them")
            return 0
        fetched = fetch_edition(location, corpus)
    except FetchError as exc:
        click.echo(f"error: {exc}", err=True)
        return 1
    if not fetched.added:
        click.echo(f"already in the corpus: {fetched.path} (edition {fetched.edition}, {fetched.lang})")
    else:
        click.echo(f"added {fetched.path} (edition {fetched.edition}, {fetched.lang}); "
                   "the next build or ./scripts/serve indexes it")
    return 0


# --- reading ----------------------------------------------------------------------------


@cli.command(help="Show a rule: text in every language, subrules, rulings, other editions.")
@click.argument("number")
@click.option("--edition", default=None, help="edition date (default: the newest that has the rule)")
@click.pass_obj
def rule(options: Options, number: str, edition: str | None) -> None:
    parsed = parse_rule_number(number)
    if parsed is None:
        raise click.UsageError(f"{number!r} is not a rule number (rule numbers look like 702.30a)")
    lib = options.library()
    view = rule_view(lib, parsed, edition, options.script)
    if view is None:
        held = lib.editions_of(parsed)
        where = f"it is in: {', '.join(held)}" if held else "no edition has it"
        raise click.ClickException(f"no rule {parsed}{' in edition ' + edition if edition else ''}; {where}")
    emit(view, print_rule, options)


@cli.command(help="Search rules, cards, terms and documents.")
@click.argument("query", nargs=-1, required=True)
@click.option("--limit", default=10, show_default=True)
@click.option("--explain", is_flag=True, help="say what each ranking stage added to each result's score")
@click.pass_obj
def search(options: Options, query: tuple[str, ...], limit: int, explain: bool) -> None:
    try:
        answer = options.library().search(" ".join(query), limit=limit, script=options.script, explain=explain)
    except QueryError as exc:
        raise click.UsageError(str(exc)) from None
    emit(addressed(options.library(), answer), print_search, options)


def _named(options: Options, name: str, kinds: tuple[str, ...], noun: str):
    lib = options.library()
    record = lib.get(name) or lib.by_name(name, kinds)
    if record is None or record.kind not in kinds:
        raise click.ClickException(f"no {noun} named {name!r}")
    return lib, record


@cli.command(help="Show a card or planar card by name (any language or script) or id.")
@click.argument("name", nargs=-1, required=True)
@click.pass_obj
def card(options: Options, name: tuple[str, ...]) -> None:
    lib, record = _named(options, " ".join(name), ("card", "planar_card"), "card")
    emit(record_view(lib, record, options.script), print_record, options)


@cli.command(help="Show a glossary term by any of its forms or id.")
@click.argument("name", nargs=-1, required=True)
@click.pass_obj
def term(options: Options, name: tuple[str, ...]) -> None:
    lib, record = _named(options, " ".join(name), ("term",), "term")
    emit(term_view(lib, record, options.script), print_record, options)


@cli.command(help="Serve the rules to an AI assistant over the Model Context Protocol on standard input and "
                  "output (the build INDEX_ROOT or --index-root names; docs/mcp.md).")
@click.pass_obj
def mcp(options: Options) -> None:
    live = options.live or LiveLibrary.from_settings(options.settings)
    try:  # opened, and a first search made, before the first call, which would otherwise wait for them
        live.get().search("persist 留存")
    except IndexUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    create_server(live.get, options.settings.public_url).run("stdio")


_VALUE_OPTIONS = {"--index-root", "--script"}


def main(argv: list[str] | None = None, prog_name: str | None = None) -> int:
    """Run the command line; a first argument that is not a command is a rule number."""
    args = list(sys.argv[1:] if argv is None else argv)
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in _VALUE_OPTIONS else 1
    if i < len(args) and args[i] not in cli.commands:
        args.insert(i, "rule")
    try:
        code = cli.main(args=args, prog_name=prog_name, standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Abort:
        return 1
    return code if isinstance(code, int) else 0

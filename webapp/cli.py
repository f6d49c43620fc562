"""Rules, rulings and search in a terminal, from the same payloads the web pages show.

    python -m webapp.cli 702.30a                  the rule (newest edition that has it)
    python -m webapp.cli rule 702.79 --edition 2009-07-08
    python -m webapp.cli search 留存              search results
    python -m webapp.cli card 奪魂紅帽客          a card (or plane) by name in any script, or id
    python -m webapp.cli term persist             a glossary term
Options before the command: --index-root PATH, --script hant|hans, --json.
The same commands run as `flask --app webapp kb ...` with the application's index.
"""
from __future__ import annotations

import html
import json
import re
import shutil
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import click
from flask.cli import ScriptInfo

from indexer.documents.references import parse_rule_number
from indexer.knowledge.display import SCRIPTS, display
from indexer.knowledge.library import Library
from indexer.knowledge.live import LiveLibrary
from indexer.search.build import DEFAULT_INDEX_ROOT
from indexer.search.engine import IndexUnavailable
from indexer.search.query import QueryError

from .present import LABELS, record_view, rule_view, term_view

LANG_NAMES = {"en": "English", "zh_hant": "繁體", "zh_hans": "简体", "bg": "Български"}
# Wrapping units: terminal styling (no width), whitespace, a run of anything but spaces and
# CJK (an English word with its punctuation), or one CJK character.
_STYLE = re.compile(r"\x1b\[[0-9;]*m")
_CJK = "\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef"
_TOKEN = re.compile(rf"\x1b\[[0-9;]*m|\s+|[^\s\x1b{_CJK}]+|.", re.S)
# Chinese punctuation that never starts a line: it stays at the end of the previous one.
_NO_LINE_START = set("，。、；：！？」』）》〉…")


@dataclass
class Options:
    index_root: Path | None
    script: str | None
    as_json: bool
    live: LiveLibrary | None = None  # the application's, when run as `flask kb`

    def library(self) -> Library:
        try:
            return (self.live or LiveLibrary(self.index_root or DEFAULT_INDEX_ROOT)).get()
        except IndexUnavailable as exc:
            raise click.ClickException(str(exc)) from None


# --- terminal text ----------------------------------------------------------------------

def width(text: str) -> int:
    """Columns a text takes in a terminal: East Asian wide characters take two, styling none."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in _STYLE.sub("", text))


def wrap(text: str, indent: str = "", columns: int | None = None) -> str:
    """`text` wrapped by display width, each paragraph on its own lines; English breaks
    between words, Chinese between any two characters."""
    columns = max(20, (columns or shutil.get_terminal_size((100, 24)).columns) - 1)
    out = []
    for paragraph in text.split("\n"):
        line, used = indent, width(indent)
        for token in _TOKEN.findall(paragraph):
            if token.isspace():
                if used > width(indent):
                    line, used = line + " ", used + 1
                continue
            w = width(token)
            if used + w > columns and used > width(indent) and token not in _NO_LINE_START:
                out.append(line.rstrip())
                line, used = indent, width(indent)
            line, used = line + token, used + w
        out.append(line.rstrip())
    return "\n".join(out)


def heading(key: str, script: str | None) -> str:
    zh, en = LABELS[key]
    return click.style(f"{display(zh, 'zh_hant', script)} {en}", bold=True)


def echo_blocks(blocks: list[dict], indent: str = "  ") -> None:
    for block in blocks:
        tag = click.style(f"[{LANG_NAMES.get(block['lang'], block['lang'])}]", dim=True)
        click.echo(f"{indent}{tag}")
        click.echo(wrap(block["text"], indent))


def plain_snippet(snippet: str) -> str:
    """A result snippet (escaped HTML with <mark>) as terminal text, matches in bold."""
    marked = re.sub(r"<mark>(.*?)</mark>", lambda m: click.style(html.unescape(m.group(1)), bold=True,
                                                               underline=True), snippet)
    return html.unescape(re.sub(r"<[^>]+>", "", marked))


def _diff_piece(op: str, piece: str) -> str:
    """A diff piece as terminal text: [+inserted+] in green, [-deleted-] in red."""
    if op == "insert":
        return click.style(f"[+{piece}+]", fg="green")
    if op == "delete":
        return click.style(f"[-{piece}-]", fg="red")
    return piece


def cited(source: dict) -> str:
    """A document and the section a record sits in, as the pages cite it (not by line: one
    FAQ is a single line)."""
    return source["title"] + (f" › {source['section']['title']}" if source.get("section") else "")


def print_rule(view: dict, script: str | None) -> None:
    click.echo(click.style(view["title"], bold=True) + click.style(f"  · {view['edition']}", dim=True))
    for source in view["sources"]:
        click.echo(click.style(f"  {cited(source)}", dim=True))
    click.echo()
    echo_blocks(view["text"])
    if view["parent"]:
        click.echo(f"\n{heading('parent', script)}: {view['parent']['title']}")
    if view["examples"]:
        click.echo(f"\n{heading('examples', script)}")
        for example in view["examples"]:
            echo_blocks(example)
    if view["children"]:
        click.echo(f"\n{heading('subrules', script)}")
        for child in view["children"]:
            click.echo(click.style(f"  {child['number']}", bold=True))
            echo_blocks(child["text"], "    ")
    if view["rulings"]:
        click.echo(f"\n{heading('rulings', script)}")
        for ruling in view["rulings"]:
            for block in ruling["text"]:
                click.echo(wrap("• " + block["text"], "  "))
    if len(view["editions"]) > 1:
        click.echo(f"\n{heading('other_editions', script)} {view['number']}")
        for e in view["editions"]:
            click.echo(f"  {e['edition']}  {e['name']}{'  ←' if e['current'] else ''}")
    if len(view["keyword_numbers"]) > 1:
        click.echo(f"\n{heading('keyword_numbers', script)} ({view['keyword']})")
        for k in view["keyword_numbers"]:
            click.echo(f"  {k['edition']}  {k['number']}{'  ←' if k['current'] else ''}")
    if len(view["history"]) > 1:
        click.echo(f"\n{heading('history', script)}")
        for version in view["history"]:
            click.echo(f"  {version['edition']}  {version['number']}{'  ←' if version['current'] else ''}")
            for change in version["changes"]:
                click.echo(wrap("".join(_diff_piece(op, piece) for op, piece in change["pieces"]), "    "))
    if view["referenced_by"]:
        click.echo(f"\n{heading('referenced_by', script)}")
        for r in view["referenced_by"]:
            click.echo(wrap(f"{r['title']}  ({r['source']['title']})", "  "))


def print_record(view: dict, script: str | None) -> None:
    click.echo(click.style(view["title"], bold=True))
    for lang, name in view["names"].items():
        click.echo(f"  {LANG_NAMES.get(lang, lang)}: {name}")
    attrs = view["attrs"]
    line = "  ".join(attrs[k] for k in ("mana_cost", "type_line", "power_toughness") if attrs.get(k))
    if line:
        click.echo(f"  {line}")
    click.echo(click.style(f"  {cited(view['source'])}", dim=True))
    click.echo()
    for ability in view["abilities"] or [view["text"]]:
        echo_blocks(ability)
    if view["rulings"]:
        click.echo(f"\n{heading('rulings', script)}")
        for ruling in view["rulings"]:
            for block in ruling:
                click.echo(wrap("• " + block["text"], "  "))
    if view.get("forms"):
        click.echo(f"\n{heading('forms', script)}")
        click.echo(wrap(" · ".join(form["text"] for form in view["forms"]), "  "))
    if view.get("mentions"):
        click.echo(f"\n{heading('mentions', script)}")
        for r in view["mentions"]:
            click.echo(wrap(f"{r['title']}  ({r['source']['title']})", "  "))


def print_search(answer: dict, script: str | None) -> None:
    if answer["rule_jump"]:
        jump = answer["rule_jump"]
        click.echo(f"{heading('jump', script)}: {jump['title']} ({jump['edition']})")
    if answer["did_you_mean"]:
        click.echo(f"{heading('did_you_mean', script)}: {answer['did_you_mean']}")
    click.echo(click.style(f"{answer['total']} results, {answer['took_ms']} ms", dim=True))
    for n, result in enumerate(answer["results"], 1):
        where = " · ".join(x for x in (result["edition"], result["source"]["title"]) if x)
        click.echo(f"\n{n:>2}. " + click.style(result["title"], bold=True) + click.style(f"  [{result['kind']}] {where}", dim=True))
        click.echo(wrap(plain_snippet(result["snippet"]), "    "))


def emit(payload: dict, printer, options: Options) -> None:
    if options.as_json:
        click.echo(json.dumps(payload, ensure_ascii=False, indent=1))
    else:
        printer(payload, options.script)


# --- commands ---------------------------------------------------------------------------

@click.group(help="Rules, rulings and search from the knowledge base.")
@click.option("--index-root", type=click.Path(path_type=Path, file_okay=False), default=None,
              help=f"index root (default: the application's, or {DEFAULT_INDEX_ROOT})")
@click.option("--script", type=click.Choice(SCRIPTS), default=None, help="show Chinese as 繁 (hant) or 简 (hans)")
@click.option("--json", "as_json", is_flag=True, help="print the JSON the web API returns")
@click.pass_context
def cli(ctx: click.Context, index_root: Path | None, script: str | None, as_json: bool) -> None:
    info = ctx.find_object(ScriptInfo)
    live = info.load_app().extensions["kb.library"] if info is not None and index_root is None else None
    ctx.obj = Options(index_root, script, as_json, live)


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
@click.pass_obj
def search(options: Options, query: tuple[str, ...], limit: int) -> None:
    try:
        answer = options.library().search(" ".join(query), limit=limit, script=options.script)
    except QueryError as exc:
        raise click.UsageError(str(exc)) from None
    emit(answer, print_search, options)


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


_VALUE_OPTIONS = {"--index-root", "--script"}


def main(argv: list[str] | None = None) -> int:
    """Run the command line; a first argument that is not a command is a rule number."""
    args = list(sys.argv[1:] if argv is None else argv)
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in _VALUE_OPTIONS else 1
    if i < len(args) and args[i] not in cli.commands:
        args.insert(i, "rule")
    try:
        cli.main(args=args, prog_name="python -m webapp.cli", standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Abort:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

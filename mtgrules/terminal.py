"""Rules, records and search results as terminal text: wrapped by display width, with
styling for headings, marked words and text changes."""
from __future__ import annotations

import html
import re
import shutil

import click

from indexer.documents.script_ranges import HAN
from indexer.documents.textclean import display_width
from indexer.knowledge.display import display
from webapp.labels import LABELS

LANG_NAMES = {"en": "English", "zh_hant": "繁體", "zh_hans": "简体", "bg": "Български"}
# Wrapping units: terminal styling (no width), whitespace, a run of anything but spaces and
# CJK (an English word with its punctuation), or one CJK character.
_STYLE = re.compile(r"\x1b\[[0-9;]*m")
_WIDE = f"\u2e80-\u33ff{HAN}\uff00-\uffef"
_WRAP_UNIT = re.compile(rf"\x1b\[[0-9;]*m|\s+|[^\s\x1b{_WIDE}]+|.", re.S)
# Chinese punctuation that never starts a line: it stays at the end of the previous one.
_NO_LINE_START = set("，。、；：！？」』）》〉…")


def width(text: str) -> int:
    """Columns a text takes in a terminal: East Asian wide characters take two, styling none."""
    return display_width(_STYLE.sub("", text))


def wrap(text: str, indent: str = "", columns: int | None = None) -> str:
    """`text` wrapped by display width, each paragraph on its own lines; English breaks
    between words, Chinese between any two characters."""
    columns = max(20, (columns or shutil.get_terminal_size((100, 24)).columns) - 1)
    out = []
    for paragraph in text.split("\n"):
        line, used = indent, width(indent)
        for token in _WRAP_UNIT.findall(paragraph):
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
            editions = version["first"] + (f" → {version['edition']}" if version["first"] != version["edition"] else "")
            numbers = " → ".join(version["numbers"])
            click.echo(f"  {editions}  {numbers}{'  ←' if version['current'] else ''}")
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


def explanation(explained: dict) -> str:
    """What each ranking stage added to a result's score, one stage a line (`--explain`)."""
    lines = [f"    score {explained['score']} ({explained['record']})" if explained["score"] is not None
             else f"    placed by {explained['stages'][0]['stage']} ({explained['record']})"]
    lines += [f"      {s['stage']:<18} {s['score']:+.4f}" for s in explained["stages"] if s["score"] is not None]
    return "\n".join(lines)


def print_search(answer: dict, script: str | None) -> None:
    if answer["rule_jump"]:
        jump = answer["rule_jump"]
        click.echo(f"{heading('jump', script)}: {jump['title']} ({jump['edition']})")
    if answer["did_you_mean"]:
        click.echo(f"{heading('did_you_mean', script)}: {answer['did_you_mean']}")
    click.echo(click.style(f"{answer['total']} results, {answer['took_ms']} ms", dim=True))
    for n, result in enumerate(answer["results"], 1):
        where = " · ".join(x for x in (result["edition"], result["source"]["title"]) if x)
        click.echo(f"\n{n:>2}. " + click.style(result["title"], bold=True)
                   + click.style(f"  [{result['kind']}] {where}", dim=True))
        click.echo(wrap(plain_snippet(result["snippet"]), "    "))
        if "explain" in result:
            click.echo(click.style(explanation(result["explain"]), dim=True))

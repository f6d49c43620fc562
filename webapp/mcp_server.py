"""The rules as tools for AI assistants: a Model Context Protocol server over the live library.

An assistant that answers a rules question from memory cites numbers that moved years ago;
these tools give it the service's own answers (the same views of `present` the pages and their
JSON twins show), each with structured output and a text that names the edition and the
permalink of every rule it quotes, and what an older edition's rule is today. The stdio
transport (`mtgrules mcp`) and the site's `/mcp` (`mcp_http`) serve the same server.
"""
from __future__ import annotations

import functools
import html
import inspect
import re
from collections.abc import Awaitable, Callable, Iterator
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field
from typing_extensions import TypedDict  # pydantic reads typing.TypedDict only from Python 3.12

from indexer.documents.records import Record
from indexer.documents.references import parse_rule_number
from indexer.knowledge.book import level
from indexer.knowledge.library import Library
from indexer.search.engine import IndexUnavailable
from indexer.search.folding import fold_key
from indexer.search.query import MAX_LIMIT, QueryError

from .present import blocks, changes_view, record_view, rule_missing, rule_view, term_view
from .urls import addressed, record_url

NAME = "mtg-rules"
# The longest argument read: a player's question is at most a few hundred characters.
MAX_QUERY_CHARS = 1000
MAX_NAME_CHARS = 200
MAX_NUMBER_CHARS = 40
MAX_EDITION_CHARS = 20
# The rulings a rule's answer quotes (a FAQ may give a keyword a dozen).
RULINGS_SHOWN = 10
MARK = re.compile(r"</?mark>")
LANGUAGE_NAMES = {"en": "English", "zh_hant": "繁體中文", "zh_hans": "简体中文", "bg": "Български"}
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

INSTRUCTIONS = (
    "The Comprehensive Rules of Magic: The Gathering in every edition from 2008 to today's, in English "
    "and Chinese (Traditional and Simplified), with the set FAQs and a glossary. Rule numbers move "
    "between editions (702.79 was devour in 2009 and is persist today): cite a rule with the edition and "
    "the address these tools give, and prefer today's edition unless the question is about an older one. "
    "Search first (search_rules), then read the rules it finds (get_rule) before answering."
)

Script = Annotated[Literal["hant", "hans"] | None, Field(
    description="Show Chinese text in Traditional ('hant') or Simplified ('hans'); default: as written")]
Edition = Annotated[str | None, Field(
    max_length=MAX_EDITION_CHARS,
    description="An edition of the rules by its date or the start of it (2008, 2016-09, 2026-04-17); "
                "default: today's rules")]
RuleNumber = Annotated[str, Field(min_length=1, max_length=MAX_NUMBER_CHARS,
                                  description="A rule number such as 702.19b, 601.2f or 100")]


class Text(TypedDict):
    lang: str
    text: str


class RuleLink(TypedDict):
    number: str | None
    edition: str | None
    title: str
    url: str


class Found(TypedDict):
    kind: str
    title: str
    rule: str | None
    edition: str | None
    snippet: str
    url: str
    today: str | None


class CardLink(TypedDict):
    name: str
    url: str


class SearchAnswer(TypedDict):
    query: str
    total: int
    rule_jump: RuleLink | None
    did_you_mean: str | None
    left_out: list[str]
    # The cards the query names (a question's cards, listed apart from the rules that answer it).
    cards: list[CardLink]
    results: list[Found]


class Subrule(TypedDict):
    number: str | None
    title: str
    url: str
    text: list[Text]


class RuleAnswer(TypedDict):
    number: str
    edition: str
    title: str
    url: str
    current: bool | None
    today: str | None
    text: list[Text]
    examples: list[list[Text]]
    subrules: list[Subrule]
    rulings: list[dict[str, Any]]


class HistoryAnswer(TypedDict):
    number: str
    edition: str
    title: str
    url: str
    today: str | None
    runs: list[dict[str, Any]]


class ChangesAnswer(TypedDict):
    from_edition: str
    to_edition: str
    editions: list[str]
    counts: dict[str, int]
    total: int
    page: int
    pages: int
    url: str
    changes: list[dict[str, Any]]


class TermAnswer(TypedDict):
    title: str
    names: dict[str, str]
    url: str
    text: list[Text]
    definition: dict[str, Any] | None
    defining_rules: list[dict[str, Any]]
    today_entry: dict[str, str] | None


class CardAnswer(TypedDict):
    kind: str
    title: str
    names: dict[str, str]
    url: str
    attrs: dict[str, str]
    text: list[Text]
    rulings: list[list[Text]]
    keywords: list[dict[str, Any]]


def _plain(snippet: str) -> str:
    """A result's snippet (escaped HTML with <mark>) as plain text."""
    return html.unescape(MARK.sub("", snippet))


def _texts(blocks: list[dict]) -> list[Text]:
    return [{"lang": b["lang"], "text": b["text"]} for b in blocks]


def _written(blocks: list[Text] | list[dict], indent: str = "") -> Iterator[str]:
    for block in blocks:
        yield f"{indent}[{LANGUAGE_NAMES.get(block['lang'].replace('-', '_').lower(), block['lang'])}] {block['text']}"


def _parts_line(parts: list[dict] | None, absolute: Callable[[str], str]) -> str:
    """The other rules a split rule became, after the first."""
    return "".join(f"; and {part['number']}: {absolute(part['url'])}" for part in parts or [])


def _today_line(today: dict | None, absolute: Callable[[str], str]) -> str | None:
    """What an older edition's rule is in today's rules, in a line an assistant can quote."""
    if not today:
        return None
    if today.get("same_rule"):
        line = f"Today ({today['edition']}) this rule is {today['same_rule']['number']}: " \
               f"{absolute(today['same_rule']['url'])}" + _parts_line(today.get("also"), absolute)
    elif today.get("ended"):
        ended = today["ended"]
        line = (f"No longer a rule: last in the {ended['last']} rules as {ended['last_number']}, "
                f"gone in {ended['gone_in']}")
    else:
        line = f"Not traced to today's ({today['edition']}) rules"
    if today.get("number_now"):
        now = today["number_now"]
        line += f"; the number now names another rule, {now['name']}: {absolute(now['url'])}"
    return line


def _result(text: list[str], structured: dict) -> CallToolResult:
    """A tool's answer: its text for the assistant to read and quote, and its data."""
    return CallToolResult(content=[TextContent(type="text", text="\n".join(text))], structured_content=structured)


class RulesTools:
    """The tools, resource and prompt over whichever library `library()` gives for a call (the
    live library's current build), with addresses made absolute on `public_url`."""

    def __init__(self, library: Callable[[], Library], public_url: str):
        self._library = library
        self.public_url = public_url.rstrip("/")

    def absolute(self, url: str) -> str:
        return self.public_url + url

    def library(self) -> Library:
        try:
            return self._library()
        except IndexUnavailable as exc:
            raise ToolError("The rules index is not available right now; try again in a moment.") from exc

    # --- tools --------------------------------------------------------------------------

    def search_rules(self, query: Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS, description=(
            "What to look for, in English, 繁體 or 简体: a rule number (702.19b), a keyword (persist, 留存), "
            "a card name, or a player's question in their own words"))],
                     edition: Edition = None,
                     limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="How many results")] = 10,
                     script: Script = None) -> Annotated[CallToolResult, SearchAnswer]:
        """Search the rules, glossary, FAQs and cards; today's rules come first. Each result names
        its rule number, edition and address: read a rule whole with get_rule before citing it."""
        lib = self.library()
        try:
            found = addressed(lib, lib.search(query, limit=limit, script=script, edition=edition))
        except QueryError as exc:
            raise ToolError(str(exc)) from exc
        jump = found["rule_jump"]
        answer: SearchAnswer = {
            "query": query, "total": found["total"], "did_you_mean": found["did_you_mean"],
            "left_out": found["left_out"],
            "cards": [{"name": c["name"], "url": self.absolute(c["url"])} for c in found.get("cards", [])],
            "rule_jump": {"number": jump["number"], "edition": jump["edition"], "title": jump["title"],
                          "url": self.absolute(jump["url"])} if jump else None,
            "results": [{"kind": r["kind"], "title": r["title"], "rule": r["rule"], "edition": r["edition"],
                         "snippet": _plain(r["snippet"]), "url": self.absolute(r["url"]),
                         "today": self._today_of_result(r)} for r in found["results"]],
        }
        lines = [f"{found['total']} results for {query!r}" + (f" in the {edition} rules" if edition else "") + "."]
        if answer["left_out"]:
            lines.append(f"Not searched (too many words): {' '.join(answer['left_out'])}")
        if answer["cards"]:
            lines.append("Cards named: " + "; ".join(f"{c['name']} {c['url']}" for c in answer["cards"]))
        if answer["did_you_mean"]:
            lines.append(f"Did you mean: {answer['did_you_mean']}")
        for n, r in enumerate(answer["results"], 1):
            where = f"rule {r['rule']}, {r['edition']} rules" if r["rule"] else r["kind"]
            lines.append(f"{n}. {r['title']} ({where}) {r['url']}")
            if r["today"]:
                lines.append(f"   {r['today']}")
            if r["snippet"]:
                lines.append(f"   {r['snippet']}")
        return _result(lines, dict(answer))

    def _today_of_result(self, result: dict) -> str | None:
        today = result.get("today")
        if not today:
            return None
        if today.get("number"):
            return (f"Today ({today['edition']}) this rule is {today['number']}: {self.absolute(today['url'])}"
                    + _parts_line(today.get("also"), self.absolute))
        ended = today.get("ended") or {}
        return f"No longer a rule: last in the {ended.get('last')} rules" if ended else None

    def _rule(self, lib: Library, number: str, edition: str | None, script: str | None) -> dict:
        parsed = parse_rule_number(number.strip())
        if parsed is None:
            raise ToolError(f"{number[:MAX_NUMBER_CHARS]!r} is not a rule number (rule numbers look like 702.30a)")
        view = rule_view(lib, parsed, edition, script, contents=False)
        if view is None:
            raise ToolError(rule_missing(lib, parsed, edition))
        return view

    def get_rule(self, number: RuleNumber, edition: Edition = None,
                 script: Script = None) -> Annotated[CallToolResult, RuleAnswer]:
        """One rule with its subrules and examples, in English and Chinese, from today's rules
        unless an edition is named; an older edition's rule says what it is today."""
        lib = self.library()
        view = self._rule(lib, number, edition, script)
        today = _today_line(view["today"], self.absolute)
        subrules: list[Subrule] = [{"number": c["number"], "title": c["title"], "url": self.absolute(c["url"]),
                                    "text": _texts(c["text"])}
                                   for c in view["children"]] if level(view["number"]) < 2 else []
        answer: RuleAnswer = {
            "number": view["number"], "edition": view["edition"], "title": view["title"],
            "url": self.absolute(view["url"]), "current": view["current"], "today": today,
            "text": _texts(view["text"]), "examples": [_texts(e) for e in view["examples"]],
            "subrules": subrules,
            "rulings": [{"source": r["source"]["title"], "text": _texts(r["text"])}
                        for r in view["rulings"][:RULINGS_SHOWN]],
        }
        standing = "today's rules" if view["current"] else "a superseded edition"
        lines = [f"{answer['title']} (Comprehensive Rules {answer['edition']}, {standing})", answer["url"]]
        if today:
            lines.append(today)
        lines += ["", *_written(answer["text"])]
        for example in answer["examples"]:
            lines += ["Example:", *_written(example, "  ")]
        for sub in subrules:
            lines += ["", f"{sub['title']} {sub['url']}", *_written(sub["text"], "  ")]
        for ruling in answer["rulings"]:
            lines += ["", f"Ruling ({ruling['source']}):", *_written(ruling["text"], "  ")]
        return _result(lines, dict(answer))

    def rule_history(self, number: RuleNumber, edition: Edition = None,
                     script: Script = None) -> Annotated[CallToolResult, HistoryAnswer]:
        """What a rule was and became in each edition from 2008 to today: its numbers, whether
        its words changed, and where it went (renumbered, split, merged, removed)."""
        lib = self.library()
        view = self._rule(lib, number, edition, script)
        runs = [{"editions": run["editions"], "numbers": run["numbers"], "url": self.absolute(run["url"]),
                 "text": _texts(run["text"]),
                 "changed_words": [{"lang": c["lang"], "pieces": c["pieces"]} for c in run["changes"]],
                 "steps": [{**step, "changes_url": self.absolute(step["changes_url"])}
                           for step in run.get("steps", [])]}
                for run in view["history"]]
        answer: HistoryAnswer = {"number": view["number"], "edition": view["edition"], "title": view["title"],
                                 "url": self.absolute(view["url"]), "today": _today_line(view["today"], self.absolute),
                                 "runs": runs}
        lines = [f"History of {answer['title']} ({answer['edition']} rules) {answer['url']}"]
        if answer["today"]:
            lines.append(answer["today"])
        for run in runs:
            eds = run["editions"]
            span = eds[0] if len(eds) == 1 else f"{eds[0]} to {eds[-1]}"
            lines.append(f"- {span}: {' → '.join(run['numbers'])} {run['url']}")
            for step in run["steps"]:
                lines.append(f"    {step['edition']}: {step['number']} ({step['relation'] or 'first'})")
            if run["changed_words"]:
                lines.append("    words changed from the run before")
        if not runs:
            lines.append("No other edition's rule is traced to this one.")
        return _result(lines, dict(answer))

    def compare_editions(self, from_edition: Annotated[str, Field(
            min_length=1, max_length=MAX_EDITION_CHARS, description="The older edition (2022-11-18, 2022)")],
                         to_edition: Annotated[str, Field(min_length=1, max_length=MAX_EDITION_CHARS, description=(
                             "The newer edition (2026-04-17, 2026-04)"))],
                         page: Annotated[int, Field(ge=1, le=10_000, description="Page of 20 changes")] = 1,
                         script: Script = None) -> Annotated[CallToolResult, ChangesAnswer]:
        """What changed between two editions of the rules: rules added, removed, renumbered and
        reworded (with the words changed), twenty to a page."""
        lib = self.library()
        held = lib.catalogue.editions.lineage_editions
        old, new = (self._held_edition(lib, value, held) for value in (from_edition, to_edition))
        if old >= new:
            raise ToolError(f"from_edition ({old}) must be an older edition than to_edition ({new})")
        view = changes_view(lib, old, new, None, None, page, script)
        if view is None:
            raise ToolError(f"There is no page {page} of the changes from {old} to {new}.")
        changes = [{"kind": c["kind"],
                    "old": c["old"] and {**c["old"], "url": self.absolute(c["old"]["url"])},
                    "new": c["new"] and {**c["new"], "url": self.absolute(c["new"]["url"])},
                    "changed_words": c["diff"], "text": _texts(c["text"])} for c in view["changes"]]
        here = f"/changes?from={old}&to={new}&page={page}"
        answer: ChangesAnswer = {"from_edition": old, "to_edition": new, "editions": view["editions"],
                                 "counts": view["counts"], "total": view["total"], "page": view["page"],
                                 "pages": view["pages"], "url": self.absolute(here), "changes": changes}
        counts = ", ".join(f"{n} {kind}" for kind, n in view["counts"].items() if n)
        lines = [f"Changes from the {old} rules to the {new} rules: {counts or 'none'}.",
                 f"Page {page} of {view['pages']}: {answer['url']}"]
        for change in changes:
            before, shown = change["old"], change["new"] or change["old"]
            was = f", was {before['number']}" if before and before["number"] != shown["number"] else ""
            lines.append(f"- {change['kind']}: {shown['title']}{was} {shown['url']}")
        return _result(lines, dict(answer))

    @staticmethod
    def _held_edition(lib: Library, value: str, held: list[str]) -> str:
        found = lib.catalogue.edition_filter(value.strip())
        if found not in held:
            raise ToolError(f"No edition of the rules {value[:MAX_EDITION_CHARS]!r}; the editions are: "
                            f"{', '.join(held)}.")
        return found

    def define_term(self, term: Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS, description=(
            "A glossary term or keyword in English, 繁體 or 简体 (persist, 留存, mana value)"))],
                    script: Script = None) -> Annotated[CallToolResult, TermAnswer]:
        """A glossary entry in every language it has, with the rules that define it."""
        lib = self.library()
        record = lib.by_name(term.strip(), ("term",))
        if record is None:
            raise ToolError(self._not_found("term", term, lib, script))
        view = term_view(lib, record, script)
        official = self._todays_entry(lib, record)
        answer: TermAnswer = {
            "title": view["title"], "names": view["names"], "url": self.absolute(view["url"]),
            "text": _texts(view["text"]),
            "definition": {"edition": official.edition, "url": self.absolute(record_url(official)),
                           "text": _texts(blocks(official.text, script))} if official else None,
            "defining_rules": [{**r, "url": self.absolute(r["url"]) if r["url"] else None}
                               for r in view["defining_rules"]],
            "today_entry": view["today_entry"] and {**view["today_entry"],
                                                    "url": self.absolute(view["today_entry"]["url"])},
        }
        lines = [f"{answer['title']} (glossary) {answer['url']}",
                 "Names: " + ", ".join(f"{name} ({lang})" for lang, name in answer["names"].items()), "",
                 *_written(answer["text"])]
        if answer["definition"]:
            definition = answer["definition"]
            lines += ["", f"The Comprehensive Rules' glossary ({definition['edition']}) {definition['url']}",
                      *_written(definition["text"], "  ")]
        if answer["defining_rules"]:
            lines += ["", "Defined in: " + "; ".join(
                f"{r['number']} ({r['edition']} rules) {r['url'] or ''}".rstrip() for r in answer["defining_rules"])]
        if answer["today_entry"]:
            lines.append(f"Today's entry: {answer['today_entry']['title']} {answer['today_entry']['url']}")
        return _result(lines, dict(answer))

    def get_card(self, name: Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS, description=(
            "A card's (or plane's) name in English, 繁體 or 简体"))],
                 script: Script = None) -> Annotated[CallToolResult, CardAnswer]:
        """A card or plane the index holds, by any of its names: its text, the rulings on it
        and the rules of the keywords it uses."""
        lib = self.library()
        record = lib.by_name(name.strip(), ("card", "planar_card"))
        if record is None:
            raise ToolError(self._not_found("card", name, lib, script))
        view = record_view(lib, record, script)
        answer: CardAnswer = {
            "kind": view["kind"], "title": view["title"], "names": view["names"], "url": self.absolute(view["url"]),
            "attrs": view["attrs"], "text": _texts(view["text"]), "rulings": [_texts(r) for r in view["rulings"]],
            "keywords": [{"title": k["title"], "url": self.absolute(k["url"]),
                          "rule": k["rule"] and {**k["rule"], "url": self.absolute(k["rule"]["url"])}}
                         for k in view["keywords"]],
        }
        lines = [f"{answer['title']} ({answer['kind'].replace('_', ' ')}) {answer['url']}",
                 *(f"{key}: {value}" for key, value in answer["attrs"].items()), "", *_written(answer["text"])]
        for keyword in answer["keywords"]:
            rule = keyword["rule"]
            lines.append(f"Keyword {keyword['title']}" + (f": rule {rule['number']} {rule['url']}" if rule else ""))
        for ruling in answer["rulings"]:
            lines += ["Ruling:", *_written(ruling, "  ")]
        return _result(lines, dict(answer))

    @staticmethod
    def _todays_entry(lib: Library, term: Record) -> Record | None:
        """Today's rules' own glossary entry for a term: the definition the rules give it."""
        today, catalogue = lib.catalogue.current_edition, lib.catalogue
        for name in term.names.values():
            for at in catalogue.names.get(fold_key(name), []):
                found = catalogue.records[at]
                if found.kind == "term" and found.edition == today and found.source != term.source:
                    return found
        return None

    @staticmethod
    def _not_found(kind: str, name: str, lib: Library, script: str | None) -> str:
        close = [s["text"] for s in lib.closest(name[:MAX_NAME_CHARS], 5, script)]
        held = "" if kind == "term" else " (the index holds the cards its documents describe)"
        return (f"No {kind} named {name[:MAX_NAME_CHARS]!r}{held}."
                + (f" Closest names: {', '.join(close)}." if close else " Try search_rules."))

    # --- resource and prompt --------------------------------------------------------------

    def rule_resource(self, edition: str, number: str) -> str:
        """A rule as text, like get_rule's: `rules://2026-04-17/702.19b`."""
        try:
            found = self.get_rule(number[:MAX_NUMBER_CHARS], edition[:MAX_EDITION_CHARS])
        except ToolError as exc:
            raise ResourceNotFoundError(str(exc)) from exc
        return "\n".join(block.text for block in found.content if isinstance(block, TextContent))

    @staticmethod
    def answer_rules_question(question: Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS)]) -> str:
        """How to answer a rules question from the rules themselves, citing them."""
        return (
            "Answer this Magic: The Gathering rules question from the Comprehensive Rules, not from memory.\n"
            "1. Call search_rules with the question (in the player's words or language), and again with the "
            "game's terms it involves if the first results do not settle it.\n"
            "2. Read every rule you rely on with get_rule (today's edition unless the question is about an "
            "older one); read a card with get_card and a term with define_term.\n"
            "3. Answer briefly, then cite each rule as its number, the edition and the address the tools gave "
            "(for example: 702.19b, Comprehensive Rules 2026-04-17, <address>). If a number came from an older "
            "edition, say what it is today. If the rules found do not answer it, say so.\n\n"
            f"Question: {question}"
        )


def _on_the_loop(tool: Callable[..., CallToolResult]) -> Callable[..., Awaitable[CallToolResult]]:
    """A tool run on the transport's event loop, not handed to a thread of its own: a call is a
    few milliseconds of CPU, and a worker answers one request at a time."""
    @functools.wraps(tool)
    async def run(*args: Any, **kwargs: Any) -> CallToolResult:
        return tool(*args, **kwargs)
    return run


def create_server(library: Callable[[], Library], public_url: str) -> MCPServer:
    """The MCP server: six read-only tools, rules as resources, and a prompt."""
    tools = RulesTools(library, public_url)
    server: MCPServer = MCPServer(NAME, title="Magic: The Gathering Comprehensive Rules", instructions=INSTRUCTIONS,
                                  website_url=tools.public_url, log_level="WARNING")
    for tool in (tools.search_rules, tools.get_rule, tools.rule_history, tools.compare_editions, tools.define_term,
                 tools.get_card):
        server.add_tool(_on_the_loop(tool), description=inspect.getdoc(tool), annotations=READ_ONLY,
                        structured_output=True)
    server.resource("rules://{edition}/{number}", name="rule", mime_type="text/plain",
                    description="A rule of one edition as text, with its subrules and what it is today")(
        tools.rule_resource)
    server.prompt(name="answer_rules_question")(tools.answer_rules_question)
    return server

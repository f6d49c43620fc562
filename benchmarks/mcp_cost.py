"""MCP tool calls against the pages that answer the same: the server CPU of each, first asked.

Each tool call is a POST to `/mcp` (stateless, JSON) through the WSGI app in this process, and
its page the same rule, search, history, changes, term or card as a reader asks it; the two go
to two apps, each over its own library, so that neither answers from what the other asked.
`time.process_time()` counts every thread of the process: the transport's event loop and the
thread a tool runs on included. Printed per kind: the median and the largest cost of each,
their ratio, and how many tool calls cost more than LIMIT_MS.

    python -m benchmarks.mcp_cost INDEX_ROOT     # an index built with its book parts
    ./scripts/bench mcp                           # builds the whole knowledge base first
"""
from __future__ import annotations

import itertools
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from indexer.knowledge.library import Library
from webapp import create_app

from .measure import WARM_UP_QUERY, build_folder, judged_queries, percentile, table
from .request_cost import LIMIT_MS, Ask, measure

PROTOCOL = "2026-07-28"
# A call as the SDK's client makes it: one POST naming the protocol's revision, method and tool.
CLIENT_META = {"io.modelcontextprotocol/protocolVersion": PROTOCOL,
               "io.modelcontextprotocol/clientInfo": {"name": "mcp", "version": "0.1.0"},
               "io.modelcontextprotocol/clientCapabilities": {}}
SAMPLE = 200


def tool_call(kind: str, tool: str, **arguments) -> Ask:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments, "_meta": CLIENT_META}}
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": PROTOCOL,
               "Mcp-Method": "tools/call", "Mcp-Name": tool}
    return Ask(kind, "/mcp", "POST", json=body, headers=headers)


def pairs(library: Library) -> Iterator[tuple[Ask, Ask]]:
    """(page, tool call) asking the same, kind by kind."""
    rng = random.Random(0)
    today = library.catalogue.current_edition
    rules = [r for r in library.records.values() if r.kind == "rule" and r.source.startswith("cr-") and r.number]
    todays = rng.sample([r for r in rules if r.edition == today], 2 * SAMPLE)
    older = rng.sample([r for r in rules if r.edition != today], SAMPLE)
    for query in judged_queries():
        yield Ask("search", f"/?q={quote(query)}"), tool_call("search", "search_rules", query=query)
    for r in todays[:SAMPLE]:
        yield Ask("rule", f"/rules/{r.number}"), tool_call("rule", "get_rule", number=r.number)
    for r in older:
        yield (Ask("rule, older edition", f"/rules/{r.number}?edition={r.edition}"),
               tool_call("rule, older edition", "get_rule", number=r.number, edition=r.edition))
    for r in todays[SAMPLE:]:
        yield Ask("history", f"/rules/{r.number}"), tool_call("history", "rule_history", number=r.number)
    editions = library.catalogue.editions.lineage_editions
    for old, new in itertools.pairwise(editions):
        for page in (1, 2, 3):
            yield (Ask("changes", f"/changes?from={old}&to={new}&page={page}"),
                   tool_call("changes", "compare_editions", from_edition=old, to_edition=new, page=page))
    for r in library.records.values():
        if r.kind == "term" and not r.source.startswith("cr-") and r.names.get("en"):
            yield Ask("term", f"/terms/{r.id}"), tool_call("term", "define_term", term=r.names["en"])
        elif r.kind in ("card", "planar_card") and r.names:
            base = "/cards/" if r.kind == "card" else "/planes/"
            name = r.names.get("en") or next(iter(r.names.values()))
            yield Ask("card", base + r.id), tool_call("card", "get_card", name=name)


def report(index_root: Path) -> str:
    pages, tools = (create_app({"INDEX_ROOT": index_root}) for _ in range(2))
    library = Library(build_folder(index_root))
    try:
        asked = list(pairs(library))
    finally:
        library.close()
    for app in (pages, tools):  # what a worker has done before its first reader (webapp.wsgi)
        measure(app, Ask("warm-up", f"/?q={WARM_UP_QUERY}"))
    measure(tools, tool_call("warm-up", "get_rule", number="100.1"))
    kinds: dict[str, tuple[list[float], list[float], list[str]]] = {}
    for page, call in asked:
        page_cost, call_cost = measure(pages, page), measure(tools, call)
        costs = kinds.setdefault(page.kind, ([], [], []))
        costs[0].append(page_cost.seconds * 1000)
        costs[1].append(call_cost.seconds * 1000)
        costs[2].append(call_cost.status)
    rows = []
    for kind, (page_ms, tool_ms, statuses) in kinds.items():
        rows.append([kind, len(tool_ms), f"{percentile(page_ms, 50):.1f}", f"{max(page_ms):.1f}",
                     f"{percentile(tool_ms, 50):.1f}", f"{max(tool_ms):.1f}",
                     f"{percentile(tool_ms, 50) / percentile(page_ms, 50):.2f}",
                     sum(ms > LIMIT_MS for ms in tool_ms), ", ".join(sorted(set(statuses)))])
    every = [ms for _, tool_ms, _ in kinds.values() for ms in tool_ms]
    return "\n".join([
        f"{len(every)} tool calls, each asked once, beside the page answering the same; "
        f"{sum(ms > LIMIT_MS for ms in every)} over {LIMIT_MS:.0f} ms of CPU (largest {max(every):.1f} ms).\n",
        table(["kind", "calls", "page p50 ms", "page max ms", "tool p50 ms", "tool max ms", "tool / page (p50)",
               f"tool calls over {LIMIT_MS:.0f} ms", "HTTP status"], rows)])


if __name__ == "__main__":
    print(report(Path(sys.argv[1])))

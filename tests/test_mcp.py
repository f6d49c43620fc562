"""The rules as tools for AI assistants (MCP), through the SDK's own client: in memory over two
editions of the rules and three documents, over stdio as `mtgrules mcp` runs, and over streamable
HTTP at `/mcp` through the site's front (HAProxy, nginx, gunicorn) on the whole knowledge base.
Every answer cites the edition and the permalink; bad arguments are tool errors, never a
closed session."""
from __future__ import annotations

import asyncio
import http.client
import json
import subprocess
import sys
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from indexer.documents.ingest import ROOT
from indexer.knowledge.editions import CHANGE_KINDS
from webapp.mcp_server import create_server

PUBLIC = "https://rules.example"
TOOLS = {"search_rules", "get_rule", "rule_history", "compare_editions", "define_term", "get_card"}
MCP_ACCEPT = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def session(target: Any, body: Callable[[Client], Awaitable[Any]]) -> Any:
    """`body(client)` in one session of the SDK's client with `target` (a server, a URL or a
    stdio command), on an event loop of its own thread (a browser test's Playwright may be
    running one in this one)."""
    async def run():
        async with Client(target) as client:
            return await body(client)
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run()).result()


@pytest.fixture(scope="module")
def server(cr_library):
    return create_server(lambda: cr_library, PUBLIC)


def call(server, tool: str, **arguments):
    return session(server, lambda client: client.call_tool(tool, arguments))


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content)


def test_the_tools_say_what_they_take_and_give(server):
    tools = session(server, lambda client: client.list_tools()).tools
    assert {t.name for t in tools} == TOOLS
    for tool in tools:
        assert tool.input_schema["type"] == "object" and tool.input_schema["properties"], tool.name
        assert tool.output_schema and tool.output_schema["type"] == "object", tool.name
        assert tool.description and "\n    " not in tool.description, tool.name
        assert tool.annotations.read_only_hint is True and tool.annotations.destructive_hint is False
    search = next(t for t in tools if t.name == "search_rules")
    assert search.input_schema["required"] == ["query"]
    assert search.input_schema["properties"]["query"]["maxLength"] == 1000


def test_a_rule_cites_its_edition_and_permalink(server):
    found = call(server, "get_rule", number="702.30c")
    rule = found.structured_content
    assert not found.is_error
    assert (rule["number"], rule["edition"], rule["current"]) == ("702.30c", "2010-02-01", True)
    assert rule["url"] == f"{PUBLIC}/rules/702.30c?edition=2010-02-01"
    assert {t["lang"] for t in rule["text"]} >= {"en", "zh_hant"}
    text = text_of(found)
    assert text.startswith("702.30c ") and "Comprehensive Rules 2010-02-01, today's rules" in text
    assert rule["url"] in text and "多重增幅" in text


def test_a_rule_lists_its_subrules_and_a_script_is_asked_for(server):
    rule = call(server, "get_rule", number="702.30", script="hans").structured_content
    assert [s["number"] for s in rule["subrules"]][:3] == ["702.30a", "702.30b", "702.30c"]
    assert all(s["url"].startswith(PUBLIC + "/rules/702.30") for s in rule["subrules"])
    assert "增幅" in rule["title"] and "增幅" in json.dumps(rule, ensure_ascii=False)


def test_an_older_editions_rule_says_what_it_is_today(server):
    found = call(server, "get_rule", number="702.76", edition="2009")
    rule = found.structured_content
    assert rule["edition"] == "2009-07-11" and rule["current"] is False
    assert rule["today"] == f"Today (2010-02-01) this rule is 702.76: {PUBLIC}/rules/702.76?edition=2010-02-01"
    assert "a superseded edition" in text_of(found) and rule["today"] in text_of(found)


def test_a_split_rule_says_every_rule_it_is_today(server):
    """2009's 117.1 (life totals, one paragraph) became 2010's 117.1 and 117.1a."""
    rule = call(server, "get_rule", number="117.1", edition="2009").structured_content
    assert rule["today"] == (f"Today (2010-02-01) this rule is 117.1: {PUBLIC}/rules/117.1?edition=2010-02-01"
                             f"; and 117.1a: {PUBLIC}/rules/117.1a?edition=2010-02-01")


def test_a_rules_history_names_each_editions_number(server):
    history = call(server, "rule_history", number="702.76").structured_content
    steps = [(s["edition"], s["number"], s["relation"]) for run in history["runs"] for s in run["steps"]]
    assert ("2010-02-01", "702.76", "same") in steps
    assert history["runs"][0]["editions"][0] == "2009-07-11"
    assert all(run["url"].startswith(PUBLIC + "/rules/") for run in history["runs"])


def test_what_changed_between_two_editions(server):
    found = call(server, "compare_editions", from_edition="2009", to_edition="2010-02-01")
    changes = found.structured_content
    assert (changes["from_edition"], changes["to_edition"], changes["page"]) == ("2009-07-11", "2010-02-01", 1)
    assert changes["total"] == sum(changes["counts"].values()) > 0
    assert len(changes["changes"]) == min(20, changes["total"])
    assert {c["kind"] for c in changes["changes"]} <= set(CHANGE_KINDS)
    assert text_of(found).startswith("Changes from the 2009-07-11 rules to the 2010-02-01 rules: ")
    assert f"{PUBLIC}/changes?from=2009-07-11&to=2010-02-01&page=1" in text_of(found)


def test_a_search_gives_numbers_editions_and_addresses(server):
    found = call(server, "search_rules", query="留存", limit=5)
    answer = found.structured_content
    assert answer["total"] > 0 and len(answer["results"]) <= 5
    first = answer["results"][0]
    assert first["rule"] and first["edition"] and first["url"].startswith(PUBLIC + "/")
    assert all("<mark>" not in r["snippet"] for r in answer["results"])
    assert first["url"] in text_of(found)


def test_a_rule_number_searched_for_is_the_jump(server):
    found = call(server, "search_rules", query="CR 702.30c").structured_content
    assert found["rule_jump"] == {"number": "702.30c", "edition": "2010-02-01", "title": found["rule_jump"]["title"],
                                  "url": f"{PUBLIC}/rules/702.30c?edition=2010-02-01"}


def test_a_term_in_any_script_and_language_is_one_entry(server):
    answers = [call(server, "define_term", term=term).structured_content for term in ("persist", "留存", "PERSIST")]
    assert answers[0] == answers[1] == answers[2]
    assert answers[0]["names"]["en"] == "persist" and answers[0]["names"]["zh_hant"] == "留存"
    assert answers[0]["definition"]["edition"] == "2010-02-01"
    assert "702.76" in answers[0]["definition"]["text"][0]["text"]  # the 2010 rules' own glossary
    assert [r["number"] for r in answers[0]["defining_rules"]] == ["502.79", "702.79"]


def test_a_card_by_any_of_its_names(server):
    cards = [call(server, "get_card", name=name).structured_content
             for name in ("Murderous Redcap", "奪魂紅帽客", "夺魂红帽客")]
    assert cards[0]["url"] == cards[1]["url"] == cards[2]["url"]
    assert any(k["rule"] and k["rule"]["number"] == "702.76" for k in cards[0]["keywords"])
    assert cards[0]["rulings"]


@pytest.mark.parametrize(("tool", "arguments", "message"), [
    ("get_rule", {"number": "999.999"}, "No edition of the rules has 999.999."),
    ("get_rule", {"number": "hello"}, "'hello' is not a rule number"),
    ("get_rule", {"number": "702.30c", "edition": "1999"}, "Edition 1999 has no rule 702.30c; it is in: 2010-02-01"),
    ("get_rule", {"number": "7" * 5000}, "at most 40 characters"),
    ("get_rule", {"number": 702}, "valid string"),
    ("get_rule", {}, "Field required"),
    ("rule_history", {"number": "702.999z"}, "No edition of the rules has 702.999z."),
    ("compare_editions", {"from_edition": "garbage", "to_edition": "2010"},
     "No edition of the rules 'garbage'; the editions are: "),
    ("compare_editions", {"from_edition": "2010", "to_edition": "2009"}, "must be an older edition"),
    ("compare_editions", {"from_edition": "2009", "to_edition": "2010", "page": 9999}, "There is no page 9999"),
    ("search_rules", {"query": "persist " * 700}, "at most 1000 characters"),
    ("search_rules", {"query": "persist", "limit": "many"}, "valid integer"),
    ("search_rules", {"query": "persist", "edition": "!!"}, "edition must be a date"),
    ("search_rules", {"query": "persist", "script": "latin"}, "'hant' or 'hans'"),
    ("define_term", {"term": ["persist"]}, "valid string"),
    ("define_term", {"term": "persistt"}, "No term named 'persistt'. Closest names: "),
    ("get_card", {"name": "Lightning Bolt"}, "No card named 'Lightning Bolt'"),
])
def test_bad_arguments_are_tool_errors_with_a_clear_message(server, tool, arguments, message):
    found = call(server, tool, **arguments)
    assert found.is_error and message in text_of(found)
    assert len(text_of(found)) < 1000  # a 5,000-character argument is not said back whole


def test_without_an_index_the_tools_are_listed_and_a_call_says_so(no_index_app):
    server = create_server(no_index_app.extensions["kb.library"].get, PUBLIC)

    async def body(client):
        return await client.list_tools(), await client.call_tool("get_rule", {"number": "702.30c"})
    tools, found = session(server, body)
    assert {t.name for t in tools.tools} == TOOLS
    assert found.is_error and "The rules index is not available right now" in text_of(found)


def test_a_session_goes_on_after_errors(server):
    async def body(client):
        for arguments in ({"number": "x" * 5000}, {"number": None}, {"number": "999.999"}):
            assert (await client.call_tool("get_rule", arguments)).is_error
        return await client.call_tool("get_rule", {"number": "702.30c"})
    assert not session(server, body).is_error


def test_a_rule_is_a_resource_and_a_prompt_says_how_to_answer(server):
    async def body(client):
        templates = await client.list_resource_templates()
        rule = await client.read_resource("rules://2010-02-01/702.30c")
        prompt = await client.get_prompt("answer_rules_question", {"question": "Can I kick a spell twice?"})
        with pytest.raises(MCPError, match=r"No edition of the rules has 999\.999"):
            await client.read_resource("rules://2010-02-01/999.999")
        return templates, rule, prompt
    templates, rule, prompt = session(server, body)
    assert [t.uri_template for t in templates.resource_templates] == ["rules://{edition}/{number}"]
    assert rule.contents[0].text.startswith("702.30c ") and f"{PUBLIC}/rules/702.30c?edition=2010-02-01" in \
        rule.contents[0].text
    said = prompt.messages[0].content.text
    assert "Can I kick a spell twice?" in said and "search_rules" in said and "get_rule" in said


@pytest.mark.server
def test_stdio_as_mtgrules_mcp_runs(cr_index):
    command = StdioServerParameters(command=sys.executable,
                                    args=["-m", "mtgrules", "--index-root", str(cr_index), "mcp"],
                                    cwd=str(ROOT), env={"PUBLIC_URL": PUBLIC})

    async def body(client):
        tools = await client.list_tools()
        wrong = await client.call_tool("get_rule", {"number": "x" * 5000})
        rule = await client.call_tool("get_rule", {"number": "702.30c"})
        return tools, wrong, rule
    tools, wrong, rule = session(command, body)
    assert {t.name for t in tools.tools} == TOOLS
    assert wrong.is_error and "at most 40 characters" in text_of(wrong)
    assert rule.structured_content["url"] == f"{PUBLIC}/rules/702.30c?edition=2010-02-01"


@pytest.mark.server
def test_stdio_without_an_index_says_so(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mtgrules", "--index-root", str(tmp_path / "none"), "mcp"],
                          cwd=ROOT, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 1 and "no index built yet" in done.stderr and done.stdout == ""


def _post(live_server, body: bytes, **headers) -> tuple[int, dict, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", live_server.port, timeout=30)
    try:
        connection.request("POST", "/mcp", body, {**MCP_ACCEPT, **headers})
        answer = connection.getresponse()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
    finally:
        connection.close()


def test_over_http_through_the_front_on_the_whole_knowledge_base(live_server):
    async def body(client):
        persist = await client.call_tool("get_rule", {"number": "702.79"})
        devour = await client.call_tool("get_rule", {"number": "702.79", "edition": "2009"})
        history = await client.call_tool("rule_history", {"number": "702.79"})
        wrong = await client.call_tool("compare_editions", {"from_edition": "1999", "to_edition": "2026"})
        return persist, devour, history, wrong
    persist, devour, history, wrong = session(f"{live_server.url}/mcp", body)
    assert persist.structured_content["edition"] == "2026-04-17" and "Persist" in persist.structured_content["title"]
    assert persist.structured_content["url"] == f"{live_server.url}/rules/702.79?edition=2026-04-17"
    assert "Devour" in devour.structured_content["title"]
    assert devour.structured_content["today"].startswith("Today (2026-04-17) this rule is 702.82: ")
    numbers = [n for run in history.structured_content["runs"] for n in run["numbers"]]
    assert numbers == ["502.79", "702.76", "702.78", "702.79"]
    assert wrong.is_error and "the editions are: 2008-05-01" in text_of(wrong)


def test_over_http_the_sites_limits_and_headers_hold(live_server):
    listing = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).encode()
    status, headers, body = _post(live_server, listing)
    assert status == 200 and json.loads(body)["result"]["tools"]
    assert headers["x-frame-options"] == "DENY" and "content-security-policy" in headers
    # DNS rebinding: another site's name for this address, or a page of another origin.
    for refused, expected in (({"Host": "rules.attacker.example"}, 421), ({"Origin": "http://attacker.example"}, 403)):
        status, headers, body = _post(live_server, listing, **refused)
        assert status == expected and headers["content-type"].startswith("application/json")
        assert json.loads(body)["error"]["status"] == expected and "x-frame-options" in headers
    status, headers, body = _post(live_server, b'{"pad": "' + b"x" * 200_000 + b'"}')
    assert status == 413 and json.loads(body)["error"]["status"] == 413
    status, _, body = _post(live_server, b"{not json")
    assert status == 400 and json.loads(body)["error"]["code"] == -32700


def test_the_http_transport_is_started_once_per_process(live_server):
    """Each call is answered whole (stateless, JSON), so many in a row keep working."""
    async def body(client):
        return [await client.call_tool("search_rules", {"query": q, "limit": 1})
                for q in ("persist", "踐踏", "践踏 死触", "what does trample do with deathtouch")]
    found = session(f"{live_server.url}/mcp", body)
    assert all(not r.is_error and r.structured_content["results"] for r in found)


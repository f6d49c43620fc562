"""A search limited to one edition reads that edition whole.

Over the whole knowledge base: the rules of an edition that hold a word, counted by reading
the rules file itself (its bytes in the codec it was published in, a regular expression over
the lines between its Contents and its Glossary, not the service's reader), are all among the
results of `edition:` and `?edition=`, every one of which `limit` and `offset` reach, and the
answer's `total` is the number of them.
"""
from __future__ import annotations

import re

import pytest
from corpus_support import CR

# file, Python codec, edition
FILES = {
    "2008": ("MagicCompRules-2008-05-01.txt", "ascii"),
    "2009": ("MagicCompRules-2009-07-11.txt", "ascii"),
    "2010": ("MagicCompRules-2010-02-01.txt", "cp1252"),
    "2016": ("MagicCompRules-2016-09-30.txt", "utf-16"),
    "2022": ("MagicCompRules-2022-11-18.txt", "utf-16"),
    "2026-04-17": ("bilingual-2026-04-17-en.txt", "utf-8"),
}
_RULE_LINE = re.compile(r"\s*(\d{3})\. ?(\d+)([a-z]?)")


def rules_of_file(year: str) -> dict[str, str]:
    """Rule number -> its lines (text and examples), read from the file: the rules are the
    lines after the Contents (which end with the first "Credits") up to the last "Glossary"."""
    name, codec = FILES[year]
    lines = (CR / name).read_bytes().decode(codec).lstrip("\ufeff").splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "Credits")
    end = max(i for i, line in enumerate(lines) if line.strip() == "Glossary")
    rules: dict[str, str] = {}
    number = None
    for line in lines[start + 1:end]:
        if m := _RULE_LINE.match(line):
            number = f"{m.group(1)}.{m.group(2)}{m.group(3)}"
            rules[number] = line
        elif re.match(r"\d{3}\. ", line.strip()):
            number = None  # a section heading
        elif number and line.strip():
            rules[number] += "\n" + line
    return rules


def holding(year: str, pattern: str) -> set[str]:
    found = re.compile(pattern, re.IGNORECASE)
    return {n for n, text in rules_of_file(year).items() if found.search(text)}


def every_result(client, query: str, **args) -> tuple[int, list[dict]]:
    """The answer's total and every result, read 50 at a time."""
    results, offset = [], 0
    while True:
        answer = client.get("/api/search", query_string={"q": query, "limit": 50, "offset": offset, **args}).get_json()
        results += answer["results"]
        offset += 50
        if offset >= answer["total"]:
            return answer["total"], results


def test_the_independent_reading_counts_the_rules_of_a_file():
    assert len(rules_of_file("2008")) == 1148 and "502.79a" in rules_of_file("2008")
    assert "702.37a" in rules_of_file("2009")  # written "702. 37a"
    assert len(holding("2016", r"\bstack")) > 200


@pytest.mark.parametrize("year, query, pattern", [
    ("2016", "kind:rule on the stack", r"\bstack(s|ed|ing)?\b"),
    ("2009", "kind:rule combat damage", r"\bcombat damage\b"),
    ("2008", "kind:rule combat damage on the stack", r"\bcombat damage\b"),
    ("2010", "kind:rule kicker", r"\bkick(er|ed)\b"),
    ("2022", "kind:rule exile", r"\bexiled?\b"),
    ("2026-04-17", "kind:rule stack", r"\bstack(s|ed|ing)?\b"),
])
def test_an_edition_filter_finds_every_rule_of_the_file_holding_the_words(kb_client, year, query, pattern):
    total, results = every_result(kb_client, f"edition:{year} {query}")
    expected = holding(year, pattern)
    found = [r["rule"] for r in results]
    assert total == len(results) == len(set(r["id"] for r in results))
    assert {r["edition"][:len(year)] for r in results} == {year}
    assert expected <= set(found), sorted(expected - set(found))[:20]


def test_the_edition_argument_limits_as_the_filter_does(kb_client):
    total, results = every_result(kb_client, "kicker", edition="2010")
    filtered = every_result(kb_client, "kicker edition:2010")
    assert (total, [r["id"] for r in results]) == (filtered[0], [r["id"] for r in filtered[1]])
    assert {r["edition"] for r in results} == {"2010-02-01"}
    assert holding("2010", r"\bkicker\b") <= {r["rule"] for r in results}
    # A filter in the query itself wins.
    assert {r["edition"] for r in every_result(kb_client, "kicker edition:2009", edition="2010")[1]} == {"2009-07-11"}
    page = kb_client.get("/?q=stack&edition=2010&limit=50").get_data(as_text=True)
    assert 'name="edition" value="2010"' in page and "offset=50" in page
    assert kb_client.get("/api/search?q=kicker&edition=x;y").status_code == 400
    assert kb_client.get("/api/search?q=kicker&offset=99999999").status_code == 400


def test_old_combat_damage_on_the_stack_is_found_in_its_edition(kb_client):
    results = kb_client.get("/api/search?q=edition:2008+combat+damage+on+the+stack").get_json()["results"]
    assert {"310.4", "217.6e"} <= {r["rule"] for r in results[:10]}


def test_an_older_editions_rule_named_among_words_comes_first(kb_client):
    """What did 502.79 say: the 2008 rule comes first, though today's 702.79 has taken its
    place and a search of words leaves such rules out."""
    first = kb_client.get("/api/search", query_string={"q": "what did 502.79 say"}).get_json()["results"][0]
    assert first["rule"].startswith("502.79") and first["edition"] == "2008-05-01"
    assert first["today"]["number"].startswith("702.79") and first["today"]["url"].startswith("/rules/702.79")


def test_an_older_editions_rule_says_what_it_is_today_or_when_it_ended(kb_client):
    """As the rule's page and a jump to its number say: 2009's 702.79 Devour is 702.82 today,
    2008's 300.3 mana burn was last in 2008; today's rules say nothing of the kind."""
    devour = kb_client.get("/api/search?q=edition:2009 devour&limit=1").get_json()["results"][0]
    assert (devour["rule"], devour["today"]["number"]) == ("702.79", "702.82")
    assert devour["today"]["url"] == "/rules/702.82?edition=2026-04-17"
    burn = kb_client.get("/api/search?q=edition:2008 mana burn&limit=1").get_json()["results"][0]
    assert (burn["rule"], burn["today"]["ended"]["last"]) == ("300.3", "2008-05-01")
    assert kb_client.get("/api/search?q=persist&limit=1").get_json()["results"][0]["today"] is None
    page = kb_client.get("/?q=edition:2009+devour").get_data(as_text=True)
    assert '<a class="today" href="/rules/702.82?edition=2026-04-17">702.82</a>' in page

"""A rule's page shows the rule's own number, in every edition.

Over every rule and section of every rules edition the whole knowledge base serves: the page's
number and heading, the entry for its own edition in its history and the number its keyword has
in its own edition are its number (702.79a under 702.79), never another rule's. The rules of a
section titled "General" (100, 500, 700, ...) once all showed 100, the first General: a
section's title made a keyword of them.
"""
from __future__ import annotations

from webapp.present import rule_view


def _own(number: str, shown: str) -> bool:
    """Whether `shown` is `number` or the rule it is a subrule of (702.79 for 702.79a)."""
    return shown == number or (number.startswith(shown) and number[len(shown):].isalpha())


def test_every_rule_page_shows_its_own_number(kb_library):
    rules = [r for r in kb_library.records.values() if r.kind == "rule" and r.source == f"cr-{r.edition}"]
    assert len(rules) > 15000
    wrong = []
    for rule in rules:
        view = rule_view(kb_library, rule.number, rule.edition, None)
        own = [v.number for v in kb_library.rule(rule.number, rule.edition)["history"] if v.edition == rule.edition]
        keyword = [k["number"] for k in view["keyword_numbers"] if k["current"]]
        if (view["number"], view["edition"]) != (rule.number, rule.edition) \
                or not view["title"].startswith(rule.number + " ") \
                or own not in ([], [rule.number]) or not all(_own(rule.number, n) for n in keyword):
            wrong.append((rule.id, view["title"], own, keyword))
    assert wrong == [], f"{len(wrong)} rules: {wrong[:5]}"


def test_a_section_title_is_no_keyword(kb_library):
    for number, edition in (("500.1", None), ("700.2", None), ("300.3", "2008")):
        view = rule_view(kb_library, number, edition, None)
        assert view["keyword"] is None and view["keyword_numbers"] == []
        history = kb_library.rule(number, edition)["history"]
        assert number in {v.number for v in history}
        assert all("." in v.number for v in history)  # never a section's number (100)
    assert kb_library.rule("300.3", "2008")["record"].title == {"en": "General"}
    # A keyword's rule still follows its keyword: persist's subrule.
    persist = rule_view(kb_library, "702.79a", None, None)
    assert persist["keyword"] == "persist"
    assert kb_library.rule("702.79a")["history"][0].number == "502.79a"

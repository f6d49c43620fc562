"""A rule page: one rule number in one edition, with everything around it."""
from __future__ import annotations

from indexer.documents.records import Record
from indexer.search.folding import fold_key

from .catalogue import Catalogue


def merge_texts(records: list[Record]) -> dict[str, str]:
    """One rule's text in every language any of its records gives (the rules file's English
    beside a FAQ's Chinese)."""
    merged: dict[str, str] = {}
    for record in records:
        for lang, text in record.text.items():
            merged.setdefault(lang, text)
    return merged


def rule_today(catalogue: Catalogue, record: Record) -> dict:
    """What the rule of an older edition is today, along the lineage: today's number of the
    same rule (2008's 104.3f hybrid mana: 107.4e), or where its lineage ended (2008's 300.3
    mana burn: last in 2008-05-01, gone in 2009-07-11), and what its own number names today
    when that is another rule (702.79 in 2009 was devour; today it is persist). Empty for a
    rule of today's edition, or in a knowledge base without editions."""
    today = catalogue.current_edition
    if not today or record.edition == today or not record.edition or record.number is None:
        return {}
    found: dict = {"edition": today}
    lineage = catalogue.placement.today_of(record) or {}
    if "number" in lineage:
        found["same_rule"] = lineage["number"]
        found["also"] = [part["number"] for part in lineage.get("also", [])]
    if "ended" in lineage:
        found["ended"] = lineage["ended"]
    same_number = catalogue.rule_records(record.number, today)[:1]
    if same_number and same_number[0].number != found.get("same_rule"):
        found["number_now"] = same_number[0]
    return found


def rule_page(catalogue: Catalogue, number: str, edition: str | None = None) -> dict | None:
    """Everything a rule page shows, or None when no edition has the number."""
    records = catalogue.rule_records(number, edition)
    if not records:
        return None
    primary = records[0]
    edition = primary.edition
    children: list[Record] = []
    for child in catalogue.children(number, edition):  # the rules file's record first per number
        if not children or children[-1].number != child.number:
            children.append(child)
    parent = catalogue.rule_records(primary.parent, edition)[:1] if primary.parent else []
    previous, following = catalogue.neighbours(number, edition)
    return {
        "number": number,
        "edition": edition,
        "record": primary,
        "quotes": records[1:],
        "merged_text": merge_texts(records),
        "parent": parent[0] if parent else None,
        "children": children,
        "editions": catalogue.editions.editions_of(number),
        "keyword_numbers": catalogue.editions.keyword_numbers(primary),
        "history": catalogue.editions.history(edition, number) if edition else [],
        "previous": previous,
        "next": following,
        # Whether this is today's edition (None in a knowledge base without rules editions).
        "current": edition == catalogue.current_edition if catalogue.current_edition else None,
        # Rulings on this rule in other editions' documents (a subrule's page keeps its own).
        "followed": [r for r in catalogue.placement.ruled_records(primary) if r not in records]
        if not number[-1].isalpha() else [],
        # The documents quoting the same rule in other editions, along its lineage.
        "quoted_elsewhere": [r for r in catalogue.placement.quotations(primary) if r not in records],
        "today": rule_today(catalogue, primary),
    }


def subrule_rulings(catalogue: Catalogue, terms: list[str], primary: Record) -> list[tuple[Record, dict]]:
    """A subrule's share of its rule's rulings: those that name a term the subrule defines
    (`terms`, folded: multikicker, 702.33c, gets the Worldwake FAQ's kicker rulings about
    多重增幅), from the rule's records of this edition and the rulings that follow it."""
    if not terms or not primary.parent:
        return []
    parents = catalogue.rule_records(primary.parent, primary.edition)
    ruled = {r.id: r for r in parents}
    for parent in parents[:1]:
        ruled.update((r.id, r) for r in catalogue.placement.ruled_records(parent))
    return [(record, ruling) for record in ruled.values() for ruling in record.rulings
            if any(term in folded for folded in map(fold_key, ruling.values()) for term in terms)]

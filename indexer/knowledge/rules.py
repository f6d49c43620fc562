"""A rule page: one rule number in one edition, with everything around it."""
from __future__ import annotations

from indexer.documents.records import Record

from .catalogue import Catalogue


def merge_texts(records: list[Record]) -> dict[str, str]:
    """One rule's text in every language any of its records gives (the rules file's English
    beside a FAQ's Chinese)."""
    merged: dict[str, str] = {}
    for record in records:
        for lang, text in record.text.items():
            merged.setdefault(lang, text)
    return merged


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
        "keyword_numbers": catalogue.editions.keyword_numbers(primary.keyword) if primary.keyword else {},
        "history": catalogue.editions.rule_history(number, edition),
        "previous": previous,
        "next": following,
    }

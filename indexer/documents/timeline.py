"""One timeline of editions: a document's own edition label becomes the rules file it quotes.

A document names the rules it quotes by its own label (the Planechase guide's "2016-01", the
keyword digest's "2009-07-08"), which is no rules file's effective date. Left alone, each label
would be an edition of its own, holding a handful of Chinese rules beside the rules file's
English ones: two half-empty pages of one rule. So when the rules files are ingested too, a
label resolves to the file's edition nearest in date that the document's own rules confirm:
every rule number the document gives exists in that edition, and where the document gives a
rule's English, it is that edition's English word for word. A label nothing confirms stays as
it is (the documents alone, without the rules files, keep their labels).
"""
from __future__ import annotations

from dataclasses import replace
from datetime import date

from .records import Record, from_rules_file

# Share of a document's English rule texts that must equal the edition's, word for word: a
# document may mend or mistype a line, but an edition that changed the rules is not the one.
AGREEMENT = 0.9


def rules_editions(records: list[Record]) -> list[str]:
    """The effective dates of the rules files among the records."""
    return sorted({r.edition for r in records if r.edition and from_rules_file(r)})


def current_edition(records: list[Record]) -> str | None:
    """Today's rules: the edition of the newest rules file among the records (None without
    one), which a bare rule number or word means and every page compares an edition with."""
    return max((r.edition for r in records if r.edition and from_rules_file(r)), default=None)


def resolve_editions(records: list[Record]) -> dict[str, str]:
    """Each document edition label that a rules edition confirms, mapped to that edition;
    the records and their references are moved to it (the document's source keeps its label)."""
    official = rules_editions(records)
    numbers: dict[str, dict[str, Record]] = {}
    for record in records:
        if record.kind == "rule" and record.number and record.edition in official and from_rules_file(record):
            numbers.setdefault(record.edition, {})[record.number] = record
    labels = sorted({r.edition for r in records if r.edition and r.edition not in official})
    resolved = {}
    for label in labels:
        quoted = [r for r in records if r.edition == label]
        for edition in sorted(official, key=lambda e: _distance(label, e)):
            if _confirms(quoted, numbers.get(edition, {})):
                resolved[label] = edition
                break
    for record in records:
        if record.edition in resolved:
            record.edition = resolved[record.edition]
        if any(ref.edition in resolved for ref in record.references):
            record.references = [replace(ref, edition=resolved.get(ref.edition or "", ref.edition))
                                 for ref in record.references]
    return resolved


def _confirms(quoted: list[Record], edition: dict[str, Record]) -> bool:
    rules = [r for r in quoted if r.kind == "rule"]
    if not rules or any(r.number not in edition for r in rules):
        return False
    english = [(r, edition[r.number]) for r in rules if r.number and r.text.get("en")]
    same = sum(_words(r.text["en"]) == _words(e.text.get("en", "")) for r, e in english)
    return not english or same >= AGREEMENT * len(english)


def _words(text: str) -> list[str]:
    return text.casefold().split()


def _distance(label: str, edition: str) -> int:
    return abs((_as_date(label) - _as_date(edition)).days)


def _as_date(text: str) -> date:
    """A label's date, its missing parts the first of their span ("2016-01" is 2016-01-01)."""
    parts = [int(p) for p in text.split("-")[:3]]
    return date(*(parts + [1, 1][: 3 - len(parts)]))

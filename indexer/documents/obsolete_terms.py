"""Obsolete glossary terms (Mana Burn (Obsolete), 法术力灼烧（已废止）): their names without
the mark, and the rules that last defined them, given to them as their defining rules."""
from __future__ import annotations

import re
from collections import defaultdict

from .records import Record, Reference, from_rules_file

# A rules glossary marks a term no rule uses any more: "Mana Burn (Obsolete)", "法术力灼烧（已废止）"
# (a query may write the mark without its brackets: "summon obsolete").
OBSOLETE_MARK = re.compile(r"\s*[(（]?(?:obsolete|已废止|已廢止)[)）]?\s*$", re.IGNORECASE)


# A glossary entry's cross-reference to another entry: "See Exile.", "See Redirection Effect."
_SEE_TERM = re.compile(r"\bSee (?!rules? )([A-Z][\w’'-]*(?: [\w’'-]+)*)\.(?=\s|$)")


def obsolete_names(name: str) -> list[str]:
    """The names an obsolete glossary term goes by, without the mark, folded in case:
    "Remove from the Game, Removed, Removed-from-the-Game Zone (Obsolete)" is three."""
    return [n.strip().casefold() for n in OBSOLETE_MARK.sub("", name).split(",") if n.strip()]


def link_obsolete_terms(records: list[Record]) -> None:
    """Give each obsolete glossary term the rules that defined it, as the term's defining rules:

    - the rules its entry named in the last edition that still had it (by any of its names),
      each the most specific rule titled by that name: "Mana Burn (Obsolete)" from 2009 on
      links 300.3 of 2008, where mana burn was last a rule, and "In Play (Obsolete)" 217.5
      "In Play" of 2008, whose entry said "See rule 217, Zones";
    - else, where its entry sends the reader to another ("See Exile."), that entry's rules in
      its own edition: "Remove from the Game (Obsolete)" links 406, Exile.

    A term obsolete in every edition held that names no other (Interrupt) links none."""
    live: dict[str, list[Record]] = defaultdict(list)
    obsolete: list[tuple[list[str], Record]] = []
    headings: dict[tuple, list[Record]] = defaultdict(list)  # (edition, parent) -> its rules
    for record in records:
        if record.kind == "rule" and from_rules_file(record) and record.parent:
            headings[(record.edition, record.parent)].append(record)
        name = record.names.get("en", "") if record.kind == "term" else ""
        if not name:
            continue
        if OBSOLETE_MARK.search(name):
            obsolete.append((obsolete_names(name), record))
        elif any(ref.where == "text" for ref in record.references):
            live[name.casefold()].append(record)
    for names, record in obsolete:
        before = [r for n in names for r in live.get(n, []) if (r.edition or "") < (record.edition or "")]
        if before:
            last = max(before, key=lambda r: r.edition or "")
            title = last.names["en"].casefold()
            numbers = [_most_specific(headings, last.edition, ref.number, title)
                       for ref in last.references if ref.where == "text"]
        else:
            sent = _SEE_TERM.findall(record.text.get("en", ""))
            target = next((r for n in sent[-1:] for r in live.get(n.casefold(), []) if r.edition == record.edition),
                          None)
            if target is None:
                continue
            last, numbers = target, [ref.number for ref in target.references if ref.where == "text"]
        record.references.extend(Reference(number, where="attrs", edition=last.edition)
                                 for number in dict.fromkeys(numbers))


def _most_specific(headings: dict[tuple, list[Record]], edition: str | None, number: str, title: str) -> str:
    """The rule under `number` (or itself) of `edition` whose own heading is `title`, the
    nearest first: a glossary entry cites a section (217, Zones) where a rule of it is titled
    by the entry's name (217.5, In Play)."""
    level = [number]
    while level:
        below = [r for n in level for r in headings.get((edition, n), ()) if r.number]
        for rule in below:
            if rule.number and rule.text.get("en", "").casefold() == title:
                return rule.number
        level = [r.number for r in below if r.number and not r.number[-1].isalpha()]
    return number

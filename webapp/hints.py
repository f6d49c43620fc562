"""What the search page says besides its ranked results, so a query never meets a bare "No
results": the name the game uses for an old or wrong form that was typed (旅法師 → 鵬洛客,
不死 → 留存, from the glossary's variants and their notes); when nothing matched, names that
start with what was typed (`Murd` → Murderous Redcap), then the names most like it in any
script (持存 → 留存); for a rule number no edition has (702.999), the rules nearest to it.
(A range of rule numbers, `702.30a-c`, is the search's own rule jump, which Enter opens like
a single number.)
"""
from __future__ import annotations

from indexer.documents.glossary import form_key
from indexer.documents.references import parse_rule_number
from indexer.knowledge.display import display
from indexer.knowledge.library import Library

from .urls import record_url

SUGGESTIONS_SHOWN = 5


def official_name(library: Library, query: str, script: str | None) -> dict | None:
    """The glossary's official name for a query that is only a variant form of a term (an era,
    regional, fan or wrong form), with the variant's note; None for anything else."""
    typed = " ".join(query.split())
    entry = library.glossary.lookup(typed) if typed else None
    if entry is None:
        return None
    key = form_key(typed)
    if key in {form_key(f) for f in (entry.name, entry.zh_hant, entry.zh_hans)}:
        return None
    note = next((v.note for v in entry.variants if form_key(v.form) == key), "")
    term = library.by_name(entry.name, ("term",))
    return {"typed": typed, "name": display(entry.zh_hant, "zh_hant", script), "english": entry.name,
            "note": note, "url": record_url(term) if term else None}


def add_hints(library: Library, answer: dict, limit: int, script: str | None) -> dict:
    """The search answer with `official` (see `official_name`) and, when nothing was found,
    `suggestions` (names, keywords and rule numbers starting with the query); a variant form
    that finds nothing itself is searched by its official name instead."""
    answer = dict(answer)  # the library's answers are shared: never changed in place
    query = answer["query"]
    answer["official"] = official_name(library, query, script) if query.strip() else None
    if not answer["results"] and answer["official"]:
        named = library.search(answer["official"]["name"], limit=limit, script=script)
        answer.update({key: named[key] for key in ("total", "results")})
    found: list[dict] = []
    typed = query.strip()
    if typed and len(typed) <= 100:
        number = None if answer["rule_jump"] else parse_rule_number(typed)
        if number:
            found += library.nearest_rules(number, script)
        if not answer["results"]:
            found += library.suggest(typed, limit=SUGGESTIONS_SHOWN, script=script)
            if len(found) < SUGGESTIONS_SHOWN and not number:
                found += library.closest(typed, limit=SUGGESTIONS_SHOWN, script=script)
    answer["suggestions"] = list({s["id"]: s for s in found}.values())[:SUGGESTIONS_SHOWN]
    return answer

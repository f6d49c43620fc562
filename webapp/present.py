"""What a page shows, as plain data: records and rules in the reader's script.

Each function turns what the library returns into a JSON-ready dict. The same dict is the
JSON twin of a page and what its template renders, and the terminal command prints it, so
the three never disagree. Chinese text is shown in the reader's script through
`indexer.knowledge.display.display` (English and Bulgarian pass through untouched); every text block
carries the language it is shown in, for the page's `lang` attributes.
"""
from __future__ import annotations

import re
from urllib.parse import urlencode

from indexer.documents.chinese import HAN_RUN
from indexer.documents.glossary import REFERENCE_SOURCE
from indexer.documents.records import LANGS, TITLE_LANGS, Record, Reference, rules_file_source
from indexer.documents.script_ranges import CYRILLIC, HAN
from indexer.knowledge.book import level, own_title
from indexer.knowledge.display import (
    chinese_of,
    display,
    display_title,
    in_script,
    names_in_all_scripts,
    shown_lang,
)
from indexer.knowledge.editions import CHANGE_KINDS
from indexer.knowledge.library import Library
from indexer.knowledge.rules import merge_texts

from .book import place_view, rule_url, titles
from .history import bounded_changes, folded_history, subrule_changes, subrule_lineages, typographic_key
from .linkify import NAME_KINDS, LibraryResolver
from .urls import page_url, record_url, source_url

LANG_TAGS = {"en": "en", "zh_hant": "zh-Hant", "zh_hans": "zh-Hans", "bg": "bg"}
CYRILLIC_LETTER = re.compile(f"[{CYRILLIC}]")
# The ranges `text_language` reads, for the pages' scripts (search.js) to read the same.
SCRIPT_RANGES = {"han": HAN, "cyrillic": CYRILLIC}
MENTIONS_SHOWN = 30
PREVIEW_CHARS = 400
# How much of a numbered paragraph's text names it in a previous or next link.
NEIGHBOUR_CHARS = 24
# A card's attributes a preview shows, in this order.
PREVIEW_ATTRS = ("mana_cost", "type_line", "power_toughness")
# Glossary kinds linked where a card's text uses them.
LINKED_TERM_KINDS = ("keyword", "keyword action", "ability word")
REFERENCING_SHOWN = 50



def text_language(text: str, script: str | None) -> str:
    """The language of a text whose language is not recorded (a search snippet, a title
    joining several): Chinese if it has Chinese, Bulgarian if Cyrillic, else English."""
    if HAN_RUN.search(text):
        return "zh_hans" if script == "hans" else "zh_hant"
    if CYRILLIC_LETTER.search(text):
        return "bg"
    return "en"


def blocks(texts: dict[str, str], script: str | None) -> list[dict]:
    """One text per language as shown: [{"lang": "zh_hans", "text": ...}, {"lang": "en", ...}]."""
    return [{"lang": shown_lang(lang, script), "text": display(texts[lang], lang, script)}
            for lang in LANGS if texts.get(lang)]


def source_ref(library: Library, record: Record, script: str | None) -> dict:
    """Where a record comes from: its document, and the document's section it sits in (a line
    number says little: one FAQ is a single line of 9,000 characters)."""
    source = library.sources.get(record.source, {})
    section = library.section_of(record)
    return {"id": record.source, "title": in_script(source.get("title", record.source), script),
            "url": source_url(library, record), "line": record.line,
            "section": {"title": display_title(section, script), "url": record_url(section)} if section else None}




def summary(library: Library, record: Record, script: str | None) -> dict:
    """Enough to list and link a record."""
    return {"id": record.id, "kind": record.kind, "title": display_title(record, script), "number": record.number,
            "edition": record.edition, "url": record_url(record), "source": source_ref(library, record, script)}


def reference_view(library: Library, ref: Reference, edition: str | None) -> dict:
    return {"number": ref.number, "end": ref.end,
            "url": LibraryResolver(library, edition=edition).rule_url(ref.number)}


def references_of(library: Library, records: list[Record], edition: str | None) -> list[dict]:
    seen, out = set(), []
    for record in records:
        for ref in record.references:
            if (ref.number, ref.end) not in seen:
                seen.add((ref.number, ref.end))
                out.append(reference_view(library, ref, edition))
    return out


def record_view(library: Library, record: Record, script: str | None) -> dict:
    """A card, plane, term, section or single rule as its page shows it."""
    chinese = chinese_of(record)
    same = library.catalogue.same_card(record)
    text = _texts_of_card(record, same)
    return {
        **summary(library, record, script),
        "keyword": record.keyword,
        "names": names_in_all_scripts(record.names) if record.names else {},
        "aliases": [display(a, chinese, script) for a in record.aliases],
        "attrs": {key: display(value, chinese, script) for key, value in record.attrs.items()},
        "text": blocks(text, script),
        # A card without English: the index holds no card data (README, What is in the index).
        "languages_note": "no_card_data" if record.kind == "card" and not text.get("en") else None,
        "abilities": [blocks(a, script) for a in record.abilities],
        "rulings": [blocks(r, script) for r in record.rulings],
        "ruling_dates": ruling_dates(record),
        "examples": [blocks(e, script) for e in record.examples],
        "references": references_of(library, [record], record.edition),
        "keywords": keywords_of(library, [record, *same], script) if record.kind in ("card", "planar_card") else [],
        # The same card in the other documents that have it: a set FAQ's Chinese text and
        # rulings beside Scryfall's Oracle text and official rulings, one card.
        "also": [_card_elsewhere(library, other, text, script) for other in same],
        # Whether the rules edition the record's numbers belong to is today's (None when the
        # record has none, or the index holds no rules edition to say).
        "current": (record.edition == library.catalogue.current_edition
                    if record.edition and library.catalogue.current_edition else None),
        "current_edition": library.catalogue.current_edition,
        # A document's rule of an older edition: its number today (502.79 is 702.79).
        "today": (_today(library.rule_today(record), script)
                  if record.kind == "rule" and record.number and record.number[-1].isdigit() else None),
    }


def _texts_of_card(record: Record, same: list[Record]) -> dict[str, str]:
    """A card's text in each language its records give, its own first: a set FAQ's Chinese
    beside Scryfall's Oracle English. Chinese is one language in either script (Scryfall's
    printed Simplified text is not put beside a FAQ's Traditional one)."""
    text = dict(record.text)
    for other in same:
        for lang, value in other.text.items():
            if not any(given.split("_")[0] == lang.split("_")[0] for given in text):
                text[lang] = value
    return text


def ruling_dates(record: Record) -> list[str]:
    """Each ruling's date and who gave it, where its source says (Scryfall's data does)."""
    dates = record.attrs.get("ruling_dates")
    return dates.split("; ") if dates else []


def _card_elsewhere(library: Library, record: Record, shown: dict[str, str], script: str | None) -> dict:
    """A card's record in another document: its rulings, and its texts the card's own text
    (`shown`) does not hold already."""
    text = {lang: value for lang, value in record.text.items() if shown.get(lang) != value}
    return {"source": source_ref(library, record, script), "url": record_url(record),
            "text": blocks(text, script), "rulings": [blocks(r, script) for r in record.rulings],
            "ruling_dates": ruling_dates(record)}


def keywords_of(library: Library, cards: list[Record], script: str | None) -> list[dict]:
    """The rules for a card (its records in every document that has it): the game's keywords
    and terms its texts use (and its keyword abilities, as Scryfall lists them), each with its
    term page and today's rule for it (a 2008 card's 留存 is persist, 702.79 today)."""
    found: dict[str, dict] = {}
    texts = [text for card in cards for lang in ("zh_hant", "zh_hans", "en") for text in card.texts(lang)]
    for text in [*texts, *(card.attrs.get("keywords", "") for card in cards)]:
        for _, _, term in keyword_spans(library, text):
            if term.id in found:
                continue
            today = library.catalogue.keyword_head_today(term.keyword) if term.keyword else None
            found[term.id] = {"title": display_title(term, script), "url": record_url(term),
                              "rule": _neighbour(library, today, script)}
    return list(found.values())


def rule_view(library: Library, number: str, edition: str | None, script: str | None,
              contents: bool = True) -> dict | None:
    """Everything the rule page shows, or None when no edition (or not `edition`) has it;
    without its `contents` (left empty) when not asked for."""
    info = library.rule(number, edition)
    if info is None:
        return None
    primary, edition = info["record"], info["edition"]
    records = [primary, *info["quotes"]]
    examples, seen = [], set()
    for record in records:
        for example in record.examples:
            key = tuple(sorted(example.items()))
            if key not in seen:
                seen.add(key)
                examples.append(blocks(example, script))
    previous, following = library.book.steps(number, edition) if primary.source == rules_file_source(edition) else (
        info["previous"], info["next"])
    return {
        "number": number,
        "edition": edition,
        "title": _rule_heading(number, records, script),
        "keyword": primary.keyword,
        "url": f"/rules/{number}?edition={edition}",
        "text": blocks(info["merged_text"], script),
        "examples": examples,
        "rulings": [{"source": source_ref(library, r, script), "text": blocks(ruling, script)}
                    for r, ruling in [*((r, ruling) for r in [*records, *info["followed"]] for ruling in r.rulings),
                                      *info["named_rulings"]]],
        "sources": [source_ref(library, r, script) for r in records],
        "quoted_elsewhere": [summary(library, r, script) for r in info["quoted_elsewhere"]],
        "languages_note": _languages_note(info["merged_text"]),
        "previous": _neighbour(library, previous, script),
        "next": _neighbour(library, following, script),
        "place": place_view(library, primary, script),
        "parent": _rule_summary(library, info["parent"], script) if info["parent"] else None,
        "children": [_rule_summary(library, child, script) for child in info["children"]],
        "contents": library.page(rules_under, number, edition, script) if contents and level(number) < 2 else [],
        "references": references_of(library, records, edition),
        "editions": [{"edition": v.edition, "number": v.number, "name": display(v.name, chinese_of(v.record), script),
                      "url": f"/rules/{v.number}?edition={v.edition}", "current": v.edition == edition}
                     for v in info["editions"]],
        "keyword_numbers": [{"edition": e, "number": n, "url": f"/rules/{n}?edition={e}", "current": e == edition}
                            for e, n in info["keyword_numbers"].items()],
        # The rule in every edition its lineage reaches (`indexer.search.lineage`), in runs of
        # the same text; each step with its relation and its entry in the list of changes.
        "history": folded_history(info["history"], edition, script, _version_url, changes_url),
        # And the words its subrules changed on the way, which its own text (a keyword's
        # heading, 702.79 Persist) does not show.
        "history_subrules": subrule_changes(subrule_lineages(library.catalogue, info["history"])
                                            if level(number) == 1 else [], script, _version_url, changes_url),
        "referenced_by": [summary(library, r, script) for r in library.referencing(number, edition)
                          if r.number != number][:REFERENCING_SHOWN],
        "current": info["current"],
        "today": _today(info["today"], script),
    }


def _version_url(number: str, edition: str) -> str:
    """A rule as one edition has it, whichever edition is today's: a history names editions."""
    return f"/rules/{number}?edition={edition}"


def rule_missing(library: Library, number: str, edition: str | None) -> str:
    """Why `rule_view` found nothing: no edition has the number, or the one asked for does not."""
    held = library.editions_of(number)
    if not held or edition is None:  # (the newest edition holding it is asked for without one)
        return f"No edition of the rules has {number}."
    return f"Edition {edition[:20]} has no rule {number}; it is in: {', '.join(held)}."


def rules_under(library: Library, number: str, edition: str, script: str | None) -> list[dict]:
    """Every rule and subrule under a section or rule, in order, with its text and examples:
    all of it in one scroll (`depth` 1 for a rule, 2 for a subrule)."""
    current = edition == library.catalogue.current_edition
    out = []
    for r in library.book.descendants(number, edition):
        at = r.number or ""
        out.append({"number": at, "edition": edition, "url": rule_url(at, edition, current), "depth": level(at),
                    "title": titles(own_title(r), script) if level(at) == 1 else [],
                    "text": blocks(r.text, script), "examples": [blocks(e, script) for e in r.examples]})
    return out


def _today(today: dict, script: str | None) -> dict | None:
    """What an older edition's rule is in today's rules, for the first lines of its page:
    today's number of the same rule, what its own number names today, or where its lineage
    ended (the last edition that had it)."""
    if not today:
        return None
    now = today.get("number_now")
    ended = today.get("ended")
    return {
        "edition": today["edition"],
        "same_rule": ({"number": today["same_rule"], "url": f"/rules/{today['same_rule']}?edition={today['edition']}"}
                      if "same_rule" in today else None),
        # The other rules a split one became (2016's 702.50a is today's 702.51a and 702.51b).
        "also": [{"number": n, "url": f"/rules/{n}?edition={today['edition']}"} for n in today.get("also", [])],
        "number_now": ({"number": now.number, "name": display_title(now, script), "url": record_url(now)}
                       if now else None),
        "ended": _ending_view(ended) if ended else None,
    }


def _ending_view(ending: dict) -> dict:
    """The end of a lineage as a page shows it: the last edition, its number there, the
    edition that dropped it and that step's changes."""
    return {**ending, "url": f"/rules/{ending['last_number']}?edition={ending['last']}",
            "changes_url": changes_url(ending["last"], ending["gone_in"], ending["last_number"])}


def changes_url(old: str, new: str, key: str | None = None) -> str:
    """The list of changes from edition `old` to `new`, or one rule's entry in it."""
    query = {"from": old, "to": new, **({"rule": key} if key else {})}
    return "/changes?" + urlencode(query)


# Entries (and word diffs) a page of changes holds: twenty of the longest diffs (2008 to
# today's) take about 25 ms of CPU, within a request's 50 with the list itself.
CHANGES_PER_PAGE = 20


def changes_view(library: Library, old: str, new: str, kind: str | None, rule: str | None, page: int,
                 script: str | None) -> dict | None:
    """What changed from edition `old` to `new` (`EditionTables.changes`): counts per kind,
    and one page of entries, each with both editions' rule and the word diff per language
    both have (None for a page past the end). `kind` keeps one kind, `rule` one rule's
    entry (its number in either edition). Only the page's entries are diffed."""
    tables = library.catalogue.editions
    found = tables.changes(old, new)
    counts = {k: 0 for k in CHANGE_KINDS}
    for change in found:
        counts[change.kind] += 1
    if kind:
        found = [c for c in found if c.kind == kind]
    if rule:
        found = [c for c in found if rule in (c.old, c.new)]
    pages = max(1, -(-len(found) // CHANGES_PER_PAGE))
    if not 1 <= page <= pages:
        return None
    shown = found[(page - 1) * CHANGES_PER_PAGE: page * CHANGES_PER_PAGE]
    here = {"from": old, "to": new, **({"kind": kind} if kind else {}), **({"rule": rule} if rule else {})}
    return {
        "title": f"{old} → {new}",
        "from": old, "to": new, "kind": kind, "rule": rule,
        "editions": tables.lineage_editions,
        "counts": counts,
        "total": len(found), "page": page, "pages": pages,
        "previous": "/changes?" + urlencode({**here, "page": page - 1}) if page > 1 else None,
        "next": "/changes?" + urlencode({**here, "page": page + 1}) if page < pages else None,
        "changes": [_change_view(tables, change, old, new, script) for change in shown],
    }


def _change_view(tables, change, old: str, new: str, script: str | None) -> dict:
    before = tables.record(old, change.old) if change.old else None
    after = tables.record(new, change.new) if change.new else None
    diffs, whole = [], []
    if before is not None and after is not None:
        for lang in LANGS:
            a, b = before.text.get(lang), after.text.get(lang)
            if not a or not b or typographic_key(a) == typographic_key(b):
                continue
            pieces = bounded_changes(a, b)
            if pieces is None:  # too long to diff within a request: both texts
                whole.append(lang)
            else:
                diffs.append({"lang": shown_lang(lang, script),
                              "pieces": [[op, display(piece, lang, script)] for op, piece in pieces]})
    shown = after or before
    return {"kind": change.kind,
            "old": _changed_entry(before, change.old, old, script),
            "new": _changed_entry(after, change.new, new, script),
            "diff": diffs,
            # The text of an entry added or removed, or one whose languages differ (a diff per language).
            "text": blocks(shown.text, script) if shown is not None and not diffs and not whole else [],
            # Both texts, in the languages whose texts were too long to diff.
            "before": blocks({lang: before.text[lang] for lang in whole}, script) if before is not None else [],
            "after": blocks({lang: after.text[lang] for lang in whole}, script) if after is not None else []}


def _changed_entry(record: Record | None, key: str, edition: str, script: str | None) -> dict | None:
    if record is None:
        return None
    return {"key": key, "number": record.number, "edition": edition, "title": display_title(record, script),
            "url": record_url(record)}


def rule_preview(library: Library, number: str, script: str | None) -> dict | None:
    """What a forum preview of a rule shows (its newest edition): heading, edition, text per
    language cut to PREVIEW_CHARS, and its page; None when no edition has the number."""
    records = library.rule_records(number)
    if not records:
        return None
    return {"number": number, "edition": records[0].edition, "title": _rule_heading(number, records, script),
            "text": _preview_blocks(merge_texts(records), script), "url": f"/rules/{number}",
            "today": today_view(library, records[0])}


def name_preview(library: Library, name: str, script: str | None) -> dict | None:
    """What a forum preview of a `[[name]]` shows: the card, plane or term it names (as the
    linker resolves it: `linkify.NAME_KINDS`), its title, a card's cost, type line and power
    and toughness, its text per language cut to PREVIEW_CHARS, and its page; None when
    nothing is called so."""
    record = library.by_name(name, NAME_KINDS)
    if record is None:
        return None
    chinese = chinese_of(record)
    attrs = {key: display(record.attrs[key], chinese, script) for key in PREVIEW_ATTRS if record.attrs.get(key)}
    return {"kind": record.kind, "id": record.id, "title": display_title(record, script), "attrs": attrs,
            "text": _preview_blocks(record.text, script), "url": record_url(record)}


def _preview_blocks(texts: dict[str, str], script: str | None) -> list[dict]:
    return [{**b, "text": b["text"][:PREVIEW_CHARS] + ("…" if len(b["text"]) > PREVIEW_CHARS else "")}
            for b in blocks(texts, script)]


def today_view(library: Library, record: Record) -> dict | None:
    """Where the lineage takes an older edition's rule today (`Placement.today_of`), with
    the address of today's rule or of the last edition's: what a preview of an old number
    (a forum post's 502.79) and a search's jump to one add."""
    today = library.catalogue.placement.today_of(record)
    if not today:
        return None
    if "id" in today:
        return {"edition": today["edition"], "number": today["number"], "url": record_url(library.records[today["id"]]),
                "also": [{"number": part["number"], "url": record_url(library.records[part["id"]])}
                         for part in today.get("also", [])]}
    return {"edition": today["edition"], "ended": _ending_view(today["ended"])}


def _rule_heading(number: str, records: list[Record], script: str | None) -> str:
    """The number and every title its records give, each once as shown (the rules file's
    `Kicker` beside a FAQ's 增幅)."""
    titles: list[str] = []
    for lang in TITLE_LANGS:
        for record in records:
            title = record.title.get(lang)
            shown = display(title, lang, script) if title else None
            if shown and shown not in titles:
                titles.append(shown)
    return " ".join([number, " / ".join(titles)]).strip()


def _languages_note(texts: dict[str, str]) -> str | None:
    """Which plain note the page adds when the rule's documents give it in one language only
    (no rules file of its edition is in the index to give the English): a label's key."""
    given = {lang for lang, text in texts.items() if text}
    if given and given <= {"zh_hant", "zh_hans"}:
        return "chinese_only"
    if given == {"en"}:
        return "english_only"
    return None


def _neighbour(library: Library, record: Record | None, script: str | None) -> dict | None:
    """The rule a page's previous or next link leads to, named by its own title or, for a
    numbered paragraph (510.1b), by how its text starts: its section's title would name every
    paragraph of the section alike."""
    if record is None:
        return None
    title = display_title(record, script) if own_title(record) else f"{record.number} {_opening(record, script)}"
    return {"number": record.number, "title": title, "url": record_url(record)}


def _opening(record: Record, script: str | None) -> str:
    """How a rule's text starts, in the reader's Chinese if it has some, else in English."""
    shown = blocks(record.text, script)
    text = next((b["text"] for b in shown if b["lang"] != "en" and script), shown[0]["text"] if shown else "")
    text = " ".join(text.split())
    return text if len(text) <= NEIGHBOUR_CHARS else text[:NEIGHBOUR_CHARS] + "…"


def _rule_summary(library: Library, record: Record, script: str | None) -> dict:
    return {**summary(library, record, script), "text": blocks(record.text, script)}


def keyword_spans(library: Library, text: str) -> list[tuple[int, int, Record]]:
    """Where the game's keywords and keyword actions occur in a text, as (start, stop, term),
    longest form first and never overlapping: a card's 留存 is the term persist. Found with
    plain substring search, so the cost is linear in the text per form."""
    found: list[tuple[int, int, Record]] = []
    taken = [False] * len(text)
    haystack = text.lower() if len(text.lower()) == len(text) else text
    for form, entry in library.glossary.longest_first(LINKED_TERM_KINDS):
        if len(form) < 2:
            continue
        at = haystack.find(form)
        while at >= 0:
            stop = at + len(form)
            latin_edge = form.isascii() and ((at and text[at - 1].isalpha())
                                             or (stop < len(text) and text[stop].isalpha()))
            if not latin_edge and not any(taken[at:stop]):
                term = library.by_name(entry.name, ("term",))
                if term is not None:
                    found.append((at, stop, term))
                    taken[at:stop] = [True] * len(form)
            at = haystack.find(form, stop)
    return sorted(found)


def term_view(library: Library, record: Record, script: str | None) -> dict:
    """A term with every form it is written in (as written: the forms are what readers
    search for), the rules that define it and the records that use it."""
    view = record_view(library, record, script)
    view["forms"] = [{"lang": lang, "text": name} for lang, name in names_in_all_scripts(record.names).items()]
    view["forms"] += [{"lang": None, "text": alias} for alias in record.aliases]
    del view["references"]
    view["defining_rules"] = [_defining_rule(library, ref) for ref in record.references if ref.where == "attrs"]
    # An older edition's entry: today's entry for it (Mana Burn of 2008: Mana Burn (Obsolete)),
    # or today's rule its text went into (2008's Tie: the rule of ties).
    placement = library.catalogue.placement
    now = placement.current_twin(record)
    if now is None and (today := placement.today_of(record)) and "id" in today:
        now = library.records[today["id"]]
    view["today_entry"] = {"title": display_title(now, script), "url": record_url(now)} if now else None
    view["mentions"] = [summary(library, r, script) for r in library.mentions(record, MENTIONS_SHOWN)]
    # A project glossary entry's kind and documents, as words a reader uses: its kind's label
    # (`card` is 牌), the documents by title.
    kind = record.attrs.get("kind")
    view["kind_label"] = kind.replace(" ", "_") if kind else None
    view["documents"] = _documents(library, record.attrs.get("sources", ""), script)
    return view


def _documents(library: Library, sources: str, script: str | None) -> list[dict]:
    """The documents a glossary entry names as its sources (ids, ", "-separated), each by its
    title and page as a source line shows it; the terminology reference, no document of the
    index, by its label; a document this index does not hold, not at all."""
    found = []
    for source in filter(None, sources.split(", ")):
        if source in library.sources:
            found.append({"title": in_script(library.sources[source].get("title", source), script),
                          "url": page_url(source, None), "section": None})
        elif source == REFERENCE_SOURCE:
            found.append({"label": "terminology"})
    return found


def _defining_rule(library: Library, ref: Reference) -> dict:
    """A rule the glossary names as defining a term, in the edition it names, linked where the
    index has that edition's rule."""
    return {"number": ref.number, "edition": ref.edition,
            "url": LibraryResolver(library, edition=ref.edition).rule_url(ref.number)}

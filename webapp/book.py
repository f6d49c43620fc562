"""What the book's pages show, as plain data: the table of contents (`/rules`), a rule's place
in the book and the rules under it (a section page is all of its section), and the glossary
in English and in Chinese reading order.

Each page is made from `indexer.knowledge.book.Book` once per build, edition and script
(`Library.page`): the contents of an edition are a few thousand entries, too many to walk for
every reader. Today's rules are addressed by bare numbers (`/rules/510`), which the offline
copy answers too; another edition keeps `?edition=` in every address.
"""
from __future__ import annotations

import re

from indexer.documents.records import Record
from indexer.knowledge.book import level, own_title
from indexer.knowledge.display import display, shown_lang
from indexer.knowledge.library import Library

from .urls import record_url

# Where a list files a name that starts with no Latin letter (a digit, a symbol).
OTHER_INITIAL = "#"


def rule_url(number: str, edition: str, current: bool) -> str:
    """A rule of today's edition by its bare number; another edition's with its edition."""
    return f"/rules/{number}" if current else f"/rules/{number}?edition={edition}"


def book_url(path: str, edition: str, current: bool, anchor: str = "") -> str:
    """A page of the book (`/rules`, `/glossary`) of an edition, with an anchor."""
    return (path if current else f"{path}?edition={edition}") + (f"#{anchor}" if anchor else "")


def titles(texts: dict[str, str], script: str | None) -> list[dict]:
    """A title per language, Chinese in the reader's script: [{"lang", "text"}]."""
    return [{"lang": shown_lang(lang, script), "text": display(text, lang, script)}
            for lang, text in texts.items() if text]


def _editions(library: Library, edition: str, path: str) -> list[dict]:
    current = library.catalogue.current_edition
    return [{"edition": e, "url": book_url(path, e, e == current), "current": e == edition}
            for e in library.book.editions]


def contents_view(library: Library, edition: str, script: str | None) -> dict:
    """The table of contents of an edition: chapters, their sections and the sections' rules,
    each with its title in every language the edition has and its address."""
    current = edition == library.catalogue.current_edition
    chapters = []
    for chapter in library.book.contents(edition):
        sections = []
        for section in chapter.sections:
            number = section.record.number or ""
            sections.append({
                "number": number, "url": rule_url(number, edition, current),
                "title": titles(section.record.title, script),
                "rules": [{"number": r.number, "url": rule_url(r.number or "", edition, current),
                           "title": titles(own_title(r), script)} for r in section.rules],
            })
        chapters.append({"number": chapter.number, "anchor": f"chapter-{chapter.number}",
                         "title": titles(chapter.title, script), "sections": sections})
    return {"edition": edition, "current": current, "editions": _editions(library, edition, "/rules"),
            "glossary_url": book_url("/glossary", edition, current), "chapters": chapters}


def place_view(library: Library, record: Record, script: str | None) -> dict | None:
    """Where a rule of a rules edition stands in its book, for its breadcrumb: the contents,
    its chapter and its section (a section's own page names its chapter only). None for a
    rule of an edition without a rules file (a document's quotation only)."""
    edition, rule = record.edition, record.number
    chapter = library.book.chapter(rule, edition) if edition and rule else None
    if chapter is None or not edition or not rule:
        return None
    current = edition == library.catalogue.current_edition
    number, title = chapter
    section = library.book.section(rule, edition) if level(rule) else None
    return {
        "contents": book_url("/rules", edition, current),
        "chapter": {"number": number, "title": titles(title, script),
                    "url": book_url("/rules", edition, current, f"chapter-{number}")},
        "section": {"number": section.number, "title": titles(section.title, script),
                    "url": rule_url(section.number or "", edition, current)} if section else None,
    }


def glossary_view(library: Library, edition: str, script: str | None) -> dict:
    """The edition's glossary A to Z by its English names and, where the edition has a
    Chinese glossary, by the Chinese names' reading (Hanyu Pinyin, the order of a Chinese
    dictionary), each list in groups by initial letter."""
    current = edition == library.catalogue.current_edition
    readings = library.book.readings(edition)
    english, chinese = [], []
    for term in library.book.glossary(edition):
        names = term.names
        shown = titles(names, script)
        entry = {"id": term.id, "url": record_url(term), "names": shown}
        if names.get("en"):
            english.append((names["en"].casefold(), entry))
        zh = names.get("zh_hans")
        if zh and zh in readings:
            reading = readings[zh]
            toneless = re.sub(r"\d", "", reading).lower()
            # Listed by its Chinese name, the Chinese comes first.
            zh_first = sorted(shown, key=lambda n: not n["lang"].startswith("zh"))
            chinese.append(((toneless, reading, zh), {**entry, "names": zh_first, "reading": reading}))
    english.sort(key=lambda item: item[0])
    chinese.sort(key=lambda item: item[0])
    return {"edition": edition, "current": current, "editions": _editions(library, edition, "/glossary"),
            "contents_url": book_url("/rules", edition, current),
            "english": _grouped((_initial(key), entry) for key, entry in english),
            "chinese": _grouped((_initial(key[0]), entry) for key, entry in chinese)}


def _initial(key: str) -> str:
    first = key[:1]
    return first.upper() if first.isascii() and first.isalpha() else OTHER_INITIAL


def _grouped(items) -> list[dict]:
    groups: list[dict] = []
    for letter, entry in items:
        if not groups or groups[-1]["letter"] != letter:
            groups.append({"letter": letter, "terms": []})
        groups[-1]["terms"].append(entry)
    return groups

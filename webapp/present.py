"""What a page shows, as plain data: records and rules in the reader's script.

Each function turns what the library returns into a JSON-ready dict. The same dict is the
JSON twin of a page and what its template renders, and the terminal command prints it, so
the three never disagree. Chinese text is shown in the reader's script through
`indexer.knowledge.display.display` (English and Bulgarian pass through untouched); every text block
carries the language it is shown in, for the page's `lang` attributes.
"""
from __future__ import annotations

import re

from markupsafe import Markup

from indexer.documents.chinese import HAN_RUN
from indexer.documents.records import LANGS, Record, Reference, rules_file_source
from indexer.documents.script_ranges import CYRILLIC
from indexer.knowledge.display import chinese_of, display, display_title, names_in_all_scripts, shown_lang
from indexer.knowledge.editions import word_diff
from indexer.knowledge.library import Library
from indexer.knowledge.rules import merge_texts

from .linkify import LibraryResolver
from .urls import record_url

LANG_TAGS = {"en": "en", "zh_hant": "zh-Hant", "zh_hans": "zh-Hans", "bg": "bg"}
# Labels the search script needs to draw results.
SCRIPT_LABELS = ("edition", "jump", "did_you_mean", "results", "no_results", "official", "suggestions", "subrules",
                 "other_editions")
CYRILLIC_LETTER = re.compile(f"[{CYRILLIC}]")
MENTIONS_SHOWN = 30
PREVIEW_CHARS = 400
# Glossary kinds linked where a card's text uses them.
LINKED_TERM_KINDS = ("keyword", "keyword action", "ability word")
REFERENCING_SHOWN = 50

# Interface labels: Traditional Chinese (converted for Simplified readers) and English.
LABELS = {
    "site": ("萬智牌規則查詢", "MTG rules search"),
    "search": ("搜尋", "Search"),
    "search_hint": ("規則編號、關鍵字、牌名（中英文皆可）", "rule number, keyword or card name, in any language"),
    "rule": ("規則", "Rule"),
    "card": ("牌", "Card"),
    "planar_card": ("時空牌", "Plane"),
    "term": ("詞彙", "Term"),
    "section": ("段落", "Section"),
    "edition": ("版本", "Edition"),
    "current": ("現行規則", "Current rules"),
    "superseded": ("舊版規則", "Superseded edition"),
    "today": ("現行規則中", "In today's rules"),
    "not_in_today": ("已無此規則", "no longer a rule"),
    "source": ("來源", "Source"),
    "rulings": ("規則釋疑", "Rulings"),
    "examples": ("範例", "Examples"),
    "parent": ("上層規則", "Parent rule"),
    "subrules": ("子規則", "Subrules"),
    "other_editions": ("此編號在各版本", "This number in each edition"),
    "keyword_numbers": ("此關鍵字在各版本的編號", "This keyword's number in each edition"),
    "history": ("沿革", "History"),
    "changes": ("文字變更", "Text changes"),
    "referenced_by": ("引用此規則的內容", "Referenced by"),
    "references": ("參見規則", "Rules referred to"),
    "keywords": ("關鍵字", "Keywords"),
    "did_you_mean": ("您是不是要找", "Did you mean"),
    "jump": ("直接前往規則", "Go to rule"),
    "no_results": ("沒有結果", "No results"),
    "official": ("遊戲中的名稱是", "The game calls it"),
    "suggestions": ("您可能在找", "Perhaps you mean"),
    "skip": ("跳到內容", "Skip to content"),
    "previous": ("上一條", "Previous"),
    "next": ("下一條", "Next"),
    "copy_rule": ("複製規則", "Copy rule"),
    "copy_link": ("複製連結", "Copy link"),
    "forum_tools": ("論壇工具", "Forum tools"),
    "for_owners": ("給論壇管理者：加入規則連結", "For forum owners: add rule links"),
    "for_writers": ("給發文者：把文章中的規則編號變成連結", "For writers: link the rule numbers of a post"),
    "preview_script": ("預覽的中文字體", "Chinese script of the previews"),
    "selector": ("只在這些元素中尋找（CSS 選擇器）", "Only inside these elements (CSS selector)"),
    "make_snippet": ("產生程式碼", "Make the tag"),
    "copy_snippet": ("複製程式碼", "Copy the tag"),
    "your_post": ("您的文章", "Your post"),
    "format": ("格式", "Format"),
    "linkify": ("加入連結", "Link rule numbers"),
    "linked_post": ("加上連結的文章", "The post with links"),
    "copy_post": ("複製文章", "Copy the post"),
    "links_made": ("個連結", "links"),
    "unknown_numbers": ("找不到的規則編號", "Rule numbers not found"),
    "chinese_only": ("此規則的文件只提供中文，索引中沒有這一版的英文規則。",
                     "The documents give this rule in Chinese only; the index has no English rules of this edition."),
    "english_only": ("此規則只有英文：索引中的文件沒有它的中文。",
                     "English only: no document in the index gives it in Chinese."),
    "results": ("筆結果", "results"),
    "more": ("更多結果", "More results"),
    "cost": ("法術力費用", "Mana cost"),
    "type": ("類別", "Type"),
    "pt": ("力量／防禦力", "Power/toughness"),
    "set": ("系列", "Set"),
    "world": ("世界", "World"),
    "abilities": ("異能", "Abilities"),
    "names": ("名稱", "Names"),
    "forms": ("各種寫法", "All forms"),
    "defining_rules": ("定義規則", "Defining rules"),
    "mentions": ("出現於", "Where it occurs"),
    "document": ("文件", "Document"),
    "date": ("日期", "Date"),
    "original": ("原始網址", "Original addresses"),
    "contents": ("內容", "Contents"),
    "languages": ("語言", "Languages"),
    "product": ("產品", "Product"),
    "error": ("錯誤", "Error"),
    "home": ("回首頁", "Home"),
    "forum": ("論壇範例", "Forum sample"),
    "english": ("英文", "English"),
    "traditional": ("繁體", "Traditional"),
    "simplified": ("簡體", "Simplified"),
}


def label(key: str, script: str | None) -> Markup:
    """An interface label in Chinese (reader's script) and English, each with its lang."""
    zh, en = LABELS[key]
    lang = "zh_hans" if script == "hans" else "zh_hant"
    return Markup('<span lang="{}">{}</span> <span lang="en">{}</span>').format(
        LANG_TAGS[lang], display(zh, "zh_hant", script), en)


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
    return {"id": record.source, "title": display(source.get("title", record.source), "zh_hant", script),
            "url": f"/sources/{record.source}#{record.id}", "line": record.line,
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
    return {
        **summary(library, record, script),
        "keyword": record.keyword,
        "names": names_in_all_scripts(record.names) if record.names else {},
        "aliases": [display(a, chinese, script) for a in record.aliases],
        "attrs": {key: display(value, chinese, script) for key, value in record.attrs.items()},
        "text": blocks(record.text, script),
        "abilities": [blocks(a, script) for a in record.abilities],
        "rulings": [blocks(r, script) for r in record.rulings],
        "examples": [blocks(e, script) for e in record.examples],
        "references": references_of(library, [record], record.edition),
        "keywords": keywords_of(library, record, script) if record.kind in ("card", "planar_card") else [],
        # Whether the rules edition the record's numbers belong to is today's (None when the
        # record has none, or the index holds no rules edition to say).
        "current": (record.edition == library.catalogue.current_edition
                    if record.edition and library.catalogue.current_edition else None),
        "current_edition": library.catalogue.current_edition,
        # A document's rule of an older edition: its number today (502.79 is 702.79).
        "today": (_today(library.rule_today(record), script)
                  if record.kind == "rule" and record.number and record.number[-1].isdigit() else None),
    }


def keywords_of(library: Library, record: Record, script: str | None) -> list[dict]:
    """The game's keywords a card's text uses, each with its term page and today's rule for
    it (a 2008 card's 留存 is persist, 702.79 today)."""
    found: dict[str, dict] = {}
    for text in record.texts("zh_hant") + record.texts("zh_hans") + record.texts("en"):
        for _, _, term in keyword_spans(library, text):
            if term.id in found:
                continue
            today = library.catalogue.keyword_head_today(term.keyword) if term.keyword else None
            found[term.id] = {"title": display_title(term, script), "url": record_url(term),
                              "rule": _neighbour(library, today, script)}
    return list(found.values())


def rule_view(library: Library, number: str, edition: str | None, script: str | None) -> dict | None:
    """Everything the rule page shows, or None when no edition (or not `edition`) has it."""
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
    history = list(info["history"])
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
        "languages_note": _languages_note(info["merged_text"]),
        "previous": _neighbour(library, info["previous"], script),
        "next": _neighbour(library, info["next"], script),
        "parent": _rule_summary(library, info["parent"], script) if info["parent"] else None,
        "children": [_rule_summary(library, child, script) for child in info["children"]],
        "references": references_of(library, records, edition),
        "editions": [{"edition": v.edition, "number": v.number, "name": display(v.name, chinese_of(v.record), script),
                      "url": f"/rules/{v.number}?edition={v.edition}", "current": v.edition == edition}
                     for v in info["editions"]],
        "keyword_numbers": [{"edition": e, "number": n, "url": f"/rules/{n}?edition={e}", "current": e == edition}
                            for e, n in info["keyword_numbers"].items()],
        "history": [{"edition": v.edition, "number": v.number, "url": f"/rules/{v.number}?edition={v.edition}",
                     "current": v.edition == edition, "text": blocks(v.text, script),
                     "changes": _changes(history[i - 1], v, script) if i else []}
                    for i, v in enumerate(history)],
        "referenced_by": [summary(library, r, script) for r in library.referencing(number, edition)
                          if r.number != number][:REFERENCING_SHOWN],
        "current": info["current"],
        "today": _today(info["today"], script),
    }


def _today(today: dict, script: str | None) -> dict | None:
    """What an older edition's rule is in today's rules, for the first lines of its page."""
    if not today:
        return None
    now = today.get("number_now")
    return {
        "edition": today["edition"],
        "same_rule": ({"number": today["same_rule"], "url": f"/rules/{today['same_rule']}?edition={today['edition']}"}
                      if "same_rule" in today else None),
        "number_now": ({"number": now.number, "name": display_title(now, script), "url": record_url(now)}
                       if now else None),
    }


def rule_preview(library: Library, number: str, script: str | None) -> dict | None:
    """What a forum preview of a rule shows (its newest edition): heading, edition, text per
    language cut to PREVIEW_CHARS, and its page; None when no edition has the number."""
    records = library.rule_records(number)
    if not records:
        return None
    texts = [{**b, "text": b["text"][:PREVIEW_CHARS] + ("…" if len(b["text"]) > PREVIEW_CHARS else "")}
             for b in blocks(merge_texts(records), script)]
    return {"number": number, "edition": records[0].edition, "title": _rule_heading(number, records, script),
            "text": texts, "url": f"/rules/{number}"}


def _rule_heading(number: str, records: list[Record], script: str | None) -> str:
    """The number and every title its records give, each once as shown (the rules file's
    `Kicker` beside a FAQ's 增幅)."""
    titles: list[str] = []
    for lang in ("zh_hant", "zh_hans", "en", "bg"):
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
    if record is None:
        return None
    return {"number": record.number, "title": display_title(record, script), "url": record_url(record)}


def _rule_summary(library: Library, record: Record, script: str | None) -> dict:
    return {**summary(library, record, script), "text": blocks(record.text, script)}


def _changes(old, new, script: str | None) -> list[dict]:
    """Word diffs, per language both versions have, from the previous edition's text."""
    out = []
    for lang in LANGS:
        before, after = old.text.get(lang), new.text.get(lang)
        if before and after and before != after:
            out.append({"from": old.edition, "lang": shown_lang(lang, script),
                        "pieces": [[op, display(piece, lang, script)] for op, piece in word_diff(before, after)]})
    return out


def keyword_spans(library: Library, text: str) -> list[tuple[int, int, Record]]:
    """Where the game's keywords and keyword actions occur in a text, as (start, stop, term),
    longest form first and never overlapping: a card's 留存 is the term persist. Found with
    plain substring search, so the cost is linear in the text per form."""
    found: list[tuple[int, int, Record]] = []
    taken = [False] * len(text)
    forms = [(form, entry) for entry in library.glossary.entries if entry.kind in LINKED_TERM_KINDS
             for form in (entry.zh_hant, entry.zh_hans, entry.name)]
    haystack = text.lower() if len(text.lower()) == len(text) else text
    for form, entry in sorted(forms, key=lambda fe: -len(fe[0])):
        form = form.lower()
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
    # An older edition's entry: today's entry for it (Mana Burn of 2008: Mana Burn (Obsolete)).
    now = library.catalogue.current_twin(record)
    view["today_entry"] = {"title": display_title(now, script), "url": record_url(now)} if now else None
    view["mentions"] = [summary(library, r, script) for r in library.mentions(record, MENTIONS_SHOWN)]
    return view


def _defining_rule(library: Library, ref: Reference) -> dict:
    """A rule the glossary names as defining a term, in the edition it names, linked where the
    index has that edition's rule."""
    return {"number": ref.number, "edition": ref.edition,
            "url": LibraryResolver(library, edition=ref.edition).rule_url(ref.number)}


def source_view(library: Library, source_id: str, script: str | None) -> dict | None:
    meta = library.sources.get(source_id)
    if meta is None:
        return None
    view = {**meta, "title": display(meta.get("title", source_id), "zh_hant", script),
            "records": [record_view(library, r, script) for r in library.records_of_source(source_id)]}
    if meta.get("rules_edition"):  # the rules file a document's edition label resolved to
        view["rules_source"] = rules_file_source(meta["rules_edition"])
    return view


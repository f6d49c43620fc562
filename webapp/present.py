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
from indexer.documents.records import LANGS, Record, Reference
from indexer.knowledge.display import chinese_of, display, display_title, names_in_all_scripts, record_url, shown_lang
from indexer.knowledge.editions import word_diff
from indexer.knowledge.library import Library

from .linkify import LibraryResolver

LANG_TAGS = {"en": "en", "zh_hant": "zh-Hant", "zh_hans": "zh-Hans", "bg": "bg"}
KIND_ORDER = ("rule", "card", "planar_card", "term", "section")
# Labels the search script needs to draw results.
SCRIPT_LABELS = ("edition", "jump", "did_you_mean", "results", "no_results")
CYRILLIC = re.compile("[\u0400-\u04ff]")
MENTIONS_SHOWN = 30
REFERENCING_SHOWN = 50

# Interface labels: Traditional Chinese (converted for Simplified readers) and English.
LABELS = {
    "site": ("萬智牌規則查詢", "MTG rules search"),
    "search": ("搜尋", "Search"),
    "search_hint": ("規則編號、關鍵字、牌名（中英文皆可）", "rule number, keyword or card name, in any language"),
    "rule": ("規則", "Rules"),
    "card": ("牌", "Cards"),
    "planar_card": ("時空牌", "Planar cards"),
    "term": ("詞彙", "Terms"),
    "section": ("段落", "Sections"),
    "edition": ("版本", "Edition"),
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
    "did_you_mean": ("您是不是要找", "Did you mean"),
    "jump": ("直接前往規則", "Go to rule"),
    "no_results": ("沒有結果", "No results"),
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
    "line": ("行", "line"),
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
    if CYRILLIC.search(text):
        return "bg"
    return "en"


def blocks(texts: dict[str, str], script: str | None) -> list[dict]:
    """One text per language as shown: [{"lang": "zh_hans", "text": ...}, {"lang": "en", ...}]."""
    return [{"lang": shown_lang(lang, script), "text": display(texts[lang], lang, script)}
            for lang in LANGS if texts.get(lang)]


def source_ref(library: Library, record: Record) -> dict:
    source = library.sources.get(record.source, {})
    return {"id": record.source, "title": source.get("title", record.source),
            "url": f"/sources/{record.source}#{record.id}", "line": record.line}


def summary(library: Library, record: Record, script: str | None) -> dict:
    """Enough to list and link a record."""
    return {"id": record.id, "kind": record.kind, "title": display_title(record, script), "number": record.number,
            "edition": record.edition, "url": record_url(record), "source": source_ref(library, record)}


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
    }


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
        "rulings": [{"source": source_ref(library, r), "text": blocks(ruling, script)}
                    for r in records for ruling in r.rulings],
        "sources": [source_ref(library, r) for r in records],
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
    }


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


def term_view(library: Library, record: Record, script: str | None) -> dict:
    """A term with every form it is written in (as written: the forms are what readers
    search for), the rules that define it and the records that use it."""
    view = record_view(library, record, script)
    view["forms"] = [{"lang": lang, "text": name} for lang, name in names_in_all_scripts(record.names).items()]
    view["forms"] += [{"lang": None, "text": alias} for alias in record.aliases]
    del view["references"]
    view["defining_rules"] = [_defining_rule(library, ref) for ref in record.references if ref.where == "attrs"]
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
    return {**meta, "records": [record_view(library, r, script) for r in library.records_of_source(source_id)]}


def group_results(results: list[dict]) -> list[tuple[str, list[dict]]]:
    """Search results by kind, in page order, each group keeping the ranking."""
    groups = {kind: [] for kind in KIND_ORDER}
    for result in results:
        groups.setdefault(result["kind"], []).append(result)
    return [(kind, items) for kind, items in groups.items() if items]

"""How a record is named and shown: its title and text in the reader's script.

Shared by the search answer (a result's title and text), the suggestions and the web layer's
pages, so all of them show a record the same way. (Its address on the site is the web
layer's: webapp/urls.py.)
"""
from __future__ import annotations

from collections.abc import Iterator

from indexer.documents.chinese import to_hans, to_hant
from indexer.documents.records import TITLE_LANGS, Record

SCRIPTS = ("hant", "hans")


def display(text: str, lang: str, script: str | None) -> str:
    """Chinese text in the script the reader asked for; anything else as written."""
    if script == "hans" and lang == "zh_hant":
        return to_hans(text)
    if script == "hant" and lang == "zh_hans":
        return to_hant(text)
    return text


def in_script(text: str, script: str | None) -> str:
    """A text in the reader's script whichever script it was written in: a document's title
    (the Simplified translation's 万智牌完整规则 reads 萬智牌完整規則 on a Traditional page), the
    search box's query after the reader switched script."""
    if script == "hans":
        return to_hans(text)
    return to_hant(text) if script == "hant" else text


def names_in_all_scripts(names: dict[str, str]) -> dict[str, str]:
    """A name dict with both Chinese scripts filled in from whichever the source wrote."""
    out = dict(names)
    if out.get("zh_hant") and not out.get("zh_hans"):
        out["zh_hans"] = to_hans(out["zh_hant"])
    if out.get("zh_hans") and not out.get("zh_hant"):
        out["zh_hant"] = to_hant(out["zh_hans"])
    return out


def record_title(record: Record) -> str:
    """One display title: the distinct titles (or names) of the record's languages."""
    values = record.title or record.names
    seen = []
    for lang in TITLE_LANGS:
        value = values.get(lang)
        if value and value not in seen:
            seen.append(value)
    title = " / ".join(seen)
    if record.kind == "rule":
        return f"{record.number} {title}".strip()
    return title or record.id


def chinese_of(record: Record) -> str:
    """The Chinese script a record's Chinese text is written in (`zh_hant` unless only
    Simplified is given)."""
    simplified = False
    for written in _chinese_parts(record):
        if written.get("zh_hant"):
            return "zh_hant"
        simplified = simplified or bool(written.get("zh_hans"))
    return "zh_hans" if simplified else "zh_hant"


def _chinese_parts(record: Record) -> Iterator[dict[str, str]]:
    """Title, names, text: the text last, read only when the others do not tell (a packed
    card's text is decoded when read, `packed_records`)."""
    yield record.title
    yield record.names
    yield record.text


def display_title(record: Record, script: str | None) -> str:
    """`record_title` in the reader's script."""
    return display(record_title(record), chinese_of(record), script)


def shown_lang(lang: str, script: str | None) -> str:
    """The language a text of `lang` is shown in: Chinese takes the reader's script."""
    if lang in ("zh_hant", "zh_hans") and script in SCRIPTS:
        return f"zh_{script}"
    return lang


def plain_text(record: Record, script: str | None = None) -> str:
    """The record's clean plain text in all its languages (Chinese in `script` when asked)."""
    return "\n\n".join(display(block, lang, script) for lang, block in record.blocks() if block)

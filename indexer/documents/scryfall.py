"""Every card from Scryfall's bulk data: Oracle text, official rulings and Chinese printed names.

Scryfall publishes its card data as JSON arrays (https://scryfall.com/docs/api/bulk-data): Oracle
Cards (a card object per Oracle id), Default Cards and All Cards (every printing; All Cards in
every language) and Rulings (a ruling object per ruling). A file is recognised by what it holds,
whatever its name: an array whose first item is a `card` or `ruling` object. Files are read an
item at a time (ijson over the C yajl parser), and only what a card record needs is kept: an
English card per Oracle id, the newest Simplified (`zhs`) and Traditional (`zht`) printing of
each, and the rulings, so memory follows the number of cards, never the size of the files (All
Cards is several GB).

One card is one record (`card` kind, source `scryfall`), named in English and by its official
Chinese printed names; a Traditional name is converted from the Simplified one only when no
`zht` printing exists, and then says so (`attrs["zh_hant_converted"]`). Its text is each face's
Oracle text (split, flip, transform, modal double-faced, adventure, meld and every other layout:
a face's name heads its text), its rulings are newest first with their dates and sources
(`attrs["ruling_dates"]`), and the rules they cite are its references.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import ijson  # type: ignore[import-untyped]

from .chinese import to_hant
from .records import Record, slug
from .references import find_references

SOURCE = "scryfall"
# How many bytes of a file tell whether it is Scryfall's (an array of card or ruling objects,
# its first item's first field `object`, as Scryfall writes every object).
HEAD_BYTES = 4096
_HEAD = re.compile(rb'^\s*\[\s*\{\s*"object"\s*:\s*"(card|ruling)"')
# The printings' languages kept, as the record's languages.
CHINESE = {"zhs": "zh_hans", "zht": "zh_hant"}
# Layouts that are no card a judge looks up (an art card of a set's art series).
SKIPPED_LAYOUTS = frozenset({"art_series"})
# A face's fields shown before its text, in this order (a split card's halves each have a cost).
FACE_FACTS = ("mana_cost", "type_line")
_RULING_SOURCES = {"wotc": "Wizards of the Coast", "scryfall": "Scryfall"}


class ScryfallError(ValueError):
    """A file that is not in Scryfall's formats, or is cut short or damaged: named, with what is wrong."""


def is_scryfall_file(head: bytes) -> bool:
    """Whether a file's first bytes are those of a Scryfall bulk file (cards, rulings or both)."""
    return _HEAD.match(head[:HEAD_BYTES].lstrip(b"\xef\xbb\xbf")) is not None


@dataclass
class _Printing:
    """A Chinese printing's names and texts, from the newest printing in that language."""
    released: str
    name: str
    type_line: str
    text: str


@dataclass
class CardData:
    """What the files hold that card records need, by Oracle id."""
    english: dict[str, dict] = field(default_factory=dict)
    chinese: dict[tuple[str, str], _Printing] = field(default_factory=dict)
    rulings: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)

    def add(self, item: dict) -> None:
        kind = item.get("object")
        if kind == "ruling":
            oracle_id, comment = item.get("oracle_id"), item.get("comment")
            if isinstance(oracle_id, str) and isinstance(comment, str) and comment.strip():
                entry = (str(item.get("published_at") or ""), str(item.get("source") or ""), comment.strip())
                found = self.rulings.setdefault(oracle_id, [])
                if entry not in found:  # a Rulings file read twice, or beside a copy of itself
                    found.append(entry)
        elif kind == "card" and item.get("layout") not in SKIPPED_LAYOUTS:
            oracle_id = _oracle_id(item)
            if not oracle_id:
                return
            lang = item.get("lang", "en")
            if lang == "en":
                self.english.setdefault(oracle_id, _kept_english(item))
            elif lang in CHINESE:
                printing = _printing(item)
                key = (oracle_id, CHINESE[lang])
                if printing.name and (key not in self.chinese or printing.released > self.chinese[key].released):
                    self.chinese[key] = printing


def _oracle_id(card: dict) -> str | None:
    """A card's Oracle id (a reversible card's is on its faces)."""
    found = card.get("oracle_id") or next(
        (face.get("oracle_id") for face in card.get("card_faces") or () if face.get("oracle_id")), None)
    return found if isinstance(found, str) else None


_ENGLISH_FIELDS = ("name", "layout", "mana_cost", "type_line", "oracle_text", "keywords", "power", "toughness",
                   "loyalty", "defense", "set", "set_name", "released_at", "scryfall_uri")
_FACE_FIELDS = ("name", "mana_cost", "type_line", "oracle_text", "power", "toughness", "loyalty", "defense")


def _kept_english(card: dict) -> dict:
    """What a card record needs of an English card object, nothing else (a printing's prices,
    images and legalities are most of its bytes)."""
    kept = {key: card[key] for key in _ENGLISH_FIELDS if card.get(key) not in (None, "", [])}
    kept["faces"] = [{key: face[key] for key in _FACE_FIELDS if face.get(key) not in (None, "")}
                     for face in card.get("card_faces") or ()]
    return kept


def _printing(card: dict) -> _Printing:
    faces = card.get("card_faces") or ()
    name = card.get("printed_name") or " // ".join(f.get("printed_name", "") for f in faces if f.get("printed_name"))
    type_line = card.get("printed_type_line") or " // ".join(
        f.get("printed_type_line", "") for f in faces if f.get("printed_type_line"))
    texts = [card.get("printed_text") or ""] if card.get("printed_text") else [
        f"{f.get('printed_name', '')}\n{f.get('printed_text', '')}".strip() for f in faces if f.get("printed_text")]
    return _Printing(str(card.get("released_at") or ""), name.strip(), type_line.strip(), "\n\n".join(texts).strip())


def read_files(paths: Iterable[Path]) -> CardData:
    """Every Scryfall file's cards and rulings, an item at a time; a file cut short, not JSON or
    not Scryfall's raises ScryfallError naming it (what was read of other files is kept by the
    caller only if it chooses to)."""
    data = CardData()
    for path in paths:
        for item in _items(path):
            if isinstance(item, dict):
                data.add(item)
        data.files.append(path)
    return data


def _items(path: Path) -> Iterator[dict]:
    try:
        with open(path, "rb") as fh:
            if not is_scryfall_file(fh.read(HEAD_BYTES)):
                raise ScryfallError(f"{path}: not a Scryfall bulk file (a JSON array of card or ruling objects)")
            fh.seek(0)
            yield from ijson.items(fh, "item", use_float=True)
    except ijson.IncompleteJSONError as exc:
        raise ScryfallError(f"{path}: cut short or damaged JSON ({exc})") from None
    except ijson.JSONError as exc:
        raise ScryfallError(f"{path}: not valid JSON ({exc})") from None
    except OSError as exc:
        raise ScryfallError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def records(data: CardData) -> list[Record]:
    """One record per Oracle id with an English card, in English name order (ids made from
    names; a name two cards share, tokens' say, takes its Oracle id's start too)."""
    cards = sorted(data.english.items(), key=lambda item: (item[1]["name"].lower(), item[0]))
    taken: dict[str, int] = {}
    for _, card in cards:
        taken[slug(card["name"])] = taken.get(slug(card["name"]), 0) + 1
    out = []
    for ordinal, (oracle_id, card) in enumerate(cards):
        key = slug(card["name"])
        if taken[key] > 1:
            key = f"{key}-{oracle_id[:8]}"
        out.append(_record(oracle_id, card, data, f"{SOURCE}:card:{key}", ordinal))
    return out


def _faces_text(card: dict) -> str:
    """The card's Oracle text: a one-face card's as it is, each face's under its name and facts."""
    if not card["faces"]:
        return card.get("oracle_text", "")
    blocks = []
    for face in card["faces"]:
        facts = " · ".join(face[key] for key in FACE_FACTS if face.get(key))
        blocks.append("\n".join(part for part in (face.get("name", ""), facts, face.get("oracle_text", "")) if part))
    return "\n\n".join(blocks)


def _record(oracle_id: str, card: dict, data: CardData, record_id: str, ordinal: int) -> Record:
    names = {"en": card["name"]}
    text = {"en": _faces_text(card)}
    attrs = {"oracle_id": oracle_id, "layout": card.get("layout", "normal")}
    for key in ("mana_cost", "type_line", "set", "set_name", "released_at", "scryfall_uri", "loyalty", "defense"):
        if card.get(key):
            attrs[key] = str(card[key])
    if card.get("power") is not None and card.get("toughness") is not None:
        attrs["power_toughness"] = f"{card['power']}/{card['toughness']}"
    if card.get("keywords"):
        attrs["keywords"] = ", ".join(card["keywords"])
    for lang in ("zh_hans", "zh_hant"):
        printing = data.chinese.get((oracle_id, lang))
        if printing is not None:
            names[lang] = printing.name
            if printing.text:
                text[lang] = printing.text
            if printing.type_line:
                attrs[f"type_line_{lang}"] = printing.type_line
    if "zh_hans" in names and "zh_hant" not in names:
        names["zh_hant"] = to_hant(names["zh_hans"])
        attrs["zh_hant_converted"] = "zh_hans"
    rulings = sorted(data.rulings.get(oracle_id, ()), key=lambda r: r[0], reverse=True)
    if rulings:
        attrs["ruling_dates"] = "; ".join(f"{date} {_RULING_SOURCES.get(source, source)}"
                                          for date, source, _ in rulings)
    faces = [face["name"] for face in card["faces"] if face.get("name") and face["name"] != card["name"]]
    record = Record(id=record_id, kind="card", source=SOURCE, edition=None, line=0, offset=ordinal,
                    text={lang: value for lang, value in text.items() if value}, names=names,
                    aliases=list(dict.fromkeys(faces)), rulings=[{"en": comment} for _, _, comment in rulings],
                    attrs=attrs)
    record.references = [ref for n, ruling in enumerate(record.rulings)
                         for ref in find_references(ruling["en"], "en", f"rulings[{n}]")]
    return record

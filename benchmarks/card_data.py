"""Card data at Scryfall's real size, generated in its bulk formats: the cards benchmark's input.

No machine here reaches Scryfall, so `benchmarks.cards` measures on files written here in the
shapes of its bulk files: Oracle Cards (about 35,000 card objects, each with the fields a real
one carries: prices, image addresses, legalities), Rulings (about 75,000) and the Chinese
printings of All Cards (about 60,000), and an All Cards file of any size (every printing in a
dozen languages) for the reader's memory. Names, types and Oracle text are made of the rules'
own words and keyword abilities, so that cards compete with rules in search as real ones would
(a card's text says "flying" and "dies" as often as the rules do), and about as long as real
ones (a mean of 169 characters; tests/fixtures/scryfall's real cards, 177). Seeded: the same
files each run.
"""
from __future__ import annotations

import json
import random
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

from indexer.documents.records import Record

SEED = 20261206
CARDS, RULINGS, CHINESE = 35_000, 75_000, 60_000
_WORD = re.compile(r"[A-Za-z][a-z]{3,}")
_SENTENCE = re.compile(r"[A-Z][^.:]{20,110}\.")
_HAN = re.compile(r"[\u4e00-\u9fff]")
TYPES = ("Creature", "Instant", "Sorcery", "Enchantment", "Artifact", "Land", "Planeswalker", "Battle")
SUBTYPES = ("Elf Warrior", "Human Wizard", "Goblin Shaman", "Equipment", "Aura", "Vehicle", "Saga", "Forest",
            "Dragon", "Spirit", "Zombie Knight", "Faerie Rogue", "Merfolk", "Angel", "Treasure")
LAYOUTS = ("normal",) * 18 + ("transform", "split", "adventure", "modal_dfc")
LANGUAGES = ("de", "fr", "it", "es", "pt", "ja", "ko", "ru")
# What a real card object carries beside its game data (the most of its bytes).
_FILLER = {
    "image_uris": {size: f"https://cards.scryfall.io/{size}/front/0/0/{'0' * 36}.jpg"
                   for size in ("small", "normal", "large", "png", "art_crop", "border_crop")},
    "legalities": {fmt: "legal" for fmt in ("standard", "future", "historic", "timeless", "gladiator", "pioneer",
                                            "explorer", "modern", "legacy", "pauper", "vintage", "penny",
                                            "commander", "oathbreaker", "brawl", "alchemy", "duel", "oldschool")},
    "prices": {"usd": "0.25", "usd_foil": "1.10", "eur": "0.20", "tix": "0.03"},
    "purchase_uris": {shop: f"https://{shop}.example/product/{'0' * 8}" for shop in ("tcgplayer", "cardmarket")},
    "related_uris": {kind: f"https://{kind}.example/search?q={'0' * 20}" for kind in ("gatherer", "edhrec")},
    "games": ["paper", "mtgo", "arena"], "finishes": ["nonfoil", "foil"], "frame": "2015", "border_color": "black",
    "artist": "Generated Artist", "rarity": "common", "highres_image": True, "image_status": "highres_scan",
}


class Words:
    """The rules' English words and sentences, keyword abilities and Chinese characters."""

    def __init__(self, records: list[Record]):
        english = [r.text["en"] for r in records if r.kind == "rule" and r.text.get("en")]
        chinese = "".join(r.text.get("zh_hans", "") for r in records if r.kind == "rule")
        self.words = sorted({w.capitalize() for text in english for w in _WORD.findall(text)})
        self.sentences = sorted({s for text in english for s in _SENTENCE.findall(text)})
        self.keywords = sorted({r.title["en"] for r in records if r.kind == "rule" and r.keyword and r.title.get("en")
                                and (r.number or "").startswith("702.") and len(r.title["en"]) < 20})
        self.han = sorted(set(_HAN.findall(chinese)))
        self.chinese_sentences = [s for s in re.split(r"[。；]", chinese) if 8 <= len(s) <= 60]


def _cost(rng: random.Random) -> str:
    return "".join(f"{{{s}}}" for s in [str(rng.randint(1, 5)), *rng.sample("WUBRG", rng.randint(0, 2))])


def _text(rng: random.Random, w: Words, name: str) -> str:
    lines = rng.sample(w.keywords, rng.randint(0, 2)) if w.keywords else []
    lines += [s.replace("a permanent", name, 1) for s in rng.sample(w.sentences, rng.choice((1, 1, 2)))]
    if rng.random() < 0.4:
        lines.append(f"{_cost(rng)}, {{T}}: {rng.choice(w.sentences)}")
    return "\n".join(lines)


def _face(rng: random.Random, w: Words, name: str) -> dict:
    kind = rng.choice(TYPES)
    type_line = f"{kind} — {rng.choice(SUBTYPES)}" if kind in ("Creature", "Artifact", "Enchantment") else kind
    face = {"object": "card_face", "name": name, "mana_cost": _cost(rng), "type_line": type_line,
            "oracle_text": _text(rng, w, name)}
    if kind == "Creature":
        face.update(power=str(rng.randint(0, 8)), toughness=str(rng.randint(1, 8)))
    return face


def _names(rng: random.Random, w: Words, count: int) -> list[str]:
    names: set[str] = set()
    while len(names) < count:
        names.add(" ".join(rng.sample(w.words, rng.randint(1, 3))))
    return sorted(names)


def oracle_cards(w: Words, count: int = CARDS, seed: int = SEED) -> list[dict]:
    rng = random.Random(seed)
    names = _names(rng, w, count * 2)
    rng.shuffle(names)
    cards = []
    for n in range(count):
        layout = rng.choice(LAYOUTS)
        ids = {"id": str(uuid.UUID(int=rng.getrandbits(128))), "oracle_id": str(uuid.UUID(int=rng.getrandbits(128)))}
        if layout == "normal":
            face = _face(rng, w, names[n])
            card = {**{k: v for k, v in face.items() if k != "object"}}
        else:
            faces = [_face(rng, w, names[n]), _face(rng, w, names[count + n])]
            card = {"name": " // ".join(f["name"] for f in faces), "card_faces": faces,
                    "type_line": " // ".join(f["type_line"] for f in faces), "mana_cost": faces[0]["mana_cost"]}
        keywords = [k for k in w.keywords if k in card.get("oracle_text", "") or any(
            k in f["oracle_text"] for f in card.get("card_faces", ()))]
        cards.append({"object": "card", **ids, "lang": "en", "layout": layout, **card, "keywords": keywords,
                      "set": "gen", "set_name": "Generated", "collector_number": str(n + 1),
                      "released_at": f"20{rng.randint(10, 26):02d}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}",
                      "scryfall_uri": f"https://scryfall.com/card/gen/{n + 1}", **_FILLER})
    return cards


def rulings(w: Words, cards: list[dict], count: int = RULINGS, seed: int = SEED) -> list[dict]:
    rng = random.Random(seed + 1)
    ruled = rng.sample(cards, min(len(cards), count // 3))
    return [{"object": "ruling", "oracle_id": rng.choice(ruled)["oracle_id"],
             "source": rng.choice(("wotc", "scryfall")),
             "published_at": f"20{rng.randint(4, 26):02d}-0{rng.randint(1, 9)}-2{rng.randint(0, 8)}",
             "comment": " ".join(rng.sample(w.sentences, rng.randint(1, 3)))} for _ in range(count)]


def chinese_printings(w: Words, cards: list[dict], count: int = CHINESE, seed: int = SEED) -> list[dict]:
    rng = random.Random(seed + 2)
    out = []
    for n in range(count):
        card = cards[n % len(cards)] if n < len(cards) else rng.choice(cards)
        lang = "zhs" if n < len(cards) else "zht"
        name = "".join(rng.sample(w.han, rng.randint(2, 6)))
        out.append({"object": "card", "id": str(uuid.UUID(int=rng.getrandbits(128))), "oracle_id": card["oracle_id"],
                    "lang": lang, "layout": card["layout"], "name": card["name"], "printed_name": name,
                    "printed_type_line": "生物～" + "".join(rng.sample(w.han, 2)),
                    "printed_text": "。".join(rng.sample(w.chinese_sentences, 2)) + "。",
                    "released_at": card["released_at"], "set": "gen", "collector_number": str(n + 1)})
    return out


def write_array(path: Path, items: Iterator[dict] | list[dict]) -> int:
    """Items as Scryfall writes a bulk file: a JSON array, one object a line. Its size in bytes."""
    with open(path, "w", encoding="utf-8") as out:
        out.write("[\n")
        for n, item in enumerate(items):
            out.write(("," if n else "") + json.dumps(item, ensure_ascii=False) + "\n")
        out.write("]\n")
    return path.stat().st_size


def all_cards(cards: list[dict], printings: list[dict], size: int, seed: int = SEED) -> Iterator[dict]:
    """Every card in English, its printings in other languages (about `size` bytes of them),
    then the Chinese ones: what the reader keeps is the same whatever the size."""
    rng = random.Random(seed + 3)
    written = 0
    yield from cards
    while written < size:
        card = rng.choice(cards)
        printing = {**card, "id": str(uuid.UUID(int=rng.getrandbits(128))), "lang": rng.choice(LANGUAGES),
                    "printed_name": card["name"].upper()}
        written += len(json.dumps(printing, ensure_ascii=False)) + 2
        yield printing
    yield from printings


def write(folder: Path, records: list[Record], cards: int = CARDS, ruling_count: int = RULINGS,
          chinese: int = CHINESE) -> dict[str, int]:
    """The three files a card build reads, in `folder`; their sizes by name."""
    w = Words(records)
    folder.mkdir(parents=True, exist_ok=True)
    oracle = oracle_cards(w, cards)
    return {"oracle-cards.json": write_array(folder / "oracle-cards.json", oracle),
            "rulings.json": write_array(folder / "rulings.json", rulings(w, oracle, ruling_count)),
            "chinese-printings.json": write_array(folder / "chinese-printings.json",
                                                  chinese_printings(w, oracle, chinese))}

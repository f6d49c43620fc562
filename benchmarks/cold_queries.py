"""Queries never asked before: thousands of distinct ones cut from the records themselves, of
every kind readers type, for the cold benchmark (each is asked once).

Kinds and their shares: Chinese words (2-4 characters) and phrases (5-8) cut from Chinese
texts, half of them turned into the other script; English words and phrases of two or three
words; rule numbers written the ways judges write them (702.30a, 規則 702.30a, 规则702.30,
CR 702.30a, rule 702.30, full-width digits); card, plane and term names in any language;
English words with a typo (a letter dropped, doubled or swapped); Bulgarian words. The
generator is seeded, so a run's queries are the same from one run to the next.
"""
from __future__ import annotations

import random
import re

from indexer.documents.chinese import HAN_RUN, to_hans, to_hant
from indexer.documents.records import Record

SEED = 20261130
QUERY_KINDS = {  # kind: share of the queries
    "zh word": 0.20, "zh phrase": 0.12, "en word": 0.16, "en phrase": 0.12, "rule number": 0.16,
    "name": 0.08, "typo": 0.10, "bg": 0.06,
}
_EN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{2,}")
_BG_WORD = re.compile(r"[\u0400-\u04ff]{3,}")
_FULL_WIDTH = str.maketrans("0123456789.", "０１２３４５６７８９．")


def _rule_forms(number: str) -> list[str]:
    base = number.rstrip("abcdefghijklmnopqrstuvwxyz")
    return [number, f"規則 {number}", f"规则{number}", f"CR {number}", f"rule {base}",
            f"規則{number.translate(_FULL_WIDTH)}", base]


def _typo(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word) - 1)
    edit = rng.choice(("drop", "double", "swap"))
    if edit == "drop":
        return word[:i] + word[i + 1:]
    if edit == "double":
        return word[:i] + word[i] + word[i:]
    return word[:i - 1] + word[i] + word[i - 1] + word[i + 1:]


def _texts(records: list[Record], langs: tuple[str, ...]) -> list[str]:
    return [text for r in records for lang in langs if (text := r.text.get(lang))]


def generate(records: list[Record], count: int = 3000, seed: int = SEED) -> list[tuple[str, str]]:
    """`count` distinct (kind, query) pairs in a shuffled order."""
    rng = random.Random(seed)
    zh = _texts(records, ("zh_hant", "zh_hans"))
    en = [words for text in _texts(records, ("en",)) if len(words := _EN_WORD.findall(text)) >= 3]
    bg = [word for text in _texts(records, ("bg",)) for word in _BG_WORD.findall(text)]
    numbers = sorted({r.number for r in records if r.kind == "rule" and r.number})
    names = sorted({name for r in records if r.kind in ("card", "planar_card", "term")
                    for name in r.names.values() if name})

    def zh_cut(low: int, high: int) -> str | None:
        runs = [run for run in HAN_RUN.findall(rng.choice(zh)) if len(run) >= low]
        if not runs:
            return None
        run = rng.choice(runs)
        size = rng.randint(low, min(high, len(run)))
        start = rng.randrange(len(run) - size + 1)
        cut = run[start:start + size]
        return to_hans(cut) if rng.random() < 0.5 else to_hant(cut)

    def en_cut(low: int, high: int) -> str:
        words = rng.choice(en)
        size = rng.randint(low, high)
        start = rng.randrange(max(1, len(words) - size + 1))
        chosen = " ".join(words[start:start + size])
        return chosen.lower() if rng.random() < 0.7 else chosen

    makers = {
        "zh word": lambda: zh_cut(2, 4),
        "zh phrase": lambda: zh_cut(5, 8),
        "en word": lambda: en_cut(1, 1),
        "en phrase": lambda: en_cut(2, 3),
        "rule number": lambda: rng.choice(_rule_forms(rng.choice(numbers))) if numbers else None,
        "name": lambda: rng.choice(names) if names else None,
        "typo": lambda: typo if len(word := en_cut(1, 1)) >= 5 and (typo := _typo(word, rng)) != word else None,
        "bg": lambda: " ".join(rng.sample(bg, rng.randint(1, 2))) if len(bg) >= 2 else None,
    }
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for kind, share in QUERY_KINDS.items():
        want, tries = round(count * share), 0
        while want > 0 and tries < want * 50:
            tries += 1
            query = makers[kind]()
            if query and query.strip() and query.casefold() not in seen:
                seen.add(query.casefold())
                out.append((kind, query))
                want -= 1
    while len(out) < count:  # a corpus too small for some kind: fill with English words
        query = en_cut(1, 3)
        if query.casefold() not in seen:
            seen.add(query.casefold())
            out.append(("en phrase", query))
    rng.shuffle(out)
    return out[:count]

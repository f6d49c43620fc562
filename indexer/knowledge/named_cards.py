"""The cards a question names, found by their names: a card's name is then not searched as
rules words, its keywords, type line and text stand in for it, and the answer says which
cards it read; and the names of cards the data does not hold, not searched either.

Players' questions name cards ("can Coax from the Blind Eternities find a Chameleon Colossus
in my sideboard"), and a card's name is rules words to the engine (Grafted Wargear finds
graft). A name counts in any script and any case, folded (`fold_key`), by any of a card's
names, its faces' names and a legendary card's short name (Agrus Kos of "Agrus Kos, Eternal
Soldier") when no other card has that one. A name of one word counts only as written like a
name (capitalised inside a sentence, or quoted), a Chinese name of two characters only quoted,
and a name that is also a heading or a term of the rules (Regeneration) is read as the rules'.

A card the data does not hold is still a name (`proper_names`): a run of capitalised words
inside a sentence (Grafted Wargear, Inga Rune-Eyes, Coax from the Blind Eternities) of which one
at least is no word of today's rules (their text, as the index stems it). Equipment, Trample
or First Strike, capitalised, are the rules' words.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from indexer.documents.chinese import HAN_RUN
from indexer.documents.records import Record
from indexer.documents.script_ranges import HAN, LATIN_WORD
from indexer.search.analysis import english_stem
from indexer.search.folding import fold_key

from .lookups import RuleLookups, card_key

# A piece of a text as names are matched: one Han character, or a run of letters and digits.
_PIECE = re.compile(f"[{HAN}]|[^\\W_{HAN}]+")
# Marks a name may be written between ("Clone", 《复制》, <刑期>, 【刑期】, [[Clone]]): Chinese
# forums write a card as <卡名> most.
_OPENING = frozenset("\"'“‘「『《〈【<[")
_CLOSING = frozenset("\"'”’」』》〉】>]")
# Where a sentence starts: a capital there is no sign of a name.
_SENTENCE_END = re.compile(r"(?:^|[.!?。！？:：;；]\s*|\n\s*)$")
# The fewest Han characters an unquoted Chinese name needs (two are a common word as often).
MIN_CHINESE_NAME = 3
# The most pieces of a name looked for (longer names are read by their first pieces' forms).
MAX_PIECES = 12
# A card's keywords and type line as context, at most this many characters a card, and as
# many of its Oracle text's first characters, its reminder text left out (_REMINDER).
CONTEXT_CHARS = 160
ORACLE_CHARS = 200
_REMINDER = re.compile(r"\([^()]*\)")
# A capitalised word (Rune-Eyes, Urza's), and the lower-case words a name may hold between two.
# Each run of letters is taken whole (an atomic group, repeated possessively): a run of letters
# split every way into words is 2^n ways to fail, which a whole query read as a name
# (`named_whole`) tried, seconds for one long capitalised word.
_CAPITALISED = re.compile(rf"[A-Z](?>{LATIN_WORD}|-)*+")
_JOINING = "of|the|from|to|and|a|an|in|on|with"
_RUN = re.compile(rf"{_CAPITALISED.pattern}(?:[ ,]+(?:(?:{_JOINING})[ ]+)*{_CAPITALISED.pattern})*")
_LATIN = re.compile(LATIN_WORD)


@dataclass(frozen=True)
class NamedCard:
    """A card named in a text, and where (`start`:`end` of the text)."""
    record: Record
    start: int
    end: int


def _extra_forms(record: Record) -> list[str]:
    """The names a card is written by beside those the look-up tables hold (`RuleLookups.names`:
    its names in each script and its faces'): a legendary card's name before its comma, and
    a name with accents without them (Jotun Grunt is Jötun Grunt). The type line is read only
    for a name with a comma: a served build's cards keep it packed (`packed_records`)."""
    names = [*record.names.values(), *record.aliases]
    with_comma = [name for name in names if "," in name]
    if with_comma and "legendary" not in record.attrs.get("type_line", "").lower():
        with_comma = []
    short = [name.split(",")[0] for name in with_comma]
    plain = [_unaccented(name) for name in names if not name.isascii()]
    return [name for name in (*short, *plain) if name]


def _unaccented(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _singulars(key: str) -> tuple[str, ...]:
    """A folded form and, when it ends as an English plural does, its singulars (two
    Mountains, the Slivers): a card named in the plural."""
    if key.endswith("es") and key.isascii():
        return key, key[:-1], key[:-2]
    return (key, key[:-1]) if key.endswith("s") and key.isascii() else (key,)


class CardNames:
    """Finding a build's cards by their names in a text: the look-up tables' folded names
    (shared, not copied: every card's names are tens of megabytes), and the few other forms."""

    def __init__(self, lookups: RuleLookups):
        self._lookups = lookups
        self._records = lookups.records
        self._extra: dict[str, list[str]] = {}
        for record in lookups.by_position:
            if record.kind == "card":
                for form in _extra_forms(record):
                    key = fold_key(form)
                    if key and key not in lookups.names:
                        self._extra.setdefault(key, []).append(record.id)
        # The stems of today's rules' English words: what is no name when capitalised.
        words = {w.lower() for r in lookups.by_position if r.kind == "rule" and lookups.of_todays_rules(r)
                 for w in _LATIN.findall(r.text.get("en", ""))}
        self._rules_stems = frozenset(map(english_stem, words))

    def found(self, text: str) -> list[NamedCard]:
        """The cards `text` names, in order, the longest name first where names overlap."""
        pieces = [(m.start(), m.end(), fold_key(m.group())) for m in _PIECE.finditer(text)]
        named, i = [], 0
        while i < len(pieces):
            match = self._longest(text, pieces, i)
            if match is None:
                i += 1
                continue
            j, record_id = match
            named.append(NamedCard(self._records[record_id], pieces[i][0], pieces[j - 1][1]))
            i = j
        return named

    def _card(self, key: str) -> str | None:
        """The card a folded form names, or None: no card's, two cards' (a short name, a
        token's), or a heading's or keyword's of the rules (Regeneration). A set FAQ's card
        and the same card of Scryfall's are one card, read by the record with the most facts."""
        ids = self._lookups.names.get(key) or self._extra.get(key)
        if not ids or key in self._lookups.titles or key in self._lookups.keyword_heads:
            return None
        cards = [self._records[i] for i in ids if self._records[i].kind == "card"]
        if not cards or len({card_key(r) for r in cards}) > 1:
            return None
        return max(cards, key=lambda r: len(r.attrs)).id

    def _longest(self, text: str, pieces: list[tuple[int, int, str]], i: int) -> tuple[int, str] | None:
        """(the end piece, the card's id) of the longest name starting at piece `i`, or None."""
        best, key = None, ""
        for j in range(i, min(len(pieces), i + MAX_PIECES)):
            key += pieces[j][2]
            record_id = next(filter(None, map(self._card, _singulars(key))), None)
            if record_id is not None and self._written_as_name(text, pieces[i][0], pieces[j][1], j - i + 1):
                best = (j + 1, record_id)
        return best

    @staticmethod
    def _written_as_name(text: str, start: int, end: int, count: int) -> bool:
        """Whether `text[start:end]` reads as a name: quoted, or of several words, or one word
        capitalised inside a sentence; Chinese of `MIN_CHINESE_NAME` characters or quoted."""
        quoted = start > 0 and text[start - 1] in _OPENING and end < len(text) and text[end] in _CLOSING
        if quoted:
            return True
        if HAN_RUN.match(text, start):
            return end - start >= MIN_CHINESE_NAME
        if count > 1:
            return True
        return text[start].isupper() and not _SENTENCE_END.search(text[:start])

    def proper_names(self, text: str) -> list[tuple[int, int]]:
        """Where `text` names what the rules do not (a card the data lacks, a player, a
        format): runs of capitalised words inside a sentence, one of them no rules word."""
        spans = []
        for run in _RUN.finditer(text):
            words = list(_CAPITALISED.finditer(run.group()))
            if _SENTENCE_END.search(text[:run.start()]):  # a sentence's first word is no sign
                words = words[1:]
            if words and any(english_stem(w.group().lower()) not in self._rules_stems
                             for w in words if w.group() != "I"):
                spans.append((run.start() + words[0].start(), run.end()))
        return spans

    @staticmethod
    def named_whole(text: str) -> bool:
        """Whether a whole query is written as a name: two capitalised words or more, joined only
        by the words names hold (Lightning Bolt, Coax from the Blind Eternities)."""
        run = _RUN.fullmatch(text.strip())
        return run is not None and len(_CAPITALISED.findall(run.group())) > 1

    @staticmethod
    def without(text: str, spans: list[tuple[int, int]]) -> str:
        """`text` with these spans (start, end) taken out."""
        kept, at = [], 0
        for start, end in sorted(spans):
            if start >= at:
                kept.append(text[at:start])
                at = end
        kept.append(text[at:])
        return " ".join(" ".join(kept).split())

    @staticmethod
    def pieces(text: str) -> int:
        """How many pieces (words, Han characters) `text` has, as names are matched in them."""
        return sum(1 for _ in _PIECE.finditer(text))

    @staticmethod
    def context(named: list[NamedCard]) -> str:
        """What the cards' own words add to a question: each card's keywords and type line, and
        the start of its Oracle text without its reminder text (Platinum Angel's "can't lose
        the game")."""
        parts = []
        for card in named:
            attrs = card.record.attrs
            facts = " ".join(p for p in (attrs.get("keywords", "").replace(",", " "),
                                         attrs.get("type_line", "").replace("—", " ")) if p)[:CONTEXT_CHARS]
            parts += [facts, _REMINDER.sub(" ", card.record.text.get("en", ""))[:ORACLE_CHARS]]
        return " ".join(dict.fromkeys(" ".join(parts).split()))

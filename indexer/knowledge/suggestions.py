"""Suggestions as a reader types: names, keyword titles and rule numbers starting with it;
and, for a query that found nothing, the names closest to it.

Names and titles are kept folded (script, case, width) in one list, shortest first, so a
prefix in any script finds them; rule numbers come from the catalogue. The closest names are
compared in that folded form too, by edit similarity (RapidFuzz's ratio), so a Traditional
query meets Simplified names and a name one character off (持存 for 留存, Persits for
Persist) is found without any reading of the characters.
"""
from __future__ import annotations

import re
from array import array
from bisect import bisect_left

from rapidfuzz import fuzz, process

from indexer.documents.chinese import HAN_RUN
from indexer.documents.records import Record
from indexer.documents.references import rule_sort_key
from indexer.search.folding import fold_key, fold_name
from indexer.search.query import MAX_LIMIT, QueryError

from .catalogue import Catalogue
from .display import display, display_title
from .lookups import NAMED_KINDS

MAX_CHARS = 100
_NUMBER_PREFIX = re.compile(r"\d{1,3}(\.\d*[a-z]?)?")
# `text + _LAST_CHARACTER` sorts after every name starting with `text` (a noncharacter no
# name holds).
_LAST_CHARACTER = "\U0010ffff"
# How alike (percent of RapidFuzz's ratio) a name must be to be offered for a query that
# found nothing. A Chinese word is two to four characters: one character shared with a name
# of up to four is a third alike (凋零 and 凋鱗亞龍). A Latin word is offered a name a letter
# or two away (Persits, Persist: 86), not one that merely shares letters (asdfgh, Dash: 60).
CLOSEST_CUTOFF_HAN = 33
CLOSEST_CUTOFF_LATIN = 70


class Suggestions:
    def __init__(self, catalogue: Catalogue):
        self.catalogue = catalogue
        # (folded text, text as written, kind, record id), each once: a term of every rules
        # edition is the one term a search for its name opens (the project glossary's, else
        # today's), a keyword's title today's heading rule (Devour of 2009 is 702.82 today).
        entries: dict[tuple[str, str, str, str], None] = {}
        term_named: dict[str, Record] = {}  # the term a folded name opens, looked up once
        for r in catalogue.records.values():
            if r.kind in NAMED_KINDS:
                for name in filter(None, [*r.names.values(), *r.aliases]):
                    folded = fold_name(name)
                    opens = r
                    if r.kind == "term":
                        if folded not in term_named:
                            term_named[folded] = catalogue.by_name(name, ("term",)) or r
                        opens = term_named[folded]
                    entries[folded, name, r.kind, opens.id] = None
            elif r.kind == "rule" and (head := catalogue.heading_key(r)) and catalogue.is_keyword_head(r):
                today = catalogue.keyword_head_today(head) or r
                for title in r.title.values():
                    entries[fold_key(title), title, "rule", today.id] = None
        self._entries = sorted(entries, key=lambda s: (len(s[0]), s[0]))
        # Their positions in that order, sorted by folded text, in which the entries starting
        # with what was typed are one run: found by bisection, not by reading every entry.
        # (Arrays, not lists: an int object each was 4 MB with every card.)
        self._by_folded = array("i", sorted(range(len(self._entries)), key=lambda i: self._entries[i][0]))
        self._folded = [self._entries[i][0] for i in self._by_folded]
        # Each folded text once (its first entry: the shortest, a term before a card), the
        # choices of `closest`.
        first: dict[str, int] = {}
        for n, entry in enumerate(self._entries):
            first.setdefault(entry[0], n)
        self._closest_keys = list(first)
        self._closest_entries = array("i", first.values())

    def suggest(self, q: str, limit: int = 10, script: str | None = None) -> list[dict]:
        """Names, titles and rule numbers that start with what was typed (any script), Chinese
        shown in the reader's script when one is asked for."""
        if len(q) > MAX_CHARS or not 1 <= limit <= MAX_LIMIT:
            raise QueryError(f"suggest takes at most {MAX_CHARS} characters and a limit of 1 to {MAX_LIMIT}")
        key = fold_key(q)
        if not key:
            return []
        number_prefix = q.strip().lower()
        if _NUMBER_PREFIX.fullmatch(number_prefix):
            numbers = sorted((n for n in self.catalogue.by_number if n.startswith(number_prefix)), key=rule_sort_key)
            return [{"text": display_title(head, script), "kind": "rule", "id": head.id}
                    for head in (self.catalogue.rule_records(n)[0] for n in numbers[:limit])]
        run = self._by_folded[bisect_left(self._folded, key):bisect_left(self._folded, key + _LAST_CHARACTER)]
        out, seen = [], set()
        for position in sorted(run):
            _, shown, kind, record_id = self._entries[position]
            shown = display(shown, "zh_hans" if script == "hant" else "zh_hant", script)
            if (fold_key(shown), kind) not in seen:
                seen.add((fold_key(shown), kind))
                out.append({"text": shown, "kind": kind, "id": record_id})
                if len(out) >= limit:
                    break
        return out

    def closest(self, q: str, limit: int = 5, script: str | None = None) -> list[dict]:
        """The names and titles most like what was typed, in any script and with letters or
        characters wrong, best first (at least CLOSEST_CUTOFF_* alike): for a query that
        found nothing."""
        if len(q) > MAX_CHARS or not 1 <= limit <= MAX_LIMIT:
            raise QueryError(f"closest takes at most {MAX_CHARS} characters and a limit of 1 to {MAX_LIMIT}")
        key = fold_key(q)
        if not key:
            return []
        cutoff = CLOSEST_CUTOFF_HAN if HAN_RUN.search(key) else CLOSEST_CUTOFF_LATIN
        found = process.extract(key, self._closest_keys, scorer=fuzz.ratio, score_cutoff=cutoff, limit=limit * 3)
        out, seen = [], set()
        for _, score, n in sorted(found, key=lambda f: (-f[1], len(f[0]), f[0])):
            _, shown, kind, record_id = self._entries[self._closest_entries[n]]
            if record_id in seen or score >= 100:
                continue
            seen.add(record_id)
            shown = display(shown, "zh_hans" if script == "hant" else "zh_hant", script)
            out.append({"text": shown, "kind": kind, "id": record_id})
            if len(out) >= limit:
                break
        return out

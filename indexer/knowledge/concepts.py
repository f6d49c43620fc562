"""Today's glossary terms as a query names them, and the rules that list keyword abilities.

A term's names lead to the rules its entry cites (`cited`), and to the rules that say what it
is (`definitions`); a rule listing a dozen keywords names each only as a list item (`listing_at`).
"""
from __future__ import annotations

import re
from collections import defaultdict

import numpy as np

from indexer.documents.obsolete_terms import OBSOLETE_MARK
from indexer.documents.records import Record
from indexer.search.analysis import english_stem
from indexer.search.folding import fold_key

from .lookups import RuleLookups
from .placement import Placement

# The section of keyword abilities (702 in every edition held): what a list of them names.
KEYWORD_ABILITIES = "702"
# The fewest keyword abilities a rule names in its English text to be a list of them
# (`ConceptTables.listing_at`): 122.1b, the keywords a keyword counter can be, names 12 (2022) to
# 15 (2026); a rule that says something of several (601.2b, the costs announced in casting a
# spell) names at most 6.
LIST_NAMES = 10
# A glossary entry's reference to a section of the rules ("See section 5, “Turn Structure.”"):
# the section's rules begin with its general rule, N00 (500 General), whose subrules say what
# the section's terms are (500.1: "A turn consists of five phases").
SECTION_REFERENCE = re.compile(r"\bsection ([1-9])\b")
# A section's general rule's number (400, 500, 800).
SECTION_GENERAL_RULE = re.compile(r"[1-9]00")


def _stems(text: str) -> frozenset[str]:
    """The Snowball stems of a text's English words (Keyword Abilities: keyword, abil)."""
    return frozenset(english_stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()))


class ConceptTables:
    """Today's glossary terms by the names a query uses, with the rules that answer each."""

    def __init__(self, lookups: RuleLookups, placement: Placement, records: list[Record]):
        self.lookups = lookups
        self.placement = placement
        # The same entries' rules by the entry's position: what a question's words finding the
        # entry (its name and definition) lead to (filled with the concepts).
        self.cited_at: dict[int, list[int]] = {}
        # The English stems of each term's name (none for a Chinese one), by its key.
        self._concept_stems: dict[str, frozenset[str]] = {}
        self.cited = self._todays_concepts(records)
        self.definitions = self._term_definitions()
        self._find_lists(records)

    def _todays_concepts(self, records: list[Record]) -> dict[str, list[str]]:
        """Today's glossary terms by each of their English names ("Life, Life Total" is two)
        and their Chinese name (传奇规则), with the rules their entry cites ("See rule 704.5j"),
        or, citing none, the general rules of the sections it cites (Zone: "See section 4"):
        what a query naming the term asks about."""
        concepts: dict[str, list[str]] = defaultdict(list)
        for r in records:
            if r.kind == "term" and self.lookups.of_todays_rules(r) and r.names.get("en"):
                # (An obsolete term's link to the last rule that had it names an older edition.)
                numbers = ([ref.number for ref in r.references if ref.where != "attrs"]
                           or [f"{m.group(1)}00" for m in SECTION_REFERENCE.finditer(r.text.get("en", ""))])
                cited = [f"{r.source}:rule:{n}" for n in dict.fromkeys(numbers)]
                cited = [i for i in cited if i in self.lookups.records]
                names = [*OBSOLETE_MARK.sub("", r.names["en"]).split(","), r.names.get("zh_hans", "")]
                for name in names:
                    if cited and name.strip():
                        concepts[fold_key(name.strip())].extend(cited)
                        self._concept_stems[fold_key(name.strip())] = _stems(name)
                if cited:
                    self.cited_at[self.lookups.positions[r.id]] = [self.lookups.positions[i] for i in cited]
        return concepts

    def _term_definitions(self) -> dict[str, list[str]]:
        """What a query that is a term of today's glossary asks for (`concepts`: "X ... See rule
        107.3"): the rules its entry cites, but where one is only a heading that does not name
        the term (104 Ending the Game, for Concede), the subrules below it that use the term
        (104.3a: "A player can concede the game at any time"), which say what it is, and of a
        section's general rule (400 General, for Zone's "See section 4"), the first of them
        (400.1: "A zone is a place..."); such a heading itself only when no rule the entry
        cites says more (no subrule of 806 Free-for-All names a Supervillain Rumble, and 904.12
        of 904 Archenemy does). A heading naming the term (302 Creatures, 117 Timing and
        Priority) is its own rule. A name an obsolete term has (传奇, of Legend (Obsolete) as of
        Legendary; Transforming Double-Faced Cards) is answered by that term's entry, which says
        what it is now (`obsolete`): none."""
        definitions: dict[str, list[str]] = {}
        for key, cited in self.cited.items():
            if key in self.lookups.obsolete:
                continue
            needle, said, headings = key.encode(), [], []
            stems = self._concept_stems.get(key, frozenset())
            for record_id in dict.fromkeys(cited):
                at, rule = self.lookups.positions[record_id], self.lookups.records[record_id]
                if (not self.placement.heading_at[at] or self.lookups.holding([at], needle)
                        or (stems and stems <= _stems(rule.text.get("en", "")))):
                    said.append(record_id)
                    continue
                headings.append(record_id)
                below = [self.lookups.positions[r.id] for r in self.lookups.descendants(rule)]
                using = [self.lookups.by_position[p].id for p in self.lookups.holding(below, needle)]
                # A section's general rule (400 General) covers the whole section: its first
                # statement of the term defines it, the rest use it (400.10: the command zone).
                said += using[:1] if SECTION_GENERAL_RULE.fullmatch(rule.number or "") else using
            definitions[key] = said or headings
        return definitions

    def _find_lists(self, records: list[Record]) -> None:
        """The rules that list keyword abilities (`LIST_NAMES` of them or more, as whole words
        of the English text), by position, and the abilities they list, by their English name
        and their heading rules' titles (践踏, 踐踏): a question names these as a list item only
        (`QuestionRanking._share`). Only a text with a comma between each two names is read."""
        names = {keyword for keyword, heads in self.lookups.keyword_heads.items() for head in heads
                 if self.lookups.records[head].keyword == keyword
                 and (self.lookups.records[head].number or "").split(".")[0] == KEYWORD_ABILITIES}
        self.listing_at = np.zeros(len(records), bool)
        self.listed_keywords: list[str] = []
        if not names:
            return
        found: set[str] = set()
        ordered = sorted(names, key=lambda n: (-len(n), n))
        pattern = re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, ordered)) + r")(?![\w-])")
        for n, r in enumerate(records):
            text = r.text.get("en", "") if r.kind == "rule" else ""
            if text.count(",") >= LIST_NAMES - 1:
                listed = set(pattern.findall(text.lower()))
                if len(listed) >= LIST_NAMES:
                    self.listing_at[n] = True
                    found |= listed
        titles = {title for keyword in found for head in self.lookups.keyword_heads.get(keyword, ())
                  for title in self.lookups.records[head].title.values() if title.lower() not in found}
        self.listed_keywords = sorted(found | titles)

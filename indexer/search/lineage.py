"""The lineage of every rule and glossary entry across the editions of the Comprehensive
Rules: each edition's entries aligned with the next edition's, made once per build.

A rule number means something only within its edition (702.79 is devour in 2009 and persist
in 2026), and the 2009 rules moved whole sections (2008's zones of 217 became the 400s, its
keywords of 502 the 702s). So the build aligns every pair of consecutive editions held as
rules files, entry by entry, and writes the result as one table, `lineage.tsv`: one row per
edge (`from_edition from_key to_edition to_key relation score`). A rule's key is its number
(`702.79a`), a glossary entry's is `term:` and its name's slug (`term:mana-burn`). Every
question about a rule across editions (its history, what it is today, which rulings follow
it, what changed between two editions) is read from this table (`indexer.knowledge.editions`).

How two editions are aligned, in passes, each only over what the passes before left
unmatched (the thresholds are the module's constants, with the reasons beside them):

1. Same number, same text (typography and whitespace aside): `same`.
2. Same text under another number, the only such text on both sides, or the one whose
   parent the earlier passes matched to the other's parent: `renumbered`. Rule numbers inside
   the text (`see rule 502.5`) are masked for this, as they move with the rules they name.
3. The same keyword's titled rule (2008's 502.79 Persist, 2009's 702.76 Persist), or, for a
   glossary entry, the same name with "(Obsolete)" aside: `renumbered` (a term: `renamed`).
4. Fuzzy: rapidfuzz's `ratio` (an edit-distance similarity, 0 to 100) over the masked texts
   of what is left, plus bonuses for context: the parents were matched to each other
   (`PARENT_BONUS`), the number stayed (`NUMBER_BONUS`). Pairs are taken best first, one to
   one, down to `MATCH_AT` (`MEDIUM_MATCH_AT`, `SHORT_MATCH_AT` for shorter texts, where a
   few shared words or letters make a high ratio: `Flanking` and `Flashback`). Headings go
   first, so that their subrules have matched parents to earn the bonus (or, where the old
   parent went to another rule, the penalty). A matched pair is `same`,
   `changed` (same number, other text) or `renumbered`.
5. A rule still unmatched whose number the next edition has, unmatched, with a text that
   holds the old one or is held in it (`partial_ratio` at least `CONTAINED_AT`): `changed`.
6. Headings still unmatched whose subrules went, most of them, under one unmatched heading
   of the next edition: that heading (2008's 217.5 In Play is 2009's 403 Battlefield).
7. Splits and merges: an entry left without a partner whose text is contained
   (`partial_ratio` at least `CONTAINED_AT`) in the text of an entry of the other edition
   in the gap it sits in (between the partners of the nearest matched entries before and
   after it, at most `GAP` entries), or holds one's text, was split from it (`split`, on
   every edge of the entry split) or merged into it (`merged`); not words one rule repeats
   from another (`lineage_leftovers.without_repeats`).
8. to 11. Over what is still left over (`indexer.search.lineage_leftovers`): glossary entries
   renamed, a kept number given up for a rule beside, rules reworded as they moved, rules and
   glossary entries that went whole into a rule, the only rule left over under a rule.
12. The sentences of a matched rule that went to a rule beside or under the one it became:
   parts of a split (`lineage_leftovers.sentence_parts`).
13. Between editions that rewrote most of the rules, the rules left over after a matched rule
   paired in order with those after the rule it became (`lineage_leftovers.runs_in_order`),
   then an entry whose rarer words went into one entry of the next
   (`lineage_leftovers.rare_words_held`).
14. Two rules of one text, both matched, each to the rule where more of its siblings went;
   the rules above them placed again by their subrules (`lineage_leftovers.twins_placed`).
15. What is left is `added` (no entry before) or `removed` (none after).

The gold list of tests/lineage_gold.tsv, found by reading the files, checks the outcome;
tests/lineage_read.tsv, links read against the files, measures it (`benchmarks.lineage_reading`).
"""
from __future__ import annotations

import csv
import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from rapidfuzz import fuzz, process

from indexer.documents.obsolete_terms import OBSOLETE_MARK
from indexer.documents.records import Record, from_rules_file
from indexer.documents.references import rule_sort_key
from indexer.search.lineage_leftovers import (
    MOVED,
    POINTER_WORDS,
    absorbed,
    content_words,
    moved_rules,
    nearer_beside,
    only_children,
    rare_words_held,
    renamed_terms,
    reworded_in,
    runs_in_order,
    sentence_parts,
    twins_placed,
    without_repeats,
)

FILE = "lineage.tsv"
COLUMNS = ("from_edition", "from_key", "to_edition", "to_key", "relation", "score")
RELATIONS = ("same", "changed", "renumbered", "renamed", "split", "merged", "added", "removed")

# A fuzzy pair is taken from this similarity on (bonuses included): rewordings of one rule
# across the 2009 renumbering ("play" → "the battlefield", "played" → "cast") keep 70 to 95;
# unrelated sentences of the rules' own vocabulary score 35 to 55.
MATCH_AT = 62
# Shorter texts need more, as a few shared words make a high ratio: under MEDIUM characters
# ("Unpayable costs can't be paid. (See rule 203.1b.)" and "Some costs include an {X} or an
# X. See rule 107.3." score 60), and under SHORT (titles: "Flanking" and "Flashback").
MEDIUM = 100
MEDIUM_MATCH_AT = 75
SHORT = 30
SHORT_MATCH_AT = 90
# Context bonuses: a pair whose parents were matched to each other, or that kept its number.
# Enough to choose between near-equal candidates (the "General" rules of each section), too
# little to carry an unrelated text over MATCH_AT. A pair whose old parent was matched to
# another loses twice PARENT_BONUS: "Multiple instances of banding ... are redundant" stays
# with banding rather than go to a new keyword's sentence that differs by one word.
PARENT_BONUS = 10
NUMBER_BONUS = 5
# A text is part of another (a split or merge) when partial_ratio finds it there at this
# similarity, and it is at least CONTAINED_MIN characters long (shorter ones are in everything).
CONTAINED_AT = 90
CONTAINED_MIN = 40
# A text reworded as it was split or merged is part of another (`reworded_in`) only with
# partial_ratio at least REWORDED_SIMILAR, under a rule that the old text's rule
# became (`Pair.kin`), and with no word of a rule's title left out that the other edition
# uses: rules written from one template for different things ("each vanguard card is
# controlled by its owner", "each conspiracy card ...") share their other words too, while a
# rewording leaves out words the other edition does not use ("in play" before "battlefield").
REWORDED_SIMILAR = 72
TITLE_WORDS = 3
# A one-word rule title names a thing that two rules of one template tell apart (changeling,
# infect, vanguard, commander: about 2% of the entries or fewer) unless THING_SHARE of the two
# editions' entries have the word: then it is the game's own vocabulary (stack, damage,
# battlefield: 4.6% to 12%), which a rule may gain or lose as it is rewritten (2010's 511.1, "at
# end of combat" abilities going on the stack, is 2016's 511.2, which speaks of the combat
# damage step instead).
THING_SHARE = 0.04
MERGED_SHARE = 0.5
# The widest gap between matched entries searched for the parts of a split or merge.
GAP = 12
_QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "—": "-", "–": "-", "−": "-", "™": ""})
_SPACE = re.compile(r"\s+")
_NUMBER = re.compile(r"\b\d{3}(?:\.\d+[a-z]?(?:-[a-z])?)?\b")
_SUBRULE = re.compile(r"[a-z]$")


def plain(text: str) -> str:
    """A text with typography and spacing folded away: what `same` compares."""
    return _SPACE.sub(" ", text.translate(_QUOTES).replace("_", "")).strip().lower()


def masked(text: str) -> str:
    """`plain`, with rule numbers masked: what the matching compares."""
    return _NUMBER.sub("#", plain(text))


@dataclass
class Entry:
    """A rule, subrule or glossary entry of one edition, as the alignment compares it."""

    key: str
    parent: str | None
    depth: int          # 0 a section (702), 1 a rule (702.79), 2 a subrule (702.79a), 3 a term
    plain: str
    masked: str
    keyword: str | None
    heading: bool       # a titled rule whose text is its title (702.79 "Persist")
    name: str = ""      # a glossary entry's name, folded, without "(Obsolete)"
    # The content words the passes over what is left over compare, pointers ("see rule") left out.
    words: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        self.words = frozenset(content_words(self.masked) - POINTER_WORDS)


def _needed(length: int) -> float:
    """The similarity a fuzzy pair needs, bonuses included, for the shorter text's length."""
    return SHORT_MATCH_AT if length < SHORT else MEDIUM_MATCH_AT if length < MEDIUM else MATCH_AT


def _depth(number: str) -> int:
    if "." not in number:
        return 0
    return 2 if _SUBRULE.search(number) else 1


def entries(records: Iterable[Record]) -> list[Entry]:
    """The entries of one edition's rules file, in rule order, then its glossary."""
    found = []
    for r in records:
        text = r.text.get("en") or next(iter(r.text.values()), "")
        if r.kind == "rule" and r.number:
            title = r.title.get("en") or ""
            found.append(Entry(r.number, r.parent, _depth(r.number), plain(text), masked(text), r.keyword,
                               bool(title) and plain(title) == plain(text)))
        elif r.kind == "term":
            name = r.names.get("en") or next(iter(r.names.values()), "")
            key = term_key(r)
            bare = plain(OBSOLETE_MARK.sub("", name))
            found.append(Entry(key, None, 3, plain(text), masked(f"{bare}: {text}"), None, False, bare))
    rules = sorted((e for e in found if e.depth < 3), key=lambda e: rule_sort_key(e.key))
    return rules + [e for e in found if e.depth == 3]


@dataclass(frozen=True)
class Edge:
    from_edition: str
    from_key: str       # "" for an added entry
    to_edition: str
    to_key: str         # "" for a removed entry
    relation: str
    score: int          # similarity of the texts, 0-100 (100: the same, typography aside)


class Pair:
    """The alignment of two consecutive editions' entries (the passes of the module's doc)."""

    def __init__(self, old: list[Entry], new: list[Entry]):
        self.old, self.new = old, new
        self.old_by = {e.key: e for e in old}
        self.old_at = {e.key: n for n, e in enumerate(old)}
        self.new_by = {e.key: e for e in new}
        self.forward: dict[str, str] = {}
        self.back: dict[str, str] = {}
        self.scores: dict[str, int] = {}
        # Each edition's words, and the words of either's short rule titles, the names of
        # things (Haste, Vanguard, Conspiracy Draft): `_contained`.
        self.vocabulary = [set().union(*(content_words(e.masked) for e in side)) for side in (old, new)]
        self.title_words = set().union(*(content_words(e.masked) for e in (*old, *new)
                                         if e.heading and len(e.masked.split()) <= TITLE_WORDS))
        having = Counter(w for e in (*old, *new) for w in e.words)
        self.names_of_things = {e.masked for e in (*old, *new) if e.heading and len(e.masked.split()) == 1
                                and having[e.masked] < THING_SHARE * (len(old) + len(new))}
        # Each word of a short title that a matched heading took in place of other words, and
        # those words (2008's 217.5 "In Play" is 2009's 403 "Battlefield": battlefield, {play}):
        # read when the first passes have aligned the headings (`align`).
        self.renamed: dict[str, set[str]] = defaultdict(set)

    def take(self, a: Entry, b: Entry) -> None:
        self.forward[a.key] = b.key
        self.back[b.key] = a.key
        self.scores[a.key] = 100 if a.plain == b.plain else round(fuzz.ratio(a.masked, b.masked))

    def left(self, side: list[Entry], matched: dict[str, str], kinds: tuple[bool, ...] = (False, True)) -> list[Entry]:
        return [e for e in side if e.key not in matched and (e.depth == 3) in kinds]

    def align(self) -> None:
        for a in self.old:
            b = self.new_by.get(a.key)
            if b is not None and a.plain == b.plain:
                self.take(a, b)
        self._same_text()
        self._same_title()
        for depth in (0, 1, 2, 3):
            self._fuzzy(depth)
        self._kept_number()
        for depth in (1, 0):
            self._by_children(depth)
        for a in self.old:
            b = self.new_by.get(self.forward.get(a.key, ""))
            if b is not None and a.heading and b.heading \
                    and max(len(a.masked.split()), len(b.masked.split())) <= TITLE_WORDS:
                old_words, new_words = content_words(a.masked), content_words(b.masked)
                for word in new_words - old_words:
                    self.renamed[word] |= old_words - new_words

    def _parents_match(self, a: Entry, b: Entry) -> bool:
        return a.parent is not None and self.forward.get(a.parent) == b.parent

    def _context(self, a: Entry, b: Entry) -> int:
        """The bonus (or penalty) of a pair's context: parents matched to each other, or the
        old one's parent matched to another (a subrule leaving its rule's successor for
        another rule needs a closer text)."""
        if self._parents_match(a, b):
            return PARENT_BONUS
        return -2 * PARENT_BONUS if a.parent in self.forward else 0

    def _same_text(self) -> None:
        for terms in (False, True):
            olds: dict[str, list[Entry]] = defaultdict(list)
            news: dict[str, list[Entry]] = defaultdict(list)
            for a in self.left(self.old, self.forward, (terms,)):
                olds[a.masked].append(a)
            for b in self.left(self.new, self.back, (terms,)):
                news[b.masked].append(b)
            for text, group in olds.items():
                others = news.get(text, [])
                if len(group) == len(others) == 1:
                    self.take(group[0], others[0])
                    continue
                for a in group:
                    fits = [b for b in others if b.key not in self.back and self._parents_match(a, b)]
                    if len(fits) == 1:
                        self.take(a, fits[0])

    def _same_title(self) -> None:
        news: dict[tuple, list[Entry]] = defaultdict(list)
        for b in self.new:
            if b.key not in self.back and ((b.heading and b.keyword) or b.name):
                news[(b.keyword, b.name)].append(b)
        for a in self.old:
            if a.key not in self.forward and ((a.heading and a.keyword) or a.name):
                found = [b for b in news.get((a.keyword, a.name), []) if b.key not in self.back]
                if len(found) == 1:
                    self.take(a, found[0])

    def _fuzzy(self, depth: int) -> None:
        olds = [a for a in self.left(self.old, self.forward) if a.depth == depth]
        news = self.left(self.new, self.back, (depth == 3,))
        if not olds or not news:
            return
        scores = process.cdist([a.masked for a in olds], [b.masked for b in news], scorer=fuzz.ratio,
                               dtype=np.float32, score_cutoff=MATCH_AT - PARENT_BONUS - NUMBER_BONUS)
        rows, cols = np.nonzero(scores)
        candidates = []
        for i, j in zip(rows.tolist(), cols.tolist(), strict=True):
            a, b = olds[i], news[j]
            score = float(scores[i, j]) + self._context(a, b) + NUMBER_BONUS * (a.key == b.key)
            if score >= _needed(min(len(a.masked), len(b.masked))):
                candidates.append((-score, i, j))
        for _, i, j in sorted(candidates):
            a, b = olds[i], news[j]
            if a.key not in self.forward and b.key not in self.back:
                self.take(a, b)

    def _by_children(self, depth: int, only: set[str] | None = None) -> None:
        """A heading left unmatched whose subrules went, most of them, under one unmatched
        heading of the next edition: that heading (2008's 217.5 "In Play", whose subrules
        are 2009's 403.x, is 403 "Battlefield"; 2022's 702.89 Totem Armor is 2026's Umbra
        Armor); `only` these headings, if given."""
        children: dict[str, list[str]] = defaultdict(list)
        for a in self.old:
            if a.parent:
                children[a.parent].append(a.key)
        # The rules they became vote with the rule above them; a section's may have become
        # subrules (2008's 415, Targeted Spells and Abilities, is 2009's 113, Targets, where
        # 415.1 is 113.1a), so they vote with their section too, when that decides nothing.
        ups = [lambda key: self.new_by[key].parent] + ([lambda key: key.split(".")[0]] if depth == 0 else [])
        for a in self.left(self.old, self.forward, (False,)):
            if a.depth != depth or not children.get(a.key) or (only is not None and a.key not in only):
                continue
            for up in ups:
                votes = Counter(up(self.forward[c]) for c in children[a.key] if c in self.forward)
                if not votes:
                    break
                parent, count = votes.most_common(1)[0]
                b = self.new_by.get(parent or "")
                if b is not None and b.key not in self.back and count >= max(1, len(children[a.key]) / 2):
                    self.take(a, b)
                    break

    def _kept_number(self) -> None:
        """A rule left unmatched whose number the next edition still has, unmatched, with a
        text holding the old one or held in it: `changed` (2016's 100.5 "There is no maximum
        deck size." grew into 2022's 100.5)."""
        for a in self.left(self.old, self.forward, (False,)):
            b = self.new_by.get(a.key)
            if b is not None and b.key not in self.back:
                short, long = sorted((a.masked, b.masked), key=len)
                if short and fuzz.partial_ratio(short, long) >= CONTAINED_AT:
                    self.take(a, b)

    def _gap(self, side: list[Entry], at: int, matched: dict[str, str], other: list[Entry],
             positions: dict[str, int]) -> list[Entry]:
        """The entries of the other edition in the gap an unmatched entry sits in: between
        the partners of the nearest matched entries before and after it (at most GAP)."""
        before = next((positions[matched[side[k].key]] for k in range(at - 1, -1, -1) if side[k].key in matched), 0)
        after = next((positions[matched[side[k].key]] for k in range(at + 1, len(side)) if side[k].key in matched),
                     len(other) - 1)
        if after < before:
            before, after = after, before
        return other[max(before, after - GAP): after + 1] if after - before > GAP else other[before: after + 1]

    def _contained(self, part: Entry, whole: Entry, old: Entry, new: Entry) -> str | None:
        """How `part` is a part of `whole` (a rule of a rule, a glossary entry of an entry),
        `old` and `new` being the two as editions go: "found" (its text is there), "reworded"
        (a rule left over, its words there: `reworded_in`, REWORDED_SIMILAR, under a rule the
        old one's rule became), or None."""
        if (part.depth == 3) != (whole.depth == 3) or len(part.masked) < CONTAINED_MIN \
                or len(whole.masked) <= len(part.masked):
            return None
        similar = fuzz.partial_ratio(part.masked, whole.masked)
        if similar >= CONTAINED_AT:
            return "found"
        # Reworded, a part must be left over (a rule matched whole elsewhere is not also a part).
        if (part.depth == 3 or similar < REWORDED_SIMILAR or part.key in (self.back if part is new else self.forward)
                or not self.kin(old, new)):
            return None
        # An old rule merged may have lost a sentence on the way (2008's 212.6b: other zones).
        left_out = reworded_in(part.masked, whole.masked, MERGED_SHARE if part is old else 1.0)
        whole_side = self.vocabulary[0 if whole is old else 1]
        return "reworded" if left_out is not None and not left_out & self.title_words & whole_side else None

    def kin(self, old: Entry, new: Entry) -> bool:
        """Whether `old`, or the rule or section right above it, became `new` or an entry above
        it (a subrule's section is too wide: every keyword ability is in 702)."""
        above_new = set()
        at: Entry | None = new
        while at is not None:
            above_new.add(at.key)
            at = self.new_by.get(at.parent) if at.parent else None
        parent = self.old_by.get(old.parent) if old.parent else None
        return any(self.forward.get(e.key) in above_new for e in (old, parent) if e is not None)

    def _parts(self) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
        """(old key, new key) pairs of splits and of merges, found in the gaps around the
        entries left unmatched. An old rule left over whose words alone are found in a new one
        left over, and in no other, is that rule reworded (and moved), taken as a pair here:
        2022's 310.7 ("whenever you roll {CHAOS}") is 2026's 311.7 ("whenever chaos ensues",
        and more)."""
        split: set[tuple[str, str]] = set()
        merged: set[tuple[str, str]] = set()
        grown: set[tuple[str, str]] = set()

        def relate(a: Entry, b: Entry) -> None:
            if self._contained(b, a, a, b):
                split.add((a.key, b.key))
            elif how := self._contained(a, b, a, b):
                merged.add((a.key, b.key))
                if how == "reworded":
                    grown.add((a.key, b.key))

        old_at, new_at = self.old_at, {e.key: n for n, e in enumerate(self.new)}
        for at, a in enumerate(self.old):
            if a.key not in self.forward:
                for b in self._gap(self.old, at, self.forward, self.new, new_at):
                    relate(a, b)
        for at, b in enumerate(self.new):
            if b.key not in self.back:
                for a in self._gap(self.new, at, self.back, self.old, old_at):
                    relate(a, b)
        without_repeats(self, split, merged)
        of, to = Counter(a for a, _ in split | merged), Counter(b for _, b in split | merged)
        for a_key, b_key in sorted(grown):
            if of[a_key] == to[b_key] == 1 and a_key not in self.forward and b_key not in self.back:
                self.take(self.old_by[a_key], self.new_by[b_key])
                merged.discard((a_key, b_key))
        return split, merged

    def edges(self, old_edition: str, new_edition: str) -> list[Edge]:
        self.align()
        split, merged = self._parts()
        parts = split | merged
        renamed_terms(self)
        nearer_beside(self, parts)
        for moved in MOVED:
            moved_rules(self, moved, parts)
        merged |= absorbed(self, parts)
        parts = split | merged
        only_children(self, parts)
        sentence_parts(self, split)
        runs_in_order(self, split | merged)
        merged |= rare_words_held(self, split | merged)
        above_twins = twins_placed(self)
        for depth in (1, 0):
            self._by_children(depth, above_twins)
        parts = split | merged
        splitting = {a for a, _ in split}
        # A rule a glossary entry went into is still the rule that became it, not a merge.
        merging = {b for a, b in merged if self.old_by[a].depth < 3}
        out = []
        for a in self.old:
            b_key = self.forward.get(a.key)
            if b_key is not None:
                score = self.scores[a.key]
                relation = ("split" if a.key in splitting else "merged" if b_key in merging
                            else "same" if a.key == b_key and score == 100
                            else "changed" if a.key == b_key
                            else "renamed" if a.depth == 3 else "renumbered")
                out.append(Edge(old_edition, a.key, new_edition, b_key, relation, score))
            elif not any(k == a.key for k, _ in parts):
                out.append(Edge(old_edition, a.key, new_edition, "", "removed", 0))
        for a_key, b_key in sorted(parts, key=lambda p: (self.old_at[p[0]], p[1])):
            if self.forward.get(a_key) != b_key:
                a, b = self.old_by[a_key], self.new_by[b_key]
                short, long = sorted((a.masked, b.masked), key=len)
                out.append(Edge(old_edition, a_key, new_edition, b_key, "split" if (a_key, b_key) in split
                                else "merged", round(fuzz.partial_ratio(short, long))))
        reached = {b for _, b in parts}
        for b in self.new:
            if b.key not in self.back and b.key not in reached:
                out.append(Edge(old_edition, "", new_edition, b.key, "added", 0))
        return out


def rules_file_records(records: Iterable[Record]) -> dict[str, list[Record]]:
    """Each edition held as a rules file: its own records (not the documents quoting it)."""
    editions: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        if r.edition and from_rules_file(r) and r.kind in ("rule", "term"):
            editions[r.edition].append(r)
    return dict(sorted(editions.items()))


def align(records: Iterable[Record]) -> list[Edge]:
    """The lineage of every entry of every rules edition: the edges from each edition to the next."""
    editions = rules_file_records(records)
    names = list(editions)
    out: list[Edge] = []
    previous = entries(editions[names[0]]) if names else []
    for old, new in itertools.pairwise(names):
        following = entries(editions[new])
        out.extend(Pair(previous, following).edges(old, new))
        previous = following
    return out


def write(edges: Iterable[Edge], folder: Path) -> None:
    """`lineage.tsv` in `folder`: the edges (of `align`), a row each."""
    with open(folder / FILE, "w", encoding="utf-8", newline="") as fh:
        out = csv.writer(fh, delimiter="\t", lineterminator="\n")
        out.writerow(COLUMNS)
        for e in edges:
            out.writerow([e.from_edition, e.from_key, e.to_edition, e.to_key, e.relation, e.score])


def read(path: Path) -> list[Edge]:
    """The edges of a `lineage.tsv`; ValueError when it is not one."""
    with open(path, encoding="utf-8", newline="") as fh:
        rows = csv.reader(fh, delimiter="\t")
        if tuple(next(rows, ())) != COLUMNS:
            raise ValueError(f"{path}: not a lineage table")
        found = []
        for row in rows:
            if len(row) != len(COLUMNS) or row[4] not in RELATIONS:
                raise ValueError(f"{path}: bad row {row!r}")
            found.append(Edge(row[0], row[1], row[2], row[3], row[4], int(row[5])))
        return found


def term_key(record: Record) -> str:
    """A glossary entry's key in the lineage (`term:mana-burn`)."""
    return "term:" + record.id.rsplit(":term:", 1)[-1]


def record_key(record: Record) -> str | None:
    """A rules file record's key in the lineage: its number, or `term_key` (None otherwise)."""
    if record.kind == "rule" and record.number:
        return record.number
    return term_key(record) if record.kind == "term" else None


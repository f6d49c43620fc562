"""The lineage's passes over what its first passes leave over (docs/lineage.md, steps 8 to 14):
glossary entries renamed, a kept number given up for a rule beside, rules reworded as they
moved, rules and glossary entries that went whole into a rule, the only rule left over under a
rule, sentences that went to a rule beside, entries whose rarer words went into one rule of an
edition that rewrote the rules (in order where they follow a matched rule), twins of one text
by their place; the parts of splits and merges that are words repeated (step 7); and the words
every pass compares (`content_words`, `dice`, `reworded_in`). Each reads and changes a
`lineage.Pair`, the alignment of two editions, through its `take`."""
from __future__ import annotations

import itertools
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Set
from dataclasses import dataclass
from typing import Protocol

from rapidfuzz import fuzz

from indexer.search.analysis import english_stem
from indexer.search.query import FUNCTION_WORDS


class Entry(Protocol):
    """What the passes read of an entry (`lineage.Entry`)."""

    key: str
    parent: str | None
    depth: int
    masked: str
    name: str
    words: frozenset[str]


class Pair(Protocol):
    """What the passes read and change of the alignment of two editions (`lineage.Pair`)."""

    old: list
    new: list
    old_by: dict
    new_by: dict
    old_at: dict[str, int]
    forward: dict[str, str]
    back: dict[str, str]
    scores: dict[str, int]
    names_of_things: set[str]
    renamed: dict[str, set[str]]

    def take(self, a, b) -> None: ...

    def left(self, side: list, matched: dict[str, str], kinds: tuple[bool, ...] = (False, True)) -> list: ...

    def kin(self, old, new) -> bool: ...



# A glossary entry left over is renamed to the one left over in the next edition whose name has
# its name's words, stemmed ("Flip a Coin" is "Flipping a Coin", "State Triggers" "State
# Trigger"), or holds them or is held in them ("Postcombat" is "Postcombat Main Phase") when
# their texts share RENAMED_TEXT_AT of their words by Dice's share ("Order", of a library's
# cards, shares 0.12 with "Damage Assignment Order"; a renamed entry cut to a pointer 0.3):
# the only such pair of either. Then, as sure, a name with one word of the longer name
# replaced ("State-Based Effects" is "State-Based Actions", "Leaves Play" "Leaves the
# Battlefield").
RENAMED_TEXT_AT = 0.25
# A rule left over, reworded past every ratio of the first passes as it moved (2008's 217.8d, "a phased-out
# token ceases to exist", is 2009's 702.23j of phasing), is the entry left over of the next
# edition that shares the most of its content words, when that entry shares the most with it
# too. Two shares are read, each with its own thresholds (`Moved`, `MOVED`): Dice's, of both
# texts' words; and how much of the shorter text's words the longer holds, for a rule that
# grew or was cut as it moved (2008's 200.8 "an object is ..." is the first sentence of 2009's
# 109.1). Read against the files, rules that merely share the rules' vocabulary share 0.3 to
# 0.5 by Dice, the same rule reworded 0.5 to 0.9 (docs/lineage.md).
MOVED_TOKENS_AT = 75
# Texts of fewer than SHORT_WORDS content words share a few by chance: under a rule the old
# rule's rule became, they need SHORT_SHARE more, unless they kept their number.
SHORT_WORDS = 10
SHORT_SHARE = 0.15
# A pair that kept its number may be told by fewer words (2016's 201.2a "same name").
KEPT_MIN_WORDS = 5
# An old rule left over, and no part of a split or merge, whose content words (ABSORBED_MIN_WORDS
# at least) are ABSORBED_AT of them in one entry of the next edition, under a rule the old
# rule's rule became, ABSORBED_MARGIN ahead of any other entry, was merged into it (2010's
# 903.10 and 903.11, two Commander deck rules, into 2016's 903.9), or moved to it when nothing
# else went there; ABSORBED_MARGIN ahead, too, of what the old rule that became that entry
# held of it. Read against the files: of 12 such, 10 are, 1 is a judgement call.
ABSORBED_AT = 0.7
ABSORBED_MARGIN = 0.1
ABSORBED_MIN_WORDS = 6
# Anywhere else (2008's 401.1 "a spell is a card on the stack" went into 2009's 111.1, in the
# new section of objects), and for a glossary entry whose text went into a rule (2008's Tie
# into 2009's 608.5), it takes twice the margin and eight words, as a rule moved by the share
# of its words held does (`MOVED`): seven words are held by chance (2010's "No multiplayer
# options are used in Two-Headed Giant games" by 2016's 805.1 of the shared team turns option).
ABSORBED_APART_MARGIN = 2 * ABSORBED_MARGIN
ABSORBED_APART_MIN_WORDS = 8
# The one rule left over under a rule, when the rule it became has one left over too, is the same
# rule from this Dice's share of their words: each step's "the active player gets priority",
# renumbered as a step lost a rule (2010's 509.5 is 2016's 509.4), shares 0.3 to 0.5.
ONLY_CHILD_AT = 0.3
# Where one is left over on one side and several on the other (2010's draw step lost its rule
# of triggers as well: 504.2 and 504.3 left over, 2016's 504.2 alone), the nearest of the several,
# this far ahead of the next: nearer pairs, at 0.1, are rules that share the words of costs.
ONLY_CHILD_MARGIN = 0.2
# A rule matched at its own number whose text it barely shares (a kept number's pair), when a
# rule left over beside it shares NEARER_MARGIN more of the new rule's words, by Dice's share,
# and ONLY_CHILD_AT at least: that rule is the new one, and the first is left over again. 2010's
# steps lost their rules of triggers in 2016, and the rule of priority took their number
# (2010's 511.2 "Second, the active player gets priority" is 2016's 511.1; 2010's 511.1, the
# end of combat's triggers, was not). At 0.1 the same pairs are taken.
NEARER_MARGIN = 0.15
# A text reworded as it was split or merged is part of another when each of its sentences of
# REWORDED_MIN_WORDS content words or more has REWORDED_AT of them in the other's words: the
# 2009 renumbering split 2008's 502.5b (haste) into 702.10b and 702.10c, rewording both
# ("hasn't been controlled ... since the start of his or her most recent turn" → "since his or
# her most recent turn began"), and 212.9d (loyalty) into 306.5a-c ("in play" → "on the
# battlefield"): 0.83 to 0.92 of their words are the old rule's. Fewer words than that are
# the vocabulary of every rule.
REWORDED_AT = 0.8
REWORDED_MIN_WORDS = 6
# A sentence of a rule matched whole, or split (REWORDED_MIN_WORDS content words or more),
# that no rule it became holds went to a rule beside one of them, or under it, or a new rule
# under one beside it (long rules there hold a sentence's words by chance), that holds
# REWORDED_AT of its words, SENTENCE_MARGIN ahead of any other there and of what the rule that
# became it held: a part of a split (2008's 310.1, the combat damage step, is 2009's 510.1
# and, for its triggers, 510.3; 2016's 112.10 is 2022's 113.10 and, for "the most recent one
# prevails", 113.10c; 2008's 300.2, split into 2009's 500.3, is 500.2 and 500.11 too).
SENTENCE_MARGIN = 0.15
# An old entry left over, no part of a split or merge, of RARE_MIN_WORDS content words or more,
# went into the one entry of the next edition that holds RARE_AT of its words weighed by their
# rarity there (a word's weight: the log of the entries over the entries that have it),
# RARE_MARGIN ahead of any other, among the sections its own section's entries went to: 2008's
# 410.8 (intervening "if" clauses) is in 2009's 603.4, 0.64 against 0.26, though its "in play"
# and "triggers" are reworded. A rule held below RARE_AT was removed, whatever sentence of it
# lives on: 2008's 300.3, mana burn, holds 0.43 of its words in 2009's 500.4, the mana pools
# emptying. Only between editions that rewrote most of the rules, where
# fewer than REWRITTEN_BELOW of the entries matched kept their text (the 2009 renumbering kept
# 0.41; every later edition 0.76 or more): in the others, a rule left over was removed, and
# what holds its rarer words is a rule of its kind (2016's planeswalker uniqueness rule and the
# legend rule; "no multiplayer options" and the shared team turns option, 2010 and 2016).
# Where the next edition rewrote the rules, the rules left over right after a matched rule
# and those right after the rule it became are paired in their order, each holding RARE_AT of
# the other's rarer words, the order that holds the most: rules written from one template hold
# each other's words about equally, so no margin can tell them, but their order can (2008's
# 310.2c and 310.2d, a blocked and a blocking creature's damage, hold 0.78 of each of 2009's
# 510.1c and 510.1d, which they became; 2008's lifelink 502.68a and 502.68b are 2009's 702.13a
# and 702.13b, rewritten from a trigger to a static ability).
RARE_AT = 0.45
RARE_MARGIN = 0.15
RARE_MIN_WORDS = 5
REWRITTEN_BELOW = 0.6
# Words every pointer holds ("See rule 702.5"): no sign of the same rule.
POINTER_WORDS = frozenset({"see", "rule", "rules"})


@dataclass(frozen=True)
class Moved:
    """One share of content words that `moved_rules` pairs entries by, and its thresholds: a
    pair under a rule the old rule's rule became (`Pair.kin`), or at the number it kept, is
    the same rule from `kin_at`; anywhere else from `at`, `margin` ahead of either's next best, with
    MOVED_TOKENS_AT of rapidfuzz's token_set_ratio; glossary entries, compared with their
    names, from `term_at` (None: not by this share). Texts of fewer than `min_words` content
    words (headings, short pointers) are too few words to tell."""

    held: bool          # False: Dice's share; True: the share of the shorter text's words
    kin_at: float
    at: float
    margin: float
    term_at: float | None
    min_words: int

    def share(self, a: Set[str], b: Set[str], kept: bool = False) -> float:
        """The share of words of two texts; 0 when one has too few, fewer for a kept number."""
        if min(len(a), len(b)) < (KEPT_MIN_WORDS if kept else self.min_words):
            return 0.0
        return len(a & b) / min(len(a), len(b)) if self.held else dice(a, b)


MOVED = (Moved(held=False, kin_at=0.45, at=0.6, margin=0.1, term_at=0.5, min_words=5),
         Moved(held=True, kin_at=0.6, at=0.8, margin=0.15, term_at=None, min_words=8))

_WORD = re.compile(r"[a-z]{3,}")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def content_words(text: str) -> set[str]:
    """A text's words that say something (no function words), a plural's s left off."""
    return {w[:-1] if len(w) > 4 and w.endswith("s") and not w.endswith("ss") else w
            for w in _WORD.findall(text) if w not in FUNCTION_WORDS}


def long_sentences(text: str, leave_out: Set[str] = frozenset()) -> list[set[str]]:
    """The content words (but `leave_out`) of each sentence of a text long enough to tell
    (REWORDED_MIN_WORDS of them)."""
    return [found for sentence in _SENTENCE_END.split(text)
            if len(found := content_words(sentence) - leave_out) >= REWORDED_MIN_WORDS]


def reworded_in(part: str, whole: str, share: float = 1.0) -> set[str] | None:
    """If `share` of the sentences of `part` long enough to tell (REWORDED_MIN_WORDS content
    words), and at least one, have REWORDED_AT of their content words in `whole`: the words
    of those sentences that `whole` lacks; else None."""
    words = content_words(whole)
    sentences = long_sentences(part)
    found_in = [found for found in sentences if len(found & words) >= REWORDED_AT * len(found)]
    if not found_in or len(found_in) < share * len(sentences):
        return None
    return set().union(*found_in) - words


def dice(a: Set[str], b: Set[str]) -> float:
    """Dice's share of two sets of words: the common words over their mean size."""
    return 2 * len(a & b) / (len(a) + len(b)) if a or b else 0.0


def name_stems(entry: Entry) -> list[frozenset[str]]:
    """A glossary entry's names (several, comma-separated, for an obsolete one), each as the
    stems of its words."""
    return [found for name in entry.name.split(",")
            if (found := frozenset(english_stem(w) for w in _WORD.findall(name) if w not in FUNCTION_WORDS))]


def named_apart(pair: Pair, a: Entry, b: Entry) -> bool:
    """Whether two texts are written from one template for two things: each holds a rule
    title of one word (`names_of_things`, not the game's own vocabulary: THING_SHARE in
    `lineage`) that the other does not ("Multiple instances of changeling are redundant",
    "... of infect ..."), the new name no renaming of the old (2008's "in play" is 2009's
    "battlefield": `Pair.renamed`)."""
    a_words, b_words = content_words(a.masked), content_words(b.masked)
    a_names, b_names = (a_words - b_words) & pair.names_of_things, (b_words - a_words) & pair.names_of_things
    return bool(a_names and {name for name in b_names if not pair.renamed.get(name, set()) & (a_words - b_words)})


def moved_rules(pair: Pair, moved: Moved, parts: set[tuple[str, str]]) -> None:
    """Entries left over on both sides, and no part of a split or merge (`parts`), that are
    one rule reworded as it moved, by one share of their words (`Moved`): each the other's
    best, best pairs first, one to one."""
    of, to = {k for k, _ in parts}, {k for _, k in parts}
    old_words = {a.key: a.words for a in pair.left(pair.old, pair.forward) if a.key not in of}
    new_words = {b.key: b.words for b in pair.left(pair.new, pair.back) if b.key not in to}
    shares = {(a_key, b_key): value for a_key, a_words in old_words.items() for b_key, b_words in new_words.items()
              if (pair.old_by[a_key].depth == 3) == (pair.new_by[b_key].depth == 3)
              and (value := moved.share(a_words, b_words, a_key == b_key))}
    ranked: tuple[dict[str, list[float]], ...] = (defaultdict(list), defaultdict(list))  # shares, best first
    for (a_key, b_key), value in shares.items():
        ranked[0][a_key].append(value)
        ranked[1][b_key].append(value)
    for values in (*ranked[0].values(), *ranked[1].values()):
        values.sort(reverse=True)
        values.append(0.0)
    candidates = []
    for (a_key, b_key), value in shares.items():
        a, b = pair.old_by[a_key], pair.new_by[b_key]
        mine, theirs = ranked[0][a_key], ranked[1][b_key]
        if value < mine[0] or value < theirs[0] or named_apart(pair, a, b):
            continue
        if a.depth == 3:
            taken = moved.term_at is not None and value >= moved.term_at
        elif pair.kin(a, b) or a_key == b_key:  # its rule's successor holds it, or its own number
            short = a_key != b_key and min(len(old_words[a_key]), len(new_words[b_key])) < SHORT_WORDS
            taken = value >= moved.kin_at + SHORT_SHARE * short
        else:
            taken = (value >= moved.at and value - max(mine[1], theirs[1]) >= moved.margin
                     and fuzz.token_set_ratio(a.masked, b.masked) >= MOVED_TOKENS_AT)
        if taken:
            candidates.append((-value, pair.old_at[a_key], a_key, b_key))
    for _, _, a_key, b_key in sorted(candidates):
        if a_key not in pair.forward and b_key not in pair.back:
            pair.take(pair.old_by[a_key], pair.new_by[b_key])


def renamed_terms(pair: Pair) -> None:
    """Glossary entries left over, each the other's only one by a name with the other's
    name's words, or holding them, or with one word of the longer name replaced
    (RENAMED_TEXT_AT's comment)."""
    def related(a: str, a_names: list[frozenset[str]], b: str, b_names: list[frozenset[str]], how: str) -> bool:
        if how == "same":
            return any(x == y for x in a_names for y in b_names)
        if how == "held":
            close = any(x <= y or y <= x for x in a_names for y in b_names)
        else:
            close = any(len(x & y) == max(len(x), len(y)) - 1 >= 1 for x in a_names for y in b_names)
        return close and dice(pair.old_by[a].words, pair.new_by[b].words) >= RENAMED_TEXT_AT

    for how in ("same", "held", "replaced"):
        olds = {a.key: name_stems(a) for a in pair.left(pair.old, pair.forward, (True,))}
        news = {b.key: name_stems(b) for b in pair.left(pair.new, pair.back, (True,))}
        pairs = [(a, b) for a, a_names in olds.items() for b, b_names in news.items()
                 if related(a, a_names, b, b_names, how)]
        of, to = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
        for a, b in pairs:
            if of[a] == to[b] == 1:
                pair.take(pair.old_by[a], pair.new_by[b])


def without_repeats(pair: Pair, split: set[tuple[str, str]], merged: set[tuple[str, str]]) -> None:
    """Parts of splits and merges (`lineage.Pair._parts`) that are words repeated, not a rule split or
    merged, taken out: an old rule kept whole elsewhere is no part of another, nor the only
    source of a new rule (2022's prototype rule 719.3 and 2026's omen rule 720.3; 2016's 106.10
    generic mana and 2022's snow mana 106.11), unless that new rule is nearer its text than the
    one it went to: then it went there (2016's 703.4b untapping, grown in 2022's 703.4c)."""
    to = Counter(b for _, b in split | merged)
    for a_key, b_key in sorted(split | merged):
        matched = pair.forward.get(a_key)
        if matched is None or matched == b_key:
            continue
        only_source = (a_key, b_key) in merged and to[b_key] == 1 and b_key not in pair.back
        if pair.scores[a_key] == 100 or only_source:
            split.discard((a_key, b_key))
            merged.discard((a_key, b_key))
        if only_source and fuzz.ratio(pair.old_by[a_key].masked, pair.new_by[b_key].masked) > pair.scores[a_key]:
            del pair.back[matched]
            pair.take(pair.old_by[a_key], pair.new_by[b_key])


def only_children(pair: Pair, parts: set[tuple[str, str]]) -> None:
    """The one rule left over under a section or rule, when the one that became has one left
    over under it too (or either has several, and one is nearest: ONLY_CHILD_MARGIN), and no
    part of a split or merge: the same rule when they share ONLY_CHILD_AT of their words, and
    are not written from one template for two things (`named_apart`)."""
    of, to = {k for k, _ in parts}, {k for _, k in parts}
    olds: dict[str, list[Entry]] = defaultdict(list)
    news: dict[str, list[Entry]] = defaultdict(list)
    for a in pair.left(pair.old, pair.forward, (False,)):
        if a.parent and a.key not in of:
            olds[a.parent].append(a)
    for b in pair.left(pair.new, pair.back, (False,)):
        if b.parent and b.key not in to:
            news[b.parent].append(b)
    for parent, left in olds.items():
        there = news.get(pair.forward.get(parent, ""), [])
        if min(len(left), len(there)) != 1:
            continue
        # One on one side, several on the other: the nearest, ONLY_CHILD_MARGIN ahead.
        shares = sorted(((dice(a.words, b.words), n, a, b) for n, (a, b) in enumerate(itertools.product(left, there))),
                        key=lambda found: found[:2], reverse=True)
        best, _, a, b = shares[0]
        if (best >= ONLY_CHILD_AT and (len(shares) == 1 or best - shares[1][0] >= ONLY_CHILD_MARGIN)
                and not named_apart(pair, a, b)):
            pair.take(a, b)


def absorbed(pair: Pair, parts: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """(old key, new key) of the old rules and glossary entries left over that went whole into
    a rule of the next edition (ABSORBED_AT): merges; a rule that alone went into a rule left
    over is taken as that rule's (`Pair.take`) instead."""
    of = {k for k, _ in parts}
    news = [b for b in pair.new if b.depth < 3]
    found: dict[str, str] = {}
    for a in pair.left(pair.old, pair.forward):
        words = a.words
        if a.key in of or len(words) < ABSORBED_MIN_WORDS:
            continue
        held = sorted(((len(words & b.words) / len(words), n) for n, b in enumerate(news)), reverse=True)
        (best, at), runner_up = held[0], held[1][0] if len(held) > 1 else 0.0
        b = news[at]
        # The entry must hold more of a rule than the old rule that became the entry held: else
        # its words are that rule's (2016's planeswalker uniqueness rule and its legend rule). A
        # glossary entry repeats its rule's words, and goes where they went.
        came = pair.back.get(b.key) if a.depth < 3 else None
        before = len(words & (pair.old_by[came].words if came else frozenset())) / len(words)
        kin = pair.kin(a, b)
        margin = ABSORBED_MARGIN if kin else ABSORBED_APART_MARGIN
        if (best >= ABSORBED_AT and best - max(runner_up, before) >= margin
                and (kin or len(words) >= ABSORBED_APART_MIN_WORDS)):
            found[a.key] = b.key
    return _merged_or_taken(pair, found)


def _merged_or_taken(pair: Pair, found: dict[str, str]) -> set[tuple[str, str]]:
    """(old key, new key) of the old entries left over that went into an entry of the next
    edition (`found`): merges; an entry that alone went into one left over of its own kind
    (a rule into a rule, a glossary entry into a glossary entry) is taken as its (`Pair.take`)
    instead, and a glossary entry gone into a rule stays a merge."""
    into = Counter(found.values())
    for a_key, b_key in list(found.items()):
        a, b = pair.old_by[a_key], pair.new_by[b_key]
        if b_key not in pair.back and into[b_key] == 1 and (a.depth == 3) == (b.depth == 3):
            pair.take(a, b)
            del found[a_key]
    return set(found.items())


def section(entry: Entry) -> str:
    """The section an entry is in (702 for 702.79a); the glossary is one section."""
    return "glossary" if entry.depth == 3 else entry.key.partition(".")[0]


def rewritten(pair: Pair) -> bool:
    """Whether the next edition rewrote most of the rules: fewer than REWRITTEN_BELOW of the
    entries matched kept their text (RARE_AT's comment)."""
    return sum(score == 100 for score in pair.scores.values()) < REWRITTEN_BELOW * len(pair.scores)


def rarity_held(pair: Pair) -> Callable[[Set[str]], Callable[[Set[str]], float]]:
    """For an old entry's words (RARE_MIN_WORDS at least, else held nowhere), how much of them
    a new entry holds, each word weighed by its rarity in the next edition: the log of its
    entries over the entries that have it. The weights are reckoned once an old entry."""
    having = Counter(w for b in pair.new for w in b.words)
    everyone = math.log(len(pair.new))

    def of(words: Set[str]) -> Callable[[Set[str]], float]:
        if len(words) < RARE_MIN_WORDS:
            return lambda there: 0.0
        weight = {w: everyone - math.log(having[w]) if having[w] else everyone for w in words}
        whole = sum(weight.values())
        return lambda there: sum(weight[w] for w in words & there) / whole
    return of


def runs_in_order(pair: Pair, parts: set[tuple[str, str]]) -> None:
    """The rules left over right after a matched rule, and those right after the rule it
    became, paired in their order where the next edition rewrote the rules (the comment
    above RARE_AT): of the orders that pair each with one holding RARE_AT of its rarer words,
    the one that holds the most."""
    if not rewritten(pair):
        return
    of, to = {k for k, _ in parts}, {k for _, k in parts}
    held_of = rarity_held(pair)
    new_at = {b.key: n for n, b in enumerate(pair.new)}

    def run(side: list, start: int, matched: dict[str, str], parts_there: set[str]) -> list:
        found = []
        for e in itertools.takewhile(lambda e: e.key not in matched and e.depth < 3, side[start:]):
            if e.key not in parts_there:
                found.append(e)
        return found

    for at, anchor in enumerate(pair.old):
        if anchor.key not in pair.forward or anchor.depth == 3:
            continue
        olds = run(pair.old, at + 1, pair.forward, of)
        news = run(pair.new, new_at[pair.forward[anchor.key]] + 1, pair.back, to)
        if olds and news:
            held = {a.key: held_of(a.words) for a in olds}

            def alike(a: Entry, b: Entry, held: dict[str, Callable[[Set[str]], float]] = held) -> float:
                return 0.0 if named_apart(pair, a, b) else held[a.key](b.words)

            for a, b in _aligned(olds, news, alike):
                pair.take(a, b)


def _aligned(olds: list, news: list, alike: Callable[[Entry, Entry], float]) -> list[tuple[Entry, Entry]]:
    """The pairs, in order on both sides, each alike from RARE_AT, whose sum of likeness is the
    greatest (an alignment of two sequences by dynamic programming)."""
    score = [[alike(a, b) for b in news] for a in olds]
    best = [[0.0] * (len(news) + 1) for _ in range(len(olds) + 1)]
    for i in range(len(olds) - 1, -1, -1):
        for j in range(len(news) - 1, -1, -1):
            paired = score[i][j] + best[i + 1][j + 1] if score[i][j] >= RARE_AT else 0.0
            best[i][j] = max(paired, best[i + 1][j], best[i][j + 1])
    pairs, i, j = [], 0, 0
    while i < len(olds) and j < len(news):
        if score[i][j] >= RARE_AT and best[i][j] == score[i][j] + best[i + 1][j + 1]:
            pairs.append((olds[i], news[j]))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return pairs


def rare_words_held(pair: Pair, parts: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """(old key, new key) of the old entries left over whose rarer words went into one entry
    of the next edition, where it rewrote most of the rules (RARE_AT's comment): merges; an
    entry that alone went into one left over is taken as its (`Pair.take`) instead."""
    if not rewritten(pair):
        return set()
    of = {k for k, _ in parts}
    held_of = rarity_held(pair)
    went: dict[str, set[str]] = defaultdict(set)
    for a_key, b_key in pair.forward.items():
        went[section(pair.old_by[a_key])].add(section(pair.new_by[b_key]))
    found: dict[str, str] = {}
    for a in pair.left(pair.old, pair.forward):
        if a.key in of or len(a.words) < RARE_MIN_WORDS:
            continue
        places = went.get(section(a), set())
        held_in = held_of(a.words)
        held = sorted(((held_in(b.words), n) for n, b in enumerate(pair.new)
                       if section(b) in places), reverse=True)
        if not held:
            continue
        (best, at), runner_up = held[0], held[1][0] if len(held) > 1 else 0.0
        b = pair.new[at]
        if best >= RARE_AT and best - runner_up >= RARE_MARGIN and not named_apart(pair, a, b):
            found[a.key] = b.key
    return _merged_or_taken(pair, found)


def sentence_parts(pair: Pair, split: set[tuple[str, str]]) -> None:
    """Parts of splits: the rules beside or under a matched or split rule's successors that a
    sentence of it went to (SENTENCE_MARGIN's comment)."""
    children: dict[str, list[Entry]] = defaultdict(list)
    for b in pair.new:
        if b.parent:
            children[b.parent].append(b)
    parts_of: dict[str, set[str]] = defaultdict(set)
    for a_key, b_key in split:
        parts_of[a_key].add(b_key)
    for a in pair.old:
        mine = parts_of[a.key] | ({pair.forward[a.key]} if a.key in pair.forward else set())
        if a.depth == 3 or not mine:
            continue
        sentences = long_sentences(a.masked, POINTER_WORDS)
        if len(sentences) < 2:
            continue
        near: dict[str, Entry] = {}
        for now in [pair.new_by[key] for key in sorted(mine)]:
            # Beside it, under it, and under the rules beside it where no old entry went (2008's
            # 408.1c, priority, is 2009's 115.4, all players passing, and the new 115.3a, who gets it).
            beside = children.get(now.parent or "", [])
            new_under_beside = [c for b in beside for c in children.get(b.key, []) if c.key not in pair.back]
            near.update((b.key, b) for b in (*beside, *children.get(now.key, []), *new_under_beside))
        for words in sentences:
            if any(len(words & pair.new_by[key].words) >= REWORDED_AT * len(words) for key in mine):
                continue
            held = sorted(((len(words & b.words) / len(words), key) for key, b in near.items() if key not in mine),
                          reverse=True)
            if not held:
                continue
            (best, key), runner_up = held[0], held[1][0] if len(held) > 1 else 0.0
            came = pair.back.get(key)
            before = len(words & pair.old_by[came].words) / len(words) if came else 0.0
            if best >= REWORDED_AT and best - max(runner_up, before) >= SENTENCE_MARGIN:
                split.add((a.key, key))
                mine.add(key)


def nearer_beside(pair: Pair, parts: set[tuple[str, str]]) -> None:
    """A kept number's pair given up for a rule left over beside it that is nearer the new
    rule's text (NEARER_MARGIN's comment); no part of a split or merge is moved."""
    of, to = {k for k, _ in parts}, {k for _, k in parts}
    left: dict[str, list[Entry]] = defaultdict(list)
    for a in pair.left(pair.old, pair.forward, (False,)):
        if a.parent and a.key not in of:
            left[a.parent].append(a)
    for a in pair.old:
        b_key = pair.forward.get(a.key)
        if b_key != a.key or not a.parent or pair.scores[a.key] == 100 or b_key in to:
            continue
        b = pair.new_by[b_key]
        shares = [(dice(x.words, b.words), n, x) for n, x in enumerate(left.get(a.parent, []))
                  if x.key not in pair.forward]
        if not shares:
            continue
        best, _, nearer = max(shares, key=lambda found: found[:2])
        if (best >= ONLY_CHILD_AT and best - dice(a.words, b.words) >= NEARER_MARGIN
                and not named_apart(pair, nearer, b)):
            del pair.forward[a.key]
            pair.take(nearer, b)


def twins_placed(pair: Pair) -> set[str]:
    """Two rules of one text, both matched, each to the rule where more of its siblings
    went: their text cannot tell them apart, their place can (2008's 217.1f and 217.7e,
    an object exiled again, are 2009's 400.8 among 217.1's rules and 406.6 among 217.7's).
    Returns the rules above the twins moved, to be placed again by their subrules."""
    twins: dict[str, list[Entry]] = defaultdict(list)
    for a in pair.old:
        if a.depth < 3 and a.key in pair.forward:
            twins[a.masked].append(a)
    siblings: dict[str | None, list[Entry]] = defaultdict(list)
    for a in pair.old:
        siblings[a.parent].append(a)
    moved: set[str] = set()

    def support(a: Entry, b_key: str) -> int:
        parent = pair.new_by[b_key].parent
        return sum(pair.new_by[pair.forward[s.key]].parent == parent
                   for s in siblings[a.parent] if s is not a and s.key in pair.forward)

    for two in twins.values():
        if len(two) != 2:
            continue
        (a1, a2), (b1, b2) = two, (pair.forward[two[0].key], pair.forward[two[1].key])
        if support(a1, b2) + support(a2, b1) > support(a1, b1) + support(a2, b2):
            pair.take(a1, pair.new_by[b2])
            pair.take(a2, pair.new_by[b1])
            moved |= {a.parent for a in two if a.parent}
    return moved

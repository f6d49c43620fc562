"""Snippets: a query's words marked in a text without running the analyzer over it.

A text token matches when the analyzer would give it a query token's text: the query's
tokens are known (`text_analyzer` in query mode), so a text needs no Token objects, filter
chain or fragmenter. Its words are found in its marking form (`marking_form`: normalised as
the tokenizer reads it, lower case, the same length as the text, so offsets hold), which the
build writes for every record (FILE) so that no query converts a text's script: by string
search for a query of Chinese and English words (`Marker`), else by one pass of the
tokenizer's own pattern; only a word's own test runs:

* a Chinese run: every occurrence of a query word in it, longest first (what indexing's
  sub-words would match; no segmentation);
* an English word: its Snowball stem (remembered per word);
* a rule number: itself, or the rule a subrule belongs to (702.30 marks 702.30a);
* a symbol: itself or one of its parts; any other word: itself, lower case.

Up to TOP fragments of at most MAX_CHARS characters around the marked words (SURROUND
characters on either side, never cutting a Latin word), the ones with most marks, in text
order, joined by BETWEEN. The result is escaped HTML with only <mark> elements.
"""
from __future__ import annotations

import html
import re
from collections.abc import Iterable
from operator import itemgetter
from pathlib import Path

from indexer.documents.chinese import HAN_RUN, to_hans
from indexer.documents.records import Record, rule_parent
from indexer.documents.references import is_rule_number
from indexer.documents.script_ranges import CYRILLIC, GREEK, LATIN, LATIN_WORD

from .analysis import SYMBOL_PART_PATTERN, TOKEN_PATTERN, english_stem, normalize_for_tokens
from .schema import searched_blocks

MAX_CHARS, SURROUND, TOP = 240, 60, 2
BETWEEN = " … "
_WORD_CHAR = re.compile(rf"[0-9{LATIN}{GREEK}{CYRILLIC}'’]")
_EDGE_CHAR = re.compile(r"[\w{}]")
# A run of word characters, and the set of them (a set's look-up is cheaper than a match).
_WORD_RUN = re.compile(rf"[0-9{LATIN}{GREEK}{CYRILLIC}'’]*")
_WORD_CHARS = frozenset(chr(c) for c in range(0x500) if _WORD_CHAR.match(chr(c))) | {"’"}
# An English word as the tokenizer reads it (owner's is one word, Two-Headed two), and its letters.
_LATIN_WORD = re.compile(LATIN_WORD)
_LATIN_CHAR = re.compile(f"[{LATIN}]")
_LATIN_CHARS = frozenset(chr(c) for c in range(0x250) if _LATIN_CHAR.match(chr(c)))
_APOSTROPHES = ("'", "\u2019")
# The digits a subrule letter follows in a rule number (603.6a is one token, as `TOKEN_PATTERN`
# reads it).
_RULE_DIGITS = re.compile(r"\d+\.\d+$")
# Where a mark opens and closes while a fragment is escaped: noncharacters, in no text.
_OPEN, _CLOSE = "\ufdd0", "\ufdd1"
_OWN_NONCHARACTERS = str.maketrans({_OPEN: "\ufffd", _CLOSE: "\ufffd"})
# What `html.escape` changes, and the noncharacters a text's own marks would be mistaken for.
_TO_ESCAPE = re.compile(f"[&<>\"'{_OPEN}{_CLOSE}]")


FILE = "marking.txt"
# Between a record's language blocks on its line of FILE.
BLOCK_SEPARATOR = "\x1f"


def marking_form(text: str) -> str:
    """The form a text's words are found in: as `normalize_for_tokens` gives it (Simplified,
    ASCII for full-width forms, Latin look-alikes as Latin) and lower case; same length as `text`, so offsets hold
    (as written where a letter's lower case is longer)."""
    norm = normalize_for_tokens(text)
    low = norm.lower()
    return low if len(low) == len(norm) else norm


def marking_line(record: Record) -> str:
    """A record's line of FILE: the marking form of each of the blocks a query searches
    (`schema.searched_blocks`), in order, line breaks as spaces (which mark alike)."""
    return BLOCK_SEPARATOR.join(marking_form(block).replace("\n", " ").replace(BLOCK_SEPARATOR, " ")
                                for _, block in searched_blocks(record))


def write(records: Iterable[Record], folder: Path) -> None:
    """FILE in `folder`: each record's `marking_line`, a line each, in order. Converting a
    text's script costs more than finding words in it, so a snippet takes its text's form
    from here instead of converting it for each query."""
    with open(folder / FILE, "w", encoding="utf-8") as fh:
        for record in records:
            fh.write(marking_line(record) + "\n")


def marking_forms(line: str) -> list[str]:
    """The blocks' marking forms on a record's line of FILE."""
    return line.split(BLOCK_SEPARATOR)


def _han_spans(text: str, words: list[str]) -> list[tuple[int, int]]:
    """Where `words` (longest first) occur in `text`: at each place the longest that starts
    there, none overlapping, as a pattern of the words would find them."""
    found = []
    for word in words:
        at = text.find(word)
        while at >= 0:
            found.append((at, at + len(word)))
            at = text.find(word, at + 1)
    if len(words) > 1:  # by start, the longest first: the words' order, which a stable sort keeps
        found.sort(key=itemgetter(0))
    out, end = [], 0
    for span in found:
        if span[0] >= end:
            out.append(span)
            end = span[1]
    return out


def _subrule_letter(text: str, start: int) -> bool:
    """Whether the letter at `start` ends a rule number (the a of 603.6a), not a word."""
    if not text[start - 1:start].isdecimal():  # as `\d` reads it: no rule number ends here
        return False
    after = text[start + 1:start + 2]
    return (_RULE_DIGITS.search(text, max(0, start - 24), start) is not None
            and not (after.isascii() and after.isalpha()))


class Marker:
    """A query's words and how they are found, worked out once for all its snippets: its
    Chinese words (Simplified, longest first) and, when it has only Chinese and English
    words (most queries), the first letters of its English words' stems (a final i may be
    a y: dying, die), so that only the words starting so are read whole and stemmed. Plain
    string searches: a pattern of the words would take longer to compile than to use."""

    def __init__(self, words: frozenset[str]):
        self.words = words
        han: set[str] = set()
        prefixes: set[str] = set()
        others: set[str] = set()
        for word in words:
            if word.isascii() and word.isalpha():
                prefix = word[:max(1, min(3, len(word) - 1))]
                prefixes.update((prefix, prefix[:-1] + "y") if prefix.endswith("i") else (prefix,))
            elif HAN_RUN.fullmatch(word):
                han.add(word)
            else:
                others.add(word)
        self.han = sorted({to_hans(w) for w in han}, key=lambda w: (-len(w), w))
        self.prefixes = sorted(prefixes)
        self.by_prefix = not others
        # Strings one of which every token the words match holds (a rule number or symbol
        # itself or a subrule's parent, a Chinese word, an English word's first letters), so
        # that `_by_token` reads only the tokens around them; None when a word is a Latin
        # word beyond ASCII, whose stems' first letters are not known.
        self.probes = (None if any(_LATIN_WORD.fullmatch(w) for w in others)
                       else sorted(han.union(self.han, others, prefixes)))

    def matches(self, text: str, form: str | None = None) -> list[tuple[int, int]]:
        """(start, end) of every place in `text` that the analyzer would give one of the
        words; `form`, the text's `marking_form` when the caller has it."""
        if form is None or len(form) != len(text):
            form = marking_form(text)
        return self._by_prefix(form) if self.by_prefix else self._by_token(form)

    def _by_prefix(self, low: str) -> list[tuple[int, int]]:
        found = _han_spans(low, self.han) if self.han else []
        starts: list[int] = []
        for prefix in self.prefixes:
            at = low.find(prefix)
            while at >= 0:
                if not (at and "a" <= low[at - 1] <= "z"):
                    starts.append(at)
                at = low.find(prefix, at + 1)
        if len(self.prefixes) > 1:  # (one prefix's are in order, and distinct)
            starts = sorted(set(starts))
        words = self.words
        for start in starts:
            # Not inside a Latin word (after a letter, or an apostrophe after one), nor the
            # letter of a rule number (`_subrule_letter`, its first test inline: most starts
            # follow a space)
            before = low[start - 1:start]
            if before in _LATIN_CHARS or (before in _APOSTROPHES and low[start - 2:start - 1] in _LATIN_CHARS):
                continue
            if before.isdecimal() and _subrule_letter(low, start):
                continue
            word = _LATIN_WORD.match(low, start)
            if word is not None and english_stem(word.group()) in words:
                found.append(word.span())
        found.sort()
        return found

    def _by_token(self, form: str) -> list[tuple[int, int]]:
        """Reads the tokens from the last space before the first probe (no token holds a
        space, so the tokens read from there are the text's) to the last probe: in a long
        text's window, the words before the query's first word are not read."""
        words, found = self.words, list[tuple[int, int]]()
        first, last = 0, len(form)
        low = form.lower()
        if self.probes is not None and len(low) == len(form):
            at = [(low.find(p), low.rfind(p)) for p in self.probes]
            at = [pair for pair in at if pair[0] >= 0]
            if not at:
                return found
            first = low.rfind(" ", 0, min(a for a, _ in at)) + 1
            last = max(b for _, b in at)
        for m in TOKEN_PATTERN.finditer(form, first):
            kind = m.lastgroup
            start = m.start()
            if start > last:
                break
            if kind == "han":
                if self.han:
                    found.extend((start + s, start + e) for s, e in _han_spans(m.group(), self.han))
                continue
            low = m.group().lower()
            if kind == "latin":
                hit = english_stem(low) in words
            elif kind == "number":
                hit = low in words or (low[-1].isalpha() and is_rule_number(low) and rule_parent(low) in words)
            elif kind == "symbol":  # the whole symbol, else the parts of it that match
                hit = low in words
                if not hit:
                    found.extend((start + p.start(), start + p.end()) for p in SYMBOL_PART_PATTERN.finditer(low)
                                 if _part(p.group()) in words)
            else:
                hit = low in words
            if hit:
                found.append((start, m.end()))
        return found

    def mark(self, text: str, form: str | None = None) -> str | None:
        """Escaped HTML of the best fragments of `text` with the words marked, or None if none occurs."""
        spans = self.matches(text, form)
        if not spans:
            return None
        groups: list[list[tuple[int, int]]] = []
        for span in spans:
            if groups and span[1] - groups[-1][0][0] <= MAX_CHARS - 2 * SURROUND:
                groups[-1].append(span)
            else:
                groups.append([span])
        best = (range(len(groups)) if len(groups) <= TOP
                else sorted(sorted(range(len(groups)), key=lambda i: -len(groups[i]))[:TOP]))
        out, previous_end = [], 0
        for i in best:
            group = groups[i]
            start = _start(text, max(previous_end, group[0][0] - SURROUND), group[0][0])
            end = _end(text, min(len(text), group[-1][1] + SURROUND), group[-1][1])
            out.append(_marked(text, start, end, group))
            previous_end = end
        return BETWEEN.join(out)


def _part(part: str) -> str:
    return english_stem(part) if part.isascii() and part.isalpha() else part


def _start(text: str, start: int, limit: int) -> int:
    """A fragment's start moved forward out of a Latin word (the rest of the word skipped by
    one match) and past spaces and punctuation."""
    if start < limit and start > 0 and _WORD_CHAR.match(text, start - 1) and _WORD_CHAR.match(text, start):
        start = min(limit, _WORD_RUN.match(text, start).end())  # type: ignore[union-attr]
    while start < limit and not _EDGE_CHAR.match(text, start):
        start += 1
    return start


def _end(text: str, end: int, limit: int) -> int:
    """A fragment's end moved back out of a Latin word (its characters looked up in a set, not
    matched one by one) and before spaces and punctuation."""
    if end > limit and end < len(text) and text[end] in _WORD_CHARS:
        while end > limit and text[end - 1] in _WORD_CHARS:
            end -= 1
    while end > limit and not _EDGE_CHAR.match(text, end - 1):
        end -= 1
    return end


def _marked(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> str:
    """`text[start:end]` escaped, with `spans` in <mark>. A fragment with nothing to escape
    (most) is joined with the marks as they are; else the marks go in as two noncharacters,
    so that the fragment is escaped at once rather than piece by piece (a text's own
    noncharacters show as U+FFFD)."""
    # (A fragment starting after the last one ended can hold marks before its start.)
    plain = _TO_ESCAPE.search(text, min(start, spans[0][0]), end) is None
    opening, closing = ("<mark>", "</mark>") if plain else (_OPEN, _CLOSE)
    parts: list[str] = []
    done = start
    for s, e in spans:
        parts += (text[done:s], opening, text[s:e], closing)
        done = e
    parts.append(text[done:end])
    if plain:
        return "".join(parts)
    if text.find(_OPEN, start, end) >= 0 or text.find(_CLOSE, start, end) >= 0:
        parts = [p if p in (_OPEN, _CLOSE) else p.translate(_OWN_NONCHARACTERS) for p in parts]
    return html.escape("".join(parts), quote=True).replace(_OPEN, "<mark>").replace(_CLOSE, "</mark>")

"""Snippets: a query's words marked in a text without running the analyzer over it.

A text token matches when the analyzer would give it a query token's text: the query's
tokens are known (`text_analyzer` in query mode), so a text needs no Token objects, filter
chain or fragmenter: one pass of the tokenizer's own pattern over the normalised text (same
length as the text, so offsets hold) finds its words, and only a word's own test runs:

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
from indexer.documents.chinese import HAN_RUN, to_hans
from indexer.documents.memo import bounded_cache
from indexer.documents.records import rule_parent
from indexer.documents.references import is_rule_number

from .analysis import _LATIN, _SYMBOL_PART, _TOKEN, _normalize, _stem

MAX_CHARS, SURROUND, TOP = 240, 60, 2
BETWEEN = " … "
_WORD_CHAR = re.compile(r"[0-9A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff'’]")
_EDGE_CHAR = re.compile(r"[\w{}]")
# An English word as the tokenizer reads it (owner's is one word, Two-Headed two), and its letters.
_LATIN_WORD = re.compile(rf"[{_LATIN}]+(?:['\u2019][{_LATIN}]+)*")
_LATIN_CHAR = re.compile(f"[{_LATIN}]")
# The digits a subrule letter follows in a rule number (603.6a is one token, as `_TOKEN` reads it).
_RULE_DIGITS = re.compile(r"\d+\.\d+$")


# What each of the two caches of queries' patterns may hold (the process's; Settings'
# `KB_CACHE_PATTERNS`).
PATTERNS_BYTES = 4 * 2**20


@bounded_cache(PATTERNS_BYTES)
def _words_pattern(words: frozenset[str]) -> re.Pattern | None:
    """A pattern finding any of `words`, the longest where several start at one place."""
    if not words:
        return None
    return re.compile("|".join(map(re.escape, sorted(words, key=lambda w: (-len(w), w)))))


@bounded_cache(PATTERNS_BYTES)
def _finder(words: frozenset[str]) -> re.Pattern | None:
    """For a query of Chinese and English words only (most queries), one pattern over the
    lower-cased text finding its Chinese words and the start of every word that may stem to
    one of its English words (the stem's first letters; a final i may be a y: dying, die):
    only those words are read whole and stemmed. It holds literal text only, because a
    pattern with the Latin letter class takes longer to compile than to use. None for any
    other query, which `matches` reads word by word."""
    han, prefixes = [], set()
    for word in words:
        if HAN_RUN.fullmatch(word):
            han.append(to_hans(word))
        elif word.isascii() and word.isalpha():
            prefix = re.escape(word[:max(1, min(3, len(word) - 1))])
            prefixes.add(prefix[:-1] + "[iy]" if prefix.endswith("i") else prefix)
        else:
            return None
    parts = [f"(?P<latin>(?<![a-z])(?:{'|'.join(sorted(prefixes))}))"] if prefixes else []
    if han:
        parts.append("|".join(map(re.escape, sorted(han, key=lambda w: (-len(w), w)))))
    return re.compile("|".join(parts)) if parts else None


def _in_latin_word(text: str, start: int) -> bool:
    """Whether `start` is inside a Latin word (after a letter, or an apostrophe after one)."""
    before = text[start - 1:start]
    if before in ("'", "\u2019"):
        before = text[start - 2:start - 1]
    return bool(before) and _LATIN_CHAR.match(before) is not None


def _subrule_letter(text: str, start: int) -> bool:
    """Whether the letter at `start` ends a rule number (the a of 603.6a), not a word."""
    after = text[start + 1:start + 2]
    return _RULE_DIGITS.search(text, max(0, start - 24), start) is not None and not (after.isascii() and after.isalpha())


def matches(text: str, words: frozenset[str]) -> list[tuple[int, int]]:
    """(start, end) of every place in `text` that the analyzer would give one of `words`."""
    norm = _normalize(text)
    finder = _finder(words)
    if finder is not None or not words:
        low = norm.lower()
        if len(low) != len(norm):  # a letter whose lower case is longer: offsets would move
            low = norm
        found = []
        for m in (finder.finditer(low) if finder else ()):
            if m.lastgroup != "latin":
                found.append(m.span())
            elif not _in_latin_word(low, m.start()) and not _subrule_letter(low, m.start()):
                word = _LATIN_WORD.match(low, m.start())
                if _stem(word.group()) in words:
                    found.append(word.span())
        return found
    han = _words_pattern(frozenset(to_hans(w) for w in words if HAN_RUN.fullmatch(w)))
    found = []
    for m in _TOKEN.finditer(norm):
        kind = m.lastgroup
        start = m.start()
        token = m.group()
        if kind == "han":
            if han is not None:
                found.extend((start + h.start(), start + h.end()) for h in han.finditer(token))
            continue
        low = token.lower()
        if kind == "latin":
            hit = _stem(low) in words
        elif kind == "number":
            hit = low in words or (low[-1].isalpha() and is_rule_number(low) and rule_parent(low) in words)
        elif kind == "symbol":  # the whole symbol, else the parts of it that match
            hit = low in words
            if not hit:
                found.extend((start + p.start(), start + p.end()) for p in _SYMBOL_PART.finditer(low)
                             if _part(p.group()) in words)
        else:
            hit = low in words
        if hit:
            found.append((start, m.end()))
    return found


def _part(part: str) -> str:
    return _stem(part) if part.isascii() and part.isalpha() else part


def mark(text: str, words: frozenset[str]) -> str | None:
    """Escaped HTML of the best fragments of `text` with `words` marked, or None if none occurs."""
    spans = matches(text, words)
    if not spans:
        return None
    groups: list[list[tuple[int, int]]] = []
    for span in spans:
        if groups and span[1] - groups[-1][0][0] <= MAX_CHARS - 2 * SURROUND:
            groups[-1].append(span)
        else:
            groups.append([span])
    best = sorted(sorted(range(len(groups)), key=lambda i: -len(groups[i]))[:TOP])
    out, previous_end = [], 0
    for i in best:
        group = groups[i]
        start = _start(text, max(previous_end, group[0][0] - SURROUND), group[0][0])
        end = _end(text, min(len(text), group[-1][1] + SURROUND), group[-1][1])
        out.append(_marked(text, start, end, group))
        previous_end = end
    return BETWEEN.join(out)


def _start(text: str, start: int, limit: int) -> int:
    """A fragment's start moved forward out of a Latin word and past spaces and punctuation."""
    while start < limit and start > 0 and _WORD_CHAR.match(text[start - 1]) and _WORD_CHAR.match(text[start]):
        start += 1
    while start < limit and not _EDGE_CHAR.match(text[start]):
        start += 1
    return start


def _end(text: str, end: int, limit: int) -> int:
    """A fragment's end moved back out of a Latin word and before spaces and punctuation."""
    while end > limit and end < len(text) and _WORD_CHAR.match(text[end - 1]) and _WORD_CHAR.match(text[end]):
        end -= 1
    while end > limit and not _EDGE_CHAR.match(text[end - 1]):
        end -= 1
    return end


def _marked(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> str:
    parts, done = [], start
    for s, e in spans:
        parts.append(html.escape(text[done:s], quote=True))
        parts.append("<mark>%s</mark>" % html.escape(text[s:e], quote=True))
        done = e
    parts.append(html.escape(text[done:end], quote=True))
    return "".join(parts)

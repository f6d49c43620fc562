"""Script folding between Traditional and Simplified Chinese, character for character.

The index keeps one form of every Chinese word, Simplified, so that a query typed in either
script finds text written in either (乾枯 and 干枯, 鵬洛客 and 鹏洛客). The analyzer converts
a whole text once and reads Chinese runs out of the converted copy, which is only correct if
the conversion never changes the length: the offset of a character in the converted text
must be its offset in the original, or highlighting marks the wrong characters.

So only OpenCC's length-preserving configurations are used (`t2s`, `s2tw`; never `tw2sp` or
`s2twp`, whose phrase tables rewrite words: 建立 -> 创建), and every conversion is checked:
if a dictionary entry ever changes the length, that text is converted again one character
at a time, which can only map a character to a character.

OpenCC's `t2s` converts some characters by context and leaves them Traditional elsewhere
(記著 stays 记著, 乾坤 stays 乾坤; 憑藉 becomes 凭借 but 藉 alone stays). Search needs one
form whatever the context, so `_HANS_FOLD` folds those characters afterwards, one to one.
Every entry was found in the corpus: the Traditional documents write 著 only as the aspect
particle and 乾 only as "dry", so the folded text is also what a Simplified reader expects
to see; 囘 is a variant of 回 that OpenCC does not map at all.

Converters are created on first use and cached per process: nothing here is created at
import, so modules that import this one stay picklable and cheap to import.
"""
from __future__ import annotations

import re
import threading

import opencc

from indexer.documents.memo import cleared_when_full
from indexer.documents.script_ranges import HAN

HAN_RUN = re.compile(f"[{HAN}]+")

TO_HANS_CONFIG = "t2s.json"
TO_HANT_CONFIG = "s2tw.json"

# Characters `t2s` leaves Traditional in some contexts, with the Simplified form the corpus
# means. Applied after conversion; one character to one character (with str.replace, which
# on a long text is much faster than str.translate).
_HANS_FOLD = {
    "著": "着",  # 記著, 帶著, 隨著: the particle (著名 "famous" does not occur)
    "乾": "干",  # 乾枯 "wither" (t2s keeps 乾 in 乾坤-like phrases)
    "藉": "借",  # 藉由 "by means of" (t2s converts it only inside known phrases)
    "囘": "回",  # variant of 回 (the Planechase guide has it, as a stray in 套囘牌)
}

_converters: dict[str, opencc.OpenCC] = {}
_lock = threading.Lock()


def converter(config: str) -> opencc.OpenCC:
    """The process's OpenCC converter for `config`, created on first use."""
    conv = _converters.get(config)
    if conv is None:
        with _lock:
            conv = _converters.get(config)
            if conv is None:
                conv = _converters[config] = opencc.OpenCC(config)
    return conv


def convert_same_length(text: str, config: str) -> str:
    """`text` converted with `config`, guaranteed to have the same length as `text`.

    When the converter's phrase dictionary changes the length somewhere, the text is
    converted character by character instead, and a character whose own conversion is not
    one character is kept as written."""
    conv = converter(config)
    out = conv.convert(text)
    if len(out) == len(text):
        return out
    chars = []
    for ch in text:
        one = conv.convert(ch)
        chars.append(one if len(one) == 1 else ch)
    return "".join(chars)


# Short texts (a query, its words, a glossary form) are remembered in Simplified: a query's
# text is converted by the analysis of each field, by its glossary look-ups and for its
# snippets' marks, and glossary forms recur from query to query. Longer texts (a record's,
# a snippet's) are converted as they come. What those remembered may hold is the process's,
# shared by every build (Settings' `KB_CACHE_SIMPLIFIED`). Short texts are remembered in
# Traditional too: a result's names and titles shown in both scripts, the same few hundred
# rule titles converted for each of the rules' editions (`KB_CACHE_TRADITIONAL`).
SHORT_CHARS = 64
SIMPLIFIED_BYTES = 2 * 2**20
TRADITIONAL_BYTES = 2**20


def to_hans(text: str) -> str:
    """Simplified form of `text`, one character for each character of `text`.

    Simplified and non-Chinese text passes through unchanged (converting twice gives the
    same result as converting once); Traditional text becomes Simplified, with the
    characters of `_HANS_FOLD` folded whatever their context."""
    if not HAN_RUN.search(text):
        return text
    return _short_hans(text) if len(text) <= SHORT_CHARS else _hans(text)


def _hans(text: str) -> str:
    out = convert_same_length(text, TO_HANS_CONFIG)
    for traditional, simplified in _HANS_FOLD.items():
        out = out.replace(traditional, simplified)
    return out


_short_hans = cleared_when_full(SIMPLIFIED_BYTES)(_hans)


def to_hant(text: str) -> str:
    """Traditional (Taiwan) form of Simplified `text`, for showing it to a Traditional
    reader; one character for each character of `text`."""
    if not HAN_RUN.search(text):
        return text
    return _short_hant(text) if len(text) <= SHORT_CHARS else _hant(text)


def _hant(text: str) -> str:
    return convert_same_length(text, TO_HANT_CONFIG)


_short_hant = cleared_when_full(TRADITIONAL_BYTES)(_hant)


def warm_up() -> None:
    """Create both converters now (before a server forks its workers)."""
    converter(TO_HANS_CONFIG)
    converter(TO_HANT_CONFIG)

"""Cleaning shared by every parser: the text shown to a reader is the clean text.

Each function fixes one kind of damage the real documents carry, and is safe to apply to
text that does not have it.
"""
from __future__ import annotations

import re
import unicodedata

from .references import fold_fullwidth

# Zero-width and bidi marks, soft hyphen, BOM: invisible, and they split words in the index.
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
# C0/C1 controls other than tab and newline.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Cyrillic and Greek capitals and small letters that look exactly like Latin ones.
_HOMOGLYPHS = str.maketrans(
    "АВЕКМНОРСТХУаеорсхуіјѕԁԛԝЅІЈАΑΒΕΖΗΙΚΜΝΟΡΤΥΧοΥν",
    "ABEKMHOPCTXYaeopcxyijsdqwSIJAABEZHIKMNOPTYXoYv",
)
_LOOKALIKE = set("АВЕКМНОРСТХУаеорсхуіјѕԁԛԝЅІЈΑΒΕΖΗΙΚΜΝΟΡΤΥΧον")
_WORD = re.compile(r"[^\W\d_]+")
_RULE_NUMBER_FW = re.compile(r"[０-９]{3}(?:[．.][０-９0-9]{1,3}[ａ-ｚa-z]?)?")
_CJK = r"\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef"
_CJK_CHAR = re.compile(f"[{_CJK}]")
_CJK_PUNCT = "，。：；、（）「」『』“”！？"


def normalize(text: str) -> str:
    """NFC, no invisible or control characters, CRLF/CR as LF, full-width rule numbers as ASCII."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", _INVISIBLE.sub("", text))
    text = unicodedata.normalize("NFC", text)
    return _RULE_NUMBER_FW.sub(lambda m: fold_fullwidth(m.group()), text)


def fold_homoglyphs(text: str) -> str:
    """Cyrillic/Greek look-alikes inside Latin words back to Latin (`ruLЕS` -> `ruLES`).

    Only words that mix Latin letters with look-alikes change: a real Cyrillic or Greek word
    has no Latin letter in it and is left as it is."""

    def fix(m: re.Match) -> str:
        word = m.group()
        foreign = [c for c in word if not c.isascii()]
        if foreign and len(foreign) < len(word) and all(c in _LOOKALIKE for c in foreign):
            return word.translate(_HOMOGLYPHS)
        return word

    return _WORD.sub(fix, text)


def is_cjk(ch: str) -> bool:
    return bool(_CJK_CHAR.match(ch))


def join_wrapped(lines: list[str]) -> str:
    """Unwrap hard-wrapped lines of one paragraph: Chinese joins with no space, anything
    else with one space (so English words and CJK-Latin boundaries stay readable)."""
    out = ""
    for line in (line.strip() for line in lines):
        if not line:
            continue
        if not out:
            out = line
        elif is_cjk(out[-1]) or is_cjk(line[0]) or line[0] in _CJK_PUNCT or out[-1] in _CJK_PUNCT:
            # A wrapped Chinese sentence joins with no space, even where it meets Latin text.
            out += line
        else:
            out += " " + line
    return out


def mixed_script_words(text: str) -> list[str]:
    """Words that mix Latin letters with another script's letters: should be none after cleaning."""
    bad = []
    for word in _WORD.findall(text):
        latin = any(c.isascii() for c in word)
        other = any(not c.isascii() and not is_cjk(c) and unicodedata.category(c).startswith("L") for c in word)
        if latin and other:
            bad.append(word)
    return bad

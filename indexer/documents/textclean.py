"""Cleaning shared by every parser: the text shown to a reader is the clean text.

Each function fixes one kind of damage the real documents carry, and is safe to apply to
text that does not have it.
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter

from wcwidth import wcwidth

from .references import fold_fullwidth
from .script_ranges import CYRILLIC, HAN

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
_ANY_LOOKALIKE = re.compile("[" + "".join(sorted(_LOOKALIKE)) + "]")
_WORD = re.compile(r"[^\W\d_]+")
_RULE_NUMBER_FW = re.compile(r"[０-９]{3}(?:[．.][０-９0-9]{1,3}[ａ-ｚa-z]?)?")
# Han characters with CJK punctuation and full-width forms.
_CJK = rf"\u3000-\u303f{HAN}\uff00-\uffef"
_CJK_CHAR = re.compile(f"[{_CJK}]")
_CJK_PUNCT = "，。：；、（）「」『』“”！？"


def display_width(text: str) -> int:
    """Columns a terminal (or a BBS) gives the text: two for East Asian wide and full-width
    characters, none for combining marks (wcwidth), one for a control character."""
    return sum(w if (w := wcwidth(ch)) >= 0 else 1 for ch in text)


def normalize(text: str) -> str:
    """NFC, no invisible or control characters, CRLF/CR as LF, full-width rule numbers as ASCII."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", _INVISIBLE.sub("", text))
    text = unicodedata.normalize("NFC", text)
    return _RULE_NUMBER_FW.sub(lambda m: fold_fullwidth(m.group()), text)


def fold_homoglyphs(text: str, restore_case: bool = False) -> str:
    """Cyrillic/Greek look-alikes inside Latin words back to Latin (`ruLЕS` -> `ruLES`).

    Only words that mix Latin letters with look-alikes change: a real Cyrillic or Greek word
    has no Latin letter in it and is left as it is.

    With `restore_case`, the capitals the damage brought with it go back to lower case too
    (`hАVe` -> `have`, `ruLЕS` -> `rules`, `ТWo` -> `two`): the damage swaps a run of letters for
    capitals, some of them look-alikes, so the capital run around each look-alike is lowered.
    A word in capitals throughout stays in capitals, and a single look-alike initial capital
    stays a capital (`Аkoum` -> `Akoum`)."""

    def fix(m: re.Match) -> str:
        word = m.group()
        foreign = [c for c in word if not c.isascii()]
        if foreign and len(foreign) < len(word) and all(c in _LOOKALIKE for c in foreign):
            folded = word.translate(_HOMOGLYPHS)
            return _lower_damaged_capitals(word, folded) if restore_case else folded
        return word

    if not _ANY_LOOKALIKE.search(text):  # most text: nothing to fold, no word to look at
        return text
    return _WORD.sub(fix, text)


def _lower_damaged_capitals(original: str, folded: str) -> str:
    """Lower the runs of capitals in `folded` that contain a capital look-alike of `original`."""
    if folded.isupper():
        return folded
    chars = list(folded)
    for i, ch in enumerate(original):
        if ch not in _LOOKALIKE or not ch.isupper():
            continue
        start, stop = i, i + 1
        while start > 0 and chars[start - 1].isupper():
            start -= 1
        while stop < len(chars) and chars[stop].isupper():
            stop += 1
        if (start, stop) == (0, 1):  # an initial capital: the word may be a name
            continue
        chars[start:stop] = [c.lower() for c in chars[start:stop]]
    return "".join(chars)


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
    """Words that mix Latin letters with another script's letters: should be none after cleaning.
    Accented Latin letters are Latin (the rules name Dandân and Lim-Dûl)."""
    bad = []
    for word in _WORD.findall(text):
        latin = any(c.isascii() for c in word)
        other = any(not c.isascii() and not is_cjk(c) and unicodedata.category(c).startswith("L")
                    and not unicodedata.name(c, "").startswith("LATIN") for c in word)
        if latin and other:
            bad.append(word)
    return bad


# Spaces that look like a space but are not one: no-break, typographic and ideographic spaces.
_ODD_SPACE = re.compile("[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")
_SPACE_RUN = re.compile(" {2,}")


def normalize_spaces(text: str) -> str:
    """Odd spaces (no-break U+00A0, U+2000-U+200A, ideographic U+3000, ...) as plain spaces, runs
    of spaces as one, no spaces at either end of a line; a line of only spaces becomes empty.

    Documents pasted from web pages separate paragraphs with lines of a single no-break space
    and pad words with them: left in, they make blank lines look like text and split words."""
    lines = (_SPACE_RUN.sub(" ", _ODD_SPACE.sub(" ", line)).strip(" ") for line in text.split("\n"))
    return "\n".join(lines)


# Known mistakes of converting Simplified Chinese to Traditional with Taiwan phrases, each a
# word the phrase table put in place of a plain one, and the context where only the plain one
# can be meant. (The offline copy's search repairs a query with these too.)
CONVERSION_ERRORS = (
    # The classifier 位 after a counting word became 位元, a computer "bit" (每位元玩家); 位元組
    # "byte" stays.
    (re.compile("(?<=[每各哪這那某幾數一二兩三四五六七八九十])位元(?!組)"), "位"),
    # 只 "only" became the classifier 隻 after 部分 (一部分隻會: "a part only ...").
    (re.compile("(?<=部分)隻(?=[會能])"), "只"),
    # 數字 "numeral" became 數位 "digital" before 記號/符號 (數位記號 for the numeral symbols {1}).
    (re.compile("數位(?=[記符]號)"), "數字"),
)


def fix_conversion_errors(text: str) -> str:
    """Undo the known mistakes of converting Simplified Chinese to Traditional with Taiwan
    phrases: 每位元玩家 -> 每位玩家, 下一位元不會 -> 下一位不會, 一部分隻會 -> 一部分只會,
    數位記號 -> 數字記號.

    Each changes only where the context allows nothing else (a rules document counts players,
    never bits); 位元 elsewhere, 位元組 "byte" and 隻 as a classifier stay. A query goes through
    it too, so the damaged wording a reader copies from the original still finds the text."""
    for pattern, plain in CONVERSION_ERRORS:
        text = pattern.sub(plain, text)
    return text


# 囘, an old variant of 回 that the documents never use as a word: they write 回 (回合, 回到,
# 回應), and 囘 only turns up inserted inside words (套囘牌 for 套牌, 三囘條 for 三條).
_JUNK_INSIDE_WORD = re.compile(f"(?<=[{HAN}])囘(?=[{HAN}])")


def remove_junk_chars(text: str) -> str:
    """Drop characters a source inserted into Chinese words as noise (套囘牌 -> 套牌).

    Only between two Chinese characters: a 囘 standing alone or beside Latin text is left as it
    is, since there it is not inside a word the noise could have split."""
    return _JUNK_INSIDE_WORD.sub("", text)


_CYRILLIC_THEN_LATIN = re.compile(rf"\b([{CYRILLIC}]{{2,}})([A-Za-z]{{2,}})\b")
_LATIN_THEN_CYRILLIC = re.compile(rf"\b([A-Za-z]{{2,}})([{CYRILLIC}]{{2,}})\b")


def separate_scripts(text: str) -> str:
    """A lost space between a Cyrillic word and a Latin word put back (`нормалнатаMagic` ->
    `нормалната Magic`, `картиMagic` -> `карти Magic`).

    A word made of one run of Cyrillic and one run of Latin letters (two or more each) is
    two words glued together; run fold_homoglyphs first, so a Latin word with look-alike
    letters is repaired rather than split."""
    text = _CYRILLIC_THEN_LATIN.sub(r"\1 \2", text)
    return _LATIN_THEN_CYRILLIC.sub(r"\1 \2", text)


# Bulgarian word ends that are also words of their own (the articles -те, -то, -та, -ят, -ът
# and the verb ending -те) and prefixes that are also words (под, по, на, от, за, ...): a word
# parts of which are only these is a real word (опонентите, подтипа), not two glued together.
_BG_ENDINGS = frozenset("те то та ят ът".split())
_BG_PREFIXES = frozenset("без в въз за из на над о об от по под пре пред при про раз с със у".split())
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def vocabulary(texts: list[str]) -> Counter:
    """How often each word (lower case) occurs in a document's texts."""
    return Counter(w.lower() for text in texts for w in _WORD.findall(text))


def split_glued_words(text: str, words: Counter) -> str:
    """Words a document lost the space between put back apart (`можетеза` -> `можете за`,
    `играчнапуска` -> `играч напуска`, `DimensionalMagic` -> `Dimensional Magic`), judged by the
    document's own `vocabulary`: a word it holds only once that is two words it holds
    elsewhere. A Cyrillic word splits where its second part is not an ending and its first
    part not a prefix (опонентите, подтипа stay); a Latin word only where a small letter meets
    a capital and the capitalised part is a word held elsewhere (DimensionalMagic), as glued
    title-case words do."""

    def split(m: re.Match) -> str:
        word = m.group()
        low = word.lower()
        if words[low] > 1 or len(word) < 5:
            return word
        if word.isascii():
            parts = _CAMEL.split(word)
            if len(parts) == 2 and words[parts[1].lower()] and min(map(len, parts)) >= 3:
                return " ".join(parts)
            return word
        for i in range(2, len(word) - 1):
            head, tail = low[:i], low[i:]
            if words[head] and words[tail] and tail not in _BG_ENDINGS and head not in _BG_PREFIXES:
                return f"{word[:i]} {word[i:]}"
        return word

    return _WORD.sub(split, text)


def clean(text: str) -> str:
    """Every repair above, in order, for one piece of text taken from a document: the text a
    reader is shown. Safe on any language: each step changes only the damage it knows."""
    text = normalize_spaces(normalize(text))
    text = separate_scripts(fold_homoglyphs(text, restore_case=True))
    return remove_junk_chars(fix_conversion_errors(text)).strip()


def join_paragraphs(parts: list[str]) -> str:
    """Join separate paragraphs or list items of one text, each on its own line.

    Between two Chinese parts there is no line break: a newline inside a run of Chinese text
    splits it for word segmentation and phrase search. After Chinese punctuation the parts
    simply run on (Chinese needs no space between sentences); elsewhere one space marks the
    break between list items (`大型側拉套牌盒 35張`)."""
    out = ""
    for part in (p.strip() for p in parts):
        if not part:
            continue
        if not out:
            out = part
        elif is_cjk(out[-1]) and is_cjk(part[0]):
            out += ("" if out[-1] in _CJK_PUNCT else " ") + part
        else:
            out += "\n" + part
    return out

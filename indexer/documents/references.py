"""Rule numbers: recognising them in queries and finding every reference inside a text.

One grammar serves ingestion (references stored on records), query understanding (a rule
number typed in any common form is a direct jump) and the forum linker, so the three never
disagree about what counts as a rule reference.
"""
from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterator

from .bounded_cache import cleared_when_full
from .records import Reference, rule_heading

# A subrule letter: the rules skip l and o (they read as 1 and 0), and use every other one.
SUBRULE_LETTER = "[a-km-np-z]"
# 100-999, then optionally .N and a subrule letter.
_NUMBER = rf"[1-9]\d\d(?:\.\d{{1,3}}{SUBRULE_LETTER}?)?"
_PREFIX = r"(?:(?:comprehensive\s+)?rules?|cr|規則|规则|條|条)"
_RANGE_SEP = r"\s*(?:至|到|~|～|-|–|—|through|to)\s*"
# A bare three-digit number ("309") is a reference only after a prefix ("規則309", "rule 309").
_REF = re.compile(
    rf"(?<![0-9A-Za-z.])(?:(?P<prefix>{_PREFIX})\s*)?"
    rf"(?P<num>{_NUMBER})"
    rf"(?:{_RANGE_SEP}(?P<end>{_NUMBER}|{SUBRULE_LETTER}(?![A-Za-z])))?"
    rf"(?![0-9A-Za-z]|\.\d)",
    re.IGNORECASE,
)
# The pattern of a written rule reference, for callers that place links themselves (the forum
# linker's script is sent this pattern so the browser and the server agree).
REFERENCE_PATTERN = _REF
# A query that is one rule number and nothing else (a prefix before it and a full stop after
# it allowed): `parse_rule_number` reads it, and the offline copy's script is sent it.
RULE_NUMBER_QUERY_PATTERN = re.compile(rf"^\s*(?:{_PREFIX}\s*)?(?P<num>{_NUMBER})\.?\s*$", re.IGNORECASE)
# What may stand between and around the rule numbers of a query that names rules and nothing
# else (702.19b, 702.2c; 702.19b and 702.2c; 規則702.19b和702.2c; 702.19b、702.2c; 702.19b?):
# `named_rule_numbers` reads it, and the offline copy's script is sent it.
RULE_LIST_GAP_PATTERN = re.compile(rf"(?:[\s,，、;；/&.?？!！]|and|or|和|與|与|及|或|{_PREFIX})*", re.IGNORECASE)
_FULLWIDTH = re.compile("[\uff01-\uff5e\u3000]")
_FULLWIDTH_NUMBER = str.maketrans({chr(0xFF10 + i): str(i) for i in range(10)} | {"．": ".", "\u3000": " "})


def fold_fullwidth(text: str) -> str:
    """Full-width digits, letters and the full-width full stop as ASCII: ７０２．３０ａ -> 702.30a."""
    return unicodedata.normalize("NFKC", text.translate(_FULLWIDTH_NUMBER)) if _FULLWIDTH.search(text) else text


# What else a rule number is written with, in a query or a forum post: any Unicode decimal digit
# (Arabic-Indic ٧٠٢, Devanagari, mathematical 𝟕𝟎𝟐), read as its digit, full-width forms, and
# zero-width characters, which are no part of it (702.\u200b30a is 702.30a).
ZERO_WIDTH = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_NUMBER_FORM = re.compile(f"[{ZERO_WIDTH}\uff01-\uff5e\u3000]|(?![0-9])\\d")


def fold_number_forms(text: str) -> str:
    """`text` with every form `_NUMBER_FORM` names as rule numbers are read: a digit as its
    ASCII digit, a full-width form as ASCII, zero-width characters left out."""
    found = set(_NUMBER_FORM.findall(text))
    if not found:
        return text
    table = {ord(ch): "" if ch in ZERO_WIDTH else str(unicodedata.decimal(ch)) if ch.isdecimal()
             else unicodedata.normalize("NFKC", ch) for ch in found}
    return text.translate(table)


def find_written_references(text: str) -> Iterator[Reference]:
    """`find_references` in a text as people write it (`fold_number_forms`): offsets are into
    `text` as given, a reference's zero-width characters inside its span."""
    folded = fold_number_forms(text)
    if folded is text:
        yield from find_references(text)
        return
    # Each left-out character's offset less those before it: a folded offset f is f plus the
    # number of these at most f (bisect) in `text`.
    gaps = [m.start() - n for n, m in enumerate(re.finditer(f"[{ZERO_WIDTH}]", text))]
    for ref in find_references(folded):
        start = ref.start + bisect.bisect_right(gaps, ref.start)
        stop = ref.stop + bisect.bisect_left(gaps, ref.stop)
        yield Reference(ref.number, ref.end, ref.lang, start, stop, ref.where)


def parse_rule_number(query: str) -> str | None:
    """The rule number a query names, or None: `702.30a`, `702.30a.`, `rule 901.9`, `CR 702.82b`,
    `規則901.3a`, `规则 901.6`, `７０２．３０ａ`. A bare three-digit number needs no prefix here:
    a query of only `702` asks for that section."""
    m = RULE_NUMBER_QUERY_PATTERN.match(fold_fullwidth(query))
    return m.group("num").lower() if m else None


def parse_rule_range(query: str) -> tuple[str, str] | None:
    """The first and last rule of a query that is a range of rule numbers and nothing else, or
    None: `702.30a-c`, `CR 901.9a至c`, `702.30a–c`, `901.9a to 901.9c`, `９０１．９ａ至ｃ`."""
    m = _REF.fullmatch(fold_fullwidth(query).strip())
    if not m or not m.group("end"):
        return None
    num = m.group("num").lower()
    return num, _range_end(num, m.group("end"))


def named_rule_numbers(query: str) -> tuple[list[tuple[str, str | None]], bool]:
    """The rules a query names, each as its first rule and its range's last (None for one
    rule), in the order typed and each once; and whether it names nothing else, only
    separators between and around them (`702.19b 702.2c`, `rules 702.19b and 702.2c`,
    `規則702.19b、601.2f至h`, `702.19b?`), not other words (`what is 702.19b`)."""
    text = fold_fullwidth(query)
    named: dict[tuple[str, str | None], None] = {}
    alone, at = True, 0
    for ref in find_references(text):
        alone = alone and RULE_LIST_GAP_PATTERN.fullmatch(text, at, ref.start) is not None
        named[(ref.number, ref.end)] = None
        at = ref.stop
    return list(named), alone and RULE_LIST_GAP_PATTERN.fullmatch(text, at) is not None


def _range_end(num: str, end: str) -> str:
    """A range's last rule number as written in full: 601.2f至h ends at 601.2h (a lone letter
    shares the start's rule)."""
    end = end.lower()
    if len(end) > 1:
        return end
    return rule_heading(num) + end


def find_references(text: str, lang: str = "", where: str = "text") -> Iterator[Reference]:
    """Every rule reference in `text`, with its span, as they are found (a reader that stops,
    the forum linker at its bound, leaves the rest of the text unread). Offsets are offsets
    into `text` as given."""
    for m in _REF.finditer(text):
        num = m.group("num").lower()
        if "." not in num and not m.group("prefix"):
            continue
        end = _range_end(num, m.group("end")) if m.group("end") else None
        yield Reference(num, end, lang, m.start("num"), m.end(), where)


def is_rule_number(value: str) -> bool:
    return re.fullmatch(_NUMBER, value or "") is not None


# What the rule numbers' sort keys may hold (the process's; Settings' `KB_CACHE_RULE_NUMBERS`).
RULE_NUMBERS_BYTES = 4 * 2**20


@cleared_when_full(RULE_NUMBERS_BYTES)
def rule_sort_key(number: str) -> tuple:
    """Sort rule numbers in rule order: 702.9 < 702.30 < 702.30a < 702.30b. (Remembered: every
    search sorts its candidates by it.)"""
    m = re.fullmatch(r"(\d+)(?:\.(\d+)([a-z]?))?", number)
    if not m:
        return (10**6, number)
    return (int(m.group(1)), int(m.group(2) or -1), m.group(3) or "")

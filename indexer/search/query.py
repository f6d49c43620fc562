"""Query understanding: what a typed query asks for, before any engine sees it.

Any string is a valid query. Filters (`kind:card`, `source:…`, `edition:…`) and quoted
phrases are taken out; a rule number or a range of them in any common form becomes a direct
jump, several typed together are looked up in turn, and one named among other words comes
before what they find; the rest is free text. Operators and stray syntax characters are plain
text here, so nothing a user types can make the engine's parser fail.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from whoosh.analysis import STOP_WORDS

from indexer.documents.records import KINDS
from indexer.documents.references import (
    fold_fullwidth,
    fold_number_forms,
    named_rule_numbers,
    parse_rule_number,
    parse_rule_range,
)
from indexer.documents.script_ranges import HAN
from indexer.documents.textclean import fix_conversion_errors

MAX_QUERY_CHARS = 500
# The most distinct words one query searches (its free text's and its phrases' together),
# counted as they are searched: a run of letters or digits, whatever joins them (a,b/c is
# three), or two Han characters, and never a function word (`FUNCTION_WORDS`), which every
# question holds and which cost little. A player's question of 500 characters (some 90
# words, 40 of them distinct words of its own) is read whole; 500 characters of distinct
# words (some 70) are not, each of which costs its share of scoring, ranking, spelling and
# marking. Past it, the words are left out, whole phrases first then the free text's last
# words, and the answer says which (`left_out`).
MAX_QUERY_WORDS = 48
# English function words (Whoosh's stop words, which its analyzers leave out by default).
FUNCTION_WORDS = frozenset(STOP_WORDS)
COUNTED_PATTERN = re.compile(f"[{HAN}]{{1,2}}|[^\\W_{HAN}]+")
# The most results (or suggestions) one answer may hold.
MAX_LIMIT = 50
# The filters a query may name (`kind:rule`), each a field of the index the engine matches
# exactly (`indexer.search.schema`).
FILTERS = ("kind", "source", "edition", "lang")
# A query's filters (`kind:rule`), its quoted phrases ("..." 「...」), the query syntax its free
# text is cleared of, and the other names of a kind: `parse_query` reads them, and the offline
# copy's script is sent them (webapp/offline_copy.py) so that the browser parses as the server.
FILTER_PATTERN = re.compile(rf"(?<!\S)({'|'.join(FILTERS)}):(\S+)", re.IGNORECASE)
PHRASE_PATTERN = re.compile(r"[\"“”「」『』]([^\"“”「」『』]+)[\"“”「」『』]")
SYNTAX_PATTERN = re.compile(r"[()\[\]^~*?!:+\\]|(?<!\w)-|\b(?:AND|OR|NOT)\b")
KIND_ALIASES = {"plane": "planar_card", "planes": "planar_card", "cards": "card", "rules": "rule",
                 "terms": "term", "sections": "section", "planar": "planar_card"}


class QueryError(ValueError):
    """A query that cannot run (too long, an unknown filter value); the message says why."""

    status = 400


class UnknownEdition(QueryError):
    """A query limited to an edition that the index does not hold: not found, as the pages of
    an edition it does not hold are (404)."""

    status = 404


@dataclass
class ParsedQuery:
    raw: str
    text: str = ""                   # free text, syntax characters removed
    phrases: list[str] = field(default_factory=list)
    filters: dict[str, str] = field(default_factory=dict)
    rule_number: str | None = None   # set when the whole free text is a rule number (or a range's first)
    rule_end: str | None = None      # the last rule when the free text is a range (702.30a-c: 702.30c)
    # The rules when the free text names two or more and nothing else (702.19b 702.2c), each
    # (first, range's last or None), in the order typed; [] otherwise.
    rule_list: list[tuple[str, str | None]] = field(default_factory=list)
    # The rules the free text names among other words (what is 702.19b), as `rule_list`.
    named_rules: list[tuple[str, str | None]] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  # words and "phrases" past MAX_QUERY_WORDS
    typed: str = ""                  # the free text as typed, when `text` is read from it (a question's forms cut)
    # Words that stand for what the free text names (a named card's keywords, type line and text),
    # searched at a lower weight than its own.
    context: str = ""

    @property
    def empty(self) -> bool:
        return not (self.text or self.phrases or self.rule_number or self.rule_list)

    def terms_text(self) -> str:
        """Everything the engine should match: the free text and the phrases' words."""
        return " ".join([self.text, *self.phrases]).strip()


def parse_query(raw: str, as_phrases: bool = True) -> ParsedQuery:
    """The query's parts; with `as_phrases` false, a quoted phrase is read as words of the free
    text where it stands (a question quoting a card's text)."""
    if len(raw) > MAX_QUERY_CHARS:
        raise QueryError(f"query too long: {len(raw)} characters (at most {MAX_QUERY_CHARS})")
    text = unicodedata.normalize("NFC", fold_number_forms(fold_fullwidth(raw))).replace("\0", " ")
    if not text.isprintable():
        text = "".join(ch if ch.isprintable() else " " for ch in text)
    text = fix_conversion_errors(text)
    parsed = ParsedQuery(raw=raw)
    for name, value in FILTER_PATTERN.findall(text):
        name, value = name.lower(), value.strip().lower()
        if name == "kind":
            value = KIND_ALIASES.get(value, value)
            if value not in KINDS:
                raise QueryError(f"unknown kind {value!r}: use one of {', '.join(KINDS)}")
        parsed.filters[name] = value
    text = FILTER_PATTERN.sub(" ", text)
    if as_phrases:
        parsed.phrases = [p.strip() for p in PHRASE_PATTERN.findall(text) if p.strip()]
    text = PHRASE_PATTERN.sub(" " if as_phrases else r" \1 ", text)
    number, end = parse_rule_number(text), None
    if not number:
        number, end = parse_rule_range(text) or (None, None)
    named, alone = named_rule_numbers(text)
    if not number and alone and len(named) == 1:  # one rule with marks around it (702.19b?)
        number, end = named[0]
    if number and not parsed.phrases:
        parsed.rule_number, parsed.rule_end = number, end
    elif alone and named and not parsed.phrases:
        parsed.rule_list = named
    else:
        parsed.named_rules = named
    words = SYNTAX_PATTERN.sub(" ", text).replace('"', " ").split()
    counted: set[str] = set()
    phrases = []
    for phrase in parsed.phrases:
        if _fits(phrase, counted):
            phrases.append(phrase)
        else:
            parsed.left_out.append(f'"{phrase}"')
    parsed.phrases = phrases
    kept = next((n for n, word in enumerate(words) if not _fits(word, counted)), len(words))
    if kept < len(words):  # the words of the first that does not fit that do (a,b,c/d)
        cut = _fitting(words[kept], counted)
        if cut:
            words[kept:kept + 1] = [words[kept][:cut], words[kept][cut:]]
            kept += 1
    parsed.text = " ".join(words[:kept])
    parsed.left_out += words[kept:]
    return parsed


def counted_words(text: str) -> set[str]:
    """The words of `text` that `MAX_QUERY_WORDS` counts (`COUNTED_PATTERN`, not `FUNCTION_WORDS`)."""
    return {w for w in COUNTED_PATTERN.findall(text.casefold()) if w not in FUNCTION_WORDS}


def _fitting(word: str, counted: set[str]) -> int:
    """How many characters of `word` (words joined by `,`, `/`, `、`) stay within MAX_QUERY_WORDS."""
    cut = 0
    for match in COUNTED_PATTERN.finditer(word):
        if not _fits(match.group(), counted):
            break
        cut = match.end()
    return cut


def _fits(text: str, counted: set[str]) -> bool:
    """Whether `text`'s words, beside those `counted` so far, stay within MAX_QUERY_WORDS;
    if they do, they are counted."""
    new = counted_words(text) - counted
    if len(counted) + len(new) > MAX_QUERY_WORDS:
        return False
    counted |= new
    return True

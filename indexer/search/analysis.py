"""Text analysis for the search index: one analyzer indexes, parses queries and highlights.

The documents mix English, Traditional Chinese (sometimes with Simplified characters left in
by a converter), full-width rule numbers, mana symbols and one Bulgarian article, often
inside one line (`702.30a 增幅Kicker`). A query may be typed in any of these. The analyzer
therefore splits text into runs by script and treats each run as its script needs:

* Chinese runs are folded to Simplified (`indexer.documents.chinese.to_hans`, character for character)
  and segmented with jieba, using a user dictionary of the project's terms so that 多重增幅 or
  奪魂紅帽客 stay one word. Token text is Simplified; `startchar`/`endchar` are offsets in the
  ORIGINAL text, so a highlight marks the characters the reader sees (乾枯 for a 干枯 query).
* English words are lower-cased, accent-folded and stemmed with Snowball's English stemmer
  (Whoosh's Porter stemmer turns "tapped" into "tapp"; Snowball gives "tap").
* Bulgarian (Cyrillic) words are lower-cased whole words. Accent folding is not applied to
  them: it would turn й into и.
* A rule number (702.30a, ７０２．３０ａ) is one token; a subrule also yields its rule (702.30)
  at the same position, so a search for 702.30 finds text that cites 702.30a.
* A mana or game symbol ({藍/黑}, {CHAOS}, {重置}) is one token ({蓝/黑}, {chaos}); its parts
  (蓝, 黑, chaos, 重置) are alternatives at the same position.

Positions are word positions, one per primary token, so phrase queries work (jieba's own
ChineseAnalyzer puts character offsets in `pos`, which breaks phrases). Alternatives - jieba's
search-mode sub-words (多重, 增幅 inside 多重增幅), a subrule's rule, a symbol's parts - share
the position of the token they belong to and are produced only when indexing (any mode but
"query"). In "query" mode the analyzer yields the primary tokens alone, one per position,
because Whoosh builds phrase queries and multi-token terms from the token texts as if they
were consecutive words.

Analyzers are pickled into the index schema, so they hold only plain settings. The words
jieba keeps whole belong to a `Segmenter`: a build writes its user words beside the index
(`write_user_dictionary`), and opening the build attaches a segmenter of those words to the
analyzers of that build's schema (`attach_segmenter`), so two builds open in one process
never segment with each other's words. An analyzer without one (a test's, a peer's) uses the
process default, set with `set_user_words`. jieba's own dictionary and the OpenCC converters
are loaded once per process, on first use or by `warm_up()` before a server forks.
"""
from __future__ import annotations

import logging
import marshal
import re
import tempfile
import threading
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import jieba
from whoosh.analysis import Filter, LowercaseFilter, Token, Tokenizer
from whoosh.lang.snowball.english import EnglishStemmer

from indexer.documents import chinese
from indexer.documents.bounded_cache import cleared_when_full
from indexer.documents.chinese import HAN_RUN, to_hans
from indexer.documents.records import rule_parent
from indexer.documents.references import is_rule_number
from indexer.documents.script_ranges import HAN, LATIN, LATIN_WORD
from indexer.documents.textclean import fold_homoglyphs

__all__ = [
    "SYMBOL_PART_PATTERN",
    "TOKEN_PATTERN",
    "EnglishFilter",
    "MixedScriptTokenizer",
    "RuleParentFilter",
    "Segmenter",
    "UserDictionaryError",
    "attach_segmenter",
    "bigram_analyzer",
    "english_stem",
    "load_user_dictionary",
    "normalize_for_tokens",
    "query_texts",
    "read_user_dictionary",
    "same_outside_chinese",
    "segmenter_for",
    "set_user_words",
    "text_analyzer",
    "user_words",
    "warm_up",
    "write_user_dictionary",
]

# Full-width ASCII forms and the ideographic space, one to one, so that ７０２．３０ａ
# tokenises like 702.30a without changing any offset (NFKC would change lengths elsewhere).
_FULLWIDTH_ASCII = str.maketrans({chr(c): chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)} | {"\u3000": " "})

# The tokens of a text as `normalize_for_tokens` gives it, one named group a kind (the kinds of
# MixedScriptTokenizer's docstring); highlighting reads a text's tokens with it too.
TOKEN_PATTERN = re.compile(
    rf"(?P<symbol>\{{[^{{}}\s]{{1,15}}\}})"               # {藍/黑} {CHAOS} {PW} {重置} {X}
    rf"|(?P<pt>[+-]?\d+/[+-]?\d+)"                        # 2/2, +1/+1, -1/-1: power/toughness, counters
    rf"|(?P<number>\d+(?:\.\d+(?:[a-zA-Z](?![a-zA-Z]))?)?)"  # 702.30a, 2008, 3
    rf"|(?P<han>[{HAN}]+)"
    rf"|(?P<latin>{LATIN_WORD})"                         # owner's, Two, Headed
    rf"|(?P<word>[^\W\d_{LATIN}{HAN}]+)"                  # Cyrillic and any other letters
)
# The parts of a symbol in braces ({藍/黑}: 藍 and 黑; {CHAOS}), each an alternative of the whole
# symbol's token (`_symbol_parts`), and marked when a query names one (highlighting).
SYMBOL_PART_PATTERN = re.compile(rf"[{HAN}]+|[{LATIN}]+|\d+|[^\W\d_{LATIN}{HAN}]+")


def normalize_for_tokens(text: str) -> str:
    """The text tokens are read from: Simplified Chinese, ASCII for full-width forms, Latin
    look-alike letters inside Latin words as Latin. Same length as `text`."""
    return fold_homoglyphs(to_hans(text).translate(_FULLWIDTH_ASCII))


class MixedScriptTokenizer(Tokenizer):
    """Splits mixed-script text into tokens (see the module docstring).

    `chinese` chooses how Chinese runs are cut: "words" (jieba; search-mode sub-words as
    alternatives when indexing) or "bigrams" (overlapping character pairs, a run of one
    character as itself) for a recall field that does not depend on segmentation.
    Highlighting does not run the analyzer: `indexer.search.highlighting` applies its rules to a
    text knowing the query's tokens.

    Tokens carry a `kind` attribute the filters act on: "han", "latin", "word" (other
    letters), "number", "rule", "pt" (2/2, +1/+1), "symbol" or "raw" (untokenised input).
    """

    def __init__(self, chinese: str = "words"):
        if chinese not in ("words", "bigrams"):
            raise ValueError(f"chinese must be 'words' or 'bigrams', not {chinese!r}")
        self.chinese = chinese

    def __getstate__(self) -> dict:
        # The segmenter is the opened build's, never part of a pickled schema.
        return {k: v for k, v in self.__dict__.items() if k != "segmenter"}

    def __eq__(self, other):
        return other is not None and self.__class__ is other.__class__ and self.__getstate__() == other.__getstate__()

    def __call__(self, value: str, positions: bool = False, chars: bool = False,
                 keeporiginal: bool = False, removestops: bool = True, start_pos: int = 0,
                 start_char: int = 0, tokenize: bool = True, mode: str = "", **kwargs) -> Iterator[Token]:
        norm = normalize_for_tokens(value)
        if not tokenize:
            yield _token(norm, value, "raw", start_pos, start_char, 0, len(value),
                         positions=positions, chars=chars, removestops=removestops, mode=mode)
            return
        for piece, start, end, pos, kind in self._pieces(norm, alternatives=mode != "query"):
            yield _token(piece, value[start:end], kind, start_pos + pos, start_char, start, end,
                         positions=positions, chars=chars, removestops=removestops, mode=mode)

    def _pieces(self, norm: str, alternatives: bool) -> Iterator[tuple[str, int, int, int, str]]:
        """(text, start, end, position, kind) of each token of a normalised text, with the
        alternatives when asked (see the class docstring)."""
        pos = 0
        for m in TOKEN_PATTERN.finditer(norm):
            kind = m.lastgroup
            assert kind is not None, "every alternative of TOKEN_PATTERN is a named group"
            start = m.start()
            text = m.group()
            if kind == "han":
                pieces = self._chinese(text, alternatives)
            elif kind == "number":
                pieces = [(text.lower(), 0, len(text), 0, "rule" if is_rule_number(text.lower()) else "number")]
            else:
                pieces = [(text, 0, len(text), 0, kind)]
                if kind == "symbol" and alternatives:
                    pieces += _symbol_parts(text)
            for piece, s, e, step, piece_kind in pieces:
                pos += step
                yield piece, start + s, start + e, pos, piece_kind
            pos += 1

    def _chinese(self, run: str, alternatives: bool) -> Sequence[tuple[str, int, int, int, str]]:
        """(text, start, end, position step, kind) for one Simplified Chinese run. The step is
        1 for each primary token after the first and 0 for alternatives."""
        if self.chinese == "bigrams":
            if len(run) == 1:
                return [(run, 0, 1, 0, "han")]
            return [(run[i:i + 2], i, i + 2, 1 if i else 0, "han") for i in range(len(run) - 1)]
        return (self.__dict__.get("segmenter") or _default).segment(run, alternatives)


def _token(text: str, original: str, kind: str, pos: int, start_char: int, start: int, end: int,
           **flags) -> Token:
    # A fresh Token per token (Whoosh's tokenizers reuse one): alternatives are yielded
    # next to the token they belong to, and a filter may hold both.
    t = Token(**flags)
    t.text, t.original, t.kind = text, original, kind
    if flags.get("positions"):
        t.pos = pos
    if flags.get("chars"):
        t.startchar, t.endchar = start_char + start, start_char + end
    return t


def _symbol_parts(symbol: str) -> list[tuple[str, int, int, int, str]]:
    """The parts of `{藍/黑}` ({CHAOS}, {二/黑}) as alternatives of the whole symbol."""
    parts = []
    for m in SYMBOL_PART_PATTERN.finditer(symbol):
        part = m.group()
        kind = "han" if HAN_RUN.fullmatch(part) else "latin" if part[0].isascii() and part[0].isalpha() \
            else "number" if part.isdigit() else "word"
        parts.append((part, m.start(), m.end(), 0, kind))
    return parts


class EnglishFilter(Filter):
    """English words (kind "latin"): accents folded, Snowball English stem (tapped -> tap).

    Expects lower-cased text (put it after `LowercaseFilter`). Other kinds pass untouched."""

    is_morph = True

    def __call__(self, tokens: Iterable[Token]) -> Iterator[Token]:
        for t in tokens:
            if getattr(t, "kind", None) == "latin":
                t.text = english_stem(t.text)
            yield t


_STEMMER = EnglishStemmer()


# What the stems of the words seen so far may hold (the process's, shared by every build;
# Settings' `KB_CACHE_STEMS`).
STEMS_BYTES = 8 * 2**20


@cleared_when_full(STEMS_BYTES)
def english_stem(word: str) -> str:
    """A Latin word's Snowball English stem, its accents folded (tapped -> tap): what the index
    holds of it, and what highlighting and the offline copy stem a word to."""
    if not word.isascii():
        word = "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))
    return _STEMMER.stem(word)


class RuleParentFilter(Filter):
    """After a subrule number (702.30a) the rule it belongs to (702.30), at the same
    position, when indexing. A rule number without a subrule letter has no parent here:
    702.30 is not a mention of section 702 in any useful sense."""

    def __call__(self, tokens: Iterable[Token]) -> Iterator[Token]:
        for t in tokens:
            yield t
            if t.kind == "rule" and t.mode != "query" and t.text[-1].isalpha():
                parent = t.copy()
                parent.text = rule_parent(t.text)
                yield parent


# The parts of the analyzers this module makes, in order: what `query_texts` knows of them.
_CHAIN = (MixedScriptTokenizer, LowercaseFilter, EnglishFilter, RuleParentFilter)


def query_texts(analyzer, text: str) -> Iterator[str]:
    """The texts of the tokens `analyzer` yields for `text` in query mode.

    For an analyzer made here (`text_analyzer`, `bigram_analyzer`) they come from its
    tokenizer's pieces, each lower-cased and an English word stemmed, as its filters would
    (RuleParentFilter adds a rule's parent only when indexing): without a Token object and
    a generator of each filter for every token, which cost more than the tokens themselves
    in a query's analysis. Any other analyzer runs whole."""
    parts: Sequence[Any] = getattr(analyzer, "items", ())
    if tuple(map(type, parts)) != _CHAIN:
        yield from (token.text for token in analyzer(text, mode="query"))
        return
    for piece, _, _, _, kind in parts[0]._pieces(normalize_for_tokens(text), alternatives=False):
        piece = piece.lower()
        yield english_stem(piece) if kind == "latin" else piece


def text_analyzer():
    """The main analyzer: Chinese words, English stems, whole rule numbers and symbols."""
    return MixedScriptTokenizer("words") | LowercaseFilter() | EnglishFilter() | RuleParentFilter()


def bigram_analyzer():
    """The recall analyzer: Chinese character bigrams; everything else as `text_analyzer`."""
    return MixedScriptTokenizer("bigrams") | LowercaseFilter() | EnglishFilter() | RuleParentFilter()


def same_outside_chinese(a, b) -> bool:
    """Whether analyzers `a` and `b` give every text without a Han character the same tokens:
    their parts are equal but for how their tokenizers cut Chinese runs (`text_analyzer` and
    `bigram_analyzer`), which only Han characters reach. A query's text without Chinese is
    then analysed once for both."""
    parts_a, parts_b = getattr(a, "items", [a]), getattr(b, "items", [b])
    return len(parts_a) == len(parts_b) and all(
        x == y or _same_but_chinese(x, y) for x, y in zip(parts_a, parts_b, strict=True))


def _same_but_chinese(x, y) -> bool:
    """Whether `x` and `y` are MixedScriptTokenizers whose settings differ at most in `chinese`."""
    if not (isinstance(x, MixedScriptTokenizer) and isinstance(y, MixedScriptTokenizer)):
        return False
    x_settings, y_settings = x.__getstate__(), y.__getstate__()
    x_settings.pop("chinese")
    y_settings.pop("chinese")
    return x_settings == y_settings


# --- jieba and the user words: segmenters, never part of a pickled analyzer ---

# Bytes of runs' segmentations a segmenter remembers (`Segmenter.segment`).
SEGMENTS_BYTES = 2 * 2**20
# The least jieba frequency of a user word. jieba's own suggestion only makes a word beat its
# parts in isolation; in running text a neighbour then takes a character (坟墓场所 read as
# 坟墓 + 场所 "place", 增幅过后 as 增幅 + 过后). Measured on the corpus, a floor of 1000 keeps
# every glossary form whole except where the text reads otherwise, at one cost: 先手牌手
# ("the first player") becomes 先 + 手牌 + 手.
USER_WORD_FREQ = 1000

_lock = threading.Lock()
# jieba's own dictionary (word frequencies and their total), loaded once per process: a
# segmenter's tokenizer starts from a copy of it instead of loading it again.
_base: tuple[dict[str, int], int] | None = None


class Segmenter:
    """jieba's segmentation with a set of user words kept whole (Simplified)."""

    def __init__(self, words: Iterable[str] = ()):
        self.words = _simplified_words(words)
        self._tokenizer: jieba.Tokenizer | None = None
        self._lock = threading.Lock()
        # A run's words without sub-words (a query's), remembered per run within a budget:
        # jieba's segmentation is most of a Chinese query's analysis, and a run is segmented
        # again when the question reading analyses the query, and recurs in other queries.
        self._words = cleared_when_full(SEGMENTS_BYTES)(self._segment_words)

    def tokenizer(self) -> jieba.Tokenizer:
        """This segmenter's jieba tokenizer, created on first use.

        A dedicated `jieba.Tokenizer`, not jieba's global one, so no other code's words leak
        in. It is made from a copy of jieba's dictionary plus the user words in sorted order,
        which is the state a fresh tokenizer given those words reaches (`add_word` weighs a
        word against the words added before it), without loading the dictionary again: a
        server opening a build with new words does not stall its requests."""
        tokenizer = self._tokenizer
        if tokenizer is None:
            with self._lock:
                if self._tokenizer is None:
                    freq, total = _jieba_base()
                    tokenizer = jieba.Tokenizer()
                    tokenizer.FREQ, tokenizer.total = dict(freq), total
                    tokenizer.initialized = True
                    for word in sorted(self.words):
                        tokenizer.add_word(word, max(tokenizer.suggest_freq(word), USER_WORD_FREQ))
                    self._tokenizer = tokenizer
                tokenizer = self._tokenizer
        return tokenizer

    def segment(self, run: str, alternatives: bool) -> Sequence[tuple[str, int, int, int, str]]:
        """jieba's words of a Simplified run, in order; with `alternatives`, each word is
        followed by the dictionary sub-words search mode finds inside it.

        jieba's search mode yields, for each word, its sub-words and then the word itself. Read
        backwards, the first token of each group is therefore the word, and the tokens after it
        (before the previous word) start inside it; that is how words and sub-words are told
        apart without re-implementing search mode."""
        if not alternatives:
            return self._words(run)
        tokenizer = self.tokenizer()
        groups: list[list[tuple[str, int, int]]] = []
        for w, s, e in reversed(list(tokenizer.tokenize(run, mode="search"))):
            if groups and s >= groups[-1][0][1]:
                groups[-1].append((w, s, e))
            else:
                groups.append([(w, s, e)])
        pieces = []
        for group in reversed(groups):
            word, start, end = group[0]
            subwords = set(group[1:]) | self._user_subwords(word, start)
            pieces.append((word, start, end, 1 if start else 0, "han"))
            pieces.extend((w, s, e, 0, "han") for w, s, e in sorted(subwords, key=lambda t: (t[1], t[2])))
        return pieces

    def _segment_words(self, run: str) -> tuple[tuple[str, int, int, int, str], ...]:
        """`segment` without alternatives (a shared answer: read only)."""
        return tuple((w, s, e, 1 if s else 0, "han") for w, s, e in self.tokenizer().tokenize(run, mode="default"))

    def words_of(self, run: str, remember: bool = True) -> list[str]:
        """jieba's words of a Simplified run, in order, without sub-words; with `remember`
        False, not kept among the remembered runs: a text read once (a build's thousands of
        rules) would only push the queries' runs out of the budget."""
        pieces = self.segment(run, alternatives=False) if remember else self._segment_words(run)
        return [word for word, *_ in pieces]

    def dictionary_words(self, word: str) -> list[str]:
        """A word as the dictionary's words in it (jieba's and the user words): itself when
        the dictionary has it, else what jieba cuts without its HMM, which joins a run of
        characters the dictionary does not join into a word of its own (再放, 会输, 我放:
        a question form glued to the next character)."""
        tokenizer = self.tokenizer()
        if tokenizer.FREQ.get(word) or len(word) < 2:
            return [word]
        return list(tokenizer.cut(word, HMM=False))

    def _user_subwords(self, word: str, start: int) -> set[tuple[str, int, int]]:
        """User words of four or more characters inside a longer word (时空换境 inside
        时空换境异能), which jieba's search mode, looking only at two- and three-character
        pieces, would not yield."""
        found = set()
        for size in range(4, len(word)):
            for i in range(len(word) - size + 1):
                piece = word[i:i + size]
                if piece in self.words:
                    found.add((piece, start + i, start + i + size))
        return found


@lru_cache(maxsize=2)
def segmenter_for(words: frozenset[str]) -> Segmenter:
    """One segmenter per set of user words: builds of the same words share its tokenizer
    (the one `warm_up` loaded before a server forked, for the build it serves)."""
    return Segmenter(words)


def attach_segmenter(analyzer, segmenter: Segmenter) -> None:
    """Make an analyzer of an opened build's schema segment with `segmenter`."""
    for part in getattr(analyzer, "items", [analyzer]):
        if isinstance(part, MixedScriptTokenizer):
            part.segmenter = segmenter


def _jieba_base() -> tuple[dict[str, int], int]:
    global _base
    if _base is None:
        with _lock:
            if _base is None:
                _base = _jieba_dictionary()
    return _base


class UserDictionaryError(ValueError):
    """A bad user dictionary file; the message names the file and line."""


def _jieba_dictionary() -> tuple[dict[str, int], int]:
    """jieba's own dictionary: word frequencies and their total.

    jieba keeps it, once built, in a cache file that it reads with `marshal.load` on a file
    object, which fetches the half million entries in as many small reads (most of a
    server's start-up); the same bytes read at once and given to `marshal.loads` take a
    fraction of that (docs/benchmarks.md, cold start). Without a readable cache jieba builds
    and writes one."""
    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    cache = Path(tokenizer.tmp_dir or tempfile.gettempdir()) / "jieba.cache"
    try:
        freq, total = marshal.loads(cache.read_bytes())
        if isinstance(freq, dict) and isinstance(total, int) and freq:
            return freq, total
    except (OSError, EOFError, ValueError, TypeError):
        pass
    tokenizer.initialize()
    return tokenizer.FREQ, tokenizer.total


def _simplified_words(words: Iterable[str]) -> frozenset[str]:
    """The Chinese words among `words`, in Simplified. A form that is not all Han
    characters (persist, +1/+1指示物) is not a jieba word: the other scripts' tokens never
    reach jieba."""
    return frozenset(to_hans(w.strip()) for w in words if HAN_RUN.fullmatch(w.strip()))


# The segmenter of analyzers no build has attached one to.
_default = Segmenter()


def set_user_words(words: Iterable[str]) -> frozenset[str]:
    """Make `words` (any script; non-Chinese forms are ignored) the default segmenter's user
    words: analyzers of no build segment them as whole words from now on. Returns the
    Simplified words."""
    global _default
    new = _simplified_words(words)
    if new != _default.words:
        # A new segmenter, never the old one extended in place: jieba weighs an added word
        # against the words added before it.
        _default = Segmenter(new)
    return new


def user_words() -> frozenset[str]:
    """The default segmenter's user words (Simplified)."""
    return _default.words


def write_user_dictionary(path: Path | str, words: Iterable[str]) -> list[str]:
    """Write `words` (converted to Simplified, Chinese words only, sorted) to `path`, one per
    line, for `load_user_dictionary`. Returns the words written."""
    out = sorted(_simplified_words(words))
    Path(path).write_text(
        "# User dictionary of search.analysis: one Simplified word per line.\n" + "".join(w + "\n" for w in out),
        encoding="utf-8",
    )
    return out


def read_user_dictionary(path: Path | str) -> list[str]:
    """The words of a file written by `write_user_dictionary`, checked but not yet in use.

    Blank lines and lines starting with # are skipped; any other line must be one word of
    Han characters, else `UserDictionaryError` names the file and line."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UserDictionaryError(f"{path}: cannot read user dictionary: {exc}") from None
    words = []
    for n, line in enumerate(lines, 1):
        word = line.strip()
        if not word or word.startswith("#"):
            continue
        if not HAN_RUN.fullmatch(word):
            raise UserDictionaryError(f"{path}:{n}: {word!r} is not one word of Chinese characters")
        words.append(word)
    return words


def load_user_dictionary(path: Path | str) -> frozenset[str]:
    """Read a file written by `write_user_dictionary` and make it the user dictionary."""
    return set_user_words(read_user_dictionary(path))


def warm_up(segmenter: Segmenter | None = None) -> None:
    """Load jieba (with the words of `segmenter`, else the default's) and OpenCC now, e.g.
    before a server forks, so that workers share them instead of each loading them on its
    first request."""
    chinese.warm_up()
    (segmenter or _default).tokenizer()

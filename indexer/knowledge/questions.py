"""Questions: what a judge's or player's question asks, read in any script, and the rules
that answer it ranked by how much of it they hold.

A question ("can a tapped creature block", 對手回合可以下地嗎, 指挥官被弹回手里再放要交指挥官税吗)
is read into concepts, each a set of written forms any one of which means it:

* its question forms (data/question_forms.tsv: how many, can I, 能不能, 幾張, 谁来) are read as
  what they ask (a number, a permission, who chooses), never searched as its subject;
* players' words (data/thesaurus.tsv: bounce, 下地, 弹回, ETB) stand with the rules' own
  wording for the same thing, in every script;
* each remaining word is a concept of its own, as the index's analyzer reads it (an English
  stem, a Chinese word in Simplified).

A concept weighs what its rarest form says: the log of how many records there are to how
many hold it. A candidate's share of a question (`QuestionRanker.coverage`) is the weight of
the concepts its text holds over the weight of all of them: a rule that holds the question's
rare words together answers it better than one that holds one of them many times, which is
what the engine's sum of each word's score rewards.
"""
from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from indexer.documents.bounded_cache import bounded_cache
from indexer.documents.chinese import HAN_RUN, to_hans
from indexer.search.folding import fold_key

from .holders import TodaysHolders

DATA = Path(__file__).with_name("data")
QUESTION_FORMS = DATA / "question_forms.tsv"
THESAURUS = DATA / "thesaurus.tsv"
# The fewest concepts a query needs to be read as a question: one or two words are a look-up
# (a name, a term, a keyword and its rule), and an English query of three is as often a
# heading or a phrase of the rules (starting life total, minimum deck size) as a question.
MIN_CONCEPTS = 3
MIN_ENGLISH_CONCEPTS = 4
# An English query of `MIN_CONCEPTS` concepts is a question when it holds a question form (who
# controls, when does, can a): a heading or a phrase of the rules holds none. Its candidates are
# not ranked again by its share (`QuestionReader.short`, the `short_english` stage).
# The fewest concepts a terse query needs: the game's words and players' words only, no
# question form, typed apart (trample deathtouch damage, 践踏 死触 伤害). A judge who types two
# such words asks where they meet, which one rule holds together; one word is a look-up, and so
# is one Chinese word the segmenter cuts in two (a card's name).
MIN_TERSE_CONCEPTS = 2
# An English form shorter than this is not looked for inside folded text (`x`, `pw` would be
# found inside every other word).
MIN_LATIN_NEEDLE = 2
_LATIN_WORD = re.compile(r"[a-z0-9][a-z0-9'’/+-]*")


class VocabularyError(ValueError):
    """A bad question forms or thesaurus file; the message names the file and line."""


def data_rows(path: Path, columns: int) -> list[list[str]]:
    """The data lines of a tab-separated file with a header line, comments skipped."""
    rows = []
    header_seen = False
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != columns:
            raise VocabularyError(f"{path}:{n}: want {columns} tab-separated fields, got {len(fields)}")
        if not header_seen:
            header_seen = True
            continue
        rows.append([f.strip() for f in fields])
    return rows


def _normal(text: str) -> str:
    """The form words are looked up in: NFKC, lower case, Simplified."""
    return to_hans(unicodedata.normalize("NFKC", text)).lower()


def _as_written(stem: str) -> str:
    """An English stem as the start of the words it stems from: Snowball writes a final y
    as i (priority: prioriti), which the written words do not hold."""
    return stem[:-1] if len(stem) > 3 and stem.endswith("i") and stem.isascii() else stem


@dataclass(frozen=True)
class Concept:
    """One thing a question names: its written forms, each the pieces (folded UTF-8) that must
    all occur in a text for it to hold the form, and its weight (how rare it is)."""

    forms: tuple[tuple[bytes, ...], ...]
    weight: float


class Vocabulary:
    """The question forms and the thesaurus, looked up in a question's text."""

    def __init__(self, forms_path: Path = QUESTION_FORMS, thesaurus_path: Path = THESAURUS):
        self.asks: dict[str, tuple[str, ...]] = {}
        for form, asks, _lang, _source in data_rows(forms_path, 4):
            self.asks[_normal(form)] = tuple(asks.split())
        self.means: dict[str, tuple[str, ...]] = {}
        for word, means, _source in data_rows(thesaurus_path, 3):
            self.means[_normal(word)] = tuple(m.strip() for m in means.split("|") if m.strip())
        # Longest first, and in one order whatever the hash seed: the pattern (and the offline
        # copy that ships it) is the same bytes for the same files.
        keys = sorted(set(self.asks) | set(self.means), key=lambda k: (-len(k), k))
        latin = [k for k in keys if not HAN_RUN.search(k)]
        # The English forms and words as whole words (the offline copy ships this pattern too).
        self.latin = re.compile(r"(?<![a-z0-9])(?:" + "|".join(map(re.escape, latin)) + r")(?![a-z0-9])")
        self._han = {k for k in keys if HAN_RUN.fullmatch(k)}
        self._longest_han = max(map(len, self._han), default=0)

    def spans(self, text: str) -> list[tuple[int, int, str]]:
        """The question forms and thesaurus words in `text` (normalised), longest first and
        not overlapping, as (start, end, key)."""
        found = [(m.start(), m.end(), m.group()) for m in self.latin.finditer(text)]
        for run in HAN_RUN.finditer(text):
            at, end = run.start(), run.end()
            while at < end:
                # A one-character form (吗, 能) only as a word of its own: inside a word (异能)
                # it is part of another word (`QuestionReader` meets it among the words).
                for size in range(min(self._longest_han, end - at), 1, -1):
                    key = text[at:at + size]
                    if key in self._han:
                        found.append((at, at + size, key))
                        at += size
                        break
                else:
                    at += 1
        return sorted(found)


@lru_cache(maxsize=1)
def vocabulary() -> Vocabulary:
    """The data files' vocabulary, read once per process (it is not about any one index)."""
    return Vocabulary()


class QuestionReader:
    """Reads a query into its concepts with one index's word frequencies."""

    def __init__(self, vocabulary: Vocabulary, word_frequencies: Callable[[str], list[tuple[str, int]]],
                 doc_count: int, cache_bytes: int, *, asks: float, thesaurus: bool,
                 words: Callable[[str], list[str]], word_forms: bool = True, short_english: bool = True,
                 holders: TodaysHolders | None = None,
                 dictionary_words: Callable[[str], list[str]] | None = None):
        """`asks`: what a question form's asked-for words weigh against a word of the
        question's own (0: question forms are read as any other words); `thesaurus`: whether
        players' words stand with the rules' wording; `words`: the index's segmenter's words of
        a Simplified Chinese run, in order (`Segmenter.words_of`); `word_forms`: whether a
        question's own word is read once (`_word`); `short_english`: whether an English query
        of `MIN_CONCEPTS` concepts with a question form is a question (`short`); `holders`: how
        many of today's rules hold a Chinese form, which then weighs a Chinese question's
        Chinese forms (`_concept`; None: the index's count of the word does);
        `dictionary_words`: a Chinese word as the dictionary's words in it
        (`Segmenter.dictionary_words`), which a question's word the segmenter made up is read
        as (`_read`; None: as it was cut)."""
        self.vocabulary = vocabulary
        self._holders = holders
        self._dictionary_words = dictionary_words
        self._frequencies = word_frequencies
        self._words = words
        self._doc_count = max(doc_count, 1)
        self._asks, self._forms, self._thesaurus = asks, asks > 0, thesaurus
        self._word_forms = word_forms
        self._short_english = short_english
        # Remembered per query text for this build (answers are shared: read only).
        self.read = bounded_cache(cache_bytes)(self._read)
        self.plain = bounded_cache(cache_bytes)(self._plain)

    def asks(self, text: str, terse: bool = True) -> bool:
        """Whether a query is read as a question: from `MIN_CONCEPTS` (`is_question`), or, when
        `terse`, from `MIN_TERSE_CONCEPTS` if it is words typed apart with no question form
        (`plain`)."""
        concepts = self.read(text)
        if is_question(text, concepts) or self.short(text):
            return True
        return terse and len(concepts) >= MIN_TERSE_CONCEPTS and len(text.split()) > 1 and self.plain(text)

    def short(self, text: str) -> bool:
        """Whether a query is an English question of fewer concepts than `is_question` wants:
        `MIN_CONCEPTS` of them and a question form (who controls a token creature). Its share of
        three concepts is too coarse to rank by (two of three, squared, is under half of
        all three, whatever the third is), so its candidates keep the engine's order with
        the meanings' and the statements' (`QuestionRanking.rerank`); read as a question, it is
        grouped by subrule and gets those."""
        if not self._short_english or HAN_RUN.search(text):
            return False
        concepts = self.read(text)
        return MIN_CONCEPTS <= len(concepts) < MIN_ENGLISH_CONCEPTS and not self.plain(text)

    def wordings(self, text: str) -> list[str]:
        """The rules' wording of the players' words a question holds (下地: 使用地, play land),
        for the engine to search as well, without the forms that ask nothing (`content`: 从 of
        从战场进入坟墓场); none when the thesaurus is off."""
        if not self._thesaurus:
            return []
        normal = _normal(text)
        found = [key for _, _, key in self.vocabulary.spans(normal) if key in self.vocabulary.means]
        return [self.content(m) for key in found for m in self.vocabulary.means[key] if _normal(m) != key]

    def subject(self, text: str) -> str:
        """The question's own words without its question forms (威慑 生物 挡 of
        威慑能被一个生物挡吗), as the words a snippet marks: 能 and 被 mark nothing an answer
        says about the question."""
        normal = _normal(text)
        kept, at = [], 0
        for start, end, key in self.vocabulary.spans(normal):
            kept.append(normal[at:start])
            if key in self.vocabulary.means or key not in self.vocabulary.asks:
                kept.append(key)
            at = end
        kept.append(normal[at:])
        words = [token for token, _ in self._own_words(" ".join(kept))
                 if token in self.vocabulary.means or token not in self.vocabulary.asks]
        return " ".join(dict.fromkeys(words))

    def content(self, text: str) -> str:
        """A Chinese query's text without the question forms that ask nothing (an empty `asks`
        in data/question_forms.tsv: 吗, 是, 什么, 的, 上), each cut out where it stands and the
        rest kept as written, apart where a form stood: 傳奇規則是什麼 is 傳奇規則. These words
        say how the query is asked, never what about: searched, they find whatever repeats 是
        or 什么 (a card's reminder text, 901.9a's 则什么事情都不发生). A form that asks for
        something (能: a permission, 几: a number) stays for the question's reading. A one-
        character form is cut only where the segmenter makes it a word (的 of 目的 stays), or
        where the word the segmenter made up is the dictionary's words (我 of 我放: `_own_words`)."""
        vocabulary = self.vocabulary
        normal = _normal(text)
        if not HAN_RUN.search(normal):
            return text
        kept = list(text if len(text) == len(normal) else normal)
        rest = list(normal)
        for start, end, key in vocabulary.spans(normal):
            if not HAN_RUN.fullmatch(key):
                continue
            rest[start:end] = " " * (end - start)  # a players' word is kept whole (面朝下: not 面朝 下)
            if key not in vocabulary.means and vocabulary.asks.get(key) == ():
                kept[start:end] = rest[start:end]
        for run in HAN_RUN.finditer("".join(rest)):
            at = run.start()
            words = self._words(run.group())
            if self._dictionary_words is not None:
                words = [piece for word in words for piece in self._dictionary_words(word)]
            for word in words:
                if word not in vocabulary.means and vocabulary.asks.get(word) == ():
                    kept[at:at + len(word)] = " " * len(word)
                at += len(word)
        return " ".join("".join(kept).split())

    def _plain(self, text: str) -> bool:
        """Whether a query holds no question form (how many, can, 吗, the): a judge's few words
        of the game's terms, not a sentence. A players' word (bounce, 弹回) is the game's."""
        vocabulary = self.vocabulary
        normal = _normal(text)
        rest, at = [], 0
        for start, end, key in vocabulary.spans(normal):
            if key in vocabulary.means:
                rest.append(normal[at:start])
                at = end
            elif key in vocabulary.asks:
                return False
        rest.append(normal[at:])
        return not any(token in vocabulary.asks and token not in vocabulary.means
                       for token, _ in self._frequencies(" ".join(rest)))

    def _pieces(self, text: str, words: list[tuple[str, int]] | None = None) -> tuple[tuple[bytes, ...], int]:
        """A written form as the pieces a text must hold, and how many records hold its
        rarest piece: English as its words' stems, Chinese as written. `words`: the form's
        words as the analyzer has read them already (a question's own word), not read again:
        the stem of a stem is another word, or none (concede: conced, then conc)."""
        pieces, counts = [], []
        for token, count in self._frequencies(text) if words is None else words:
            if HAN_RUN.fullmatch(token) or len(token) >= MIN_LATIN_NEEDLE:
                pieces.append(fold_key(_as_written(token)).encode())
                counts.append(count)
        if HAN_RUN.search(text) and not _LATIN_WORD.search(text.lower()):
            # A Chinese form is looked for as written, whatever the segmenter made of it.
            pieces = [fold_key(text).encode()]
        return tuple(p for p in pieces if p), min(counts, default=0)

    def _concept(self, forms: Iterable[tuple[tuple[bytes, ...], int]], share: float = 1.0,
                 chinese: bool = False) -> Concept | None:
        """A concept of written forms as `_pieces` reads them: it weighs what its commonest
        form says, the share of records holding it. For a Chinese question (`chinese`) a
        Chinese form's share is of today's rules holding it as written, as the question's
        share holds it (`TodaysHolders`): the index counts the segmenter's words, and 算 is
        rare there though every 结算 holds it."""
        alternatives, commonest = [], 0.0
        for pieces, count in dict.fromkeys(forms):
            if not (pieces and count):
                continue
            holders = self._holders
            if chinese and holders is not None and all(HAN_RUN.fullmatch(p.decode()) for p in pieces):
                # A form none of them holds weighs as the rarest: left out, the query would
                # have fewer concepts and might not be read as a question at all (`asks`).
                found = max(min(holders.count(p) for p in pieces), 1) / max(holders.total, 1)
            else:
                found = count / self._doc_count
            alternatives.append(pieces)
            commonest = max(commonest, found)
        if not alternatives:
            return None
        return Concept(tuple(alternatives), share * math.log(1 + 1 / commonest))

    def _of_forms(self, forms: Iterable[str], share: float = 1.0, chinese: bool = False) -> Concept | None:
        """A concept of written forms (a players' word and the rules' wording of it)."""
        return self._concept(map(self._pieces, dict.fromkeys(forms)), share, chinese)

    def _word(self, token: str, count: int, chinese: bool = False) -> Concept | None:
        """A question's own word, as the analyzer read it (the `word_forms` stage; off: read again)."""
        if not self._word_forms:
            return self._of_forms([token], chinese=chinese)
        return self._concept([self._pieces(token, [(token, count)])], chinese=chinese)

    def _read(self, text: str) -> tuple[Concept, ...]:
        """The concepts of a question, in the order it names them (none for an empty text)."""
        normal = _normal(text)
        chinese = bool(HAN_RUN.search(normal))
        concepts: list[Concept | None] = []
        rest = []
        at = 0
        for start, end, key in self.vocabulary.spans(normal):
            if key in self.vocabulary.means and self._thesaurus:
                concepts.append(self._of_forms([key, *self.vocabulary.means[key]], chinese=chinese))
            elif key in self.vocabulary.asks and self._forms:
                asks = self.vocabulary.asks[key]
                if asks:
                    concepts.append(self._of_forms(asks, self._asks, chinese))
            else:
                continue
            rest.append(normal[at:start])
            at = end
        rest.append(normal[at:])
        seen: set[str] = set()
        for token, count in self._own_words(" ".join(rest)):
            if token in seen:
                continue
            seen.add(token)
            if self._thesaurus and token in self.vocabulary.means:
                concepts.append(self._of_forms([token, *self.vocabulary.means[token]], chinese=chinese))
            elif self._forms and token in self.vocabulary.asks:
                asks = self.vocabulary.asks[token]
                if asks:
                    concepts.append(self._of_forms(asks, self._asks, chinese))
            else:
                concepts.append(self._word(token, count, chinese))
        return tuple(c for c in concepts if c is not None)

    def _own_words(self, text: str) -> list[tuple[str, int]]:
        """The question's words as the analyzer reads them, with the index's counts; a
        Chinese word jieba's HMM made of characters its dictionary does not join (再放, 会输,
        减费能) read as the dictionary's words in it: its question form (再, 会, 能) is then
        read as one, and the rest is the rules' word (放, 输), not a word no rule writes."""
        found = self._frequencies(text)
        split = self._dictionary_words
        if split is None:
            return found
        words: list[tuple[str, int]] = []
        pieces: list[str] = []
        for token, count in found:
            cut = split(token) if HAN_RUN.fullmatch(token) and token not in self.vocabulary.means else [token]
            if len(cut) < 2:
                words.append((token, count))
            else:
                pieces.extend(cut)
        # The pieces analysed at once, after the other words (an analysis is most of a word's cost).
        return words + self._frequencies(" ".join(pieces)) if pieces else words


def is_question(text: str, concepts: tuple[Concept, ...]) -> bool:
    """Whether a query of these concepts is read as a question (`MIN_CONCEPTS`)."""
    return len(concepts) >= (MIN_CONCEPTS if HAN_RUN.search(text) else MIN_ENGLISH_CONCEPTS)


class QuestionRanker:
    """A question's share held by each of its candidates."""

    def __init__(self, holding: Callable[[list[int], bytes], list[int]]):
        self._holding = holding

    def coverage(self, concepts: tuple[Concept, ...], positions: list[int]) -> np.ndarray:
        """For each candidate (positions), the weight of the concepts its text holds over the
        weight of all the question's concepts."""
        total = sum(c.weight for c in concepts)
        held = self.held(concepts, positions)
        return held / total if total else held

    def held(self, concepts: tuple[Concept, ...], positions: list[int]) -> np.ndarray:
        """For each candidate (positions), the weight of the concepts its text holds."""
        held = np.zeros(len(positions))
        index = {p: i for i, p in enumerate(positions)}
        for concept in concepts:
            holders: set[int] = set()
            for pieces in concept.forms:
                found = positions
                for piece in pieces:
                    found = self._holding(found, piece)
                    if not found:
                        break
                holders.update(found)
            for p in holders:
                held[index[p]] += concept.weight
        return held

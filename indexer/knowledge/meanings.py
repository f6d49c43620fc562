"""Meanings: a question and each of today's rules as the mean of their words' meaning vectors,
so that a rule worded unlike the question ("must be untapped" for a tapped creature blocking,
使用地 for 下地) is still near it.

A word's vector is what a multilingual sentence encoder (multilingual-e5-small) makes of the
word alone, made once for the words of today's rules and the project's vocabularies
(`python -m indexer.knowledge.word_table`, written to data/word_vectors.npz): a static
embedding, as model2vec distils one, so a question costs a segmentation and one product of a
matrix with a vector, not a pass of the encoder (6 ms and more a token on this machine's
CPU). A text's vector is its words' vectors averaged, each weighted by how rare the word is
in the rules (smooth inverse frequency, Arora et al. 2017: a / (a + p(w))), less the mean of
the rules' vectors (the direction every text of the rules shares); nearness is the cosine.
Chinese is read in Simplified as the build's segmenter cuts it (the index's words), a word
the table lacks as its characters; English as its words in lower case. A Chinese question is
compared with the rules' Chinese, any other with their English: the table does not carry a
word across languages (measured: docs/decisions/0037-word-meanings.md). Word by word, each of a question's words
also finds its nearest word in a rule (`Meanings.word_matches`).

The rules' vectors are made once per opened build, from the build's records, and held by that
build's ranker.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from pathlib import Path

import numpy as np

from indexer.documents.chinese import HAN_RUN, to_hans
from indexer.documents.records import Record
from indexer.search.analysis import Segmenter

from .catalogue import Catalogue

WORD_VECTORS = Path(__file__).with_name("data") / "word_vectors.npz"
# Smooth inverse frequency's constant: a word as common as one in a thousand of the rules'
# words keeps half its weight (Arora et al. recommend 1e-3 to 1e-4).
SIF = 1e-3
# The directions a question's words are compared with the candidates' in (`word_matches`): the
# table's first principal ones. The product is most of what the word-by-word reading costs, and
# in 96 of the 384 dimensions it costs a quarter and ranked the same (docs/decisions/0042-word-by-word-meanings.md).
NEAR_DIMENSIONS = 96
# A run of Chinese, or an English word or number, in the order the text has them; an apostrophe
# or a hyphen parts words (opponent's, state-based), as players write them either way.
_WORD = re.compile(f"({HAN_RUN.pattern})|[a-z0-9]+")

# A Chinese run cut into words (the build's segmenter).
Cut = Callable[[str], list[str]]


def words(text: str, cut: Cut) -> Iterator[str]:
    """A text's words as the table is keyed: Chinese in Simplified as `cut` cuts each run,
    English words in lower case."""
    normal = to_hans(unicodedata.normalize("NFKC", text)).lower()
    for match in _WORD.finditer(normal):
        if match.group(1):
            yield from cut(match.group(1))
        else:
            yield match.group()


class WordVectors:
    """The table: each word's vector (unit length, stored as 8-bit integers with a scale per
    word) and its weight by its count in today's rules."""

    def __init__(self, path: Path = WORD_VECTORS):
        with np.load(path) as data:
            words_ = data["words"].tolist()
            vectors = data["vectors"].astype(np.float32) * data["scales"].astype(np.float32)[:, None]
            counts = data["counts"].astype(np.float64)
        self.words: list[str] = words_
        self.index = {w: i for i, w in enumerate(words_)}
        self.vectors = vectors
        self.near = _principal(vectors, NEAR_DIMENSIONS)
        self.weights = (SIF / (SIF + counts / max(counts.sum(), 1.0))).astype(np.float32)

    def rows(self, text: str, cut: Cut) -> list[int]:
        """A text's words as table rows; a Chinese word the table lacks as its characters,
        any other word it lacks left out."""
        found = []
        for word in words(text, cut):
            row = self.index.get(word)
            if row is not None:
                found.append(row)
            elif HAN_RUN.fullmatch(word):
                found.extend(self.index[c] for c in word if c in self.index)
        return found

    def vector(self, text: str, cut: Cut) -> np.ndarray:
        """A text's weighted mean vector (zeros when the table has none of its words)."""
        return self.mean(self.rows(text, cut))

    def mean(self, rows: list[int]) -> np.ndarray:
        """The weighted mean vector of table rows (zeros for none)."""
        if not rows:
            return np.zeros(self.vectors.shape[1], np.float32)
        weights = self.weights[rows]
        return (self.vectors[rows] * weights[:, None]).sum(0) / weights.sum()


def _principal(vectors: np.ndarray, dimensions: int) -> np.ndarray:
    """The vectors in their first `dimensions` principal directions, each of unit length (the
    eigenvectors of a 384 by 384 product: a tenth of a second, where a decomposition of the
    whole table takes seconds)."""
    centred = vectors - vectors.mean(0)
    _, directions = np.linalg.eigh(centred.T @ centred)
    projected = vectors @ directions[:, ::-1][:, :dimensions]
    return (projected / (np.linalg.norm(projected, axis=1, keepdims=True) + 1e-9)).astype(np.float32)


class Meanings:
    """Today's rules' vectors and words, in English and in Chinese, and a question's nearness
    to each: of the whole text (`cosines`) and word by word (`word_matches`)."""

    def __init__(self, table: WordVectors, size: int, texts: dict[str, Iterable[tuple[int, str]]],
                 cut: Cut, cut_once: Cut):
        """`texts` by language, each (catalogue position, text); `cut` cuts a question's
        Chinese runs, `cut_once` the texts' (read once, not remembered)."""
        self.table = table
        self.cut = cut
        self._rows: dict[str, np.ndarray] = {}
        self._matrices: dict[str, np.ndarray] = {}
        self._means: dict[str, np.ndarray] = {}
        # Each text's distinct words (table rows), one text after another, and where each
        # text's start: what `word_matches` reads.
        self._words: dict[str, np.ndarray] = {}
        self._starts: dict[str, np.ndarray] = {}
        for lang, pairs in texts.items():
            pairs = list(pairs)
            if not pairs:
                continue
            read = [table.rows(text, cut_once) for _, text in pairs]
            distinct = [np.unique(np.array(rows, np.int64)) for rows in read]
            self._words[lang] = np.concatenate(distinct)
            self._starts[lang] = np.cumsum([0] + [len(d) for d in distinct])
            matrix = np.stack([table.mean(rows) for rows in read])
            mean = matrix.mean(0)
            matrix -= mean
            matrix /= np.linalg.norm(matrix, axis=1, keepdims=True) + 1e-9
            # Each catalogue position's row of the matrix, -1 for a record that has none.
            rows = np.full(size, -1, np.int64)
            rows[[at for at, _ in pairs]] = np.arange(len(pairs))
            self._rows[lang], self._matrices[lang], self._means[lang] = rows, matrix, mean

    @classmethod
    def of_todays_rules(cls, catalogue: Catalogue, table: WordVectors, segmenter: Segmenter) -> Meanings:
        """Today's rules, each read as its heading, its rule's heading and its text, in English
        and in Chinese, Chinese cut by the build's segmenter."""
        def text(record: Record, lang: str) -> str:
            parts = [record.title.get(lang, ""), record.text.get(lang, "")]
            if record.parent:
                for parent in catalogue.rule_records(record.parent, record.edition)[:1]:
                    parts.append(parent.title.get(lang, ""))
            return "\n".join(parts)

        rules = [(at, r) for at, r in enumerate(catalogue.by_position)
                 if r.kind == "rule" and catalogue.of_todays_rules(r)]
        chinese = "zh_hans" if any("zh_hans" in r.text for _, r in rules) else "zh_hant"
        return cls(table, len(catalogue.by_position), {
            "en": [(at, text(r, "en")) for at, r in rules if r.text.get("en")],
            "zh": [(at, text(r, chinese)) for at, r in rules if r.text.get(chinese)],
        }, segmenter.words_of, partial(segmenter.words_of, remember=False))

    def _language(self, question: str) -> str:
        return "zh" if HAN_RUN.search(question) else "en"

    def cosines(self, question: str, positions: np.ndarray) -> np.ndarray:
        """The cosine of each record at `positions` to the question, 0 for one that is not
        one of today's rules: the Chinese rules' for a question with Chinese, else the
        English; all 0 when the table has none of the question's words."""
        lang = self._language(question)
        found = np.zeros(len(positions), np.float32)
        if lang not in self._matrices:
            return found
        vector = self.table.vector(question, self.cut) - self._means[lang]
        norm = float(np.linalg.norm(vector))
        rows = self._rows[lang][positions]
        held = rows >= 0
        if norm and held.any():
            # einsum, not `@`: a threaded BLAS spends ten times the CPU on a product this small.
            found[held] = np.einsum("ij,j->i", self._matrices[lang][rows[held]], vector / norm)
        return found

    def word_matches(self, question: str, positions: np.ndarray) -> np.ndarray:
        """For each record at `positions`, how near its words come to the question's, word by
        word: the cosine of each of the question's words with the nearest word of the record
        (1 for the word itself), averaged with the words' weights; 0 for a record that is not
        one of today's rules or has no word of the table. Where `cosines` blurs a text into
        one vector, this keeps what each word of the question finds (untapped for tapped,
        使用 for 下): a soft count of the question's words, as BERTScore matches tokens."""
        lang = self._language(question)
        found = np.zeros(len(positions), np.float32)
        asked = np.unique(np.array(self.table.rows(question, self.cut), np.int64))
        if lang not in self._words or not len(asked):
            return found
        rows = self._rows[lang][positions]
        held = np.flatnonzero(rows >= 0)
        starts, ends = self._starts[lang][rows[held]], self._starts[lang][rows[held] + 1]
        held, starts, ends = held[ends > starts], starts[ends > starts], ends[ends > starts]
        if not len(held):
            return found
        spans = [self._words[lang][a:b] for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
        distinct, at = np.unique(np.concatenate(spans), return_inverse=True)
        # The question's words against every distinct word of the candidates, once.
        near = np.einsum("ij,kj->ik", self.table.near[asked], self.table.near[distinct])
        lengths = ends - starts
        best = np.maximum.reduceat(near[:, at], np.cumsum(lengths) - lengths, axis=1)
        weights = self.table.weights[asked]
        found[held] = np.einsum("i,ij->j", weights, best) / weights.sum()
        return found

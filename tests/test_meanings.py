"""Word meaning vectors (`indexer.knowledge.meanings`, `indexer.knowledge.word_table`): how a
text is read into the table's words, how the table is written and read, a text's vector and a
question's nearness, and the shipped table against today's rules (the lever's ablation is
test_question_ranking's, with the other question levers)."""
from __future__ import annotations

from collections import Counter

import numpy as np

from indexer.knowledge.meanings import WORD_VECTORS, Meanings, WordVectors, words
from indexer.knowledge.word_table import make, vocabulary


def _characters(run: str) -> list[str]:
    return list(run)


def _pairs(run: str) -> list[str]:
    return [run[i:i + 2] for i in range(0, len(run), 2)]


def test_a_text_is_read_as_chinese_runs_cut_and_english_words_in_lower_case():
    assert list(words("Can a TAPPED creature block?", _characters)) == ["can", "a", "tapped", "creature", "block"]
    # Traditional and full-width forms are read in Simplified; a Latin word inside Chinese is its own word.
    assert list(words("對手回合ＸX下地", _pairs)) == ["对手", "回合", "xx", "下地"]
    assert list(words("阻挡的生物 can't state-based", _pairs)) == ["阻挡", "的生", "物", "can", "t", "state", "based"]


def _unit(rows: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).normal(size=(rows, 8)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _encoder(table: dict[str, np.ndarray]):
    def encode(texts: list[str]) -> np.ndarray:
        return np.stack([table[t] for t in texts])
    return encode


def test_the_table_is_written_and_read_back_within_its_eight_bits(tmp_path):
    counts = Counter({"creature": 50, "block": 3, "untapped": 1, "生物": 40, "生": 40, "物": 40, "阻挡": 0})
    vectors = dict(zip(sorted(counts), _unit(len(counts), 1), strict=True))
    path = tmp_path / "table.npz"
    make(counts, _encoder(vectors), path, batch=3)
    table = WordVectors(path)
    assert sorted(table.index) == sorted(counts)
    for word, vector in vectors.items():
        assert np.abs(table.vectors[table.index[word]] - vector).max() < 0.01
    # A word the rules use often weighs less than a rare one; one they never use weighs most.
    weight = {w: table.weights[table.index[w]] for w in counts}
    assert weight["creature"] < weight["block"] < weight["untapped"] < weight["阻挡"] == 1.0


def test_a_chinese_word_the_table_lacks_is_read_as_its_characters_and_other_words_are_left_out(tmp_path):
    counts = Counter({"生": 2, "物": 1, "阻挡": 1, "creature": 1})
    vectors = dict(zip(sorted(counts), _unit(len(counts), 2), strict=True))
    path = tmp_path / "table.npz"
    make(counts, _encoder(vectors), path)
    table = WordVectors(path)
    rows = table.rows("阻挡生物 creatures", _pairs)
    assert [sorted(table.index, key=table.index.get)[r] for r in rows] == ["阻挡", "生", "物"]
    assert not table.vector("trample", _pairs).any()
    alone = table.vector("阻挡", _pairs)
    assert np.allclose(alone, table.vectors[table.index["阻挡"]])


def test_a_questions_words_each_find_their_nearest_word_in_a_rule(tmp_path):
    # tapped and untapped near each other, block apart from both; every word equally rare.
    vectors = {"tapped": np.array([1.0, 0, 0]), "untapped": np.array([0.8, 0.6, 0]), "block": np.array([0, 0, 1.0]),
               "attack": np.array([0, 0.6, 0.8])}
    path = tmp_path / "table.npz"
    make(Counter(dict.fromkeys(vectors, 1)), _encoder({w: v.astype(np.float32) for w, v in vectors.items()}), path)
    table = WordVectors(path)
    meanings = Meanings(table, 4, {"en": [(0, "tapped block"), (1, "untapped block"), (2, "attack")]},
                        _characters, _characters)
    found = meanings.word_matches("tapped block?", np.array([0, 1, 2, 3]))
    # Each word itself (1, 1); untapped for tapped (0.8) and block itself; attack for each
    # (0, 0.8); position 3 is no rule of today's.
    assert np.allclose(found, [1.0, 0.9, 0.4, 0.0], atol=0.01)
    assert not meanings.word_matches("trample", np.array([0, 1])).any()
    assert not meanings.word_matches("践踏", np.array([0, 1])).any()  # no Chinese rule text


def test_the_vocabulary_counts_the_rules_words_and_their_characters_and_adds_the_others_at_zero():
    counts = vocabulary(["生物 阻挡 the creature", "生物"], ["下地", "bounce"], _pairs)
    assert counts["生物"] == 2 and counts["生"] == 2 and counts["creature"] == 1
    assert counts["下地"] == 0 and "下" in counts and counts["bounce"] == 0


def test_the_shipped_table_holds_the_words_of_todays_rules(kb_library):
    """Made from today's rules: almost every word they use is in it (the rest, read as their
    characters or left out, came with a later change of the rules)."""
    table = WordVectors(WORD_VECTORS)
    cut = kb_library.build.segmenter.words_of
    catalogue = kb_library.catalogue
    used = Counter(word for r in catalogue.by_position if r.kind == "rule" and catalogue.of_todays_rules(r)
                   for text in r.text.values() for word in words(text, cut))
    held = sum(n for word, n in used.items() if word in table.index)
    assert held / sum(used.values()) > 0.98
    assert np.allclose(np.linalg.norm(table.vectors, axis=1), 1.0, atol=0.02)

"""What the tests keep between runs (tests/kept.py): made once, never stale, made again when
damaged, and bounded."""
from __future__ import annotations

import kept
from kept import cache_key, kept_index, kept_value

from indexer.search.build import current_folder
from webapp import offline_copy


def test_a_value_is_made_once_then_read(tmp_path):
    made = []

    def make():
        made.append(1)
        return {"records": [1, 2, 3]}

    assert kept_value(tmp_path, "numbers", make) == {"records": [1, 2, 3]}
    assert kept_value(tmp_path, "numbers", make) == {"records": [1, 2, 3]}
    assert len(made) == 1


def test_a_damaged_value_is_made_again(tmp_path):
    kept_value(tmp_path, "numbers", lambda: [1])
    (value,) = tmp_path.glob(f"numbers-*/{kept.VALUE}")
    value.write_bytes(value.read_bytes()[:3])
    assert kept_value(tmp_path, "numbers", lambda: [2]) == [2]
    assert kept_value(tmp_path, "numbers", lambda: [3]) == [2]


def test_the_key_follows_every_input(monkeypatch):
    key = cache_key("small", ("worldwake-faq",))
    assert cache_key("small", ("worldwake-faq",)) == key
    assert cache_key("small", ("shadowmoor-faq",)) != key
    assert cache_key("other", ("worldwake-faq",)) != key
    assert cache_key("small", ("worldwake-faq",), extras={"offline": offline_copy.write}) != key
    # A changed document, glossary or indexing code changes build's hash of the inputs.
    monkeypatch.setattr(kept, "_inputs", lambda paths, extras: "another corpus")
    assert cache_key("small", ("worldwake-faq",)) != key


def test_an_index_is_built_once_and_again_when_damaged(tmp_path):
    root = kept_index(tmp_path, "tiny", ("worldwake-faq",))
    folder = current_folder(root)
    assert (root.parent / "corpus" / "sources.toml").exists()
    assert current_folder(kept_index(tmp_path, "tiny", ("worldwake-faq",))) == folder
    (folder / "records.jsonl").write_bytes(b"{}")
    rebuilt = current_folder(kept_index(tmp_path, "tiny", ("worldwake-faq",)))
    assert rebuilt != folder and rebuilt.parent == root


def test_two_entries_of_each_are_kept(tmp_path):
    for n in range(4):
        (tmp_path / f"numbers-{n:016x}").mkdir()
        (tmp_path / f"numbers-other-{n:016x}").mkdir()
    kept_value(tmp_path, "numbers", lambda: [1])
    (_value,) = tmp_path.glob(f"numbers-*/{kept.VALUE}")  # the one in use is kept
    left = sorted(p.name for p in tmp_path.glob("numbers-*"))
    assert len([name for name in left if not name.startswith("numbers-other")]) == kept.KEEP
    assert len([name for name in left if name.startswith("numbers-other")]) == 4

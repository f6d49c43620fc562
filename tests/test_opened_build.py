"""An index build owns everything it needs: its user words, its glossary, its caches.

Two builds open in one process never change each other's answers, and a build whose parts
are damaged (the glossary included) is one error type while the previous build keeps serving.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from indexer.knowledge.library import Library
from indexer.knowledge.live import LiveLibrary
from indexer.search.build import CURRENT, current_folder
from indexer.search.engine import IndexUnavailable
from indexer.search.opened_build import GLOSSARY_FILE, USER_WORDS_FILE, write_manifest
from webapp import create_app

CARD = "廣林物靈師"
CARD_ID = "worldwake-faq:card:廣林物靈師"


@pytest.fixture
def root(small_index, tmp_path) -> Path:
    root = tmp_path / "index"
    shutil.copytree(small_index, root)
    return root


def sibling(root: Path, name: str) -> Path:
    """A copy of the current build under another build name, made current."""
    folder = root / name
    shutil.copytree(current_folder(root), folder)
    (root / CURRENT).write_text(name + "\n", encoding="utf-8")
    return folder


def answer(library: Library) -> dict:
    """A search answer without its timing."""
    found = library.search(CARD, 10)
    found.pop("took_ms")
    return found


def test_the_build_holds_its_glossary_and_user_words(root):
    folder = current_folder(root)
    assert (folder / GLOSSARY_FILE).read_bytes() == (Path(__file__).parents[1] / "corpus" / "glossary.tsv").read_bytes()
    assert "广林物灵师" in (folder / USER_WORDS_FILE).read_text(encoding="utf-8").split()


def test_two_builds_with_different_user_words_keep_their_own_segmentation(root):
    first = Library(current_folder(root))
    try:
        assert first.engine._query.tokens("body", CARD) == ("广林物灵师",)
        before = answer(first)
        other_folder = sibling(root, "20991231T000000-000000000000")
        words = (other_folder / USER_WORDS_FILE).read_text(encoding="utf-8").replace("广林物灵师\n", "")
        (other_folder / USER_WORDS_FILE).write_text(words, encoding="utf-8")
        write_manifest(other_folder)
        second = Library(other_folder)
        try:
            assert second.engine._query.tokens("body", CARD) != ("广林物灵师",)
            assert first.engine._query.tokens("body", CARD) == ("广林物灵师",)
            first.engine._query._token_cache.cache_clear()  # computed again, not remembered
            assert first.engine._query.tokens("body", CARD) == ("广林物灵师",)
            assert answer(first) == before and before["results"][0]["id"] == CARD_ID
        finally:
            second.close()
    finally:
        first.close()


@pytest.mark.parametrize("glossary", [
    b"not\ta\tglossary\n",
    b"\xff\xfe broken bytes",
    None,  # missing
])
def test_a_damaged_glossary_is_index_unavailable_and_the_previous_build_keeps_serving(root, glossary, monkeypatch):
    monkeypatch.setattr(LiveLibrary, "CHECK_SECONDS", 0.0)
    live = LiveLibrary(root)
    serving = live.get()
    folder = sibling(root, "20991231T000000-000000000000")
    if glossary is None:
        (folder / GLOSSARY_FILE).unlink()
    else:
        (folder / GLOSSARY_FILE).write_bytes(glossary)
    write_manifest(folder)  # as the build wrote it: past the checksums, to the glossary's own check
    with pytest.raises(IndexUnavailable, match=rf"^{folder}: (glossary unreadable|incomplete index)"):
        Library(folder)
    assert live.get() is serving
    assert serving.search(CARD, 1)["results"][0]["id"] == CARD_ID


def test_a_damaged_glossary_in_a_new_build_leaves_every_route_answering(root):
    app = create_app({"TESTING": True, "INDEX_ROOT": root})
    client = app.test_client()
    assert client.get("/healthz").status_code == 200
    folder = sibling(root, "20991231T000000-000000000000")
    (folder / GLOSSARY_FILE).write_text("english\tzh_hant\n\tbroken\n", encoding="utf-8")
    write_manifest(folder)
    app.extensions["kb.library"]._checked = 0.0  # look for a switch now
    health = client.get("/healthz").get_json()
    assert (health["status"], health["current"]) == ("degraded", folder.name)
    assert health["problem"].startswith(f"{folder}: glossary unreadable")
    assert client.get(f"/api/search?q={CARD}").get_json()["results"][0]["id"] == CARD_ID

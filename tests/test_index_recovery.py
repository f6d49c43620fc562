"""A missing or damaged index: a clear message naming what is wrong, never a traceback, and a
rebuild that repairs it.

Each test copies the small session index (tests/conftest.py) and damages the copy the way a
full disk, a killed build or a careless hand does: a truncated or scribbled segment file, a
missing TOC, CURRENT naming a deleted folder, garbage in CURRENT, unreadable records, user
dictionary or folded texts. Then it checks the three places that meet the damage: the library (it raises
IndexUnavailable with the folder and the cause), the app (a 503 in the error shape, the cause
in the log) and the build (`python -m indexer build`, which scripts/serve runs before serving:
it rebuilds although the corpus did not change, and the new index answers).
"""
from __future__ import annotations

import gc
import logging
import os
import shutil
import subprocess
import sys
import weakref
from pathlib import Path

import pytest

from indexer.knowledge.library import Library
from indexer.knowledge.live import LiveLibrary
from indexer.search.build import CURRENT, build, current_folder
from indexer.search.engine import IndexUnavailable
from judged import load as judged_rows
from webapp import create_app

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def damaged(small_index, tmp_path) -> tuple[Path, Path]:
    """(index root, its CURRENT folder): a private copy of the small index, to damage."""
    root = tmp_path / "index"
    shutil.copytree(small_index, root)
    return root, current_folder(root)


@pytest.fixture
def corpus(small_index) -> Path:
    """The corpus the small index was built from (unchanged: a rebuild is not for a change)."""
    return small_index.parent / "corpus"


def segment(folder: Path) -> Path:
    (seg,) = folder.glob("*.seg")
    return seg


def truncate(path: Path, share: float) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * share)])


def answers_multikicker(root: Path) -> None:
    """The index CURRENT names opens and ranks the Worldwake FAQ's multikicker rule first."""
    library = Library(current_folder(root))
    try:
        first = library.search("多重增幅", 3)["results"][0]
        assert (first["id"], first["rule"]) == ("worldwake-faq:rule:702.30c", "702.30c")
    finally:
        library.close()


# --- the library --------------------------------------------------------------------------

@pytest.mark.parametrize("share", [0.0, 0.1, 0.5, 0.99])
def test_truncated_segment_is_index_unavailable_naming_folder_and_cause(damaged, share):
    root, folder = damaged
    truncate(segment(folder), share)
    with pytest.raises(IndexUnavailable) as caught:
        Library(folder)
    assert str(caught.value).startswith(f"{folder}: search index unreadable (")


def test_missing_toc_is_index_unavailable(damaged):
    root, folder = damaged
    for toc in folder.glob("*.toc"):
        toc.unlink()
    with pytest.raises(IndexUnavailable, match=rf"^{folder}: no search index there$"):
        Library(folder)


def test_garbage_toc_is_index_unavailable(damaged):
    root, folder = damaged
    (toc,) = folder.glob("*.toc")
    toc.write_bytes(b"not a table of contents")
    with pytest.raises(IndexUnavailable, match=rf"^{folder}: search index unreadable \("):
        Library(folder)


def test_unreadable_records_are_index_unavailable(damaged):
    root, folder = damaged
    (folder / "records.jsonl").write_text('{"id": "x"}\nnot json\n', encoding="utf-8")
    with pytest.raises(IndexUnavailable, match=rf"^{folder}: records unreadable \("):
        Library(folder)


def test_folded_texts_of_another_index_are_index_unavailable(damaged):
    root, folder = damaged
    (folder / "folded.txt").write_text("only\ntwo lines\n", encoding="utf-8")
    with pytest.raises(IndexUnavailable, match=rf"^{folder}: folded texts unreadable \(folded.txt holds 2 lines"):
        Library(folder)
    (folder / "folded.txt").unlink()
    with pytest.raises(IndexUnavailable, match=rf"^{folder}: incomplete index \(folded.txt missing\)$"):
        Library(folder)


def test_unreadable_user_dictionary_is_index_unavailable(damaged):
    root, folder = damaged
    (folder / "userdict.txt").write_bytes(b"\xff\xfe not UTF-8")
    with pytest.raises(IndexUnavailable, match=rf"^{folder}.*userdict.txt"):
        Library(folder)


def test_scribbled_segment_answers_or_is_unavailable_never_another_error(damaged):
    """Whoosh keeps no checksums, so bytes changed inside a segment may go unnoticed when the
    index opens; what must not follow is any other exception (a 500) for a judged query."""
    root, folder = damaged
    seg = segment(folder)
    data = bytearray(seg.read_bytes())
    for tenth in range(1, 10):
        start = len(data) * tenth // 10
        data[start:start + 1024] = bytes(b ^ 0x5A for b in data[start:start + 1024])
    seg.write_bytes(bytes(data))
    try:
        library = Library(folder)
    except IndexUnavailable:
        return
    for _, query, _ in judged_rows():
        try:
            library.search(query, 10)
        except IndexUnavailable:
            pass


def test_current_naming_a_deleted_folder_is_a_clear_error(damaged):
    root, folder = damaged
    shutil.rmtree(folder)
    with pytest.raises(IndexUnavailable, match=rf"^{folder}: incomplete index \(records.jsonl missing\)$"):
        LiveLibrary(root).get()


def test_empty_current_means_no_index_yet(damaged):
    root, folder = damaged
    (root / CURRENT).write_text("\n", encoding="utf-8")
    with pytest.raises(IndexUnavailable, match=r"no index built yet \(run: python -m indexer build\)"):
        LiveLibrary(root).get()


@pytest.mark.parametrize("garbage", [b"\xff\xfe\x00garbage\n", b"x" * 300 + b"\n"])
def test_garbage_in_current_is_a_clear_error(damaged, garbage):
    root, folder = damaged
    (root / CURRENT).write_bytes(garbage)
    with pytest.raises(IndexUnavailable, match=rf"^{root}"):
        LiveLibrary(root).get()


def test_live_library_keeps_serving_when_current_turns_bad(damaged, monkeypatch):
    """A switch to a broken index is not taken: requests keep the index they had."""
    root, folder = damaged
    monkeypatch.setattr(LiveLibrary, "CHECK_SECONDS", 0.0)
    live = LiveLibrary(root)
    serving = live.get()
    (root / CURRENT).write_text("20000101T000000-missing\n", encoding="utf-8")
    assert live.get() is serving
    assert serving.search("多重增幅", 1)["results"][0]["id"] == "worldwake-faq:rule:702.30c"


def test_a_switch_to_a_broken_index_keeps_the_user_dictionary_in_use(damaged, monkeypatch):
    root, folder = damaged
    monkeypatch.setattr(LiveLibrary, "CHECK_SECONDS", 0.0)
    live = LiveLibrary(root)
    serving = live.get()
    words = serving.build.segmenter.words
    broken = root / "20991231T000000-broken"
    shutil.copytree(folder, broken)
    (broken / "userdict.txt").write_text("# another dictionary\n测试用词\n", encoding="utf-8")
    truncate(segment(broken), 0.5)
    (root / CURRENT).write_text(broken.name + "\n", encoding="utf-8")
    assert live.get() is serving
    assert serving.build.segmenter.words == words and "测试用词" not in words



def test_a_switch_frees_the_library_it_replaces(damaged, monkeypatch):
    """An opened library is kept out of the cyclic collector's reach (gc.freeze); the one a
    switch replaces must still be freed, although its caches make reference cycles."""
    root, folder = damaged
    monkeypatch.setattr(LiveLibrary, "CHECK_SECONDS", 0.0)
    live = LiveLibrary(root)
    before = weakref.ref(live.get())
    assert gc.get_freeze_count() > 0
    newer = root / "20991231T000000-0123456789ab"
    shutil.copytree(folder, newer)
    (root / CURRENT).write_text(newer.name + "\n", encoding="utf-8")
    after = live.get()
    assert after.folder == newer and before() is None
    assert after.search("多重增幅", 1)["results"][0]["id"] == "worldwake-faq:rule:702.30c"

# --- the app ------------------------------------------------------------------------------

def test_app_over_a_damaged_index_answers_503_and_logs_the_cause(damaged, caplog):
    root, folder = damaged
    truncate(segment(folder), 0.5)
    client = create_app({"TESTING": True, "INDEX_ROOT": root}).test_client()
    with caplog.at_level(logging.ERROR):
        response = client.get("/api/search?q=%E5%A4%9A%E9%87%8D%E5%A2%9E%E5%B9%85")
    assert response.status_code == 503
    assert response.get_json() == {"error": {"status": 503, "message": (
        "The search index is not available right now; please try again in a moment.")}}
    assert response.headers["Retry-After"] == "30"
    assert f"index unavailable: {folder}: search index unreadable (" in caplog.text
    health = client.get("/healthz")
    assert health.status_code == 503 and health.get_json()["error"]["status"] == 503


# --- the rebuild --------------------------------------------------------------------------

def rebuild_cli(corpus: Path, root: Path) -> subprocess.CompletedProcess:
    """`python -m indexer build`, as scripts/serve runs it before starting the server."""
    return subprocess.run([sys.executable, "-m", "indexer", "build", "--index-root", str(root), str(corpus)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.parametrize("damage", ["truncated segment", "missing toc", "deleted folder", "empty CURRENT"])
def test_build_repairs_a_damaged_index_of_an_unchanged_corpus(damaged, corpus, damage):
    root, folder = damaged
    if damage == "truncated segment":
        truncate(segment(folder), 0.5)
    elif damage == "missing toc":
        for toc in folder.glob("*.toc"):
            toc.unlink()
    elif damage == "deleted folder":
        shutil.rmtree(folder)
    else:
        (root / CURRENT).write_text("", encoding="utf-8")
    result = rebuild_cli(corpus, root)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout.splitlines()[-1].startswith(f"built {root}/")
    assert current_folder(root) != folder
    answers_multikicker(root)


def test_build_of_an_intact_index_of_an_unchanged_corpus_does_nothing(damaged, corpus):
    root, folder = damaged
    result = rebuild_cli(corpus, root)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"index up to date: {folder}"


@pytest.mark.parametrize("name", ["records.jsonl", "userdict.txt", "folded.txt"])
def test_build_repairs_unreadable_records_dictionary_or_folded_texts(damaged, corpus, name):
    root, folder = damaged
    (folder / name).write_bytes(b"\xff\xfe damaged\n")
    outcome = build([corpus], root=root)
    assert outcome.built and current_folder(root) != folder
    answers_multikicker(root)


def test_build_repairs_garbage_in_current(damaged, corpus):
    root, folder = damaged
    (root / CURRENT).write_bytes(b"\xff\xfe\x00garbage\n")
    outcome = build([corpus], root=root)
    assert outcome.built
    answers_multikicker(root)

"""A missing or damaged index: a clear message naming what is wrong, never a traceback, and a
rebuild that repairs it.

Each test copies a session index of one document (tests/conftest.py) and damages the copy the way a
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
import re
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
from indexer.search.index_build import MANIFEST, write_manifest
from browser_support import start_server, stop_server, wait_until_healthy
from judged import load as judged_rows
from webapp import create_app

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def damaged(tiny_index, tmp_path) -> tuple[Path, Path]:
    """(index root, its CURRENT folder): a private copy of the Worldwake FAQ's index, to damage."""
    root = tmp_path / "index"
    shutil.copytree(tiny_index, root)
    return root, current_folder(root)


@pytest.fixture
def corpus(tiny_index) -> Path:
    """The corpus the index was built from (unchanged: a rebuild is not for a change)."""
    return tiny_index.parent / "corpus"


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
    size = segment(folder).stat().st_size
    truncate(segment(folder), share)
    with pytest.raises(IndexUnavailable) as caught:
        Library(folder)
    assert str(caught.value) == f"{folder}: {segment(folder).name} is {int(size * share)} bytes, not {size}"
    # Past the manifest (a build that wrote it after the damage), the engine's own check.
    write_manifest(folder)
    with pytest.raises(IndexUnavailable) as caught:
        Library(folder)
    assert str(caught.value).startswith(f"{folder}: search index unreadable (")


@pytest.mark.parametrize("name", ["records.jsonl", "folded.txt", "marking.txt", "userdict.txt", "meta.json", "*.seg",
                                  "*.toc"])
def test_a_changed_byte_in_any_file_is_index_unavailable(damaged, name):
    root, folder = damaged
    (path,) = folder.glob(name)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(IndexUnavailable, match=rf"^{folder}: {re.escape(path.name)} does not match its checksum$"):
        Library(folder)


def test_a_build_without_a_manifest_is_index_unavailable(damaged):
    root, folder = damaged
    (folder / MANIFEST).unlink()
    with pytest.raises(IndexUnavailable, match=rf"^{folder}: incomplete index \(no readable {MANIFEST}"):
        Library(folder)


def test_missing_toc_is_index_unavailable(damaged):
    root, folder = damaged
    for toc in folder.glob("*.toc"):
        toc.unlink()
    write_manifest(folder)  # damage the build itself wrote: past the checksums
    with pytest.raises(IndexUnavailable, match=rf"^{folder}: no search index there$"):
        Library(folder)


def test_garbage_toc_is_index_unavailable(damaged):
    root, folder = damaged
    (toc,) = folder.glob("*.toc")
    toc.write_bytes(b"not a table of contents")
    write_manifest(folder)  # damage the build itself wrote: past the checksums
    with pytest.raises(IndexUnavailable, match=rf"^{folder}: search index unreadable \("):
        Library(folder)


def test_unreadable_records_are_index_unavailable(damaged):
    root, folder = damaged
    (folder / "records.jsonl").write_text('{"id": "x"}\nnot json\n', encoding="utf-8")
    write_manifest(folder)  # damage the build itself wrote: past the checksums
    with pytest.raises(IndexUnavailable, match=rf"^{folder}: records unreadable \("):
        Library(folder)


@pytest.mark.parametrize("name, what", [("folded.txt", "folded texts"), ("marking.txt", "marking forms")])
def test_line_files_of_another_index_are_index_unavailable(damaged, name, what):
    root, folder = damaged
    (folder / name).write_text("only\ntwo lines\n", encoding="utf-8")
    write_manifest(folder)  # damage the build itself wrote: past the checksums
    with pytest.raises(IndexUnavailable, match=rf"^{folder}: {what} unreadable \({name} holds 2 lines"):
        Library(folder)
    (folder / name).unlink()
    with pytest.raises(IndexUnavailable, match=rf"^{folder}: incomplete index \({name} missing\)$"):
        Library(folder)


def test_unreadable_user_dictionary_is_index_unavailable(damaged):
    root, folder = damaged
    (folder / "userdict.txt").write_bytes(b"\xff\xfe not UTF-8")
    write_manifest(folder)  # damage the build itself wrote: past the checksums
    with pytest.raises(IndexUnavailable, match=rf"^{folder}.*userdict.txt"):
        Library(folder)


def test_scribbled_segment_answers_or_is_unavailable_never_another_error(damaged):
    """Whoosh keeps no checksums, so bytes changed inside a segment before the manifest was
    written may go unnoticed when the index opens; what must not follow is any other
    exception (a 500) for a judged query."""
    root, folder = damaged
    seg = segment(folder)
    data = bytearray(seg.read_bytes())
    for tenth in range(1, 10):
        start = len(data) * tenth // 10
        data[start:start + 1024] = bytes(b ^ 0x5A for b in data[start:start + 1024])
    seg.write_bytes(bytes(data))
    write_manifest(folder)
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
    (root / CURRENT).write_text("20000101T000000-00000000dead\n", encoding="utf-8")
    assert live.get() is serving
    assert serving.search("多重增幅", 1)["results"][0]["id"] == "worldwake-faq:rule:702.30c"


def test_a_switch_to_a_broken_index_keeps_the_user_dictionary_in_use(damaged, monkeypatch):
    root, folder = damaged
    monkeypatch.setattr(LiveLibrary, "CHECK_SECONDS", 0.0)
    live = LiveLibrary(root)
    serving = live.get()
    words = serving.build.segmenter.words
    broken = root / "20991231T000000-0000000000bb"
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

def mapped(folder: Path) -> list[str]:
    """The files of `folder` this process has memory-mapped (/proc/self/maps)."""
    lines = Path("/proc/self/maps").read_text().splitlines()
    return sorted(line.split()[-1].rsplit("/", 1)[1] for line in lines if line.endswith(tuple(
        f"{folder}/{p.name}" for p in folder.iterdir())))


needs_proc = pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/self/maps")


@needs_proc
def test_switches_free_each_library_and_unmap_its_files(damaged, monkeypatch):
    """Back and forth between two builds: each switch frees the library it replaces, and
    with it every map of its files; the one served maps its scored postings, never Whoosh's
    segment (a search does not open Whoosh's own searcher, which would copy the segment's
    postings into the process)."""
    root, folder = damaged
    monkeypatch.setattr(LiveLibrary, "CHECK_SECONDS", 0.0)
    other = root / "20991231T000000-0123456789ab"
    shutil.copytree(folder, other)
    live = LiveLibrary(root)
    served = weakref.ref(live.get())
    for n in range(6):
        now, before = (other, folder) if n % 2 == 0 else (folder, other)
        (root / CURRENT).write_text(now.name + "\n", encoding="utf-8")
        library = live.get()
        assert library.folder == now and served() is None
        assert library.search("多重增幅", 1)["results"][0]["id"] == "worldwake-faq:rule:702.30c"
        assert mapped(before) == []
        assert "postings-docs.npy" in mapped(now) and not [name for name in mapped(now) if name.endswith(".seg")]
        served = weakref.ref(library)
        del library


def test_the_library_a_switch_replaces_is_freed_before_the_next_one_opens(damaged, monkeypatch):
    """So a worker never holds two, and the next is laid out where the last one was."""
    from indexer.knowledge import live as live_module
    root, folder = damaged
    monkeypatch.setattr(LiveLibrary, "CHECK_SECONDS", 0.0)
    live = LiveLibrary(root)
    served = weakref.ref(live.get())
    alive_at_open = []

    def opening(*args, **kwargs):
        alive_at_open.append(served() is not None)
        return Library(*args, **kwargs)

    monkeypatch.setattr(live_module, "Library", opening)
    newer = root / "20991231T000000-0123456789ab"
    shutil.copytree(folder, newer)
    (root / CURRENT).write_text(newer.name + "\n", encoding="utf-8")
    assert live.get().folder == newer
    assert alive_at_open == [False]


def test_a_switch_to_a_broken_build_opens_the_one_served_again(damaged, monkeypatch):
    """Freed before the broken build was tried, the build served before is opened again and
    serves on; `problem` says what is wrong with the one CURRENT names."""
    root, folder = damaged
    monkeypatch.setattr(LiveLibrary, "CHECK_SECONDS", 0.0)
    live = LiveLibrary(root)
    served = weakref.ref(live.get())
    broken = root / "20991231T000000-0000000000bb"
    shutil.copytree(folder, broken)
    truncate(segment(broken), 0.5)
    (root / CURRENT).write_text(broken.name + "\n", encoding="utf-8")
    library = live.get()
    assert served() is None and library.folder == folder
    assert library.search("多重增幅", 1)["results"][0]["id"] == "worldwake-faq:rule:702.30c"
    assert live.problem.startswith(f"{broken}: ")
    assert live.get() is library

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
    assert f"index unavailable: {folder}: {segment(folder).name} is " in caplog.text
    health = client.get("/healthz")
    assert health.status_code == 503 and health.get_json()["error"]["status"] == 503


def older_good_build(root: Path, folder: Path) -> Path:
    """A copy of `folder` named as a build a minute older, as the build before it."""
    older = root / ("20000101T000000" + folder.name[len("20000101T000000"):])
    shutil.copytree(folder, older)
    return older


@pytest.mark.parametrize("damage", ["truncate segment", "truncate folded", "scribble records"])
def test_a_damaged_current_build_falls_back_to_the_newest_good_one(damaged, damage):
    root, folder = damaged
    older = older_good_build(root, folder)
    if damage == "truncate segment":
        truncate(segment(folder), 0.5)
    elif damage == "truncate folded":
        truncate(folder / "folded.txt", 0.9)
    else:
        (folder / "records.jsonl").write_text("{}\n", encoding="utf-8")
    client = create_app({"TESTING": True, "INDEX_ROOT": root}).test_client()
    assert client.get("/api/search?q=%E5%A4%9A%E9%87%8D%E5%A2%9E%E5%B9%85").get_json()["results"][0]["id"] == \
        "worldwake-faq:rule:702.30c"
    health = client.get("/healthz")
    assert health.status_code == 200
    answer = health.get_json()
    assert (answer["status"], answer["index"], answer["current"]) == ("degraded", older.name, folder.name)
    assert answer["problem"].startswith(f"{folder}: ")


def test_a_build_damaged_while_served_is_left_for_the_newest_good_one(damaged, monkeypatch):
    """Cut short under a serving process (where a read through its memory map would be a
    SIGBUS), it is noticed at the next check, by its size, before the next request reads it."""
    monkeypatch.setattr(LiveLibrary, "CHECK_SECONDS", 0.0)
    root, folder = damaged
    older = older_good_build(root, folder)
    client = create_app({"TESTING": True, "INDEX_ROOT": root}).test_client()
    assert client.get("/healthz").get_json()["index"] == folder.name
    truncate(folder / "folded.txt", 0.5)
    assert client.get("/api/search?q=persist").status_code == 200
    health = client.get("/healthz").get_json()
    assert (health["status"], health["index"]) == ("degraded", older.name)
    assert health["problem"] == f"{folder}: folded.txt is now {(older / 'folded.txt').stat().st_size // 2} bytes, " \
                                f"not {(older / 'folded.txt').stat().st_size}"
    # A rebuild that names a good build again ends it.
    (root / CURRENT).write_text(older.name + "\n", encoding="utf-8")
    health = client.get("/healthz").get_json()
    assert (health["status"], health["index"]) == ("ok", older.name) and "problem" not in health


# --- the rebuild --------------------------------------------------------------------------

def rebuild_cli(corpus: Path, root: Path) -> subprocess.CompletedProcess:
    """`python -m indexer build`, as scripts/serve runs it before starting the server."""
    return subprocess.run([sys.executable, "-m", "indexer", "build", "--index-root", str(root), str(corpus)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.server
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


@pytest.mark.server
def test_build_of_an_intact_index_of_an_unchanged_corpus_does_nothing(damaged, corpus):
    root, folder = damaged
    result = rebuild_cli(corpus, root)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"index up to date: {folder}"


@pytest.mark.parametrize("name", ["records.jsonl", "userdict.txt", "folded.txt", "marking.txt"])
def test_build_repairs_unreadable_records_dictionary_or_line_files(damaged, corpus, name):
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


# --- scripts/serve ------------------------------------------------------------------------

def broken_corpus(tmp_path: Path, corpus: Path) -> Path:
    """A copy of the corpus whose Worldwake FAQ is not UTF-8: every build of it fails."""
    broken = tmp_path / "broken-corpus"
    shutil.copytree(corpus, broken)
    (broken / "worldwake-faq-zh-hant.txt").write_bytes(b"\xff\xfe broken")
    return broken


@pytest.mark.server
def test_serve_with_a_damaged_index_and_a_failing_build_serves_the_newest_good_build(damaged, corpus, tmp_path):
    root, folder = damaged
    older = older_good_build(root, folder)
    truncate(segment(folder), 0.5)
    server = start_server(root, tmp_path / "serve.log", str(broken_corpus(tmp_path, corpus)))
    try:
        health = wait_until_healthy(server)
        assert (health["status"], health["index"], health["current"]) == ("degraded", older.name, folder.name)
        assert f"serving the previous index {older}\n" in server.output()
        assert f"warning: {folder}: {segment(folder).name} is " in server.output()
        assert "Traceback" not in server.output()
    finally:
        stop_server(server)


@pytest.mark.server
def test_serve_with_only_a_damaged_index_and_a_failing_build_stops(damaged, corpus, tmp_path):
    root, folder = damaged
    truncate(segment(folder), 0.5)
    server = start_server(root, tmp_path / "serve.log", str(broken_corpus(tmp_path, corpus)))
    try:
        assert server.process.wait(timeout=600) == 1
    finally:
        stop_server(server)
    assert "serve: no index to serve:" in server.output()
    assert f"{folder}: {segment(folder).name} is " in server.output()

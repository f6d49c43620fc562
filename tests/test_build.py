"""Index builds: only when the corpus changed, switched atomically, never replaced by a failed build."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from corpus_support import corpus_copy

from indexer.knowledge.library import Library
from indexer.search import build as build_stage
from indexer.search.build import BuildError, build, current_folder, current_meta, inputs_hash
from webapp import offline_copy

ROOT = Path(__file__).resolve().parents[1]


def test_build_switches_only_when_the_corpus_changes(tmp_path):
    corpus = corpus_copy(tmp_path)
    root = tmp_path / "index"
    first = build([corpus], root=root)
    assert first.built and current_folder(root) == first.folder
    assert {p.name for p in first.folder.iterdir()} >= {"records.jsonl", "sources.json", "userdict.txt", "folded.txt",
                                                        "meta.json"}
    again = build([corpus], root=root)
    assert not again.built and again.folder == first.folder

    digest = corpus / "keyword-digest-2009.txt"
    digest.write_text(digest.read_text(encoding="utf-8").replace("頌威", "頌揚"), encoding="utf-8")
    second = build([corpus], root=root)
    assert second.built and second.folder != first.folder and current_folder(root) == second.folder
    assert current_meta(root)["corpus_hash"] == second.corpus_hash != first.corpus_hash
    assert first.folder.exists()  # kept for readers that still have it open
    assert Library(second.folder).get("keyword-digest:rule:702.80").title["zh_hant"] == "頌揚"
    assert Library(first.folder).get("keyword-digest:rule:702.80").title["zh_hant"] == "頌威"


def test_card_files_in_a_folder_are_inputs(tmp_path):
    """A folder of Scryfall files (var/cards/ once fetched) is part of what a build is of: the
    cards fetched, or fetched again, are indexed by the next build."""
    cards = tmp_path / "cards"
    cards.mkdir()
    corpus = [ROOT / "corpus"]
    plain = inputs_hash(corpus)
    assert inputs_hash([*corpus, cards]) == plain  # an empty folder adds nothing
    rulings = json.loads((ROOT / "tests" / "fixtures" / "scryfall" / "rulings.json").read_text(encoding="utf-8"))
    (cards / "rulings.json").write_text(json.dumps(rulings), encoding="utf-8")
    (cards / "notes.md").write_text("not a card file", encoding="utf-8")
    with_rulings = inputs_hash([*corpus, cards])
    assert with_rulings != plain
    (cards / "notes.md").write_text("still not a card file", encoding="utf-8")
    assert inputs_hash([*corpus, cards]) == with_rulings
    (cards / "rulings.json").write_text(json.dumps(rulings[1:]), encoding="utf-8")  # fetched again
    assert inputs_hash([*corpus, cards]) not in (plain, with_rulings)


def test_cards_written_apart_index_the_same(monkeypatch, tmp_path):
    """A build large enough for a second process has it write the cards' segment while this
    one writes the others' and the side files: the index has a segment for each run of
    records, in their order, and its scored postings, the offline copy's frequencies and
    every side file are the same bytes as a build of one segment written in turn."""
    corpus = corpus_copy(tmp_path)
    inputs = [corpus, ROOT / "tests" / "fixtures" / "scryfall"]
    monkeypatch.setattr(build_stage, "PARALLEL_RECORDS", 10**9)
    alone = build(inputs, root=tmp_path / "alone")
    monkeypatch.setattr(build_stage, "PARALLEL_RECORDS", 1)
    two = build(inputs, root=tmp_path / "two")
    names = {p.name for p in alone.folder.iterdir()} - {"meta.json", "manifest.json", "_records_1.toc"}
    assert {"postings-docs.npy", "folded.txt", "records.jsonl"} <= names
    for name in sorted(names - {p.name for p in alone.folder.glob("records_*.seg")}):
        assert (two.folder / name).read_bytes() == (alone.folder / name).read_bytes(), name
    assert len(list(alone.folder.glob("records_*.seg"))) == 1
    assert len(list(two.folder.glob("records_*.seg"))) == 3  # the corpus's, the cards', the glossary's
    assert not [p for p in two.folder.iterdir() if p.is_dir()]  # no writer's runs left behind
    libraries = [Library(alone.folder), Library(two.folder)]
    within = np.ones(libraries[0].engine._doc_count, bool)
    within[::3] = False
    for field in ("names", "title"):
        stats, terms = zip(*(library.engine.term_frequencies(field, within) for library in libraries), strict=True)
        assert stats[0] == stats[1]
        assert list(terms[0]) == list(terms[1])
    found = libraries[1].search("kind:card equipment", limit=5)["results"]
    assert found and all(libraries[1].get(r["id"]).kind == "card" for r in found)
    for library in libraries:
        library.close()


def test_a_build_with_a_later_stage_follows_the_code_and_data_the_stage_reads(monkeypatch, tmp_path):
    """The offline copy carries the ranking's tables (the players' words, the word table): a
    change to one must rebuild it, though the corpus and the indexing code are the same."""
    corpus = [ROOT / "corpus"]
    extras = {"offline": offline_copy.write}
    data = tmp_path / "knowledge" / "data" / "thesaurus.tsv"
    data.parent.mkdir(parents=True)
    data.write_text("bounce\t彈回\n", encoding="utf-8")
    monkeypatch.setattr(build_stage, "EXTRAS_CODE", (str(tmp_path / "knowledge"),))
    first, plain = inputs_hash(corpus, extras), inputs_hash(corpus)
    assert inputs_hash(corpus, extras) == first
    data.write_text("bounce\t彈回\nblink\t閃爍\n", encoding="utf-8")
    assert inputs_hash(corpus, extras) != first
    assert inputs_hash(corpus) == plain


def test_a_failed_build_leaves_the_index_in_use(tmp_path):
    corpus = corpus_copy(tmp_path)
    root = tmp_path / "index"
    good = build([corpus], root=root)
    (corpus / "worldwake-faq-zh-hant.txt").write_bytes(b"\xff\xfe broken")
    with pytest.raises(BuildError, match=r"worldwake-faq-zh-hant.txt:1: not valid UTF-8 at byte offset 0"):
        build([corpus], root=root)
    assert current_folder(root) == good.folder
    assert not [p for p in root.iterdir() if p.name.startswith(".tmp-")]
    assert Library(good.folder).get("worldwake-faq:rule:702.30c") is not None


def test_the_index_keeps_the_user_dictionary_it_was_built_with(tmp_path):
    corpus = corpus_copy(tmp_path)
    outcome = build([corpus], root=tmp_path / "index")
    words = (outcome.folder / "userdict.txt").read_text(encoding="utf-8").splitlines()
    assert "多重增幅" in words and "咆哮兽群" in words  # Simplified, kept whole by the segmenter


def test_missing_index_is_a_clear_error(tmp_path):
    from indexer.knowledge.live import LiveLibrary
    from indexer.search.engine import IndexUnavailable

    with pytest.raises(IndexUnavailable, match="no index built yet"):
        LiveLibrary(tmp_path / "nothing").get()


@pytest.mark.server  # a build in a subprocess, killed part way
def test_a_build_removes_the_folders_of_killed_builds_not_of_running_ones(tmp_path):
    """A build killed part way leaves its temporary folder (`.tmp-NAME-PID`); the next build
    removes it. One whose process still runs (another build, in another process) is kept."""
    corpus = corpus_copy(tmp_path)
    root = tmp_path / "index"
    root.mkdir()
    killed = subprocess.Popen([sys.executable, "-m", "indexer", "build", "--index-root", str(root), str(corpus)],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not list(root.glob(".tmp-*")) and time.monotonic() < deadline and killed.poll() is None:
            time.sleep(0.01)
    finally:
        os.killpg(killed.pid, signal.SIGKILL)
        killed.wait(timeout=30)
    [dead] = root.glob(".tmp-*")
    assert dead.name.endswith(f"-{killed.pid}")
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        other = root / f".tmp-20270101T000000-000000000000-{running.pid}"
        other.mkdir()
        (other / "records.jsonl").write_text("{}\n", encoding="utf-8")
        outcome = build([corpus], root=root)
        assert outcome.built and not dead.exists()
        assert other.exists(), "the folder of a build still running was removed"
    finally:
        running.kill()
        running.wait()
    build([corpus], root=root)
    assert not other.exists()

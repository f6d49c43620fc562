"""A hostile or careless corpus folder: one clear line, never a traceback or a file outside it.

`python -m indexer build` as scripts/serve runs it, over a copy of a small corpus whose
sources.toml or glossary was written wrong; and two builds of one root at once.
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from corpus_support import copy_corpus

from indexer.documents.corpus import CorpusError, load_sources
from indexer.search.build import build, current_folder

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def corpus(tmp_path) -> Path:
    return copy_corpus(("worldwake-faq",), tmp_path / "corpus")


def set_entry(corpus: Path, old: str, new: str) -> None:
    meta = corpus / "sources.toml"
    text = meta.read_text(encoding="utf-8")
    assert old in text
    meta.write_text(text.replace(old, new, 1), encoding="utf-8")


def run_build(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "indexer", "build", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.server
@pytest.mark.parametrize("entry, message", [
    ('file = "../../../../etc/hostname"', "is not a file of the corpus folder"),
    ('file = "/etc/hostname"', "is not a file of the corpus folder"),
    ('file = "sub/../../worldwake-faq-zh-hant.txt"', "is not a file of the corpus folder"),
    ('file = "sub/worldwake-faq-zh-hant.txt"', "the file is missing"),
    ('languages = "bg"', "languages must be a list of strings"),
    ('languages = ["tlh"]', "unknown language 'tlh'"),
    ('title = 7', "title must be a string, not int"),
])
def test_a_wrong_entry_is_one_clear_error(corpus, tmp_path, entry, message):
    key = entry.split(" = ")[0]
    text = (corpus / "sources.toml").read_text(encoding="utf-8")
    old = next(line for line in text.splitlines() if line.startswith(f"{key} = "))
    set_entry(corpus, old, entry)
    with pytest.raises(CorpusError, match=message):
        load_sources(corpus)
    result = run_build("--index-root", str(tmp_path / "index"), str(corpus))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and message in result.stderr
    assert not (tmp_path / "index" / "CURRENT").exists()


def test_a_link_out_of_the_corpus_folder_is_not_read(corpus):
    (corpus / "worldwake-faq-zh-hant.txt").unlink()
    (corpus / "worldwake-faq-zh-hant.txt").symlink_to("/etc/hostname")
    with pytest.raises(CorpusError, match="is not a file of"):
        load_sources(corpus)


@pytest.mark.server
def test_a_bad_glossary_is_one_clear_error(corpus, tmp_path, monkeypatch):
    glossary = tmp_path / "glossary.tsv"
    glossary.write_bytes(b"\xff\xfe not a glossary")
    script = ("import sys; from pathlib import Path; import indexer.documents.ingest as i; "
              f"i.GLOSSARY = Path({str(glossary)!r}); import indexer.search.build as b; b.GLOSSARY = i.GLOSSARY; "
              "from indexer.__main__ import main; sys.exit(main(sys.argv[1:]))")
    result = subprocess.run([sys.executable, "-c", script, "build", "--index-root", str(tmp_path / "index"),
                             str(corpus)], cwd=ROOT, capture_output=True, text=True, timeout=600,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 1, result.stdout
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("error: ") and "glossary" in result.stderr.lower()


def test_two_builds_at_once_take_turns(corpus, tmp_path):
    root = tmp_path / "index"
    outcomes, errors = [], []

    def one():
        try:
            outcomes.append(build([corpus], root=root, force=True))
        except Exception as exc:  # noqa: BLE001 - the test reports whatever a racing build raised
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len({outcome.folder for outcome in outcomes}) == 2  # forced: both built, in turn
    assert current_folder(root) in {outcome.folder for outcome in outcomes}

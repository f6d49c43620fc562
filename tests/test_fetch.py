"""Adding a newly published rules edition: `python -m indexer fetch URL|FILE`, served by a
local HTTP server (never the internet), into a copy of the corpus."""
import functools
import http.server
import threading

import pytest

from corpus_support import copy_corpus
from indexer.documents.corpus import load_sources
from indexer.documents.fetch import FetchError, fetch
from indexer.documents.ingest import DEFAULT_CORPUS, ingest
from mtgrules.commands import main

SHIPPED = DEFAULT_CORPUS / "rules" / "MagicCompRules-2009-07-11.txt"


@pytest.fixture
def server(tmp_path):
    """A loopback HTTP server over tmp_path/www on a free port; yields its base URL."""
    www = tmp_path / "www"
    www.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(www))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", www
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def corpus(tmp_path):
    """A corpus of one document and no rules edition."""
    return copy_corpus(("worldwake-faq",), tmp_path / "corpus")


def test_fetch_from_a_url_stores_the_file_byte_for_byte_and_declares_it(server, corpus, capsys):
    base, www = server
    (www / "download (1).txt").write_bytes(SHIPPED.read_bytes())
    assert main(["fetch", f"{base}/download%20(1).txt", "--corpus", str(corpus)]) == 0
    assert "added" in capsys.readouterr().out
    stored = corpus / "rules" / "MagicCompRules-2009-07-11.txt"
    assert stored.read_bytes() == SHIPPED.read_bytes()
    entry = next(s for s in load_sources(corpus) if s.id == "cr-2009-07-11")
    assert (entry.family, entry.edition, entry.languages) == ("comprehensive-rules", "2009-07-11", ("en",))
    assert entry.urls == (f"{base}/download%20(1).txt",) and entry.publisher == "Wizards of the Coast"
    result = ingest([corpus])
    assert result.errors == [] and "cr-2009-07-11" in result.sources


def test_fetching_the_same_file_again_changes_nothing(server, corpus):
    base, www = server
    (www / "cr.txt").write_bytes(SHIPPED.read_bytes())
    first = fetch(f"{base}/cr.txt", corpus)
    metadata = (corpus / "sources.toml").read_text(encoding="utf-8")
    again = fetch(str(SHIPPED), corpus)
    assert first.added and not again.added and again.path == first.path
    assert (corpus / "sources.toml").read_text(encoding="utf-8") == metadata


def test_a_different_file_for_a_held_edition_is_refused(corpus, tmp_path):
    fetch(str(SHIPPED), corpus)
    changed = tmp_path / "changed.txt"
    changed.write_bytes(SHIPPED.read_bytes().replace(b"Deathtouch", b"Deathtuoch", 1))
    with pytest.raises(FetchError, match="already has a different file for edition 2009-07-11"):
        fetch(str(changed), corpus)


@pytest.mark.parametrize("path, data, message", [
    ("notes.txt", b"Some notes about the game\n", "not a Comprehensive Rules file"),
    ("missing.txt", None, "404"),
])
def test_what_is_not_a_rules_file_leaves_the_corpus_unchanged(server, corpus, path, data, message, capsys):
    base, www = server
    if data is not None:
        (www / path).write_bytes(data)
    metadata = (corpus / "sources.toml").read_text(encoding="utf-8")
    assert main(["fetch", f"{base}/{path}", "--corpus", str(corpus)]) == 1
    assert message in capsys.readouterr().err
    assert (corpus / "sources.toml").read_text(encoding="utf-8") == metadata
    assert not (corpus / "rules").exists()


def test_a_broken_rules_file_is_refused_naming_its_line(corpus, tmp_path):
    broken = tmp_path / "broken.txt"
    broken.write_bytes(SHIPPED.read_bytes()[:200])
    with pytest.raises(FetchError, match="broken.txt"):
        fetch(str(broken), corpus)
    assert not (corpus / "rules").exists()

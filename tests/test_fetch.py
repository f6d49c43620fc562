"""Adding a newly published rules edition: `python -m indexer fetch URL|FILE`, served by a
local HTTP server (never the internet), into a copy of the corpus."""
import functools
import http.server
import os
import re
import threading
import time

import pytest
from corpus_support import copy_corpus

from indexer.documents import fetch as fetch_module
from indexer.documents.corpus import load_sources
from indexer.documents.fetch import FetchError, fetch
from indexer.documents.ingest import DEFAULT_CORPUS, ingest
from mtgrules.commands import main

SHIPPED = DEFAULT_CORPUS / "rules" / "MagicCompRules-2009-07-11.txt"

# How often a test server looks whether it is to stop: at the default half second, stopping
# it took longer than most tests using it.
SHUTDOWN_POLL = 0.02


@pytest.fixture
def server(tmp_path):
    """A loopback HTTP server over tmp_path/www on a free port; yields its base URL."""
    www = tmp_path / "www"
    www.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(www))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": SHUTDOWN_POLL}, daemon=True)
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
    with pytest.raises(FetchError, match=r"broken\.txt"):
        fetch(str(broken), corpus)
    assert not (corpus / "rules").exists()


# --- whatever it is given (a loopback server that misbehaves on purpose) -------------------

class Misbehaving(http.server.BaseHTTPRequestHandler):
    """Answers by path: /short (fewer bytes than its Content-Length), /endless (no length,
    never stops), /big (a Content-Length over the bound), /trickle (a byte at a time),
    /slow-head (its headers a byte at a time), anything else the shipped rules file."""

    protocol_version = "HTTP/1.1"
    data = SHIPPED.read_bytes()

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = self.path
        try:
            if path == "/slow-head":
                for byte in b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n" * 50:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(0.02)
                return
            self.send_response(200)
            if path == "/short":
                self.send_header("Content-Length", str(len(self.data)))
                self.end_headers()
                self.wfile.write(self.data[: len(self.data) // 2])
            elif path == "/big":
                self.send_header("Content-Length", str(10 ** 12))
                self.end_headers()
                self.wfile.write(self.data[:1000])
            elif path == "/endless":
                self.send_header("Connection", "close")
                self.end_headers()
                while True:
                    self.wfile.write(b"x" * 65536)
            elif path == "/trickle":
                self.send_header("Content-Length", str(len(self.data)))
                self.end_headers()
                for byte in self.data:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(0.02)
            else:
                self.send_header("Content-Length", str(len(self.data)))
                self.end_headers()
                self.wfile.write(self.data)
        except OSError:  # the client gave up, as it should
            pass


@pytest.fixture
def misbehaving():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Misbehaving)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": SHUTDOWN_POLL}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def refused(location: str, corpus, match: str, within: float = 10.0) -> float:
    """Fetch `location`, which must be refused with `match` within `within` s, leaving the
    corpus as it was; the seconds it took."""
    metadata = (corpus / "sources.toml").read_bytes()
    outcome: list = []

    def run():
        try:
            outcome.append(fetch(location, corpus))
        except FetchError as exc:
            outcome.append(exc)

    started = time.monotonic()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(within)
    took = time.monotonic() - started
    assert not thread.is_alive(), f"{location} still being read after {within} s"
    [error] = outcome
    assert isinstance(error, FetchError) and re.search(match, str(error)), error
    assert (corpus / "sources.toml").read_bytes() == metadata and not (corpus / "rules").exists()
    return took


@pytest.mark.parametrize("url", ['/a"b.txt', '/cr.txt?x="1"&y=\\z#\'', "/cr%20%22.txt"])
def test_a_url_with_quotes_or_backslashes_round_trips_through_the_metadata(misbehaving, corpus, url):
    header = (corpus / "sources.toml").read_text(encoding="utf-8").split("[[source]]")[0]
    fetch(misbehaving + url, corpus)
    text = (corpus / "sources.toml").read_text(encoding="utf-8")
    assert text.startswith(header)  # the documented header and the entries before are kept as written
    entry = next(s for s in load_sources(corpus) if s.id == "cr-2009-07-11")
    assert entry.urls == (misbehaving + url,)


def test_a_body_shorter_than_its_content_length_is_refused(misbehaving, corpus):
    refused(misbehaving + "/short", corpus, r"cut short \(\d+ bytes of the \d+")


@pytest.mark.parametrize("path", ["/big", "/endless"])
def test_a_body_over_the_bound_is_refused_without_reading_it_all(misbehaving, corpus, path):
    refused(misbehaving + path, corpus, "larger than", within=10)


@pytest.mark.parametrize("path", ["/trickle", "/slow-head"])
def test_a_trickling_server_is_cut_at_the_total_deadline(misbehaving, corpus, monkeypatch, path):
    monkeypatch.setattr(fetch_module, "TIMEOUT_SECONDS", 1.0)
    took = refused(misbehaving + path, corpus, r"not downloaded within 1 s", within=10)
    assert took < 3, f"cut after {took:.2f} s for a 1 s deadline"
    print(f"{path}: cut after {took:.2f} s (deadline 1 s)")


def test_a_file_over_the_bound_is_refused(corpus, tmp_path, monkeypatch):
    monkeypatch.setattr(fetch_module, "MAX_DOCUMENT_BYTES", 1000)
    refused(str(SHIPPED), corpus, "larger than 1000 bytes")


def test_dev_zero_is_refused_at_once(corpus):
    took = refused("/dev/zero", corpus, "not a regular file", within=5)
    print(f"/dev/zero: refused in {took:.3f} s")


def test_a_fifo_is_refused_without_waiting_for_a_writer(corpus, tmp_path):
    fifo = tmp_path / "rules.txt"
    os.mkfifo(fifo)
    took = refused(str(fifo), corpus, "not a regular file", within=5)
    print(f"FIFO: refused in {took:.3f} s")


@pytest.mark.parametrize("stated, match", [
    (b"February 31, 2027", "the effective date 2027-02-31 is not a day of the calendar"),
    (b"Smarch 3, 2027", "no effective date"),
])
def test_an_effective_date_that_does_not_exist_is_refused_naming_its_line(corpus, tmp_path, stated, match):
    bad = tmp_path / "cr.txt"
    bad.write_bytes(SHIPPED.read_bytes().replace(b"July 11, 2009", stated, 1))
    refused(str(bad), corpus, (r"cr\.txt:3: " if b"31" in stated else r"cr\.txt(:1)?: ") + match)

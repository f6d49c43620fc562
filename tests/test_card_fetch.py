"""`mtgrules fetch cards` against a local server in Scryfall's shapes (never the internet): the
bulk-data list, Oracle Cards and All Cards gzipped as Scryfall sends them, Rulings; and the
ways a download goes wrong (a 404, an HTML error page, a body cut short, a wrong size, a server
that trickles), each an error naming the file while the cards kept before stay as they were."""
from __future__ import annotations

import gzip
import http.server
import json
import threading
import time

import pytest
from corpus_support import SCRYFALL

from indexer.documents import card_fetch, scryfall
from indexer.documents.fetch import FetchError
from indexer.documents.ingest import ingest
from mtgrules.commands import main


def _fixture(name: str) -> list[dict]:
    return json.loads((SCRYFALL / name).read_text(encoding="utf-8"))


def _all_cards() -> bytes:
    """All Cards as Scryfall writes it: every printing in every language, one a line."""
    cards = _fixture("oracle-cards.json") + _fixture("chinese-printings.json")
    german = {**_fixture("oracle-cards.json")[0], "lang": "de", "printed_name": "Akki-Lavaläufer"}
    return ("[\n" + ",\n".join(json.dumps(c, ensure_ascii=False) for c in [*cards, german]) + "\n]\n").encode()


class _Site:
    """What the server answers, by path: (status, headers, body, bytes per second or None)."""

    def __init__(self):
        self.routes: dict[str, tuple[int, dict, bytes, float | None]] = {}
        self.requests: list[dict] = []
        self.base = ""

    def bulk_list(self, sizes: dict[str, int] | None = None) -> None:
        files = {"oracle_cards": ("oracle.json.gz", (SCRYFALL / "oracle-cards.json").read_bytes(), True),
                 "rulings": ("rulings.json", (SCRYFALL / "rulings.json").read_bytes(), False),
                 "all_cards": ("all.json.gz", _all_cards(), True)}
        data = []
        for kind, (name, body, packed) in files.items():
            sent = gzip.compress(body) if packed else body
            headers = {"Content-Type": "application/json", **({"Content-Encoding": "gzip"} if packed else {})}
            self.routes[f"/files/{name}"] = (200, headers, sent, None)
            data.append({"object": "bulk_data", "id": f"id-{kind}", "type": kind, "name": kind,
                         "download_uri": f"{self.base}/files/{name}", "content_type": "application/json",
                         "content_encoding": "gzip", "size": (sizes or {}).get(kind, len(body)),
                         "updated_at": "2026-12-06T10:00:00.000+00:00"})
        body = json.dumps({"object": "list", "has_more": False, "data": data}).encode()
        self.routes["/bulk-data"] = (200, {"Content-Type": "application/json"}, body, None)


@pytest.fixture
def site():
    state = _Site()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            state.requests.append({"path": self.path, **{k.lower(): v for k, v in self.headers.items()}})
            status, headers, body, rate = state.routes.get(self.path, (404, {"Content-Type": "text/html"},
                                                                       b"<html>Not Found</html>", None))
            self.send_response(status)
            length = headers.pop("X-Claimed-Length", None)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(length or len(body)))
            self.end_headers()
            if rate is None:
                self.wfile.write(body)
                return
            try:
                for at in range(0, len(body), 16):
                    self.wfile.write(body[at:at + 16])
                    self.wfile.flush()
                    time.sleep(16 / rate)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up: what the test asks of it

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    state.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    state.bulk_list()
    yield state
    httpd.shutdown()
    httpd.server_close()


def _kept(folder) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_every_card_its_rulings_and_its_chinese_printings_are_kept(site, tmp_path, capsys):
    folder = tmp_path / "cards"
    assert main(["fetch", "cards", "--to", str(folder), "--bulk-data", f"{site.base}/bulk-data"]) == 0
    out = capsys.readouterr().out
    oracle, rulings, chinese = (_fixture(n) for n in ("oracle-cards.json", "rulings.json", "chinese-printings.json"))
    assert f"kept {len(oracle)} cards, {len(rulings)} rulings" in out
    assert sorted(_kept(folder)) == sorted(card_fetch.FILES.values())
    assert json.loads((folder / "oracle-cards.json").read_bytes()) == oracle  # decoded, as sent
    kept = json.loads((folder / "chinese-printings.json").read_bytes())
    assert len(kept) == len(chinese) and {c["lang"] for c in kept} == {"zhs", "zht"}
    assert all(set(c) <= {*card_fetch.PRINTING_FIELDS, "card_faces"} for c in kept)
    # Scryfall asks API clients to name themselves and say what they accept.
    assert all(r["user-agent"] == card_fetch.USER_AGENT and r["accept"] == card_fetch.ACCEPT for r in site.requests)
    result = ingest([folder])
    cards = [r for r in result.records if r.source == scryfall.SOURCE]
    assert not result.errors and len(cards) == len(oracle)
    assert sum("zh_hans" in r.names for r in cards) == len({c["oracle_id"] for c in chinese if c["lang"] == "zhs"})


def _break(site, path: str, status: int = 200, headers: dict | None = None, body: bytes = b"", rate=None):
    site.routes[path] = (status, headers or {"Content-Type": "application/json"}, body, rate)


@pytest.mark.parametrize(("damage", "message"), [
    ("404", r"rulings\.json: the server answered 404"),
    ("html", r"oracle\.json\.gz: not a Scryfall bulk file \(it starts '<!doctype html>"),
    ("cut", r"all\.json\.gz: (cut short|cannot be downloaded)"),
    ("size", r"rulings\.json: \d+ bytes where the bulk-data list says 12345"),
    ("list", r"bulk-data: not Scryfall's bulk-data list"),
])
def test_a_broken_download_names_what_went_wrong_and_keeps_the_cards_before(site, tmp_path, damage, message):
    folder = tmp_path / "cards"
    card_fetch.fetch_cards(folder, f"{site.base}/bulk-data")
    before = _kept(folder)
    if damage == "404":
        site.routes.pop("/files/rulings.json")
    elif damage == "html":
        _break(site, "/files/oracle.json.gz", headers={"Content-Type": "text/html"},
               body=b"<!doctype html><html><body>503 Service Unavailable</body></html>")
    elif damage == "cut":
        _, headers, body, _ = site.routes["/files/all.json.gz"]
        _break(site, "/files/all.json.gz", headers={**headers, "X-Claimed-Length": str(len(body))},
               body=body[: len(body) // 2])
    elif damage == "size":
        site.bulk_list({"rulings": 12345})
    else:
        _break(site, "/bulk-data", body=b"<html>rate limited</html>")
    with pytest.raises(FetchError, match=message):
        card_fetch.fetch_cards(folder, f"{site.base}/bulk-data")
    assert _kept(folder) == before
    assert [p.name for p in tmp_path.iterdir()] == ["cards"]  # nothing half-written beside it


def test_a_trickling_server_is_cut_at_the_deadline(site, tmp_path):
    _, headers, body, _ = site.routes["/files/rulings.json"]
    _break(site, "/files/rulings.json", headers=headers, body=body, rate=2000)
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"not downloaded within 2 s"):
        card_fetch.fetch_cards(tmp_path / "cards", f"{site.base}/bulk-data", seconds=2)
    assert time.monotonic() - started < 10
    assert not (tmp_path / "cards").exists()


def test_the_command_says_what_went_wrong(site, tmp_path, capsys):
    site.routes.pop("/files/all.json.gz")
    assert main(["fetch", "cards", "--to", str(tmp_path / "c"), "--bulk-data", f"{site.base}/bulk-data"]) == 1
    assert "all.json.gz: the server answered 404" in capsys.readouterr().err

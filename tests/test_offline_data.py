"""The offline copy as served: made in each coding when the index is built, then sent as the
client accepts it (no compression per request), with one validator whatever the coding."""
from __future__ import annotations

import base64
import gzip
import json

import brotli
import numpy as np
import pytest

from indexer.knowledge import meanings, statements
from indexer.knowledge.meanings import WordVectors
from indexer.knowledge.questions import vocabulary
from indexer.search.build import current_folder
from webapp import create_app, offline_copy
from webapp.compression import zstd


@pytest.fixture(scope="module")
def offline_client(offline_index):
    app = create_app({"TESTING": True, "INDEX_ROOT": offline_index})
    app.folder = current_folder(offline_index)
    return app.test_client()


def test_the_build_writes_the_copy_in_each_coding(offline_client):
    folder = offline_client.application.folder
    raw = (folder / offline_copy.FILE).read_bytes()
    assert json.loads(raw)["format"] == offline_copy.FORMAT
    assert brotli.decompress((folder / offline_copy.ENCODED["br"]).read_bytes()) == raw
    assert gzip.decompress((folder / offline_copy.ENCODED["gzip"]).read_bytes()) == raw
    assert zstd.decompress((folder / offline_copy.ENCODED["zstd"]).read_bytes()) == raw
    meta = offline_client.get("/api/offline").get_json()
    assert meta["bytes"] == len(raw) and meta["br_bytes"] < meta["gzip_bytes"] < len(raw)


@pytest.mark.parametrize("header, coding", [
    ("gzip, deflate, br, zstd", "br"), ("br", "br"), ("gzip", "gzip"), ("br;q=0, gzip", "gzip"),
    ("gzip;q=0", None), ("zstd", "zstd"), ("identity", None), ("", None), ("br;q=0.5, gzip", "gzip"),
])
def test_the_copy_is_sent_as_built_in_the_coding_the_client_accepts(offline_client, header, coding):
    folder = offline_client.application.folder
    response = offline_client.get("/api/offline/data", headers={"Accept-Encoding": header} if header else {})
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert response.headers.get("Content-Encoding") == coding
    name = offline_copy.ENCODED[coding] if coding else offline_copy.FILE
    assert response.data == (folder / name).read_bytes()
    assert "accept-encoding" in response.vary.as_set()
    assert response.headers["ETag"].startswith(f'W/"{folder.name}.')
    again = offline_client.get("/api/offline/data", headers={"Accept-Encoding": header,
                                                             "If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304 and not again.data


def test_the_copy_reads_questions_by_the_servers_data_files(offline_client):
    """The question forms and players' words the copy ships are the data files' as the server
    reads them (`questions.vocabulary`), made at each build: an edit of the files needs no
    second copy."""
    questions = json.loads((offline_client.application.folder / offline_copy.FILE).read_bytes())["questions"]
    words = vocabulary()
    assert questions["forms"] == {form: list(asks) for form, asks in words.asks.items()}
    assert questions["means"] == {word: list(means) for word, means in words.means.items()}
    assert questions["forms"]["谁来"] and "bounce" in questions["means"]
    # The statements' BM25 constants are the server's (`statements`), with today's rules' mean
    # statement length where the build has today's rules.
    assert (questions["statements"]["k1"], questions["statements"]["b"]) == (statements.K1, statements.B)
    assert questions["statements"]["mean_length"] > 0


def test_the_build_writes_the_meaning_vectors_beside_the_copy(offline_client):
    """The words' meaning vectors a phone ranks a question with: the server's table's words,
    weights and word-by-word directions (`WordVectors.near`), each vector as 8-bit integers
    that come back within a rounding of the server's, in every coding as built."""
    folder = offline_client.application.folder
    raw = (folder / offline_copy.MEANINGS_FILE).read_bytes()
    for coding, decompress in (("br", brotli.decompress), ("gzip", gzip.decompress), ("zstd", zstd.decompress)):
        assert decompress((folder / offline_copy.MEANINGS_ENCODED[coding]).read_bytes()) == raw
    data = json.loads(raw)
    table = WordVectors()
    assert data["index"] == folder.name and data["words"] == table.words
    assert data["dimensions"] == meanings.NEAR_DIMENSIONS == table.near.shape[1]
    assert np.allclose(data["weights"], table.weights, rtol=1e-3)
    ints = np.frombuffer(base64.b64decode(data["vectors"]), np.int8).reshape(len(data["words"]), -1).astype(np.float32)
    ints /= np.linalg.norm(ints, axis=1, keepdims=True)
    assert np.einsum("ij,ij->i", ints, table.near).min() > 0.999
    meta = offline_client.get("/api/offline").get_json()
    gzipped = (folder / offline_copy.MEANINGS_ENCODED["gzip"]).stat().st_size
    assert meta["meanings"] == {"bytes": len(raw), "gzip_bytes": gzipped}


def test_the_meaning_vectors_are_sent_only_for_the_build_asked_for(offline_client):
    folder = offline_client.application.folder
    for asked in (f"?index={folder.name}", ""):
        response = offline_client.get("/api/offline/meanings" + asked, headers={"Accept-Encoding": "br"})
        assert response.status_code == 200 and response.headers["Content-Encoding"] == "br"
        assert response.data == (folder / offline_copy.MEANINGS_ENCODED["br"]).read_bytes()
        assert response.headers["Cache-Control"] == "no-cache"
    other = offline_client.get("/api/offline/meanings?index=20200101T000000-000000000000")
    assert other.status_code == 404 and other.mimetype == "application/json"
    assert "another build" in other.get_json()["error"]["message"]


def test_the_worker_keeps_the_shell_in_each_script_and_it_sets_no_cookie(offline_client):
    """The worker precaches /offline?script=hant and ?script=hans: each in its own script's
    words, and neither fetch may set the reader's script (the next page would be in it)."""
    worker = offline_client.get("/sw.js").text
    assert '"url": "/offline?script=hant"' in worker and '"url": "/offline?script=hans"' in worker
    for script, name, search in (("hant", "萬智牌規則查詢", "搜尋"), ("hans", "万智牌规则查询", "搜索")):
        shell = offline_client.get(f"/offline?script={script}")
        assert f'data-script="{script}"' in shell.text and name in shell.text and search in shell.text
        assert "Set-Cookie" not in shell.headers
    page = offline_client.get("/rules/100?script=hans")
    assert page.headers["Set-Cookie"].startswith("script=hans")

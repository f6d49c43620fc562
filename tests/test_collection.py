"""The garbage collector's older generations are collected between a worker's requests, never
inside one (webapp/collection.py, `webapp.serving.Worker`): gunicorn's request handling over a
socket pair, with an app that allocates enough to start many young collections."""
from __future__ import annotations

import gc
import json
import socket
import subprocess
import sys
import time

import pytest
from worker_support import Listener, worker_of

from webapp import collection

# Objects a request keeps until it answers: enough for dozens of young collections.
KEPT = 50_000


def allocating_app(environ, start_response):
    kept = [[n] for n in range(KEPT)]
    body = str(len(kept)).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]


@pytest.fixture
def collector():
    """Python's collector as a worker sets it, restored after."""
    thresholds = gc.get_threshold()
    gc.collect()
    collection.collect_older_between_requests()
    yield
    gc.set_threshold(*thresholds)


@pytest.fixture
def worker():
    with worker_of(allocating_app) as worker:
        yield worker


def collections() -> list[int]:
    return [generation["collections"] for generation in gc.get_stats()]


def test_only_the_youngest_generation_is_collected_inside_a_request(collector):
    before = collections()
    kept = [[n] for n in range(KEPT)]
    during = collections()
    assert len(kept) == KEPT
    assert during[0] - before[0] >= collection.YOUNG_PER_MIDDLE  # young collections happened
    assert during[1:] == before[1:]  # and no older one, whatever the counts
    assert gc.get_count()[1] >= collection.YOUNG_PER_MIDDLE


def test_between_requests_collects_the_generation_whose_turn_has_come(collector):
    kept = [[n] for n in range(KEPT)]
    assert len(kept) and gc.get_count()[1] >= collection.YOUNG_PER_MIDDLE
    before = collections()
    collection.between_requests()
    after = collections()
    assert after[1] == before[1] + 1 and after[2] == before[2]
    assert gc.get_count()[1] == 0
    collection.between_requests()  # nothing's turn: nothing collected
    assert collections() == after
    for _ in range(collection.MIDDLE_PER_FULL):
        gc.collect(1)
    collection.between_requests()
    assert collections()[2] == after[2] + 1 and gc.get_count()[2] == 0


def test_the_worker_collects_the_older_generations_after_the_request_not_during_it(collector, worker):
    server, client = socket.socketpair()
    try:
        client.sendall(b"GET / HTTP/1.1\r\nHost: kb\r\n\r\n")
        seen = {}

        def app(environ, start_response):
            answer = allocating_app(environ, start_response)
            seen["during"] = collections()
            return answer

        worker.wsgi = app
        before = collections()
        worker.handle(Listener(), server, ("127.0.0.1", 40000))
        after = collections()
        client.settimeout(5)
        assert client.recv(65536).startswith(b"HTTP/1.1 200 OK")
    finally:
        server.close()
        client.close()
    assert seen["during"][0] > before[0] and seen["during"][1:] == before[1:]
    assert after[1] == before[1] + 1 and gc.get_count()[1] == 0


THRESHOLD_APP = '''
import gc, json

def app(environ, start_response):
    body = json.dumps(gc.get_threshold()).encode()
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]
'''


def test_a_gunicorn_worker_leaves_only_the_youngest_generation_to_python(tmp_path):
    """gunicorn itself, with the worker: the app inside it sees the older generations' thresholds
    out of reach and the youngest's as Python's."""
    (tmp_path / "threshold_app.py").write_text(THRESHOLD_APP, encoding="utf-8")
    address = tmp_path / "app.sock"
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "--worker-class", "webapp.serving.Worker",
                               "--workers", "1", "--bind", f"unix:{address}", "--chdir", str(tmp_path),
                               "threshold_app:app"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        answer = b""
        deadline = time.monotonic() + 30
        while not answer and time.monotonic() < deadline:
            try:
                with socket.socket(socket.AF_UNIX) as client:
                    client.connect(str(address))
                    client.sendall(b"GET / HTTP/1.1\r\nHost: kb\r\n\r\n")
                    client.settimeout(10)
                    while chunk := client.recv(65536):
                        answer += chunk
            except OSError:
                time.sleep(0.2)
    finally:
        server.terminate()
        server.wait(timeout=30)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), answer
    assert json.loads(body) == [gc.get_threshold()[0], collection.NEVER, collection.NEVER]

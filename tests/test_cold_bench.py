"""The cold benchmark's harness (benchmarks/cold.py) on the documents, with few queries: each of
its three servers (the real app, the naive peer and the engine alone) answers every query
once, without a failure, and the report names them all and the floor beside the goals. The
figures themselves are the benchmark's, not the tests' (docs/benchmarks.md).

Like the benchmark, it asks through wrk (Debian's package), and skips without it. The stage
timer of benchmarks.stages times each stage inside the one it runs in, and leaves the code as
it found it. The workers' own figures (benchmarks.worker_profile) count every query asked and
nothing else, each part within the one holding it.
"""
from __future__ import annotations

import shutil

import pytest

from benchmarks import cold, stages, worker_profile
from benchmarks.corpora import documents_only
from indexer.documents.ingest import DEFAULT_CORPUS
from indexer.knowledge.library import Library
from indexer.search.build import current_folder

needs_wrk = pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk is not installed (apt-get install wrk)")

QUERIES = 48


@needs_wrk
@pytest.mark.server
def test_every_server_answers_every_query_once(tmp_path):
    corpus = documents_only(DEFAULT_CORPUS, tmp_path / "documents")
    measured = cold.measure_corpus([corpus], tmp_path / "work", QUERIES, connections=4)
    assert measured["queries"] == QUERIES
    for table in ("cold", "again", "ceiling"):
        assert set(measured[table]) == set(cold.TARGETS)
    for name in cold.TARGETS:
        figures = measured["cold"][name]
        assert (figures["requests"], figures["failed"]) == (QUERIES, 0), name
        assert figures["server_cpu"] > 0 and figures["rps"] > 0, name


def test_the_report_gives_the_floor_beside_the_goals(monkeypatch):
    figures = {"requests": 10, "rps": 100.0, "p50": 0.01, "p90": 0.02, "p99": 0.03, "max": 0.04, "failed": 0,
               "client_cpu": 0.0002, "server_cpu": 0.002}
    measured = {"records": 548, "queries": 10, "turns": 1, "inprocess": (0.001, 0.004, 0.005),
                **{table: {name: dict(figures, rps=rps) for name, rps in (("real app", 150.0), ("naive peer", 100.0),
                                                                           ("engine alone", 400.0))}
                   for table in ("cold", "again", "ceiling")}}
    monkeypatch.setattr(cold, "measure_corpus", lambda *args: measured)
    text = cold.report([DEFAULT_CORPUS], count=10, with_rules=False)
    assert "| documents (548 records) | engine alone | 10 | 400 |" in text
    assert "real / naive = **1.50×** (150 / 100) | **yes** |" in text
    assert "engine alone / naive = 4.00× (400 / 100)" in text


def test_the_stages_are_timed_inside_their_request_and_unwrapped_after(small_index):
    originals = [owner.__dict__[name] for _, owner, name, _ in stages.STAGES]
    with stages.timed_stages() as seconds:
        library = Library(current_folder(small_index))
        try:
            library.search("persist")
        finally:
            library.close()
    assert [owner.__dict__[name] for _, owner, name, _ in stages.STAGES] == originals
    assert 0 < seconds["engine scoring"] <= seconds["ranking"] <= seconds["Library.search"]
    assert 0 < seconds["snippets"] <= seconds["result records"] <= seconds["Library.search"]
    text = stages.report(small_index, count=20)
    assert "| WSGI /api/search (all of it) |" in text and "|       snippets |" in text


@needs_wrk
@pytest.mark.server
def test_the_workers_count_every_query_and_nothing_else(small_index):
    measured = worker_profile.measure(small_index, QUERIES)
    assert measured["requests"] == QUERIES  # neither the warm-up nor /healthz
    assert measured["process"] >= measured["handling"] >= measured["app"] > 0
    assert measured["in_process"] > 0
    parts = {label.strip(): worker_profile.share(measured["stats"], suffix, name)
             for label, suffix, name in worker_profile.PARTS}
    assert 0 < parts["Library.search"] < parts["the search view"] < parts["the app's WSGI call (Flask)"]
    # Most of a request's handling is the app's; cProfile charges its own overhead unevenly
    # between a caller and the calls it times, so the share can read a little above 1.
    assert 0.5 < parts["the app's WSGI call (Flask)"] < 1.1
    assert parts["gunicorn: reading and parsing the request"] > 0 and parts["gunicorn: writing the answer"] > 0

"""A worker's warm-up (`webapp.warming`): every page it asks answers, and its long questions are
searched whole, so that their arrays are as large as a reader's longest question makes them."""
from __future__ import annotations

import logging
import subprocess
import sys

from indexer.search.query import MAX_QUERY_CHARS, parse_query
from webapp import warming


def test_every_warm_up_answers_without_an_error(app, caplog, monkeypatch):
    asked = []
    monkeypatch.setattr(warming, "keep_heap", lambda: asked.append(("keep_heap", None)))
    client_of = app.test_client

    def recording_client():
        client = client_of()
        opened = client.open

        def open_(address, **kwargs):
            response = opened(address, **kwargs)
            asked.append((address, response.status_code))
            return response
        client.open = open_
        return client
    app.test_client = recording_client
    try:
        with caplog.at_level(logging.ERROR):
            warming.warm(app)
    finally:
        del app.test_client
    assert not [r for r in caplog.records if "warming up" in r.getMessage()]
    # (this app's corpus has no rules file: the rule page's answer is its 404 page)
    assert asked.pop() == ("keep_heap", None)  # last: above what the asks left in the heap
    assert len(asked) == 3 + len(warming.LONG_QUESTIONS) and all(status < 500 for _, status in asked), asked
    searched = [status for address, status in asked if address.startswith("/?q=")]
    assert searched == [200] * (1 + len(warming.LONG_QUESTIONS))


def test_the_long_questions_are_searched_whole():
    for question in warming.LONG_QUESTIONS:
        assert len(question) <= MAX_QUERY_CHARS
        assert parse_query(question).left_out == []
    assert max(len(q.split()) for q in warming.LONG_QUESTIONS) >= 60


FAULTS = """
import resource, sys
import numpy as np
from webapp import warming
if sys.argv[1] == "kept":
    warming.keep_heap()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for share in (0.5, 0.15, 0.8):  # arrays of new sizes, as a long question's, within the heap kept
    np.ones(int(warming.HEAP_KEPT * share) // 8)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def test_a_kept_heap_gives_arrays_memory_already_touched():
    """Without the kept heap each new array size costs its pages again (a fault a page)."""
    def faults(mode: str) -> int:
        done = subprocess.run([sys.executable, "-c", FAULTS, mode], capture_output=True, text=True, check=True)
        return int(done.stdout)
    assert faults("kept") < 50 < 200 < faults("fresh")

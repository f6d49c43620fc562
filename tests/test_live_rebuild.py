"""Rebuilding the index while a real server answers: no request fails, no answer mixes two
indexes, and a failed build leaves the index in use serving.

A real gunicorn (two workers, the production entry point) serves a copy of corpus/'s
documents (without the rules editions, so that each build takes seconds) on a loopback port;
four clients query it continuously while the index is rebuilt from a copy with
one document changed and switched, then rebuilt from a copy with a broken document, which
fails (benchmarks/live_rebuild.py does the work; scripts/soak runs the same for 60 s with 16
clients). The run lasts as long as the builds take, about half a minute on two cores.
"""
from __future__ import annotations

import json

import pytest
from corpus_support import DOCUMENTS, copy_corpus

from benchmarks import live_rebuild
from benchmarks.live_rebuild import BROKEN_FILE

pytestmark = pytest.mark.server  # a real gunicorn serving while the index is rebuilt

CLIENTS = 4
SECONDS = 10


@pytest.fixture(scope="module")
def outcome(tmp_path_factory):
    work = tmp_path_factory.mktemp("live")
    documents = copy_corpus(DOCUMENTS, work / "documents")
    return live_rebuild.run(documents, work, clients=CLIENTS, seconds=SECONDS)


def test_no_request_fails_and_every_answer_comes_from_one_whole_index(outcome):
    assert outcome.problems == []
    figures = outcome.figures()
    assert figures["failed"] == 0
    assert figures["requests"] >= 100
    # Answers that tell the indexes apart were seen from both: the switch happened under load.
    assert outcome.seen["old"] > 0 and outcome.seen["new"] > 0


def test_the_probes_tell_the_two_corpora_apart(outcome):
    """The change (頌威 renamed 頌揚 in the keyword digest) shows in exalted's rule titles, and
    the server gave both versions during the run."""
    old, new = outcome.answers["old"], outcome.answers["new"]
    assert old["頌揚"][0] == 0 and new["頌揚"][0] >= 1  # the rule with its subrules is one result
    assert old["exalted"][3][0][1] == "702.80 頌威 / Exalted"
    assert new["exalted"][3][0][1] == "702.80 頌揚 / Exalted"
    assert old["留存"] == new["留存"]  # untouched documents answer the same
    served = {json.dumps(live_rebuild.projection(json.loads(o.body)), ensure_ascii=False)
              for o in outcome.observations if o.query == "exalted"}
    assert served == {json.dumps(old["exalted"], ensure_ascii=False), json.dumps(new["exalted"], ensure_ascii=False)}


def test_a_failed_build_says_why_and_the_new_index_keeps_serving(outcome):
    failed = [b for b in outcome.builds if not b["ok"]]
    assert len(failed) == 1
    broken = failed[0]
    assert broken["returncode"] == 1
    assert "index not rebuilt; the index in use is unchanged" in broken["stderr"]
    assert f"{BROKEN_FILE}:1: not valid UTF-8 at byte offset 0" in broken["stderr"]
    assert "Traceback" not in broken["stderr"]
    following = [b for b in outcome.builds if b["started"] > broken["ended"]]
    until = following[0]["ended"] if following else float("inf")
    after = [o for o in outcome.observations if broken["ended"] < o.started and o.started + o.seconds < until]
    assert len(after) >= 10
    kinds = [outcome.classify(o)[0] for o in after]
    assert all(kind and "new" in kind for kind in kinds), kinds

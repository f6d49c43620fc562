"""The ranking in named stages: each switched off by name, each pinned by the judged sets, and
each result's score explained stage by stage without changing the ranking.

Every stage of `stages.STAGES`, switched off, lowers a recorded rank of the judged queries or
the tuning questions' mean MRR@10 (sentences and terse): a stage no judged query depends on
fails here. `explain` (the library's, `/api/search?explain=1`, `mtgrules search --explain`)
gives the same results in the same order, and each explanation's stages sum to its score."""
from __future__ import annotations

import ast
import statistics
from pathlib import Path

import judged
import pytest

from indexer.knowledge.library import Library
from indexer.knowledge.settings import Settings, SettingsError
from indexer.knowledge.stages import NAMES, STAGES, Stages
from mtgrules.commands import cli

ROOT = Path(__file__).resolve().parents[1]
# Queries of each kind an explanation is checked on: a keyword, a card, a question, a rule
# number, a rule named among words, a phrase, Chinese in each script, an old term.
EXPLAINED = ("persist", "Murderous Redcap", "can a creature with deathtouch and trample assign damage to the player",
             "702.19b", "what is 613.4c", '"mana burn"', "留存", "踐踏是什麼意思", "法术力灼伤",
             "planeswalker uniqueness")


def test_each_stage_is_named_once_with_the_evidence_it_adds():
    assert len(NAMES) == len(set(NAMES))
    for stage in STAGES:
        assert stage.part in ("reading", "jump", "candidates", "bonuses", "question", "grouping"), stage
        assert stage.evidence and "\n" not in stage.evidence and len(stage.evidence) < 140, stage


def test_every_stage_is_read_by_the_code_that_runs_it():
    """A stage's name is a string the ranking code switches on (`stages.on`) or records (an
    explanation's step): none is only listed."""
    said: set[str] = set()
    for path in (ROOT / "indexer" / "knowledge").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                name = getattr(node.func, "attr", getattr(node.func, "id", ""))
                if name in ("on", "_record", "record", "recorded", "place", "without"):
                    said.add(node.args[0].value)
    assert set(NAMES) <= said, sorted(set(NAMES) - said)


def test_stages_are_switched_off_by_name_from_the_environment():
    assert Settings.from_env({}).stages == Stages()
    stages = Settings.from_env({"KB_STAGES_OFF": " meanings, siblings ,"}).stages
    assert stages.off == {"meanings", "siblings"} and not stages.on("meanings") and stages.on("share")
    with pytest.raises(SettingsError, match=r"KB_STAGES_OFF='meanings,nonsense': no stage named nonsense"):
        Settings.from_env({"KB_STAGES_OFF": "meanings,nonsense"})


def test_an_explanation_ranks_the_same_and_sums_to_its_score(library):
    for query in EXPLAINED:
        plain = library.search(query, limit=10)
        explained = library.search(query, limit=10, explain=True)
        assert [r["id"] for r in explained["results"]] == [r["id"] for r in plain["results"]], query
        assert all("explain" not in r for r in plain["results"])
        for result in explained["results"]:
            why = result["explain"]
            assert why["stages"] and {s["stage"] for s in why["stages"]} <= set(NAMES), why
            if why["score"] is None:  # placed by what the query names
                assert [s["stage"] for s in why["stages"]] in (["jump"], ["named_rules"]), why
            else:
                assert sum(s["score"] for s in why["stages"]) == pytest.approx(why["score"], abs=1e-3), why


def test_an_explanation_names_the_evidence_of_its_results(library):
    def stages_of(query: str, at: int = 0) -> dict[str, float | None]:
        why = library.search(query, limit=5, explain=True)["results"][at]["explain"]
        return {s["stage"]: s["score"] for s in why["stages"]}

    assert stages_of("persist")["keyword"] == 2.5
    assert stages_of("Murderous Redcap")["name"] == 3.0
    assert stages_of("702.30c") == {"jump": None}
    asked = stages_of("can a creature with deathtouch and trample assign damage to the player")
    assert {"candidates", "asks", "share"} <= set(asked)
    assert "keyword" not in stages_of("persist", 1)


def test_a_stage_switched_off_is_not_in_an_explanation_nor_in_the_score(small_index):
    from indexer.search.build import current_folder

    folder = current_folder(small_index)
    on, off = Library(folder), Library(folder, stages=Stages().without("keyword"))
    try:
        query = "persist"
        with_it, without = (lib.search(query, limit=10, explain=True)["results"] for lib in (on, off))
        assert any(s["stage"] == "keyword" for r in with_it for s in r["explain"]["stages"])
        assert not any(s["stage"] == "keyword" for r in without for s in r["explain"]["stages"])
        first = with_it[0]
        same = next(r for r in without if r["id"] == first["id"])
        assert first["explain"]["score"] - same["explain"]["score"] == pytest.approx(2.5)
    finally:
        on.close()
        off.close()


def test_the_api_and_the_command_line_explain(client, runner):
    found = client.get("/api/search?q=persist&explain=1").get_json()
    assert found["results"][0]["explain"]["stages"][0]["stage"] == "candidates"
    assert "explain" not in client.get("/api/search?q=persist").get_json()["results"][0]
    assert "explain" not in client.get("/api/search?q=persist&explain=0").get_json()["results"][0]
    wrong = client.get("/api/search?q=persist&explain=maybe")
    assert wrong.status_code == 400 and wrong.get_json()["error"]["message"] == "explain must be 1 or 0, not 'maybe'"
    printed = runner.invoke(cli, ["search", "--explain", "--limit", "1", "persist"]).output
    assert "    score " in printed and "      keyword            +2.5000" in printed


@pytest.fixture(scope="module")
def recorded():
    return judged.read_ranks()


@pytest.fixture(scope="module")
def tuning(kb_library):
    return statistics.mean(judged.whole_tuning_mrr(kb_library).values())


@pytest.fixture(scope="module")
def unanswered(kb_library):
    """The judged queries' ranks and the tuning parts' MRR@10 without the answered questions, which
    are the tuning parts' own questions: with them, each finds itself whatever another stage
    does, and they stand in for what other stages did for the judged queries."""
    library = Library(kb_library.folder, stages=Stages().without("answered"))
    try:
        return judged.found_ranks(judged.answers(library)), statistics.mean(judged.whole_tuning_mrr(library).values())
    finally:
        library.close()


# Stages whose evidence is card data, which the shipped corpus holds little of: each is held
# to the real players' questions on the knowledge base with their cards (test_named_cards.py).
WITH_CARD_DATA = ("named_cards",)


@pytest.mark.parametrize("name", [name for name in NAMES if name not in WITH_CARD_DATA])
def test_switching_a_stage_off_lowers_a_judged_rank_or_the_tuning_questions(kb_library, recorded, tuning, name,
                                                                             request):
    """A judged query ranks lower without the stage, or the tuning parts' mean MRR@10 falls:
    `answered` against the whole ranking and the recorded ranks, any other stage both
    without the answered questions (`unanswered`)."""
    if name == "answered":
        ranks, with_it, off = recorded, tuning, Stages().without(name)
    else:
        (ranks, with_it), off = request.getfixturevalue("unanswered"), Stages().without(name, "answered")
    library = Library(kb_library.folder, stages=off)
    try:
        if judged.drops(judged.found_ranks(judged.answers(library)), ranks):
            return
        without = statistics.mean(judged.whole_tuning_mrr(library).values())
    finally:
        library.close()
    assert without < with_it, f"nothing ranks lower without {name}: no judged query or question depends on it"
